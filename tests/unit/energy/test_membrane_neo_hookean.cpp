#include <cmath>

#include "energy/membrane_neo_hookean.hpp"
#include "membrane_checks.hpp"

namespace weft {
namespace {

TEST(MembraneNeoHookean, FiniteDifferences) { test::check_membrane_fd(membrane_neo_hookean, 11); }
TEST(MembraneNeoHookean, FiniteDifferencesEqualSingularValues) {
  test::check_membrane_equal_singular_values_fd(membrane_neo_hookean, 12);
}
TEST(MembraneNeoHookean, ZeroAtRest) { test::check_membrane_rest(membrane_neo_hookean, 13); }
TEST(MembraneNeoHookean, RigidMotionInvariance) {
  test::check_membrane_rotation_invariance(membrane_neo_hookean, 14);
}
TEST(MembraneNeoHookean, ProjectionMatchesFSpaceClamp) {
  test::check_membrane_projection(membrane_neo_hookean, 15);
}

TEST(MembraneNeoHookean, UniformStretchEnergy) {
  std::mt19937 rng(16);
  const Vec9 X = test::random_rest_triangle(rng);
  const TriRest r = test::rest_of(X);
  const MembraneParams& p = test::kMembrane;
  for (double s : {0.5, 0.9, 1.1, 2.0}) {
    const double e = membrane_neo_hookean(s * X, r, p, nullptr, nullptr, false);
    const double L = std::log(s * s);
    const double psi = 0.5 * p.mu * (2 * s * s - 2) - p.mu * L + 0.5 * p.lambda * L * L;
    EXPECT_NEAR(e, r.area * p.thickness * psi, 1e-12 * std::abs(e));
  }
}

TEST(MembraneNeoHookean, CollapsedIsInfinite) {
  std::mt19937 rng(17);
  const Vec9 X = test::random_rest_triangle(rng);
  const TriRest r = test::rest_of(X);
  Vec9 x = X;
  x.segment<3>(6) = 0.5 * (X.segment<3>(0) + X.segment<3>(3));  // x2 on edge x0-x1
  Vec9 g;
  Mat9 H;
  EXPECT_TRUE(std::isinf(membrane_neo_hookean(x, r, test::kMembrane, &g, &H, true)));
  EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
  // Almost collapsed: finite, huge, PSD after projection.
  x.segment<3>(6) += 1e-6 * (X.segment<3>(6) - x.segment<3>(6));
  const double e = membrane_neo_hookean(x, r, test::kMembrane, &g, &H, true);
  EXPECT_TRUE(std::isfinite(e));
  EXPECT_TRUE(H.allFinite());
  EXPECT_GE(test::min_eig_ratio<9>(H), -1e-8);
}

}  // namespace
}  // namespace weft
