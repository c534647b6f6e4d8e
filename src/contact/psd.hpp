// Projection of a small symmetric matrix onto the cone of positive semi-definite
// matrices: eigen-decompose and clamp negative eigenvalues to zero (IPC, Li et al. 2020,
// "project the local Hessian to PSD"). Fixed size, no allocation.
#pragma once
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/types.hpp"

namespace weft {
namespace detail {

// Eigen-decomposition of a small symmetric N x N matrix: Householder reduction to
// tridiagonal form with the orthogonal factor accumulated, then implicit QL with shifts
// (EISPACK tred2 / tql2, as in Numerical Recipes' tred2 / tqli), with Givens lengths by
// sqrt(f^2 + g^2) rather than hypot (the entries here are far from overflow). About 1.4x
// faster than Eigen::SelfAdjointEigenSolver at these sizes. a (row-major) is overwritten
// with the eigenvectors as ROWS: a[k] belongs to d[k]. Returns false (a, d unusable) if
// an eigenvalue did not converge in 60 QL sweeps or the input is not finite.
template <int N>
bool tridiagonal_ql(double (&a)[N][N], double (&d)[N], double (&e)[N]);

template <int N>
bool symmetric_eigen(double (&a)[N][N], double (&d)[N]) {
  double e[N];
  for (int i = N - 1; i > 0; --i) {
    const int l = i - 1;
    double h = 0.0;
    if (l > 0) {
      double scale = 0.0;
      for (int k = 0; k <= l; ++k) scale += std::abs(a[i][k]);
      if (scale == 0.0) {
        e[i] = a[i][l];
      } else {
        for (int k = 0; k <= l; ++k) {
          a[i][k] /= scale;
          h += a[i][k] * a[i][k];
        }
        double f = a[i][l];
        double g = f >= 0.0 ? -std::sqrt(h) : std::sqrt(h);
        e[i] = scale * g;
        h -= f * g;
        a[i][l] = f - g;
        f = 0.0;
        for (int j = 0; j <= l; ++j) {
          a[j][i] = a[i][j] / h;
          g = 0.0;
          for (int k = 0; k <= j; ++k) g += a[j][k] * a[i][k];
          for (int k = j + 1; k <= l; ++k) g += a[k][j] * a[i][k];
          e[j] = g / h;
          f += e[j] * a[i][j];
        }
        const double hh = f / (h + h);
        for (int j = 0; j <= l; ++j) {
          f = a[i][j];
          e[j] = g = e[j] - hh * f;
          for (int k = 0; k <= j; ++k) a[j][k] -= f * e[k] + g * a[i][k];
        }
      }
    } else {
      e[i] = a[i][l];
    }
    d[i] = h;
  }
  d[0] = 0.0;
  e[0] = 0.0;
  for (int i = 0; i < N; ++i) {
    const int l = i - 1;
    if (d[i] != 0.0) {
      for (int j = 0; j <= l; ++j) {
        double g = 0.0;
        for (int k = 0; k <= l; ++k) g += a[i][k] * a[k][j];
        for (int k = 0; k <= l; ++k) a[k][j] -= g * a[k][i];
      }
    }
    d[i] = a[i][i];
    a[i][i] = 1.0;
    for (int j = 0; j <= l; ++j) a[j][i] = a[i][j] = 0.0;
  }
  // The eigenvectors are a's columns; QL rotates pairs of them: work on rows instead.
  for (int i = 0; i < N; ++i)
    for (int j = i + 1; j < N; ++j) std::swap(a[i][j], a[j][i]);
  for (int i = 1; i < N; ++i) e[i - 1] = e[i];
  e[N - 1] = 0.0;
  return tridiagonal_ql<N>(a, d, e);
}

// Implicit QL with shifts on the symmetric tridiagonal matrix with diagonal d and
// off-diagonal e (e[i] couples i and i + 1; e[N - 1] = 0, overwritten), rotating the rows
// of a (the basis the tridiagonal matrix is written in; the identity when it is given
// tridiagonal): on return d holds the eigenvalues and a[k] d[k]'s eigenvector in the
// original coordinates. False when an eigenvalue did not converge in 60 sweeps.
template <int N>
bool tridiagonal_ql(double (&a)[N][N], double (&d)[N], double (&e)[N]) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  for (int l = 0; l < N; ++l) {
    int iter = 0, m;
    do {
      for (m = l; m < N - 1; ++m) {
        const double dd = std::abs(d[m]) + std::abs(d[m + 1]);
        if (std::abs(e[m]) <= eps * dd) break;
      }
      if (m != l) {
        if (iter++ == 60 || !std::isfinite(e[l])) return false;
        double g = (d[l + 1] - d[l]) / (2.0 * e[l]);
        double r = std::sqrt(g * g + 1.0);
        g = d[m] - d[l] + e[l] / (g + (g >= 0.0 ? r : -r));
        double s = 1.0, c = 1.0, p = 0.0;
        int i;
        for (i = m - 1; i >= l; --i) {
          double f = s * e[i];
          const double b = c * e[i];
          e[i + 1] = (r = std::sqrt(f * f + g * g));
          if (r == 0.0) {
            d[i + 1] -= p;
            e[m] = 0.0;
            break;
          }
          s = f / r;
          c = g / r;
          g = d[i + 1] - p;
          r = (d[i] - g) * s + 2.0 * c * b;
          d[i + 1] = g + (p = s * r);
          g = c * r - b;
          double* zi = a[i];
          double* zj = a[i + 1];
          for (int k = 0; k < N; ++k) {
            const double zf = zj[k];
            zj[k] = s * zi[k] + c * zf;
            zi[k] = c * zi[k] - s * zf;
          }
        }
        if (r == 0.0 && i >= l) continue;
        d[l] -= p;
        e[l] = g;
        e[m] = 0.0;
      }
    } while (m != l);
  }
  return true;
}


// True when the symmetric M x M matrix a is positive definite: an unpivoted Cholesky
// factorisation (M^3 / 6 flops against ~ 9 M^3 for the eigen-decomposition) meets only
// positive pivots. Barrier Hessians often are, and then need no projection.
template <int M>
bool positive_definite(const double (&a)[M][M]) {
  double l[M][M];
  for (int j = 0; j < M; ++j) {
    double d = a[j][j];
    for (int k = 0; k < j; ++k) d -= l[j][k] * l[j][k];
    if (!(d > 0.0)) return false;
    const double ljj = std::sqrt(d), inv = 1.0 / ljj;
    l[j][j] = ljj;
    for (int i = j + 1; i < M; ++i) {
      double s = a[i][j];
      for (int k = 0; k < j; ++k) s -= l[i][k] * l[j][k];
      l[i][j] = s * inv;
    }
  }
  return true;
}

}  // namespace detail

