// Small fixed-size helpers for symmetric matrices: closed-form 2x2 eigensystems and a
// generic eigenvalue clamp. Kernels prefer analytic eigensystems; project_psd<N> is the
// fallback (its cost grows like N^3, so avoid N >= 9 in hot loops).
#pragma once
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "core/types.hpp"

namespace weft {

// Eigen-decomposition of the symmetric 2x2 matrix [[a, b], [b, c]]:
// values descending, vecs columns orthonormal, det(vecs) = +1 (a rotation).
struct SymEig2 {
  Vec2 values;
  Mat2 vecs;
};

inline SymEig2 sym_eig2(double a, double b, double c) {
  SymEig2 r;
  const double m = 0.5 * (a + c);
  const double h = 0.5 * (a - c);
  const double d = std::hypot(h, b);
  r.values(0) = m + d;
  r.values(1) = m - d;
  // The rotation by phi = atan2(b, h) / 2 diagonalises: cos 2phi = h / d, sin 2phi = b / d.
  // Its half-angle formulas without trigonometry (atan2 + sin + cos were ~1 % of a soft
  // drape's run, twice per membrane triangle), each from the larger of 1 +- cos 2phi so
  // neither cancels; phi in (-pi/2, pi/2] as atan2 gives it, so cos phi >= 0. d == 0
  // (a == c, b == 0: any basis is an eigenbasis) gives the identity.
  double cs = 1.0, sn = 0.0;
  if (d > 0.0) {
    if (h >= 0.0) {
      cs = std::sqrt(0.5 * (1.0 + h / d));
      sn = b / (2.0 * d * cs);
    } else {
      sn = std::copysign(std::sqrt(0.5 * (1.0 - h / d)), b);
      cs = b / (2.0 * d * sn);
    }
  }
  r.vecs << cs, -sn, sn, cs;
  return r;
}

// Clamp negative eigenvalues of a symmetric 2x2 to zero, in place.
inline void project_psd2(Mat2& A) {
  const SymEig2 e = sym_eig2(A(0, 0), 0.5 * (A(0, 1) + A(1, 0)), A(1, 1));
  if (e.values(1) >= 0.0) return;
  const double l0 = std::max(e.values(0), 0.0);
  const Vec2 v = e.vecs.col(0);
  A = l0 * v * v.transpose();
}

// Generic clamp: eigen-decompose, set negative eigenvalues to 0, rebuild. Returns true if
// anything was clamped. Fixed size, no heap allocation.
template <int N>
bool project_psd(MatN<N>& H) {
  Eigen::SelfAdjointEigenSolver<MatN<N>> es(H);
  const VecN<N>& lam = es.eigenvalues();
  if (lam(0) >= 0.0) return false;  // ascending order: smallest first
  const MatN<N>& Q = es.eigenvectors();
  VecN<N> lp = lam.cwiseMax(0.0);
  H.noalias() = Q * lp.asDiagonal() * Q.transpose();
  return true;
}

}  // namespace weft
