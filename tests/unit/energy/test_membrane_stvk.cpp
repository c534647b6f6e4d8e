#include <cmath>

#include "energy/membrane_stvk.hpp"
#include "membrane_checks.hpp"

namespace weft {
namespace {

TEST(MembraneStVK, FiniteDifferences) { test::check_membrane_fd(membrane_stvk, 21); }
TEST(MembraneStVK, FiniteDifferencesEqualSingularValues) {
  test::check_membrane_equal_singular_values_fd(membrane_stvk, 22);
}
TEST(MembraneStVK, ZeroAtRest) { test::check_membrane_rest(membrane_stvk, 23); }
TEST(MembraneStVK, RigidMotionInvariance) { test::check_membrane_rotation_invariance(membrane_stvk, 24); }
TEST(MembraneStVK, ProjectionMatchesFSpaceClamp) { test::check_membrane_projection(membrane_stvk, 25); }

TEST(MembraneStVK, UniformStretchEnergy) {
  std::mt19937 rng(26);
  const Vec9 X = test::random_rest_triangle(rng);
  const TriRest r = test::rest_of(X);
  const MembraneParams& p = test::kMembrane;
  for (double s : {0.5, 0.9, 1.1, 2.0}) {
    const double e = membrane_stvk(s * X, r, p, nullptr, nullptr, false);
    const double Ei = 0.5 * (s * s - 1);  // E = Ei * I
    const double psi = p.mu * 2 * Ei * Ei + 0.5 * p.lambda * 4 * Ei * Ei;
    EXPECT_NEAR(e, r.area * p.thickness * psi, 1e-12 * std::abs(e));
  }
}

TEST(MembraneStVK, GradientOnlyPathMatches) {
  std::mt19937 rng(27);
  for (int t = 0; t < 5; ++t) {
    const Vec9 X = test::random_rest_triangle(rng);
    const TriRest r = test::rest_of(X);
    const Vec9 x = test::random_deformed(X, rng, 0.5);
    Vec9 g1, g2;
    Mat9 H;
    membrane_stvk(x, r, test::kMembrane, &g1, nullptr, false);
    membrane_stvk(x, r, test::kMembrane, &g2, &H, false);
    EXPECT_LE((g1 - g2).cwiseAbs().maxCoeff(), 1e-10 * g1.cwiseAbs().maxCoeff());
  }
}

TEST(MembraneStVK, CollapsedTriangleFinite) {
  std::mt19937 rng(28);
  const Vec9 X = test::random_rest_triangle(rng);
  const TriRest r = test::rest_of(X);
  Vec9 x = X;
  x.segment<3>(6) = 0.5 * (X.segment<3>(0) + X.segment<3>(3));
  Vec9 g;
  Mat9 H;
  const double e = membrane_stvk(x, r, test::kMembrane, &g, &H, true);
  EXPECT_TRUE(std::isfinite(e));
  EXPECT_TRUE(g.allFinite());
  EXPECT_TRUE(H.allFinite());
  EXPECT_GE(test::min_eig_ratio<9>(H), -1e-8);
  // Also fully collapsed to a point.
  for (int a = 0; a < 3; ++a) x.segment<3>(3 * a) = Vec3(1, 2, 3);
  EXPECT_TRUE(std::isfinite(membrane_stvk(x, r, test::kMembrane, &g, &H, true)));
  EXPECT_TRUE(H.allFinite());
}

}  // namespace
}  // namespace weft
