// The floating-point root-finding CCD baseline.
#include <gtest/gtest.h>

#include "ccd/root_finding_ccd.hpp"

using namespace weft;

TEST(RootFinding, CubicRoots) {
  double r[3];
  bool deg = false;
  // (t - 0.25)(t - 0.5)(t - 0.75) = t^3 - 1.5 t^2 + 0.6875 t - 0.09375
  int n = cubic_roots_in_unit_interval(-0.09375, 0.6875, -1.5, 1.0, r, &deg);
  ASSERT_EQ(n, 3);
  EXPECT_NEAR(r[0], 0.25, 1e-12);
  EXPECT_NEAR(r[1], 0.5, 1e-12);
  EXPECT_NEAR(r[2], 0.75, 1e-12);
  EXPECT_FALSE(deg);
  // Double root at 0.5 (touching, no sign change): (t - 0.5)^2 (t + 1) = t^3 - 0.75 t + 0.25.
  n = cubic_roots_in_unit_interval(0.25, -0.75, 0.0, 1.0, r, &deg);
  ASSERT_GE(n, 1);
  EXPECT_NEAR(r[0], 0.5, 1e-6);
  // Linear and no root in [0, 1].
  n = cubic_roots_in_unit_interval(-0.3, 1.0, 0.0, 0.0, r, &deg);
  ASSERT_EQ(n, 1);
  EXPECT_NEAR(r[0], 0.3, 1e-12);
  EXPECT_EQ(cubic_roots_in_unit_interval(2.0, 1.0, 0.0, 0.0, r, &deg), 0);
  // Identically zero.
  EXPECT_EQ(cubic_roots_in_unit_interval(0, 0, 0, 0, r, &deg), 0);
  EXPECT_TRUE(deg);
}

TEST(RootFinding, PointTriangle) {
  const Vec3 a(-1, -1, 0), b(3, -1, 0), c(-1, 3, 0);
  RootFindingResult r = point_triangle_root_ccd(Vec3(0.2, 0.3, 1), a, b, c, Vec3(0.2, 0.3, -1), a, b, c);
  ASSERT_TRUE(r.hit);
  EXPECT_NEAR(r.toi, 0.5, 1e-12);
  r = point_triangle_root_ccd(Vec3(5, 5, 1), a, b, c, Vec3(5, 5, -1), a, b, c);  // beside the triangle
  EXPECT_FALSE(r.hit);
  r = point_triangle_root_ccd(Vec3(0.2, 0.3, 1), a, b, c, Vec3(0.2, 0.3, 0.5), a, b, c);  // short
  EXPECT_FALSE(r.hit);
}

TEST(RootFinding, EdgeEdge) {
  RootFindingResult r = edge_edge_root_ccd(Vec3(-1, 0, 1), Vec3(1, 0, 1), Vec3(0, -1, 0), Vec3(0, 1, 0), Vec3(-1, 0, -1),
                                           Vec3(1, 0, -1), Vec3(0, -1, 0), Vec3(0, 1, 0));
  ASSERT_TRUE(r.hit);
  EXPECT_NEAR(r.toi, 0.5, 1e-12);
  r = edge_edge_root_ccd(Vec3(2, 0, 1), Vec3(3, 0, 1), Vec3(0, -1, 0), Vec3(0, 1, 0), Vec3(2, 0, -1), Vec3(3, 0, -1),
                         Vec3(0, -1, 0), Vec3(0, 1, 0));
  EXPECT_FALSE(r.hit);
}
