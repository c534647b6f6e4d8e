// Exact predicates and distances of weft-verify on hand-constructed cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <Eigen/Geometry>
#include <cmath>
#include <random>
#include <set>

#include "verify/broad_phase.hpp"
#include "verify/exact.hpp"
#include "verify/predicates.hpp"

using namespace weft;
using namespace weft::verify;

namespace {
// Reference triangle A in the plane z = 0: legs of length 2 along x and y.
const Vec3 A0(0, 0, 0), A1(2, 0, 0), A2(0, 2, 0);

bool tt(const Vec3& b0, const Vec3& b1, const Vec3& b2) {
  // Intersection must not depend on argument order or vertex order.
  const bool r = triangle_triangle_intersect(A0, A1, A2, b0, b1, b2);
  EXPECT_EQ(r, triangle_triangle_intersect(b0, b1, b2, A0, A1, A2));
  EXPECT_EQ(r, triangle_triangle_intersect(A2, A0, A1, b1, b2, b0));
  EXPECT_EQ(r, triangle_triangle_intersect(A1, A0, A2, b2, b1, b0));
  return r;
}
}  // namespace

TEST(Exact, Orient2dNearlyCollinearIsExact) {
  // a=(0,0), b=(1,1), c=(t, t+d): det = d exactly, whatever t.
  for (double t : {0.1, 0.3, 0.7, 12.345678901234567, 1e6 + 0.1}) {
    const double up = std::nextafter(t, 1e300), down = std::nextafter(t, -1e300);
    EXPECT_EQ(orient2d(0, 0, 1, 1, t, up), 1) << t;
    EXPECT_EQ(orient2d(0, 0, 1, 1, t, down), -1) << t;
    EXPECT_EQ(orient2d(0, 0, 1, 1, t, t), 0) << t;
    EXPECT_EQ(orient2d_exact(0, 0, 1, 1, t, up), 1) << t;
  }
}

TEST(Exact, Orient3dCoplanarAndOneUlpOff) {
  // Points on z = x + y with dyadic coordinates (all exact): coplanar exactly.
  const Vec3 a(0.25, 0.5, 0.75), b(1.5, 0.125, 1.625), c(0.375, 2.0, 2.375);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(-4096, 4096);
  const int far = orient3d(a, b, c, Vec3(0, 0, 100));
  ASSERT_NE(far, 0);
  for (int k = 0; k < 200; ++k) {
    const double x = pick(rng) / 1024.0, y = pick(rng) / 1024.0;
    const Vec3 on(x, y, x + y);
    EXPECT_EQ(orient3d(a, b, c, on), 0);
    EXPECT_EQ(orient3d_exact(a, b, c, on), 0);
    const Vec3 above(x, y, std::nextafter(x + y, 1e300)), below(x, y, std::nextafter(x + y, -1e300));
    EXPECT_EQ(orient3d(a, b, c, above), far);
    EXPECT_EQ(orient3d(a, b, c, below), -far);
  }
}

TEST(Exact, FilterAgreesWithExactOnRandomNearDegenerate) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < 2000; ++k) {
    Vec3 a(u(rng), u(rng), u(rng)), b(u(rng), u(rng), u(rng)), c(u(rng), u(rng), u(rng));
    const double s = u(rng), t = u(rng);
    Vec3 d = a + s * (b - a) + t * (c - a);  // rounded: on or a few ulps off the plane
    EXPECT_EQ(orient3d(a, b, c, d), orient3d_exact(a, b, c, d));
    EXPECT_EQ(orient2d(a.x(), a.y(), b.x(), b.y(), d.x(), d.y()),
              orient2d_exact(a.x(), a.y(), b.x(), b.y(), d.x(), d.y()));
  }
}

