#include "energy/membrane_neo_hookean.hpp"

#include <cmath>
#include <limits>

#include "energy/isotropic.hpp"

namespace weft {

namespace {

// psi and, unless svd is null, vol * its singular-value derivatives; +inf below kNeoHookeanMinJ.
double neo_hookean(const Mat32& F, const Svd32* svd, const TriRest& r, const MembraneParams& p, IsoDerivs* out) {
  const Vec3 f1 = F.col(0), f2 = F.col(1);
  const double J = svd ? svd->J : f1.cross(f2).norm();  // = sigma1 sigma2 (svd32 forms it so)
  if (!(J > kNeoHookeanMinJ)) return std::numeric_limits<double>::infinity();
  const double vol = r.area * p.thickness;
  const double mu = p.mu, lam = p.lambda;
  const double L = std::log(J);
  const double psi = 0.5 * mu * (f1.squaredNorm() + f2.squaredNorm() - 2.0) - mu * L + 0.5 * lam * L * L;
  if (!svd) return vol * psi;
  // In singular values: psi_i = mu s_i + k / s_i with k = lambda ln J - mu.
  const double s1 = svd->s(0), s2 = svd->s(1);
  const double k = lam * L - mu;
  IsoDerivs& d = *out;
  d.d1 = vol * (mu * s1 + k / s1);
  d.d2 = vol * (mu * s2 + k / s2);
  d.h11 = vol * (mu + (lam - k) / (s1 * s1));
  d.h22 = vol * (mu + (lam - k) / (s2 * s2));
  d.h12 = vol * (lam / J);
  d.l_sym = vol * (mu - k / J);  // divided difference in closed form: fine at s1 == s2
  d.l_rot = vol * (mu + k / J);
  d.l_out1 = vol * (mu + k / (s1 * s1));
  d.l_out2 = vol * (mu + k / (s2 * s2));
  return vol * psi;
}

}  // namespace

double membrane_neo_hookean_derivs(const Mat32& F, const Svd32& svd, const TriRest& r, const MembraneParams& p,
                                   IsoDerivs& d) {
  return neo_hookean(F, &svd, r, p, &d);
}

double membrane_neo_hookean(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g,
                            Mat9* H, bool project) {
  const Mat32 F = deformation_gradient(x, r);
  if (!g && !H) return neo_hookean(F, nullptr, r, p, nullptr);
  const Svd32 svd = svd32(F);
  IsoDerivs d;
  const double e = neo_hookean(F, &svd, r, p, &d);
  if (!std::isfinite(e)) {
    if (g) g->setZero();
    if (H) H->setZero();
    return e;
  }
  isotropic_grad_hess(svd, d, 1.0, r, g, H, project);
  return e;
}

}  // namespace weft
