// Smoothed friction functions, tangent bases, closest points and the lagged friction potential.
#include <gtest/gtest.h>

#include <random>

#include "contact/friction.hpp"
#include "fd_util.hpp"

using namespace weft;
using namespace weft::test;

TEST(Friction, SmoothingFunctions) {
  const double eps = 1e-3;
  EXPECT_EQ(friction_f0(0.0, eps), eps / 3.0);
  // Continuous at eps with slope 1: f0(eps - h) = eps - h + O(h^3 / eps^2).
  EXPECT_NEAR(friction_f0(eps * (1 - 1e-6), eps), eps * (1 - 1e-6), 1e-18);
  EXPECT_EQ(friction_f0(2 * eps, eps), 2 * eps);
  EXPECT_EQ(friction_f1(0.0, eps), 0.0);
  EXPECT_NEAR(friction_f1(eps * (1 - 1e-9), eps), 1.0, 1e-12);
  EXPECT_EQ(friction_f1(3 * eps, eps), 1.0);
  for (double y : {1e-5, 3e-4, 7e-4, 9.9e-4, 1.5e-3, 4e-3}) {
    const double h = 1e-9;
    EXPECT_NEAR((friction_f0(y + h, eps) - friction_f0(y - h, eps)) / (2 * h), friction_f1(y, eps), 1e-6) << y;
    EXPECT_NEAR(friction_f1_over_x(y, eps) * y, friction_f1(y, eps), 1e-12) << y;
    const double dfx = (friction_f1_over_x(y + h, eps) - friction_f1_over_x(y - h, eps)) / (2 * h);
    EXPECT_NEAR(friction_df1_over_x(y, eps) * y, dfx, 1e-6 * std::abs(dfx)) << y;
  }
  EXPECT_DOUBLE_EQ(friction_f1_over_x(0.0, eps), 2.0 / eps);
}

namespace {
void expect_basis_orthogonal_to(const Mat32& P, const Vec3& n, int line = __builtin_LINE()) {
  SCOPED_TRACE(line);
  EXPECT_NEAR((P.transpose() * P - Mat2::Identity()).norm(), 0.0, 1e-12);
  EXPECT_NEAR((P.transpose() * n.normalized()).norm(), 0.0, 1e-12);
}
}  // namespace

TEST(Friction, TangentBases) {
  expect_basis_orthogonal_to(point_point_tangent_basis(Vec3(0, 0, 0), Vec3(1, 2, 3)), Vec3(1, 2, 3));
  expect_basis_orthogonal_to(point_point_tangent_basis(Vec3(0, 0, 0), Vec3(0, 0, 0)), Vec3(0, 0, 1));  // degenerate: any
  expect_basis_orthogonal_to(point_edge_tangent_basis(Vec3(0.5, 0, 2), Vec3(0, 0, 0), Vec3(1, 0, 0)), Vec3(0, 0, 1));
  expect_basis_orthogonal_to(point_triangle_tangent_basis(Vec3(0.2, 0.2, 1), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)),
                             Vec3(0, 0, 1));
  expect_basis_orthogonal_to(
      edge_edge_tangent_basis(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, -1, 1), Vec3(0, 1, 1)), Vec3(0, 0, 1));
  // Parallel edges: normal is the perpendicular between the lines.
  expect_basis_orthogonal_to(edge_edge_tangent_basis(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 2), Vec3(1, 0, 2)),
                             Vec3(0, 0, 1));
  // Point on the edge's line: still an orthonormal basis containing the edge direction.
  const Mat32 P = point_edge_tangent_basis(Vec3(0.5, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0));
  EXPECT_NEAR((P.transpose() * P - Mat2::Identity()).norm(), 0.0, 1e-12);
}