TEST(TriTri, CrossingTriangles) {
  // B contains the vertical segment x=y=0.5, z in [-1,1], which pierces A's interior.
  EXPECT_TRUE(tt(Vec3(0.5, 0.5, -1), Vec3(0.5, 0.5, 1), Vec3(-1, -1, 0)));
  // Same B shifted past A's hypotenuse x + y = 2: no intersection.
  EXPECT_FALSE(tt(Vec3(1.5, 1.5, -1), Vec3(1.5, 1.5, 1), Vec3(3, 3, 0)));
  // A "needle" through A with no vertex of either inside the other.
  EXPECT_TRUE(tt(Vec3(0.5, 0.5, -1), Vec3(0.6, 0.5, 1), Vec3(0.5, 0.6, 1)));
}

TEST(TriTri, TouchingAtAVertexCountsAsIntersecting) {
  // B's vertex exactly on A's interior point (0.5, 0.5, 0): closed sets meet.
  EXPECT_TRUE(tt(Vec3(0.5, 0.5, 0), Vec3(0, 0, 1), Vec3(1, 0, 1)));
  EXPECT_DOUBLE_EQ(triangle_triangle_distance(A0, A1, A2, Vec3(0.5, 0.5, 0), Vec3(0, 0, 1), Vec3(1, 0, 1)), 0.0);
  // Vertex on vertex (different indices, same position).
  EXPECT_TRUE(tt(Vec3(2, 0, 0), Vec3(3, 0, 1), Vec3(3, 1, 1)));
  // Vertex on an edge.
  EXPECT_TRUE(tt(Vec3(1, 0, 0), Vec3(1, -1, 1), Vec3(1, -1, -1)));
}

TEST(TriTri, Coplanar) {
  EXPECT_TRUE(tt(Vec3(0.5, 0.5, 0), Vec3(3, 0.5, 0), Vec3(0.5, 3, 0)));      // overlapping
  EXPECT_TRUE(tt(Vec3(0.1, 0.1, 0), Vec3(0.5, 0.1, 0), Vec3(0.1, 0.5, 0)));  // contained
  EXPECT_TRUE(tt(Vec3(-1, -1, 0), Vec3(5, -1, 0), Vec3(-1, 5, 0)));          // contains A
  EXPECT_FALSE(tt(Vec3(2, 2, 0), Vec3(3, 2, 0), Vec3(2, 3, 0)));             // disjoint
  EXPECT_TRUE(tt(Vec3(1, 1, 0), Vec3(3, 1, 0), Vec3(1, 3, 0)));              // touching hypotenuse
  // Neighbours in a flat sheet sharing no vertex: separated by a gap.
  EXPECT_FALSE(tt(Vec3(2.5, 0, 0), Vec3(4, 0, 0), Vec3(2.5, 1, 0)));
}

TEST(TriTri, ParallelSeparated) {
  const Vec3 up(0, 0, 1);
  EXPECT_FALSE(tt(A0 + up, A1 + up, A2 + up));
  EXPECT_DOUBLE_EQ(triangle_triangle_distance(A0, A1, A2, A0 + up, A1 + up, A2 + up), 1.0);
}

TEST(TriTri, NearMissAt1e9) {
  const Vec3 p(0.5, 0.5, 1e-9);
  EXPECT_FALSE(tt(p, Vec3(0, 0, 1), Vec3(1, 0, 1)));
  EXPECT_NEAR(triangle_triangle_distance(A0, A1, A2, p, Vec3(0, 0, 1), Vec3(1, 0, 1)), 1e-9, 1e-22);
  // 1e-9 through the sheet: intersecting.
  EXPECT_TRUE(tt(Vec3(0.5, 0.5, -1e-9), Vec3(0, 0, 1), Vec3(1, 0, 1)));
  // Edge passing 1e-9 beyond A's corner (0,0,0), out of plane.
  EXPECT_FALSE(tt(Vec3(-1e-9, -1, -1), Vec3(-1e-9, 1, 1), Vec3(-1, 0, 5)));
  EXPECT_NEAR(segment_segment_distance(A0, A2, Vec3(-1e-9, -1, -1), Vec3(-1e-9, 1, 1)), 1e-9, 1e-22);
}