// 2 x 2 in closed form: [a b; b c] is PSD iff a, c >= 0 and ac >= b^2 (returned as is);
// otherwise its eigenvalues are m +- r, m = (a + c) / 2, r = |((a - c) / 2, b)|, and the
// positive part is (m + r) v v^T with v the unit eigenvector of m + r (or 0).
inline Mat2 project_to_psd_2x2(const Mat2& A) {
  const double a = A(0, 0), b = 0.5 * (A(0, 1) + A(1, 0)), c = A(1, 1);
  if (a >= 0.0 && c >= 0.0 && a * c >= b * b) return A;
  const double m = 0.5 * (a + c), h = 0.5 * (a - c), r = std::sqrt(h * h + b * b);
  const double lmax = m + r;
  if (!(lmax > 0.0)) return Mat2::Zero();
  // Eigenvector of lmax: (b, lmax - a) or (lmax - c, b), whichever is longer.
  Vec2 v(b, lmax - a);
  const Vec2 w(lmax - c, b);
  if (w.squaredNorm() > v.squaredNorm()) v = w;
  const double vv = v.squaredNorm();
  if (!(vv > 0.0)) return Mat2::Zero();
  return (lmax / vv) * v * v.transpose();
}

// The PSD projection of the symmetric tridiagonal T = [0 a 0; a b c; 0 c e] (the reduced
// Hessian of a barrier between a free and a fixed edge, pair_potential.cpp) in closed form:
// the eigenvalues of the characteristic cubic
//   l^3 - (b + e) l^2 + (b e - a^2 - c^2) l + a^2 e
// by the trigonometric formula, each polished by one Newton step; when one eigenvalue has
// the sign the other two lack, its eigenvector (the longest cross product of two rows of
// T - l I) gives P = T - l v v^T (one negative) or l v v^T (one positive). The error is of
// the order of the rounding of T: the chosen eigenvalue is at least |l| from the others, so
// the eigenvector's error times l stays ~ eps |T|. False (P unset) when the cross products
// vanish to rounding (the caller then uses the QL).
inline bool project_tridiagonal3_to_psd(double a, double b, double c, double e, double (&P)[3][3]) {
  const double T[3][3] = {{0.0, a, 0.0}, {a, b, c}, {0.0, c, e}};
  const double q = (b + e) / 3.0;
  const double p1 = 2.0 * (a * a + c * c);
  const double p2 = q * q + (b - q) * (b - q) + (e - q) * (e - q) + p1;
  if (!(p2 > 0.0)) {  // T = 0
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) P[i][j] = 0.0;
    return std::isfinite(p2);
  }
  const double pp = std::sqrt(p2 / 6.0);
  // det((T - q I) / pp) / 2
  const double m0 = -q / pp, m1 = (b - q) / pp, m2 = (e - q) / pp, ap = a / pp, cp = c / pp;
  double r = 0.5 * (m0 * (m1 * m2 - cp * cp) - ap * (ap * m2));
  r = std::min(1.0, std::max(-1.0, r));
  const double phi = std::acos(r) / 3.0;
  constexpr double kTwoPiThirds = 2.0943951023931954923;
  double l[3] = {q + 2.0 * pp * std::cos(phi), 0.0, q + 2.0 * pp * std::cos(phi + kTwoPiThirds)};
  l[1] = 3.0 * q - l[0] - l[2];  // l[0] >= l[1] >= l[2]
  const double s1 = b + e, s2 = b * e - a * a - c * c, s3 = a * a * e;
  for (double& x : l) {
    const double f = ((x - s1) * x + s2) * x + s3, df = (3.0 * x - 2.0 * s1) * x + s2;
    if (df != 0.0) {
      const double y = x - f / df;
      const double fy = ((y - s1) * y + s2) * y + s3;
      if (std::abs(fy) < std::abs(f)) x = y;
    }
  }
  const int neg = (l[0] < 0.0) + (l[1] < 0.0) + (l[2] < 0.0);
  if (neg == 0 || neg == 3) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) P[i][j] = neg == 0 ? T[i][j] : 0.0;
    return true;
  }
  const double lam = neg == 1 ? l[2] : l[0];
  const Vec3 r0(-lam, a, 0.0), r1(a, b - lam, c), r2(0.0, c, e - lam);
  Vec3 v = r0.cross(r1);
  double vv = v.squaredNorm();
  const Vec3 v02 = r0.cross(r2), v12 = r1.cross(r2);
  if (const double n02 = v02.squaredNorm(); n02 > vv) v = v02, vv = n02;
  if (const double n12 = v12.squaredNorm(); n12 > vv) v = v12, vv = n12;
  const double scale = std::max(r0.squaredNorm(), std::max(r1.squaredNorm(), r2.squaredNorm()));
  if (!(vv > 1e-20 * scale * scale) || !std::isfinite(vv)) return false;
  v /= std::sqrt(vv);
  const double lr = v.dot(Vec3(T[0][0] * v[0] + T[0][1] * v[1], T[1][0] * v[0] + T[1][1] * v[1] + T[1][2] * v[2],
                               T[2][1] * v[1] + T[2][2] * v[2]));  // Rayleigh quotient
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) P[i][j] = neg == 1 ? T[i][j] - std::min(lr, 0.0) * v[i] * v[j] : lr * v[i] * v[j];
  if (neg == 2 && !(lr > 0.0))
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) P[i][j] = 0.0;
  return true;
}

