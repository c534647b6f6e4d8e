// ACCD (C-IPC Algorithm 1): constructed hits and misses with known times of impact, offsets,
// degenerate starts, and randomized checks of its guarantees.
#include <gtest/gtest.h>

#include <random>

#include "ccd/accd.hpp"
#include "contact/distance_type.hpp"

using namespace weft;

namespace {

const Vec3 T0(-1, -1, 0), T1(3, -1, 0), T2(-1, 3, 0);  // large triangle in z = 0
const Vec3 Z = Vec3::Zero();

AccdParams with_s(double s, double t_max = 1.0) {
  AccdParams p;
  p.s = s;
  p.t_max = t_max;
  return p;
}

// For a head-on approach at speed v (= l_p) reaching the offset surface at t_star, ACCD
// stops with a gap in [g, 10 g): toi in (t_star - 10 g / v, t_star - g / v].
void expect_head_on(const CcdResult& r, double t_star, double g, double v) {
  ASSERT_TRUE(r.hit);
  EXPECT_FALSE(r.started_within_offset);
  EXPECT_LE(r.toi, t_star - g / v + 1e-12);
  EXPECT_GT(r.toi, t_star - 10.0 * g / v - 1e-12);
}

}  // namespace

TEST(Accd, PointFallsOntoTriangleAtKnownTime) {
  // z from 1 to -1: touches at t = 0.5. Centred displacements: l_p = 1.5 + 0.5 = 2.
  for (double s : {0.1, 1e-3, 1e-6}) {
    const CcdResult r = point_triangle_accd(Vec3(0.2, 0.3, 1), T0, T1, T2, Vec3(0, 0, -2), Z, Z, Z, 0.0, with_s(s));
    expect_head_on(r, 0.5, s * 1.0, 2.0);
  }
}

TEST(Accd, EdgesCrossAtKnownTime) {
  // Edge a along x at z = 1 moving to z = -1; edge b along y at z = 0: they meet at t = 0.5.
  const Vec3 a0(-1, 0, 1), a1(1, 0, 1), b0(0, -1, 0), b1(0, 1, 0), d(0, 0, -2);
  const CcdResult r = edge_edge_accd(a0, a1, b0, b1, d, d, Z, Z, 0.0, with_s(1e-4));
  expect_head_on(r, 0.5, 1e-4, 2.0);
  // Moving the other edge instead gives the same answer.
  const CcdResult q = edge_edge_accd(a0, a1, b0, b1, Z, Z, -d, -d, 0.0, with_s(1e-4));
  expect_head_on(q, 0.5, 1e-4, 2.0);
}

TEST(Accd, PointEdgeAndPointPoint) {
  // Point at y = 1 moving to y = -1 through edge along x: t = 0.5, l_p = |p - mean| + |mean| = 2.
  const CcdResult pe = point_edge_accd(Vec3(0.5, 1, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, -2, 0), Z, Z, 0.0,
                                       with_s(1e-4));
  expect_head_on(pe, 0.5, 1e-4, 2.0);
  // Two points approaching each other, each at speed 1, gap 1: meet at t = 0.5.
  const CcdResult pp = point_point_accd(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0), Vec3(-1, 0, 0), 0.0, with_s(1e-4));
  expect_head_on(pp, 0.5, 1e-4, 2.0);
  // With a thickness offset 0.2 they stop at distance 0.2 + s * 0.8: t_star = 0.4.
  const CcdResult po = point_point_accd(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0), Vec3(-1, 0, 0), 0.2, with_s(1e-4));
  expect_head_on(po, 0.4, 1e-4 * 0.8, 2.0);
}

TEST(Accd, ParallelEdgesApproaching) {
  // Overlapping parallel edges 1 apart closing at speed 2: touch at t = 0.5.
  const Vec3 d(0, 0, -2);
  const CcdResult r = edge_edge_accd(Vec3(0, 0, 1), Vec3(2, 0, 1), Vec3(1, 0, 0), Vec3(3, 0, 0), d, d, Z, Z, 0.0,
                                     with_s(1e-4));
  expect_head_on(r, 0.5, 1e-4, 2.0);
  // Parallel edges sliding past each other at constant separation: no collision.
  const Vec3 v(5, 0, 0);
  const CcdResult m = edge_edge_accd(Vec3(0, 0, 1), Vec3(2, 0, 1), Vec3(1, 0, 0), Vec3(3, 0, 0), v, v, Z, Z, 0.0,
                                     with_s(0.1));
  EXPECT_FALSE(m.hit);
  EXPECT_EQ(m.toi, 1.0);
}

