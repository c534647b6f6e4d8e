// Shared helpers of the constraint-kernel tests: central finite differences of C, random
// configurations and the momentum sums of 001 eqs. 1-2.
#pragma once
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <random>

#include "constraints/projection.hpp"

namespace weft::test {

// Central differences of C(x) against the kernel's gradient, per coordinate. The error is
// relative to max |grad|, floored (a stationary point has a zero gradient).
template <int N, class F>
void check_gradient(F&& f, const Stencil3<N>& x, double h = 1e-6, double rtol = 1e-7,
                    double floor = 1e-9) {
  Stencil3<N> g(3, x.cols()), fd(3, x.cols());
  f(x, &g);
  for (int i = 0; i < x.cols(); ++i)
    for (int d = 0; d < 3; ++d) {
      Stencil3<N> xp = x, xm = x;
      xp(d, i) += h;
      xm(d, i) -= h;
      fd(d, i) = (f(xp, nullptr) - f(xm, nullptr)) / (2 * h);
    }
  const double scale = std::max(g.cwiseAbs().maxCoeff(), floor);
  EXPECT_LE((g - fd).cwiseAbs().maxCoeff(), rtol * scale) << "grad =\n" << g << "\nfd =\n" << fd;
}

inline Vec3 random_vec(std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vec3(u(rng), u(rng), u(rng));
}

template <int N>
Stencil3<N> random_stencil(std::mt19937& rng, int cols = N) {
  Stencil3<N> x(3, cols);
  for (int i = 0; i < cols; ++i) x.col(i) = random_vec(rng);
  return x;
}

// Unequal inverse masses in [0.2, 5].
template <int N>
VecN<N> random_inverse_masses(std::mt19937& rng, int n = N) {
  std::uniform_real_distribution<double> u(std::log(0.2), std::log(5.0));
  VecN<N> w(n);
  for (int i = 0; i < n; ++i) w(i) = std::exp(u(rng));
  return w;
}

// 001 eqs. 1-2 for one projection dx at positions x with masses 1 / w: both sums zero,
// relative to the sums of magnitudes.
template <int N>
void expect_momentum_conserved(const Stencil3<N>& x, const Stencil3<N>& dx, const VecN<N>& w) {
  Vec3 P = Vec3::Zero(), L = Vec3::Zero();
  double sp = 0.0, sl = 0.0;
  for (int i = 0; i < x.cols(); ++i) {
    const double m = 1.0 / w(i);
    P += m * dx.col(i);
    L += m * x.col(i).cross(dx.col(i));
    sp += m * dx.col(i).norm();
    sl += m * x.col(i).norm() * dx.col(i).norm();
  }
  ASSERT_GT(sp, 0.0) << "the projection moved nothing: the test would prove nothing";
  EXPECT_LE(P.norm(), 1e-13 * sp) << "linear momentum " << P.transpose();
  EXPECT_LE(L.norm(), 1e-13 * sl) << "angular momentum " << L.transpose();
}

// A hinge (x0, x1 edge; x2, x3 wings on either side) with wing heights about 1, the wing x2
// rotated about the edge so that the signed dihedral angle is psi.
inline Stencil3<4> hinge_at(double psi, double t2 = 0.5, double t3 = 0.3) {
  Stencil3<4> x;
  x.col(0) = Vec3(0, 0, 0);
  x.col(1) = Vec3(1, 0, 0);
  x.col(2) = Vec3(t2, std::cos(psi), -std::sin(psi));
  x.col(3) = Vec3(t3, -1, 0);
  return x;
}

// A random rigid motion applied to every column.
template <int N>
Stencil3<N> rigidly_moved(const Stencil3<N>& x, std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  const Mat3 R = Eigen::Quaterniond(n(rng), n(rng), n(rng), n(rng)).normalized().toRotationMatrix();
  const Vec3 t = random_vec(rng, 3.0);
  Stencil3<N> y = R * x;
  y.colwise() += t;
  return y;
}

}  // namespace weft::test
