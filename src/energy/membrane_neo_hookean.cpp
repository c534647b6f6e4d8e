#include "energy/membrane_neo_hookean.hpp"

#include <cmath>
#include <limits>

#include "energy/isotropic.hpp"

namespace weft {

double membrane_neo_hookean(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g,
                            Mat9* H, bool project) {
  const Mat32 F = deformation_gradient(x, r);
  const Vec3 f1 = F.col(0), f2 = F.col(1);
  const double J = f1.cross(f2).norm();  // = sigma1 sigma2
  if (!(J > kNeoHookeanMinJ)) {
    if (g) g->setZero();
    if (H) H->setZero();
    return std::numeric_limits<double>::infinity();
  }
  const double vol = r.area * p.thickness;
  const double mu = p.mu, lam = p.lambda;
  const double L = std::log(J);
  const double psi = 0.5 * mu * (f1.squaredNorm() + f2.squaredNorm() - 2.0) - mu * L + 0.5 * lam * L * L;
  if (!g && !H) return vol * psi;

  // In singular values: psi_i = mu s_i + k / s_i with k = lambda ln J - mu.
  const Svd32 svd = svd32(F);
  const double s1 = svd.s(0), s2 = svd.s(1);
  const double k = lam * L - mu;
  IsoDerivs d;
  d.d1 = mu * s1 + k / s1;
  d.d2 = mu * s2 + k / s2;
  d.h11 = mu + (lam - k) / (s1 * s1);
  d.h22 = mu + (lam - k) / (s2 * s2);
  d.h12 = lam / J;
  d.l_sym = mu - k / J;  // divided difference in closed form: fine at s1 == s2
  d.l_rot = mu + k / J;
  d.l_out1 = mu + k / (s1 * s1);
  d.l_out2 = mu + k / (s2 * s2);
  isotropic_grad_hess(svd, d, vol, r, g, H, project);
  return vol * psi;
}

}  // namespace weft
