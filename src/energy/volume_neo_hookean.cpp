#include "energy/volume_neo_hookean.hpp"

#include <cmath>
#include <limits>

#include "energy/isotropic3.hpp"

namespace weft {

double volume_neo_hookean(const Vec12& x, const TetRest& r, const VolumeParams& p, Vec12* g, Mat12* H,
                          bool project) {
  const Mat3 F = deformation_gradient(x, r);
  const double J = F.determinant();
  if (!(J > 0.0)) {
    if (g) g->setZero();
    if (H) H->setZero();
    return std::numeric_limits<double>::infinity();
  }
  const double mu = p.mu, lam = p.lambda;
  const double L = std::log(J);
  const double psi = 0.5 * mu * (F.squaredNorm() - 3.0) - mu * L + 0.5 * lam * L * L;
  if (!g && !H) return r.volume * psi;
  // In singular values (all > 0 here): psi_i = mu s_i + k / s_i with k = lambda ln J - mu;
  // psi_ii = mu + (lambda - k) / s_i^2, psi_ij = lambda / (s_i s_j),
  // flip = mu - k / (s_i s_j), twist = mu + k / (s_i s_j).
  const Svd3 svd = svd3(F);
  const Vec3& s = svd.s;
  const double k = lam * L - mu;
  IsoDerivs3 d;
  for (int i = 0; i < 3; ++i) {
    d.d(i) = mu * s(i) + k / s(i);
    d.h(i, i) = mu + (lam - k) / (s(i) * s(i));
  }
  const int pi[3] = {0, 0, 1}, pj[3] = {1, 2, 2};
  for (int q = 0; q < 3; ++q) {
    const int i = pi[q], j = pj[q];
    const double sij = s(i) * s(j);
    d.h(i, j) = d.h(j, i) = lam / sij;
    d.l_flip(q) = mu - k / sij;
    d.l_twist(q) = mu + k / sij;
  }
  isotropic3_grad_hess(svd, d, r.volume, r, g, H, project);
  return r.volume * psi;
}

}  // namespace weft