template <int N>
MatN<N> project_to_psd(const MatN<N>& A) {
  Eigen::SelfAdjointEigenSolver<MatN<N>> es(A);
  VecN<N> lambda = es.eigenvalues();
  if (lambda.minCoeff() >= 0.0) return A;
  for (int i = 0; i < N; ++i) lambda[i] = lambda[i] > 0.0 ? lambda[i] : 0.0;
  return es.eigenvectors() * lambda.asDiagonal() * es.eigenvectors().transpose();
}

// Eigenvalue clamp of a symmetric M x M matrix with the decomposition above (Eigen's solver
// if it does not converge). A is returned unchanged when it is PSD.
template <int M>
MatN<M> project_symmetric_to_psd(const MatN<M>& A) {
  if constexpr (M == 1) {
    return A(0, 0) > 0.0 ? A : MatN<M>::Zero();
  } else {
    double a[M][M], d[M];
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j) a[i][j] = A(i, j);
    if (detail::positive_definite<M>(a)) return A;
    if (!detail::symmetric_eigen<M>(a, d)) return project_to_psd<M>(A);
    bool clamped = false;
    for (int k = 0; k < M; ++k) clamped |= d[k] < 0.0;
    if (!clamped) return A;
    MatN<M> P = MatN<M>::Zero();
    for (int k = 0; k < M; ++k) {
      if (d[k] <= 0.0) continue;
      const Eigen::Map<const VecN<M>> v(a[k]);
      P.noalias() += d[k] * v * v.transpose();
    }
    return P;
  }
}