TEST(Accd, Misses) {
  // Point falls beside the triangle.
  CcdResult r = point_triangle_accd(Vec3(5, 5, 1), T0, T1, T2, Vec3(0, 0, -2), Z, Z, Z, 0.0, with_s(0.1));
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(r.toi, 1.0);
  // Point stops short of the triangle.
  r = point_triangle_accd(Vec3(0, 0, 1), T0, T1, T2, Vec3(0, 0, -0.5), Z, Z, Z, 0.0, with_s(0.1));
  EXPECT_FALSE(r.hit);
  // Edges pass over each other with clearance.
  r = edge_edge_accd(Vec3(-1, 0, 1), Vec3(1, 0, 1), Vec3(0, -1, 0), Vec3(0, 1, 0), Vec3(0, 5, 0), Vec3(0, 5, 0), Z, Z,
                     0.0, with_s(0.1));
  EXPECT_FALSE(r.hit);
  // Collision after t_max is not reported; toi = t_max.
  r = point_triangle_accd(Vec3(0.2, 0.3, 1), T0, T1, T2, Vec3(0, 0, -2), Z, Z, Z, 0.0, with_s(0.1, 0.3));
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(r.toi, 0.3);
}

TEST(Accd, TouchingExactlyAtTEquals1) {
  // The point arrives on the face exactly at t = 1: a collision, with toi < 1.
  const CcdResult r = point_triangle_accd(Vec3(0.2, 0.3, 1), T0, T1, T2, Vec3(0, 0, -1), Z, Z, Z, 0.0, with_s(1e-3));
  ASSERT_TRUE(r.hit);
  EXPECT_LT(r.toi, 1.0);
  EXPECT_GT(r.toi, 0.99);
  // Same for edges.
  const Vec3 d(0, 0, -1);
  const CcdResult e = edge_edge_accd(Vec3(-1, 0, 1), Vec3(1, 0, 1), Vec3(0, -1, 0), Vec3(0, 1, 0), d, d, Z, Z, 0.0,
                                     with_s(1e-3));
  ASSERT_TRUE(e.hit);
  EXPECT_LT(e.toi, 1.0);
}

TEST(Accd, StartWithinOffsetReturnsZero) {
  // Documented: d0 <= xi (here d0 = 1e-8, xi = 1e-4) -> hit at toi = 0, flagged.
  const CcdResult r =
      point_triangle_accd(Vec3(0.2, 0.3, 1e-8), T0, T1, T2, Vec3(0, 0, 1), Z, Z, Z, 1e-4, with_s(0.1));
  EXPECT_TRUE(r.hit);
  EXPECT_EQ(r.toi, 0.0);
  EXPECT_TRUE(r.started_within_offset);
  // Exactly touching at the start without offset: the same.
  const CcdResult t = point_triangle_accd(Vec3(0.2, 0.3, 0), T0, T1, T2, Vec3(0, 0, 1), Z, Z, Z, 0.0, with_s(0.1));
  EXPECT_TRUE(t.hit);
  EXPECT_EQ(t.toi, 0.0);
  EXPECT_TRUE(t.started_within_offset);
}

TEST(Accd, ThinGapAboveLargeOffset) {
  // C-IPC's hard case (Sec. 5.2): offset 1e-4, gap to the offset surface 1e-8, moving closer.
  const double xi = 1e-4, gap0 = 1e-8, s = 0.1;
  const Vec3 p(0.2, 0.3, xi + gap0);
  const CcdResult r = point_triangle_accd(p, T0, T1, T2, Vec3(0, 0, -1e-3), Z, Z, Z, xi, with_s(s));
  ASSERT_TRUE(r.hit);
  EXPECT_GT(r.toi, 0.0);  // never 0 from a separated start
  const Vec3 q = p + r.toi * Vec3(0, 0, -1e-3);
  const double d = std::sqrt(point_triangle_distance_sq(q, T0, T1, T2));
  EXPECT_GT(d, xi);                                  // never inside the offset
  EXPECT_GE(d - xi, s * gap0 * (1 - 1e-6));         // at least the target gap
  EXPECT_LT(d - xi, 10 * s * gap0);                  // and not needlessly far
  // Moving away: no collision.
  const CcdResult a = point_triangle_accd(p, T0, T1, T2, Vec3(0, 0, 1e-3), Z, Z, Z, xi, with_s(s));
  EXPECT_FALSE(a.hit);
}

