#include "energy/membrane_orthotropic.hpp"

#include <cmath>
#include <limits>

#include "energy/psd.hpp"

namespace weft {

Vec3 aligned_green_strain(const Vec9& x, const TriRest& r) {
  const Mat32 G = deformation_gradient(x, r);
  return Vec3(0.5 * (G.col(0).squaredNorm() - 1.0), 0.5 * (G.col(1).squaredNorm() - 1.0),
              0.5 * G.col(0).dot(G.col(1)));
}

bool orthotropic_feasible(const Vec3& E, const OrthotropicParams& p) {
  return !(p.m11 > 0 && !(E(0) < p.m11)) && !(p.m22 > 0 && !(E(1) < p.m22)) &&
         !(p.m12 > 0 && !(std::abs(E(2)) < p.m12));
}

namespace {

// phi(E) and its first two derivatives: eta(E^2) (eq. 10) where limited, E^2 otherwise.
struct Phi {
  double v, d1, d2;
};
inline Phi phi(double E, double m, bool limited) {
  if (!limited) return {E * E, 2.0 * E, 2.0};
  const double m2 = m * m, x = E * E;
  const double q = m2 / (m2 - x);  // eta'(x) = 1 / (1 - x / m^2)
  return {-m2 * std::log1p(-x / m2), 2.0 * E * q, 2.0 * q + 4.0 * x * q * q / m2};
}

}  // namespace

double membrane_orthotropic(const Vec9& x, const TriRest& r, const OrthotropicParams& p, Vec9* g, Mat9* H,
                            bool project) {
  const Mat32 G = deformation_gradient(x, r);
  const Vec3 g1 = G.col(0), g2 = G.col(1);
  const double E11 = 0.5 * (g1.squaredNorm() - 1.0), E22 = 0.5 * (g2.squaredNorm() - 1.0), E12 = 0.5 * g1.dot(g2);
  if (!orthotropic_feasible(Vec3(E11, E22, E12), p)) {
    if (g) g->setZero();
    if (H) H->setZero();
    return std::numeric_limits<double>::infinity();
  }
  const Phi f1 = phi(E11, p.m11, p.m11 > 0 && E11 > 0);
  const Phi f2 = phi(E22, p.m22, p.m22 > 0 && E22 > 0);
  const Phi f3 = phi(E12, p.m12, p.m12 > 0);
  const double V = r.area * p.thickness;
  const double psi = 0.5 * p.a11 * f1.v + 0.5 * p.a22 * f2.v + p.a12 * E11 * E22 + p.g12 * f3.v;
  if (!g && !H) return V * psi;

  // Stress S = dpsi/dE; dE11/dg1 = g1, dE22/dg2 = g2, dE12/d(g1, g2) = (g2, g1)/2.
  const double s11 = 0.5 * p.a11 * f1.d1 + p.a12 * E22;
  const double s22 = 0.5 * p.a22 * f2.d1 + p.a12 * E11;
  const double s12 = p.g12 * f3.d1;
  Mat32 P;
  P.col(0) = s11 * g1 + 0.5 * s12 * g2;
  P.col(1) = s22 * g2 + 0.5 * s12 * g1;
  if (g) *g = V * grad_from_dF(P, r);
  if (!H) return V * psi;

  // Hessian in vec(G) = (g1, g2): J^T HE J (strain part) + S (x) I3 (stress part).
  Mat3 HE = Mat3::Zero();
  HE(0, 0) = 0.5 * p.a11 * f1.d2;
  HE(1, 1) = 0.5 * p.a22 * f2.d2;
  HE(0, 1) = HE(1, 0) = p.a12;
  HE(2, 2) = p.g12 * f3.d2;
  Eigen::Matrix<double, 3, 6> J = Eigen::Matrix<double, 3, 6>::Zero();
  J.block<1, 3>(0, 0) = g1.transpose();
  J.block<1, 3>(1, 3) = g2.transpose();
  J.block<1, 3>(2, 0) = 0.5 * g2.transpose();
  J.block<1, 3>(2, 3) = 0.5 * g1.transpose();
  Mat6 HG = J.transpose() * HE * J;
  const Mat3 I = Mat3::Identity();
  HG.block<3, 3>(0, 0) += s11 * I;
  HG.block<3, 3>(3, 3) += s22 * I;
  HG.block<3, 3>(0, 3) += 0.5 * s12 * I;
  HG.block<3, 3>(3, 0) += 0.5 * s12 * I;
  if (project) {
    // Both parts PSD -> their sum is: no eigensolve (the common case under tension).
    const bool stress_psd = s11 >= 0 && s22 >= 0 && s11 * s22 >= 0.25 * s12 * s12;
    const bool strain_psd = HE(0, 0) >= 0 && HE(2, 2) >= 0 && HE(0, 0) * HE(1, 1) >= HE(0, 1) * HE(0, 1) &&
                            HE(1, 1) >= 0;
    if (!(stress_psd && strain_psd)) project_psd<6>(HG);
  }
  *H = V * hess_from_dF(HG, r);
  return V * psi;
}

}  // namespace weft