// The same projection for the Hessian A of a function of K points that does not change when
// all of them move by the same vector (every distance, barrier and mollifier here): A
// vanishes on the 3 translation directions, so A = Q C Q^T with Q = U (x) I_3, U a K x (K-1)
// orthonormal basis orthogonal to (1, ..., 1) (Helmert), and C = Q^T A Q of size 3 (K - 1).
// Projecting C and mapping back projects A, with an eigen-decomposition of 3 (K - 1) rows
// instead of 3 K (9 instead of 12, 6 instead of 9, 3 instead of 6); the results agree with
// project_to_psd<3K> to rounding. A is returned unchanged when C is PSD.
template <int K>
MatN<3 * K> project_points_to_psd(const MatN<3 * K>& A) {
  static_assert(K >= 2, "at least two points");
  constexpr int R = 3 * (K - 1);
  static const Eigen::Matrix<double, 3 * K, R> Q = [] {
    Eigen::Matrix<double, 3 * K, R> q = Eigen::Matrix<double, 3 * K, R>::Zero();
    for (int j = 1; j < K; ++j) {
      const double c = 1.0 / std::sqrt(double(j) * (j + 1));
      for (int a = 0; a < K; ++a) {
        const double u = a < j ? c : a == j ? -j * c : 0.0;
        for (int d = 0; d < 3; ++d) q(3 * a + d, 3 * (j - 1) + d) = u;
      }
    }
    return q;
  }();
  const MatN<R> C = Q.transpose().lazyProduct(A).lazyProduct(Q);
  double a[R][R], d[R];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < R; ++j) a[i][j] = C(i, j);
  if (detail::positive_definite<R>(a)) return A;
  if (!detail::symmetric_eigen<R>(a, d)) {  // not converged (never seen): Eigen's solver
    Eigen::SelfAdjointEigenSolver<MatN<R>> es(C);
    VecN<R> lambda = es.eigenvalues();
    if (lambda.minCoeff() >= 0.0) return A;
    for (int i = 0; i < R; ++i) lambda[i] = lambda[i] > 0.0 ? lambda[i] : 0.0;
    const Eigen::Matrix<double, 3 * K, R> V = Q * es.eigenvectors();
    return V * lambda.asDiagonal() * V.transpose();
  }
  // Keep the positive part: sum over d_k > 0 of d_k (Q v_k)(Q v_k)^T.
  Eigen::Matrix<double, 3 * K, R> V;
  VecN<R> lambda;
  int n = 0;
  for (int k = 0; k < R; ++k) {
    if (d[k] <= 0.0) continue;
    for (int i = 0; i < R; ++i) V(i, n) = a[k][i];  // (column n of V is Q^T-space for now)
    lambda[n++] = d[k];
  }
  if (n == R) return A;
  MatN<3 * K> P = MatN<3 * K>::Zero();
  for (int k = 0; k < n; ++k) {
    const VecN<3 * K> w = Q * V.col(k).template head<R>();
    P.noalias() += lambda[k] * w * w.transpose();
  }
  return P;
}

}  // namespace weft