TEST(Accd, NoRelativeMotion) {
  const Vec3 v(0.3, -0.2, 0.7);
  // Identical displacements (a rigid translation of the pair): no collision, full step.
  CcdResult r = point_triangle_accd(Vec3(0.2, 0.3, 1e-6), T0, T1, T2, v, v, v, v, 0.0, with_s(0.1));
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(r.toi, 1.0);
  r = edge_edge_accd(Vec3(-1, 0, 1), Vec3(1, 0, 1), Vec3(0, -1, 0), Vec3(0, 1, 0), Z, Z, Z, Z, 0.0, with_s(0.1));
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(r.toi, 1.0);
  r = point_point_accd(Vec3(0, 0, 0), Vec3(1, 0, 0), Z, Z, 0.0, with_s(0.1, 0.25));
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(r.toi, 0.25);
}

TEST(Accd, IterationLimitIsConservative) {
  // A point sliding along the face at a tiny height needs many steps; with a cap of 10 the
  // result is a (conservative) hit at a positive, safe t.
  AccdParams p = with_s(0.1);
  p.max_iterations = 10;
  const CcdResult r = point_triangle_accd(Vec3(0, 0, 1e-6), T0, T1, T2, Vec3(1, 1, 0), Z, Z, Z, 0.0, p);
  EXPECT_TRUE(r.hit);
  EXPECT_TRUE(r.iteration_limit);
  EXPECT_GT(r.toi, 0.0);
  EXPECT_LT(r.toi, 1e-4);
  // Without the cap (default 1e6 iterations) a slightly higher slide finishes: no collision.
  const CcdResult f = point_triangle_accd(Vec3(0, 0, 1e-5), T0, T1, T2, Vec3(1, 1, 0), Z, Z, Z, 0.0, with_s(0.1));
  EXPECT_FALSE(f.hit);
}

namespace {

template <class Dist>
void check_guarantees(const CcdResult& r, const std::array<Vec3, 4>& x, const std::array<Vec3, 4>& d, double xi,
                      double s, const Dist& dist, int k) {
  SCOPED_TRACE(k);
  auto at = [&](double t) {
    std::array<Vec3, 4> y;
    for (int i = 0; i < 4; ++i) y[i] = x[i] + t * d[i];
    return std::sqrt(dist(y));
  };
  ASSERT_GE(r.toi, 0.0);
  ASSERT_LE(r.toi, 1.0);
  const double d0 = at(0.0);
  if (d0 <= xi) {
    EXPECT_TRUE(r.started_within_offset);
    return;
  }
  EXPECT_GT(r.toi, 0.0);
  // No sampled configuration in [0, toi] is inside the offset.
  for (int i = 0; i <= 200; ++i) EXPECT_GT(at(r.toi * i / 200.0), xi);
  if (r.hit) {
    EXPECT_GE(at(r.toi) - xi, s * (d0 - xi) * (1 - 1e-9));
  }
}

}  // namespace

TEST(Accd, RandomizedGuarantees) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> U(-1, 1);
  auto rv = [&] { return Vec3(U(rng), U(rng), U(rng)); };
  int hits = 0;
  for (int k = 0; k < 400; ++k) {
    std::array<Vec3, 4> x{rv(), rv(), rv(), rv()}, d{rv(), rv(), rv(), rv()};
    for (Vec3& v : d) v *= 2.0;
    const double xi = (k % 3 == 0) ? 0.05 : 0.0;
    const double s = (k % 2 == 0) ? 0.1 : 1e-3;
    const CcdResult pt = point_triangle_accd(x[0], x[1], x[2], x[3], d[0], d[1], d[2], d[3], xi, with_s(s));
    check_guarantees(pt, x, d, xi, s,
                     [](const std::array<Vec3, 4>& y) { return point_triangle_distance_sq(y[0], y[1], y[2], y[3]); }, k);
    const CcdResult ee = edge_edge_accd(x[0], x[1], x[2], x[3], d[0], d[1], d[2], d[3], xi, with_s(s));
    check_guarantees(ee, x, d, xi, s,
                     [](const std::array<Vec3, 4>& y) { return edge_edge_distance_sq(y[0], y[1], y[2], y[3]); }, k);
    hits += pt.hit + ee.hit;
  }
  EXPECT_GT(hits, 50);  // the sample exercises both outcomes
  EXPECT_LT(hits, 750);
}

