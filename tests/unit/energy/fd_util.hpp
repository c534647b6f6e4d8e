// Finite-difference helpers shared by the energy kernel tests.
#pragma once
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <functional>
#include <random>

#include "core/types.hpp"
#include "energy/tri_rest.hpp"

namespace weft::test {

template <int N>
using EnergyFn = std::function<double(const VecN<N>&, VecN<N>*, MatN<N>*)>;

// Central differences of the energy against g, and of g against H (unprojected).
// Errors are relative to max|g| (max|H|), floored by g_floor: near a stationary point the
// FD noise eps*|terms|/h of a cancelling energy needs an absolute floor.
template <int N>
void check_fd(const EnergyFn<N>& f, const VecN<N>& x, double h = 1e-6, double rtol = 1e-5,
              double g_floor = 1e-12) {
  VecN<N> g;
  MatN<N> H;
  f(x, &g, &H);
  VecN<N> g_fd;
  MatN<N> H_fd;
  for (int k = 0; k < N; ++k) {
    VecN<N> xp = x, xm = x;
    xp(k) += h;
    xm(k) -= h;
    VecN<N> gp, gm;
    const double ep = f(xp, &gp, nullptr), em = f(xm, &gm, nullptr);
    g_fd(k) = (ep - em) / (2 * h);
    H_fd.col(k) = (gp - gm) / (2 * h);
  }
  const double gs = std::max(g.cwiseAbs().maxCoeff(), g_floor);
  const double hs = std::max(H.cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((g - g_fd).cwiseAbs().maxCoeff(), rtol * gs) << "g =\n"
                                                         << g.transpose() << "\nfd =\n"
                                                         << g_fd.transpose();
  EXPECT_LE((H - H_fd).cwiseAbs().maxCoeff(), rtol * hs) << "H =\n" << H << "\nfd =\n" << H_fd;
  EXPECT_LE((H - H.transpose()).cwiseAbs().maxCoeff(), 1e-12 * hs);
}

template <int N>
double min_eig_ratio(const MatN<N>& H) {
  Eigen::SelfAdjointEigenSolver<MatN<N>> es(H);
  return es.eigenvalues()(0) / std::max(es.eigenvalues().cwiseAbs().maxCoeff(), 1e-300);
}

inline Mat3 random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Eigen::Quaterniond q(n(rng), n(rng), n(rng), n(rng));
  return q.normalized().toRotationMatrix();
}

inline Vec3 random_vec(std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vec3(u(rng), u(rng), u(rng));
}

// A well-shaped random rest triangle.
inline Vec9 random_rest_triangle(std::mt19937& rng) {
  for (;;) {
    Vec9 X;
    X << random_vec(rng), random_vec(rng), random_vec(rng);
    const Vec3 e1 = X.segment<3>(3) - X.segment<3>(0), e2 = X.segment<3>(6) - X.segment<3>(0);
    const double a = 0.5 * e1.cross(e2).norm();
    const double l = std::max({e1.squaredNorm(), e2.squaredNorm(),
                               (X.segment<3>(6) - X.segment<3>(3)).squaredNorm()});
    if (a > 0.2 * l) return X;
  }
}

inline TriRest rest_of(const Vec9& X) {
  return make_tri_rest(X.segment<3>(0), X.segment<3>(3), X.segment<3>(6));
}

// Positions whose deformation gradient is exactly F (x0 given).
inline Vec9 positions_from_F(const Mat32& F, const TriRest& r, const Vec3& x0) {
  const Mat32 Ds = F * r.Dm_inv.inverse();
  Vec9 x;
  x << x0, x0 + Ds.col(0), x0 + Ds.col(1);
  return x;
}

// F = U diag(s1, s2) V^T with random U (3x2 orthonormal) and V (2x2 rotation).
inline Mat32 F_with_singular_values(double s1, double s2, std::mt19937& rng) {
  const Mat3 R = random_rotation(rng);
  std::uniform_real_distribution<double> u(-3.2, 3.2);
  const double a = u(rng);
  Mat2 V;
  V << std::cos(a), -std::sin(a), std::sin(a), std::cos(a);
  return R.leftCols<2>() * Vec2(s1, s2).asDiagonal() * V.transpose();
}

}  // namespace weft::test
