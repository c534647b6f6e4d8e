#include "energy/isotropic3.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <Eigen/SVD>

namespace weft {

// GCC 12 at -O3 flags JacobiSVD<Matrix3d>'s fixed-size storage as maybe-uninitialized (a
// false positive inside Eigen).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
Svd3 svd3(const Mat3& F) {
  const Eigen::JacobiSVD<Mat3> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Svd3 r;
  r.U = svd.matrixU();
  r.V = svd.matrixV();
  r.s = svd.singularValues();
  // Move any reflection into the smallest singular value (Irving et al. 2004).
  if (r.U.determinant() < 0) {
    r.U.col(2) *= -1.0;
    r.s(2) *= -1.0;
  }
  if (r.V.determinant() < 0) {
    r.V.col(2) *= -1.0;
    r.s(2) *= -1.0;
  }
  return r;
}
#pragma GCC diagnostic pop

namespace {

// x-space direction of the rank-one F-direction u w^T: vertex a gets u (c_a . w).
inline Vec12 kron(const Eigen::Vector4d& beta, const Vec3& u) {
  Vec12 q;
  for (int a = 0; a < 4; ++a) q.segment<3>(3 * a) = beta(a) * u;
  return q;
}

}  // namespace

void isotropic3_grad_hess(const Svd3& svd, const IsoDerivs3& d, double scale, const TetRest& r, Vec12* g,
                          Mat12* H, bool project) {
  const Eigen::Matrix<double, 4, 3> c = tet_dF_coeffs(r);
  Eigen::Vector4d b[3];
  for (int i = 0; i < 3; ++i) b[i] = c * svd.V.col(i);
  const Mat3& U = svd.U;
  if (g) *g = scale * (kron(b[0], d.d(0) * U.col(0)) + kron(b[1], d.d(1) * U.col(1)) + kron(b[2], d.d(2) * U.col(2)));
  if (!H) return;
  Eigen::Matrix<double, 12, 9> Q;
  VecN<9> lam;
  // Scaling modes.
  Eigen::SelfAdjointEigenSolver<Mat3> es;
  es.computeDirect(d.h);
  for (int m = 0; m < 3; ++m) {
    const Vec3 w = es.eigenvectors().col(m);
    Q.col(m) = kron(b[0], w(0) * U.col(0)) + kron(b[1], w(1) * U.col(1)) + kron(b[2], w(2) * U.col(2));
    lam(m) = es.eigenvalues()(m);
  }
  // Flip and twist modes of each pair.
  const double is2 = std::sqrt(0.5);
  const int pi[3] = {0, 0, 1}, pj[3] = {1, 2, 2};
  for (int p = 0; p < 3; ++p) {
    const int i = pi[p], j = pj[p];
    const Vec12 a = kron(b[j], U.col(i)), bb = kron(b[i], U.col(j));  // u_i v_j^T, u_j v_i^T
    Q.col(3 + 2 * p) = is2 * (a + bb);
    Q.col(4 + 2 * p) = is2 * (a - bb);
    lam(3 + 2 * p) = d.l_flip(p);
    lam(4 + 2 * p) = d.l_twist(p);
  }
  if (project) lam = lam.cwiseMax(0.0);
  lam *= scale;
  const Eigen::Matrix<double, 12, 9> Ql = Q * lam.asDiagonal();
  H->noalias() = Ql.lazyProduct(Q.transpose());
}

}  // namespace weft