// Point-edge and point-point ACCD (issue 17 point 2: the rod and particle pairs) in
// near-degenerate configurations, with offsets.
TEST(Accd, PointEdgeNearDegenerate) {
  // Collinear: the point slides along the segment's line into its end e1 = (1, 0, 0):
  // with offset 0.25 it reaches the offset surface at x = 1.25, t* = 0.375; relative
  // speed 2, l_p = 2 (centred: |-4/3| + |2/3|).
  const Vec3 e0(0, 0, 0), e1(1, 0, 0);
  for (double s : {0.1, 1e-4}) {
    const CcdResult r = point_edge_accd(Vec3(2, 0, 0), e0, e1, Vec3(-2, 0, 0), Z, Z, 0.25, with_s(s));
    expect_head_on(r, 0.375, s * 0.75, 2.0);
  }
  // A zero-length segment is a point: head-on at t* = 0.5 (xi = 0).
  const CcdResult z = point_edge_accd(Vec3(1, 0, 0), e0, e0, Vec3(-2, 0, 0), Z, Z, 0.0, with_s(1e-4));
  expect_head_on(z, 0.5, 1e-4, 2.0);
  // Grazing: the point passes over the whole segment at a constant 1e-3 above its offset
  // surface (xi = 0.1): never closer than the start, so no hit (many small steps).
  const CcdResult g = point_edge_accd(Vec3(0, 0.101, 0), e0, e1, Vec3(1, 0, 0), Z, Z, 0.1, with_s(0.1));
  EXPECT_FALSE(g.hit);
  EXPECT_EQ(g.toi, 1.0);
  EXPECT_FALSE(g.iteration_limit);
  // The segment moves onto a resting point (the point at the segment's midpoint below it):
  // the same answer as the point moving, l_p = 2.
  const CcdResult m = point_edge_accd(Vec3(0.5, -1, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), Z, Vec3(0, -2, 0),
                                      Vec3(0, -2, 0), 0.0, with_s(1e-4));
  expect_head_on(m, 0.5, 1e-4, 2.0);
}

TEST(Accd, PointPointNearDegenerate) {
  // Starting exactly at the offset distance: no positive step is safe.
  const CcdResult at = point_point_accd(Vec3(0, 0, 0), Vec3(0.5, 0, 0), Z, Vec3(1, 0, 0), 0.5, with_s(0.1));
  EXPECT_TRUE(at.hit);
  EXPECT_TRUE(at.started_within_offset);
  EXPECT_EQ(at.toi, 0.0);
  // A hair outside it and separating: no hit.
  const CcdResult out = point_point_accd(Vec3(0, 0, 0), Vec3(0.5, 0, 0), Z, Vec3(1, 0, 0), 0.5 - 1e-12, with_s(0.1));
  EXPECT_FALSE(out.hit);
  // Offset 0.2 + 1e-9: head-on at unit relative speed... each at speed 1 (l_p = 2).
  const double xi = 0.2 + 1e-9;
  const CcdResult po = point_point_accd(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0), Vec3(-1, 0, 0), xi, with_s(1e-6));
  expect_head_on(po, (1.0 - xi) / 2.0, 1e-6 * (1.0 - xi), 2.0);
  // Crossing paths that miss by 1e-6 more than the offset (0.3): closest at t = 0.5,
  // gap 1e-6 < s (d0 - xi): reported, and never inside the offset.
  const CcdResult miss = point_point_accd(Vec3(-1, 0, 0), Vec3(1, 0.300001, 0), Vec3(2, 0, 0), Vec3(-2, 0, 0), 0.3,
                                          with_s(0.1));
  ASSERT_TRUE(miss.hit);
  EXPECT_LT(miss.toi, 0.5);
  const Vec3 a = Vec3(-1, 0, 0) + miss.toi * Vec3(2, 0, 0), b = Vec3(1, 0.300001, 0) + miss.toi * Vec3(-2, 0, 0);
  EXPECT_GT((a - b).norm(), 0.3);
}