TEST(TriTri, DegenerateTriangles) {
  // A collinear "triangle" along x through B, which lies in the plane x = 1.
  const Vec3 b0(1, -1, -1), b1(1, 1, -1), b2(1, 0, 1);
  EXPECT_TRUE(triangle_triangle_intersect(Vec3(0, 0, 0), Vec3(1.5, 0, 0), Vec3(3, 0, 0), b0, b1, b2));
  EXPECT_TRUE(triangle_triangle_intersect(b0, b1, b2, Vec3(0, 0, 0), Vec3(3, 0, 0), Vec3(1.5, 0, 0)));
  EXPECT_FALSE(triangle_triangle_intersect(Vec3(0, 5, 0), Vec3(1.5, 5, 0), Vec3(3, 5, 0), b0, b1, b2));
  // All three vertices at one point: a point test.
  const Vec3 in(1, 0, 0), out(1.5, 0, 0);
  EXPECT_TRUE(triangle_triangle_intersect(in, in, in, b0, b1, b2));
  EXPECT_FALSE(triangle_triangle_intersect(out, out, out, b0, b1, b2));
  EXPECT_EQ(triangle_drop_axis(in, in, in), -1);
  EXPECT_EQ(triangle_drop_axis(b0, b1, b2), 0);
}

TEST(SegTri, Cases) {
  EXPECT_TRUE(segment_triangle_intersect(Vec3(0.5, 0.5, -1), Vec3(0.5, 0.5, 1), A0, A1, A2));
  EXPECT_FALSE(segment_triangle_intersect(Vec3(1.5, 1.5, -1), Vec3(1.5, 1.5, 1), A0, A1, A2));
  EXPECT_TRUE(segment_triangle_intersect(Vec3(0.5, 0.5, 0), Vec3(0.5, 0.5, 1), A0, A1, A2));    // ends on A
  EXPECT_FALSE(segment_triangle_intersect(Vec3(0.5, 0.5, 1e-9), Vec3(0.5, 0.5, 1), A0, A1, A2));
  EXPECT_TRUE(segment_triangle_intersect(Vec3(1, 1, -1), Vec3(1, 1, 1), A0, A1, A2));          // hits edge
  EXPECT_FALSE(segment_triangle_intersect(Vec3(0, 0, 1), Vec3(2, 2, 1), A0, A1, A2));          // parallel
  EXPECT_TRUE(segment_triangle_intersect(Vec3(-1, 0.5, 0), Vec3(3, 0.5, 0), A0, A1, A2));      // coplanar across
  EXPECT_FALSE(segment_triangle_intersect(Vec3(-1, 3, 0), Vec3(3, 3, 0), A0, A1, A2));         // coplanar outside
  EXPECT_TRUE(segment_triangle_intersect(Vec3(0.2, 0.2, 0), Vec3(0.3, 0.2, 0), A0, A1, A2));   // coplanar inside
}

TEST(SegSeg, IntersectAndDistance) {
  const Vec3 p0(0, 0, 0), p1(1, 0, 0);
  EXPECT_TRUE(segment_segment_intersect(p0, p1, Vec3(0.5, -1, 0), Vec3(0.5, 1, 0)));   // cross
  EXPECT_FALSE(segment_segment_intersect(p0, p1, Vec3(0.5, -1, 1), Vec3(0.5, 1, 1)));  // skew
  EXPECT_TRUE(segment_segment_intersect(p0, p1, Vec3(0.5, 0, 0), Vec3(2, 0, 0)));      // collinear overlap
  EXPECT_TRUE(segment_segment_intersect(p0, p1, Vec3(1, 0, 0), Vec3(2, 0, 0)));        // end to end
  EXPECT_FALSE(segment_segment_intersect(p0, p1, Vec3(2, 0, 0), Vec3(3, 0, 0)));       // collinear apart
  EXPECT_FALSE(segment_segment_intersect(p0, p1, Vec3(1.5, -1, 0), Vec3(1.5, 1, 0)));  // lines cross outside
  EXPECT_DOUBLE_EQ(segment_segment_distance(p0, p1, Vec3(0.5, -1, 1), Vec3(0.5, 1, 1)), 1.0);
  EXPECT_DOUBLE_EQ(segment_segment_distance(p0, p1, Vec3(0.5, 1, 0), Vec3(2, 1, 0)), 1.0);  // parallel
  EXPECT_DOUBLE_EQ(segment_segment_distance(p0, p1, Vec3(2, 0, 0), Vec3(3, 0, 0)), 1.0);    // collinear
  EXPECT_DOUBLE_EQ(segment_segment_distance(p0, p1, Vec3(0.5, -1, 0), Vec3(0.5, 1, 0)), 0.0);
  EXPECT_DOUBLE_EQ(segment_segment_distance(p0, p1, Vec3(3, 4, 0), Vec3(3, 4, 0)), std::sqrt(20.0));
}

