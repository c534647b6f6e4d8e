#include "energy/membrane_stvk.hpp"

#include "energy/isotropic.hpp"

namespace weft {

double membrane_stvk(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g, Mat9* H,
                     bool project) {
  const Mat32 F = deformation_gradient(x, r);
  const double vol = r.area * p.thickness;
  const double mu = p.mu, lam = p.lambda;
  Mat2 E = 0.5 * (F.transpose() * F - Mat2::Identity());
  const double trE = E.trace();
  const double psi = mu * E.squaredNorm() + 0.5 * lam * trE * trE;
  if (!g && !H) return vol * psi;
  if (!H) {  // gradient only: P = F S, S = 2 mu E + lambda tr(E) I
    const Mat2 S = 2.0 * mu * E + lam * trE * Mat2::Identity();
    *g = vol * grad_from_dF(F * S, r);
    return vol * psi;
  }
  // psi = mu/4 sum (s_i^2 - 1)^2 + lambda/2 T^2, T = tr E = sum (s_i^2 - 1)/2.
  const Svd32 svd = svd32(F);
  const double s1 = svd.s(0), s2 = svd.s(1);
  const double T = 0.5 * (s1 * s1 + s2 * s2 - 2.0);
  IsoDerivs d;
  d.d1 = s1 * (mu * (s1 * s1 - 1.0) + lam * T);
  d.d2 = s2 * (mu * (s2 * s2 - 1.0) + lam * T);
  d.h11 = mu * (3.0 * s1 * s1 - 1.0) + lam * (T + s1 * s1);
  d.h22 = mu * (3.0 * s2 * s2 - 1.0) + lam * (T + s2 * s2);
  d.h12 = lam * s1 * s2;
  d.l_sym = mu * (s1 * s1 + s1 * s2 + s2 * s2 - 1.0) + lam * T;
  d.l_rot = mu * (s1 * s1 - s1 * s2 + s2 * s2 - 1.0) + lam * T;
  d.l_out1 = mu * (s1 * s1 - 1.0) + lam * T;
  d.l_out2 = mu * (s2 * s2 - 1.0) + lam * T;
  isotropic_grad_hess(svd, d, vol, r, g, H, project);
  return vol * psi;
}

}  // namespace weft
