// Exact, hand-computed distances and the distance-type classification of every region.
#include <gtest/gtest.h>

#include <random>

#include "contact/distance_type.hpp"

using namespace weft;

namespace {
const Vec3 A(0, 0, 0), B(1, 0, 0), C(0, 1, 0);
}

TEST(PointTriangleDistance, EveryRegionExact) {
  struct Case { Vec3 p; PointTriangleType t; double d2; };
  const Case cases[] = {
      {{0.25, 0.25, 2.0}, PointTriangleType::P_T, 4.0},
      {{0.25, 0.25, -3.0}, PointTriangleType::P_T, 9.0},
      {{-1, -1, 1}, PointTriangleType::P_A, 3.0},
      {{2, -1, 0}, PointTriangleType::P_B, 2.0},
      {{-0.5, 2, 1}, PointTriangleType::P_C, 2.25},
      {{0.5, -1, 1}, PointTriangleType::P_EAB, 2.0},
      {{1, 1, 3}, PointTriangleType::P_EBC, 9.5},
      {{-1, 0.5, 2}, PointTriangleType::P_ECA, 5.0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(classify_point_triangle(c.p, A, B, C), c.t) << c.p.transpose();
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(c.p, A, B, C), c.d2) << c.p.transpose();
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(c.p, A, B, C, c.t), c.d2);
  }
}

TEST(PointTriangleDistance, CoplanarAndOnBoundary) {
  // Inside, coplanar: zero.
  EXPECT_EQ(classify_point_triangle(Vec3(0.2, 0.2, 0), A, B, C), PointTriangleType::P_T);
  EXPECT_EQ(point_triangle_distance_sq(Vec3(0.2, 0.2, 0), A, B, C), 0.0);
  // Exactly on an edge and on a vertex: zero, whichever of the adjacent types is chosen.
  EXPECT_EQ(point_triangle_distance_sq(Vec3(0.5, 0, 0), A, B, C), 0.0);
  EXPECT_EQ(point_triangle_distance_sq(Vec3(0.5, 0.5, 0), A, B, C), 0.0);
  EXPECT_EQ(point_triangle_distance_sq(B, A, B, C), 0.0);
  // Coplanar outside, beyond the hypotenuse: distance to the line x + y = 1.
  EXPECT_EQ(classify_point_triangle(Vec3(1, 1, 0), A, B, C), PointTriangleType::P_EBC);
  EXPECT_NEAR(point_triangle_distance_sq(Vec3(1, 1, 0), A, B, C), 0.5, 1e-15);
  // Tiny height above the face.
  EXPECT_NEAR(point_triangle_distance_sq(Vec3(0.3, 0.3, 1e-9), A, B, C), 1e-18, 1e-30);
}

TEST(PointTriangleDistance, DegenerateTriangleUsesClosestEdge) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(2, 0, 0);  // collinear
  const PointTriangleType t = classify_point_triangle(Vec3(0.5, 1, 0), a, b, c);
  EXPECT_TRUE(t == PointTriangleType::P_EAB || t == PointTriangleType::P_ECA) << to_string(t);
  EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(0.5, 1, 0), a, b, c), 1.0);
  // Fully collapsed triangle: point distance.
  EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(0, 0, 2), a, a, a), 4.0);
}

TEST(PointEdgeDistance, Regions) {
  EXPECT_EQ(classify_point_edge(Vec3(0.5, 1, 0), A, B), PointEdgeType::P_E);
  EXPECT_DOUBLE_EQ(point_edge_distance_sq(Vec3(0.5, 1, 0), A, B), 1.0);
  EXPECT_EQ(classify_point_edge(Vec3(-1, 1, 0), A, B), PointEdgeType::P_E0);
  EXPECT_DOUBLE_EQ(point_edge_distance_sq(Vec3(-1, 1, 0), A, B), 2.0);
  EXPECT_EQ(classify_point_edge(Vec3(2, 0, 2), A, B), PointEdgeType::P_E1);
  EXPECT_DOUBLE_EQ(point_edge_distance_sq(Vec3(2, 0, 2), A, B), 5.0);
  EXPECT_EQ(point_edge_distance_sq(Vec3(0.3, 0, 0), A, B), 0.0);  // on the edge
  EXPECT_DOUBLE_EQ(point_edge_distance_sq(Vec3(0, 3, 4), A, A), 25.0);  // degenerate edge
}

