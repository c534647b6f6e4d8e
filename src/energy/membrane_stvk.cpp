#include "energy/membrane_stvk.hpp"

#include "energy/isotropic.hpp"

namespace weft {

namespace {

// psi from E = (F^T F - I)/2, the one formula every path uses (the line search compares
// energies from assembly with energies alone).
inline double stvk_psi(const Mat32& F, double mu, double lam, Mat2* E_out = nullptr) {
  const Mat2 E = 0.5 * (F.transpose() * F - Mat2::Identity());
  const double trE = E.trace();
  if (E_out) *E_out = E;
  return mu * E.squaredNorm() + 0.5 * lam * trE * trE;
}

}  // namespace

double membrane_stvk(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g, Mat9* H,
                     bool project) {
  const Mat32 F = deformation_gradient(x, r);
  const double vol = r.area * p.thickness;
  const double mu = p.mu, lam = p.lambda;
  Mat2 E;
  const double psi = stvk_psi(F, mu, lam, &E);
  if (!g && !H) return vol * psi;
  if (!H) {  // gradient only: P = F S, S = 2 mu E + lambda tr(E) I
    const Mat2 S = 2.0 * mu * E + lam * E.trace() * Mat2::Identity();
    *g = vol * grad_from_dF(F * S, r);
    return vol * psi;
  }
  const Svd32 svd = svd32(F);
  IsoDerivs d;
  membrane_stvk_derivs(F, svd, r, p, d);
  isotropic_grad_hess(svd, d, 1.0, r, g, H, project);
  return vol * psi;
}

double membrane_stvk_derivs(const Mat32& F, const Svd32& svd, const TriRest& r, const MembraneParams& p,
                            IsoDerivs& d) {
  const double vol = r.area * p.thickness;
  const double mu = p.mu, lam = p.lambda;
  // psi = mu/4 sum (s_i^2 - 1)^2 + lambda/2 T^2, T = tr E = sum (s_i^2 - 1)/2.
  const double s1 = svd.s(0), s2 = svd.s(1);
  const double T = 0.5 * (s1 * s1 + s2 * s2 - 2.0);
  d.d1 = vol * s1 * (mu * (s1 * s1 - 1.0) + lam * T);
  d.d2 = vol * s2 * (mu * (s2 * s2 - 1.0) + lam * T);
  d.h11 = vol * (mu * (3.0 * s1 * s1 - 1.0) + lam * (T + s1 * s1));
  d.h22 = vol * (mu * (3.0 * s2 * s2 - 1.0) + lam * (T + s2 * s2));
  d.h12 = vol * lam * s1 * s2;
  d.l_sym = vol * (mu * (s1 * s1 + s1 * s2 + s2 * s2 - 1.0) + lam * T);
  d.l_rot = vol * (mu * (s1 * s1 - s1 * s2 + s2 * s2 - 1.0) + lam * T);
  d.l_out1 = vol * (mu * (s1 * s1 - 1.0) + lam * T);
  d.l_out2 = vol * (mu * (s2 * s2 - 1.0) + lam * T);
  return vol * stvk_psi(F, mu, lam);
}

}  // namespace weft
