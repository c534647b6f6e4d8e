#include "energy/strain_limit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "energy/isotropic.hpp"

namespace weft {

Vec2 singular_values(const Mat32& F) {
  const Vec3 f1 = F.col(0), f2 = F.col(1);
  const double a = f1.squaredNorm(), b = f1.dot(f2), c = f2.squaredNorm();
  const double l1 = 0.5 * (a + c) + std::hypot(0.5 * (a - c), b);
  const double s1 = std::sqrt(l1);
  const double J = f1.cross(f2).norm();
  return Vec2(s1, s1 > 0.0 ? std::min(J / s1, s1) : 0.0);
}

double max_singular_value(const Vec9& x, const TriRest& r) {
  return singular_values(deformation_gradient(x, r))(0);
}

namespace {

// eq. 7 and its derivatives, valid for -1 < y < 0.
inline double bhat(double y) { return y < 0.0 ? -y * y * std::log1p(y) : 0.0; }
inline double bhat_d1(double y) {
  return y < 0.0 ? -2.0 * y * std::log1p(y) - y * y / (1.0 + y) : 0.0;
}
inline double bhat_d2(double y) {
  if (!(y < 0.0)) return 0.0;
  const double q = 1.0 + y;
  return -2.0 * std::log1p(y) - y * (4.0 + 3.0 * y) / (q * q);
}

// Divided difference (bhat'(y1) - bhat'(y2)) / (y1 - y2) for y1 <= y2, without
// cancellation as y1 -> y2: with bhat' = -2 p - q, p = y ln(1+y), q = y^2/(1+y),
//   [p] = ln(1+y1) + y2 [ln(1+y)],  [ln(1+y)] = log1p(z)/z / (1+y2), z = (y1-y2)/(1+y2),
//   [q] = (y1 + y2 + y1 y2) / ((1+y1)(1+y2)).
inline double bhat_d1_divided(double y1, double y2) {
  if (!(y1 < 0.0)) return 0.0;
  if (!(y2 < 0.0)) return bhat_d1(y1) / (y1 - y2);  // y1 < 0 <= y2: well separated
  const double z = (y1 - y2) / (1.0 + y2);
  const double lz = z == 0.0 ? 1.0 : std::log1p(z) / z;
  const double dp = std::log1p(y1) + y2 * lz / (1.0 + y2);
  const double dq = (y1 + y2 + y1 * y2) / ((1.0 + y1) * (1.0 + y2));
  return -2.0 * dp - dq;
}

}  // namespace

double strain_limit_add_derivs(const Mat32& F, const Svd32& svd, const StrainLimitParams& p, IsoDerivs& d) {
  // singular_values(F) from svd32(F): its s1 is the same sqrt(m + hypot(h, b)) of the same
  // a, b, c, its J / s1 the same quotient (s2 = min(J / s1, s1) there), so the pair is
  // singular_values(F) bit for bit without a second hypot, sqrt and cross product
  // (StrainLimit.SvdGivesSingularValuesBitForBit).
  const Vec2 s(svd.s(0), svd.s(0) > 0.0 ? std::min(svd.s(1), svd.s(0)) : 0.0);
  if (!(s(0) < p.s_max)) return std::numeric_limits<double>::infinity();
  if (s(0) <= p.s_hat) return 0.0;  // common case: barrier inactive (local support, sec. 4.1)
  const double w = p.s_max - p.s_hat;
  const double y1 = (p.s_hat - s(0)) / w, y2 = (p.s_hat - s(1)) / w;  // y1 <= y2
  const double scale = p.kappa * p.volume;
  const double s1 = svd.s(0), s2 = svd.s(1);
  // psi(sigma) = sum bhat(y_i): dpsi/ds_i = -bhat'(y_i)/w >= 0, d2psi/ds_i^2 = bhat''/w^2.
  const double d1 = -bhat_d1(y1) / w, d2 = -bhat_d1(y2) / w;
  d.d1 += scale * d1;
  d.d2 += scale * d2;
  d.h11 += scale * bhat_d2(y1) / (w * w);
  d.h22 += scale * bhat_d2(y2) / (w * w);
  d.l_sym += scale * bhat_d1_divided(y1, y2) / (w * w);
  d.l_rot += scale * (d1 + d2) / (s1 + s2);  // s1 > s_hat > 0 here
  d.l_out1 += scale * d1 / s1;
  d.l_out2 += d2 == 0.0 ? 0.0 : scale * d2 / s2;
  return scale * (bhat(y1) + bhat(y2));
}

double strain_limit(const Vec9& x, const TriRest& r, const StrainLimitParams& p, Vec9* g, Mat9* H,
                    bool project) {
  const Mat32 F = deformation_gradient(x, r);
  auto zero = [&] {
    if (g) g->setZero();
    if (H) H->setZero();
  };
  if (!g && !H) {
    const Vec2 s = singular_values(F);
    if (!(s(0) < p.s_max)) return std::numeric_limits<double>::infinity();
    if (s(0) <= p.s_hat) return 0.0;
    const double w = p.s_max - p.s_hat;
    return p.kappa * p.volume * (bhat((p.s_hat - s(0)) / w) + bhat((p.s_hat - s(1)) / w));
  }
  const Svd32 svd = svd32(F);
  IsoDerivs d{};
  const double e = strain_limit_add_derivs(F, svd, p, d);
  if (e == 0.0 || !std::isfinite(e)) {
    zero();
    return e;
  }
  isotropic_grad_hess(svd, d, 1.0, r, g, H, project);
  return e;
}

double segment_strain_limit(const Vec6& x, double L, const StrainLimitParams& p, Vec6* g, Mat6* H) {
  const Vec3 e = x.tail<3>() - x.head<3>();
  const double len = e.norm(), sigma = len / L;
  if (g) g->setZero();
  if (H) H->setZero();
  if (!(sigma < p.s_max)) return std::numeric_limits<double>::infinity();
  if (sigma <= p.s_hat) return 0.0;
  const double w = p.s_max - p.s_hat, y = (p.s_hat - sigma) / w, scale = p.kappa * p.volume;
  const double d1 = -scale * bhat_d1(y) / w;       // dPsi/dsigma >= 0
  const double d2 = scale * bhat_d2(y) / (w * w);  // d2Psi/dsigma2 >= 0
  const Vec3 ehat = e / len;                       // len > s_hat L > 0 here
  if (g) {
    g->head<3>() = -d1 / L * ehat;
    g->tail<3>() = d1 / L * ehat;
  }
  if (H) segment_hessian(ehat, d2 / (L * L), d1 / (L * len), *H);
  return scale * bhat(y);
}

}  // namespace weft