TEST(Friction, ClosestPointsAndRelativeJacobians) {
  EXPECT_DOUBLE_EQ(point_edge_closest_point(Vec3(0.25, 1, 0), Vec3(0, 0, 0), Vec3(2, 0, 0)), 0.125);
  const Vec2 beta = point_triangle_closest_point(Vec3(0.25, 0.5, 1), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0));
  EXPECT_NEAR(beta[0], 0.25, 1e-15);
  EXPECT_NEAR(beta[1], 0.5, 1e-15);
  const Vec2 gamma = edge_edge_closest_point(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0.5, -1, 1), Vec3(0.5, 3, 1));
  EXPECT_NEAR(gamma[0], 0.75, 1e-15);
  EXPECT_NEAR(gamma[1], 0.25, 1e-15);
  // Gamma x = closest-point difference.
  Vec12 x;
  x << -1, 0, 0, 1, 0, 0, 0.5, -1, 1, 0.5, 3, 1;
  EXPECT_NEAR((edge_edge_relative_jacobian(gamma) * x - Vec3(0, 0, -1)).norm(), 0.0, 1e-14);
  Vec12 y;
  y << 0.25, 0.5, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0;
  EXPECT_NEAR((point_triangle_relative_jacobian(beta) * y - Vec3(0, 0, 1)).norm(), 0.0, 1e-14);
  Vec9 z;
  z << 0.25, 1, 0, 0, 0, 0, 2, 0, 0;
  EXPECT_NEAR((point_edge_relative_jacobian(0.125) * z - Vec3(0, 1, 0)).norm(), 0.0, 1e-14);
  VecN<6> w;
  w << 1, 2, 3, 0, 0, 1;
  EXPECT_NEAR((point_point_relative_jacobian() * w - Vec3(1, 2, 2)).norm(), 0.0, 1e-14);
}

TEST(Friction, OperatorsMeasureTangentialSlip) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0), p(0.2, 0.3, 1e-3);
  const TangentOperator<12> T = point_triangle_friction_operator(p, a, b, c);
  Vec12 dx = Vec12::Zero();
  dx.head<3>() = Vec3(3e-4, -4e-4, 0);  // tangential slip of the point
  EXPECT_NEAR((T.transpose() * dx).norm(), 5e-4, 1e-15);
  dx.head<3>() = Vec3(0, 0, 7e-4);  // normal motion: no slip
  EXPECT_NEAR((T.transpose() * dx).norm(), 0.0, 1e-15);
  dx.setZero();  // rigid translation of the whole pair: no slip
  for (int i = 0; i < 4; ++i) dx.segment<3>(3 * i) = Vec3(1, 2, 3);
  EXPECT_NEAR((T.transpose() * dx).norm(), 0.0, 1e-14);
  // Vertex region uses the point-point frame: only p and t0 take part.
  const TangentOperator<12> Tv = point_triangle_friction_operator(Vec3(-0.1, -0.1, 0.01), a, b, c);
  EXPECT_EQ(Tv.middleRows<6>(6).norm(), 0.0);
  // Edge-edge crossing: slip of edge a along x.
  const TangentOperator<12> Te = edge_edge_friction_operator(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, -1, 1e-3), Vec3(0, 1, 1e-3));
  Vec12 de = Vec12::Zero();
  de.segment<3>(0) = de.segment<3>(3) = Vec3(2e-4, 0, 0);
  EXPECT_NEAR((Te.transpose() * de).norm(), 2e-4, 1e-15);
  const TangentOperator<9> Tp = point_edge_friction_operator(Vec3(0.5, 0, 1e-3), Vec3(0, 0, 0), Vec3(1, 0, 0));
  Vec9 dp = Vec9::Zero();
  dp.head<3>() = Vec3(1e-4, 2e-4, 5e-4);
  EXPECT_NEAR((Tp.transpose() * dp).norm(), std::sqrt(5e-8), 1e-15);
}

