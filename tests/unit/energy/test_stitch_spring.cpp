// The stitch spring (energy/stitch_spring.hpp): k/2 |xa - xb|^2, zero rest length.
#include <gtest/gtest.h>

#include <random>

#include "energy/stitch_spring.hpp"
#include "fd_util.hpp"

using namespace weft;

TEST(StitchSpring, FiniteDifferences) {
  std::mt19937 rng(19);
  for (int trial = 0; trial < 20; ++trial) {
    const double k = std::exp(std::uniform_real_distribution<double>(-3, 8)(rng));
    VecN<6> x;
    x << test::random_vec(rng), test::random_vec(rng, 0.1);
    test::check_fd<6>([&](const VecN<6>& y, VecN<6>* g, MatN<6>* H) {
      return stitch_spring(y.head<3>(), y.tail<3>(), k, g, H);
    }, x, 1e-6, 1e-6);
  }
}

TEST(StitchSpring, ValuesAndPsd) {
  VecN<6> g;
  MatN<6> H;
  const double e = stitch_spring(Vec3(1, 2, 3), Vec3(1, 2, 1), 4.0, &g, &H);
  EXPECT_DOUBLE_EQ(e, 0.5 * 4.0 * 4.0);  // |d| = 2
  EXPECT_DOUBLE_EQ(g(2), 8.0);
  EXPECT_DOUBLE_EQ(g(5), -8.0);
  EXPECT_DOUBLE_EQ(g.head<2>().norm() + g.segment<2>(3).norm(), 0.0);
  // Zero at coincidence, and PSD (eigenvalues 0 and 2k) everywhere.
  EXPECT_EQ(stitch_spring(Vec3(1, 2, 3), Vec3(1, 2, 3), 4.0, nullptr, nullptr), 0.0);
  Eigen::SelfAdjointEigenSolver<MatN<6>> es(H);
  EXPECT_NEAR(es.eigenvalues()(0), 0.0, 1e-12);
  EXPECT_NEAR(es.eigenvalues()(5), 8.0, 1e-12);
}
