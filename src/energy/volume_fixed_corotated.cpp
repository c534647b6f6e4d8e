#include "energy/volume_fixed_corotated.hpp"

#include <cmath>

#include "energy/isotropic3.hpp"

namespace weft {

double volume_fixed_corotated(const Vec12& x, const TetRest& r, const VolumeParams& p, Vec12* g, Mat12* H,
                              bool project) {
  const Mat3 F = deformation_gradient(x, r);
  const Svd3 svd = svd3(F);
  const Vec3& s = svd.s;
  const double mu = p.mu, lam = p.lambda;
  const double J = s.prod();
  const double psi = mu * (s - Vec3::Ones()).squaredNorm() + 0.5 * lam * (J - 1.0) * (J - 1.0);
  if (!g && !H) return r.volume * psi;
  // With c_i = prod_{k != i} s_k = dJ/ds_i:
  //   psi_i = 2 mu (s_i - 1) + lambda (J - 1) c_i,
  //   psi_ii = 2 mu + lambda c_i^2,  psi_ij = lambda s_k (2J - 1)  (k the third index),
  //   flip  (psi_i - psi_j)/(s_i - s_j) = 2 mu - lambda (J - 1) s_k,
  //   twist (psi_i + psi_j)/(s_i + s_j) = 2 mu (1 - 2/(s_i + s_j)) + lambda (J - 1) s_k.
  const Vec3 c(s(1) * s(2), s(0) * s(2), s(0) * s(1));
  IsoDerivs3 d;
  for (int i = 0; i < 3; ++i) {
    d.d(i) = 2.0 * mu * (s(i) - 1.0) + lam * (J - 1.0) * c(i);
    d.h(i, i) = 2.0 * mu + lam * c(i) * c(i);
  }
  const int pi[3] = {0, 0, 1}, pj[3] = {1, 2, 2}, pk[3] = {2, 1, 0};
  for (int q = 0; q < 3; ++q) {
    const int i = pi[q], j = pj[q], k = pk[q];
    d.h(i, j) = d.h(j, i) = lam * s(k) * (2.0 * J - 1.0);
    d.l_flip(q) = 2.0 * mu - lam * (J - 1.0) * s(k);
    // s_i + s_j = 0 only for a flat or fully inverted F; the mode's eigenvalue is then
    // -inf, which the projection clamps (and an unprojected Hessian is meaningless there).
    const double sum = s(i) + s(j);
    d.l_twist(q) = (sum > 0.0 ? 2.0 * mu * (1.0 - 2.0 / sum) : -HUGE_VAL) + lam * (J - 1.0) * s(k);
  }
  isotropic3_grad_hess(svd, d, r.volume, r, g, H, project);
  return r.volume * psi;
}

}  // namespace weft
