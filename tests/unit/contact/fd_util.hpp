// Central finite differences for the contact-layer derivative tests.
#pragma once
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

#include "core/types.hpp"

namespace weft::test {

template <int N, class F>
VecN<N> fd_gradient(const F& f, const VecN<N>& x, double h) {
  VecN<N> g;
  for (int i = 0; i < N; ++i) {
    VecN<N> xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    g[i] = (f(xp) - f(xm)) / (2.0 * h);
  }
  return g;
}

template <int N, class G>
MatN<N> fd_jacobian(const G& g, const VecN<N>& x, double h) {
  MatN<N> J;
  for (int i = 0; i < N; ++i) {
    VecN<N> xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    J.col(i) = (g(xp) - g(xm)) / (2.0 * h);
  }
  return J;
}

// |a - b| <= tol * max(1, |b|) in the Frobenius / Euclidean norm.
template <class A, class B>
::testing::AssertionResult near_rel(const A& a, const B& b, double tol) {
  const double err = (a - b).norm();
  const double scale = std::max(1.0, b.norm());
  if (err <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "error " << err << " > " << tol << " * " << scale << "\nanalytic:\n"
                                       << a << "\nfinite difference:\n"
                                       << b;
}

inline Vec3 pt(const VecN<12>& x, int i) { return x.segment<3>(3 * i); }

template <int N>
VecN<N> random_vec(std::mt19937& rng, double lo = -1.0, double hi = 1.0) {
  std::uniform_real_distribution<double> U(lo, hi);
  VecN<N> v;
  for (int i = 0; i < N; ++i) v[i] = U(rng);
  return v;
}

}  // namespace weft::test