TEST(PointTri, Regions) {
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(0.5, 0.5, 3), A0, A1, A2), 3.0);      // face
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(-3, -4, 0), A0, A1, A2), 5.0);       // vertex
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(1, -2, 0), A0, A1, A2), 2.0);        // edge
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(2, 2, 0), A0, A1, A2), std::sqrt(2.0));  // hypotenuse
  EXPECT_DOUBLE_EQ(point_triangle_distance(Vec3(1, 0, 2), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)), 2.0);
}

TEST(TriTri, RandomSymmetryAndDistanceConsistency) {
  // Random small triangles near each other: the predicate is order-independent, and a
  // pair whose 15 sub-distances are clearly positive must not be reported intersecting
  // unless an edge really pierces the other (checked by segment_triangle_intersect).
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  int hits = 0;
  for (int k = 0; k < 5000; ++k) {
    Vec3 a[3], b[3];
    for (auto& v : a) v = Vec3(u(rng), u(rng), u(rng));
    for (auto& v : b) v = Vec3(u(rng), u(rng), u(rng)) * 0.8 + Vec3(0.3, 0, 0);
    const bool r = triangle_triangle_intersect(a[0], a[1], a[2], b[0], b[1], b[2]);
    EXPECT_EQ(r, triangle_triangle_intersect(b[1], b[2], b[0], a[2], a[1], a[0]));
    bool edge = false;
    for (int i = 0; i < 3; ++i) {
      edge |= segment_triangle_intersect(a[i], a[(i + 1) % 3], b[0], b[1], b[2]);
      edge |= segment_triangle_intersect(b[i], b[(i + 1) % 3], a[0], a[1], a[2]);
    }
    EXPECT_EQ(r, edge);
    hits += r;
  }
  EXPECT_GT(hits, 100);
  EXPECT_LT(hits, 4900);
}

TEST(BroadPhase, MatchesBruteForce) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 10), ext(0, 0.6);
  std::vector<Aabb> boxes;
  for (int i = 0; i < 1500; ++i) {
    Aabb b;
    for (int k = 0; k < 3; ++k) {
      b.lo[k] = u(rng);
      b.hi[k] = b.lo[k] + ext(rng);
    }
    boxes.push_back(b);
  }
  for (int i = 0; i < 3; ++i) {  // a few huge boxes (out of the grid)
    Aabb b{{1, 1, 1}, {9, 9, 2.0 + i}};
    boxes.push_back(b);
  }
  boxes.push_back(Aabb{{5, 5, 5}, {5, 5, 5}});  // a point box
  GridBroadPhase g;
  g.build(boxes);
  EXPECT_EQ(g.num_large(), 3u);
  std::set<std::pair<unsigned, unsigned>> got, want;
  std::size_t calls = 0;
  g.for_each_pair([&](std::uint32_t i, std::uint32_t j) {
    EXPECT_LT(i, j);
    got.insert({i, j});
    ++calls;
  });
  for (unsigned i = 0; i < boxes.size(); ++i)
    for (unsigned j = i + 1; j < boxes.size(); ++j)
      if (overlap(boxes[i], boxes[j])) want.insert({i, j});
  EXPECT_EQ(calls, got.size()) << "a pair was reported twice";
  EXPECT_EQ(got, want);
}