TEST(Friction, PotentialDerivativesStaticAndSliding) {
  std::mt19937 rng(3);
  const double eps = 1e-3, mu_lambda = 2.5;
  for (double scale : {1e-4, 5e-4, 3e-3, 1e-2}) {
    for (int k = 0; k < 5; ++k) {
      TangentOperator<12> T;
      for (int i = 0; i < 12; ++i) T.row(i) = random_vec<2>(rng).transpose();
      Vec12 dx = scale * random_vec<12>(rng) / 3.0;
      auto f = [&](const Vec12& y) { return friction_potential<12>(T, y, mu_lambda, eps).value; };
      auto g = [&](const Vec12& y) { return Vec12(friction_potential<12>(T, y, mu_lambda, eps).gradient); };
      const LocalEnergy<12> e = friction_potential<12>(T, dx, mu_lambda, eps);
      const double h = 1e-9;
      EXPECT_TRUE(near_rel(e.gradient, fd_gradient<12>(f, dx, h), 1e-5)) << scale;
      EXPECT_TRUE(near_rel(e.hessian, fd_jacobian<12>(g, dx, h), 1e-4)) << scale;
      Eigen::SelfAdjointEigenSolver<Mat12> es(e.hessian);
      EXPECT_GE(es.eigenvalues().minCoeff(), -1e-9 * e.hessian.norm());
    }
  }
  // No slip: zero gradient, finite PSD Hessian (2 / eps) mu lambda T T^T.
  TangentOperator<6> T = point_point_friction_operator(Vec3(0, 0, 0), Vec3(0, 0, 1));
  const LocalEnergy<6> z = friction_potential<6>(T, VecN<6>::Zero(), mu_lambda, eps);
  EXPECT_EQ(z.gradient.norm(), 0.0);
  EXPECT_NEAR((z.hessian - (2.0 / eps) * mu_lambda * T * T.transpose()).norm(), 0.0, 1e-9);
  EXPECT_DOUBLE_EQ(z.value, mu_lambda * eps / 3.0);
}

// friction_potential_rows gives friction_potential's entries on the kept points' rows and
// columns bit for bit (ContactModel::assemble_friction relies on it: the system is the same
// with either), static and sliding, for every subset of 1-3 of the 4 points.
TEST(Friction, RowsOfTheKeptPointsBitForBit) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto v3 = [&] { return Vec3(u(rng), u(rng), u(rng)); };
  for (int trial = 0; trial < 40; ++trial) {
    const Vec3 p = v3(), t0 = v3(), t1 = v3(), t2 = v3();
    const TangentOperator<12> T = point_triangle_friction_operator(p, t0, t1, t2);
    Vec12 dx;
    for (int i = 0; i < 12; ++i) dx[i] = (trial % 2 ? 1e-2 : 1e-6) * u(rng);  // sliding / static
    const double eps = 1e-4, ml = 3.0;
    const LocalEnergy<12> full = friction_potential<12>(T, dx, ml, eps);
    for (unsigned mask = 1; mask < 15; ++mask) {
      int keep[4], n = 0;
      for (int a = 0; a < 4; ++a)
        if ((mask >> a) & 1u) keep[n++] = a;
      auto check = [&](const auto& le) {
        EXPECT_EQ(le.value, full.value);
        const int m = 3 * n;
        for (int i = 0; i < n; ++i)
          for (int r = 0; r < 3; ++r) {
            EXPECT_EQ(le.gradient[3 * i + r], full.gradient[3 * keep[i] + r]);
            for (int j = 0; j < n; ++j)
              for (int c = 0; c < 3; ++c)
                EXPECT_EQ(le.hessian.data()[(3 * j + c) * m + 3 * i + r],
                          full.hessian(3 * keep[i] + r, 3 * keep[j] + c));
          }
      };
      if (n == 1) check(friction_potential_rows<1>(T, dx, ml, eps, keep));
      if (n == 2) check(friction_potential_rows<2>(T, dx, ml, eps, keep));
      if (n == 3) check(friction_potential_rows<3>(T, dx, ml, eps, keep));
    }
  }
}