TEST(EdgeEdgeDistance, EveryRegionExact) {
  const Vec3 x0(-1, 0, 0), x1(1, 0, 0);          // along x through the origin
  const Vec3 z1(0, 0, 1), z3(0, 0, 3);           // vertical segment above the origin
  const Vec3 q0(0, 0, 0), q1(-1, 0, 0), r0(1, 0, 1), r1(2, 1, 1);
  struct Case { Vec3 a0, a1, b0, b1; EdgeEdgeType t; double d2; };
  const Case cases[] = {
      {x0, x1, Vec3(0, -1, 1), Vec3(0, 1, 1), EdgeEdgeType::EA_EB, 1.0},
      {z1, z3, x0, x1, EdgeEdgeType::EA0_EB, 1.0},
      {z3, z1, x0, x1, EdgeEdgeType::EA1_EB, 1.0},
      {x0, x1, z1, z3, EdgeEdgeType::EA_EB0, 1.0},
      {x0, x1, z3, z1, EdgeEdgeType::EA_EB1, 1.0},
      {q0, q1, r0, r1, EdgeEdgeType::EA0_EB0, 2.0},
      {q1, q0, r0, r1, EdgeEdgeType::EA1_EB0, 2.0},
      {q0, q1, r1, r0, EdgeEdgeType::EA0_EB1, 2.0},
      {q1, q0, r1, r0, EdgeEdgeType::EA1_EB1, 2.0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(classify_edge_edge(c.a0, c.a1, c.b0, c.b1), c.t) << to_string(c.t);
    EXPECT_DOUBLE_EQ(edge_edge_distance_sq(c.a0, c.a1, c.b0, c.b1), c.d2) << to_string(c.t);
    // Symmetric in the order of the edges.
    EXPECT_DOUBLE_EQ(edge_edge_distance_sq(c.b0, c.b1, c.a0, c.a1), c.d2) << to_string(c.t);
  }
}

TEST(EdgeEdgeDistance, ParallelAndDegenerate) {
  const Vec3 a0(0, 0, 0), a1(1, 0, 0);
  // Parallel, overlapping: 1, and the classification avoids the singular line-line type.
  EdgeEdgeType t = classify_edge_edge(a0, a1, Vec3(0.5, 1, 0), Vec3(2, 1, 0));
  EXPECT_NE(t, EdgeEdgeType::EA_EB);
  EXPECT_DOUBLE_EQ(edge_edge_distance_sq(a0, a1, Vec3(0.5, 1, 0), Vec3(2, 1, 0)), 1.0);
  // Parallel, disjoint along the axis: endpoint to endpoint.
  EXPECT_EQ(classify_edge_edge(a0, a1, Vec3(2, 1, 0), Vec3(3, 1, 0)), EdgeEdgeType::EA1_EB0);
  EXPECT_DOUBLE_EQ(edge_edge_distance_sq(a0, a1, Vec3(2, 1, 0), Vec3(3, 1, 0)), 2.0);
  // Anti-parallel.
  EXPECT_DOUBLE_EQ(edge_edge_distance_sq(a0, a1, Vec3(2, 1, 0), Vec3(0.5, 1, 0)), 1.0);
  // Nearly parallel (angle 1e-12): still ~1, no blow-up.
  EXPECT_NEAR(edge_edge_distance_sq(a0, a1, Vec3(0.5, 1, 0), Vec3(2, 1, 1.5e-12)), 1.0, 1e-10);
  // Collinear overlapping and crossing edges: zero.
  EXPECT_EQ(edge_edge_distance_sq(a0, a1, Vec3(0.5, 0, 0), Vec3(2, 0, 0)), 0.0);
  EXPECT_EQ(edge_edge_distance_sq(a0, a1, Vec3(0.5, -1, 0), Vec3(0.5, 1, 0)), 0.0);
  // Coplanar, not crossing: the end of b points at the middle of a.
  EXPECT_EQ(classify_edge_edge(a0, a1, Vec3(0.5, 0.5, 0), Vec3(0.5, 2, 0)), EdgeEdgeType::EA_EB0);
  EXPECT_DOUBLE_EQ(edge_edge_distance_sq(a0, a1, Vec3(0.5, 0.5, 0), Vec3(0.5, 2, 0)), 0.25);
  // Degenerate (zero-length) edge b: point-segment distance.
  EXPECT_DOUBLE_EQ(edge_edge_distance_sq(a0, a1, Vec3(0.5, 2, 0), Vec3(0.5, 2, 0)), 4.0);
}

TEST(EdgeEdgeDistance, RandomAgreesWithBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int k = 0; k < 500; ++k) {
    Vec3 v[4];
    for (auto& x : v) x = Vec3(U(rng), U(rng), U(rng));
    double best = 1e300;
    for (int i = 0; i <= 200; ++i)
      for (int j = 0; j <= 200; ++j) {
        const double s = i / 200.0, t = j / 200.0;
        best = std::min(best, ((v[0] + s * (v[1] - v[0])) - (v[2] + t * (v[3] - v[2]))).squaredNorm());
      }
    const double d2 = edge_edge_distance_sq(v[0], v[1], v[2], v[3]);
    EXPECT_LE(d2, best + 1e-14);
    EXPECT_GE(d2, best - 1e-3) << k;  // grid resolution
  }
}

TEST(PointTriangleDistance, RandomAgreesWithBruteForce) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int k = 0; k < 500; ++k) {
    Vec3 v[4];
    for (auto& x : v) x = Vec3(U(rng), U(rng), U(rng));
    double best = 1e300;
    for (int i = 0; i <= 200; ++i)
      for (int j = 0; i + j <= 200; ++j) {
        const double s = i / 200.0, t = j / 200.0;
        best = std::min(best, (v[0] - (v[1] + s * (v[2] - v[1]) + t * (v[3] - v[1]))).squaredNorm());
      }
    const double d2 = point_triangle_distance_sq(v[0], v[1], v[2], v[3]);
    EXPECT_LE(d2, best + 1e-14);
    EXPECT_GE(d2, best - 1e-3) << k;
  }
}

TEST(DistanceType, Names) {
  EXPECT_STREQ(to_string(PointTriangleType::P_ECA), "P_ECA");
  EXPECT_STREQ(to_string(EdgeEdgeType::EA1_EB), "EA1_EB");
  EXPECT_STREQ(to_string(PointEdgeType::P_E), "P_E");
}
