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
  // H = sum_m lam_m q_m q_m^T over the 9 modes, block by block in the frame U: vertex a's part
  // of every mode is U times a 3-vector of b_p(a) (scaling: the eigenvectors w of d.h over
  // (b_0 u_0, b_1 u_1, b_2 u_2); flip / twist of the pair (i, j): (b_j u_i +- b_i u_j) / sqrt 2),
  // so block (a, b) is U K_ab U^T with, for S = W diag(lam_scaling) W^T and per pair
  // t = (lam_flip + lam_twist) / 2, o = (lam_flip - lam_twist) / 2,
  //   K_rr = b_r(a) b_r(b) S_rr + sum over the pairs (r, p) of b_p(a) b_p(b) t_rp,
  //   K_rs = b_r(a) b_s(b) S_rs + b_s(a) b_r(b) o_rs   (r != s):
  // about half the flops of the 12 x 9 mode matrix times its transpose, the lower blocks as
  // transposes (as energy/isotropic.cpp for the membrane).
  Eigen::SelfAdjointEigenSolver<Mat3> es;
  es.computeDirect(d.h);
  Vec3 ls = es.eigenvalues();
  VecN<3> lf = d.l_flip, lt = d.l_twist;
  if (project) ls = ls.cwiseMax(0.0), lf = lf.cwiseMax(0.0), lt = lt.cwiseMax(0.0);
  ls *= scale, lf *= scale, lt *= scale;
  const Mat3& W = es.eigenvectors();
  const Mat3 S = W * ls.asDiagonal() * W.transpose();
  // Pair p = (i, j) in the order (0, 1), (0, 2), (1, 2).
  double t[3][3] = {}, o[3][3] = {};
  const int pi[3] = {0, 0, 1}, pj[3] = {1, 2, 2};
  for (int p = 0; p < 3; ++p) {
    const int i = pi[p], j = pj[p];
    t[i][j] = t[j][i] = 0.5 * (lf(p) + lt(p));
    o[i][j] = o[j][i] = 0.5 * (lf(p) - lt(p));
  }
  for (int a = 0; a < 4; ++a)
    for (int bb = a; bb < 4; ++bb) {
      Mat3 K;
      for (int r = 0; r < 3; ++r)
        for (int s2 = 0; s2 < 3; ++s2) {
          if (r == s2) {
            double k = b[r](a) * b[r](bb) * S(r, r);
            for (int p = 0; p < 3; ++p)
              if (p != r) k += b[p](a) * b[p](bb) * t[r][p];
            K(r, r) = k;
          } else {
            K(r, s2) = b[r](a) * b[s2](bb) * S(r, s2) + b[s2](a) * b[r](bb) * o[r][s2];
          }
        }
      const Mat3 B = U * K * U.transpose();
      H->block<3, 3>(3 * a, 3 * bb) = B;
      if (a != bb) H->block<3, 3>(3 * bb, 3 * a) = B.transpose();
    }
}

}  // namespace weft
