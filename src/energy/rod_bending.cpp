#include "energy/rod_bending.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "energy/psd.hpp"
#include "energy/rod_stretch.hpp"

namespace weft {

namespace {

// tan^2(phi/2) = (L - c)/(L + c) = |e0 x e1|^2 / (L + c)^2 (as (L - c)(L + c) = |n|^2),
// the second form without the cancellation of L - c for nearly straight rods; +inf when
// folded back.
double half_angle_tan2(const Vec3& e0, const Vec3& e1) {
  const double c = e0.dot(e1), L = std::sqrt(e0.squaredNorm() * e1.squaredNorm()), s = L + c;
  if (!(s > 0)) return std::numeric_limits<double>::infinity();
  return c >= 0 ? e0.cross(e1).squaredNorm() / (s * s) : (L - c) / s;
}

}  // namespace

double rod_bending_stiffness(double youngs, double radius) {
  if (!(youngs >= 0) || !(radius > 0)) throw InputError("rod bending needs youngs >= 0 and radius > 0");
  return youngs * M_PI * radius * radius * radius * radius / 4.0;
}

RodBendRest make_rod_bend_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2, double bending_stiffness) {
  const Vec3 E0 = X1 - X0, E1 = X2 - X1;
  const double l0 = E0.norm(), l1 = E1.norm();
  if (!(l0 > 0) || !(l1 > 0)) throw InputError("rod has a zero-length rest segment");
  const double t = half_angle_tan2(E0, E1);
  if (!std::isfinite(t)) throw InputError("rod folds back on itself at rest (turning angle 180 degrees)");
  // A rest turning angle below 1e-8 rad is round-off of a straight polyline: taken as
  // straight, since a tiny |kb_rest| would put the cone point of the energy right at rest.
  const double kb = 2.0 * std::sqrt(t);
  return {kb < 1e-8 ? 0.0 : kb, bending_stiffness / (l0 + l1)};
}

double rod_curvature(const Vec9& x) {
  const Vec3 e0 = x.segment<3>(3) - x.segment<3>(0), e1 = x.segment<3>(6) - x.segment<3>(3);
  return 2.0 * std::sqrt(half_angle_tan2(e0, e1));
}

double rod_bending(const Vec9& x, const RodBendRest& r, Vec9* g, Mat9* H, bool project) {
  const Vec3 e0 = x.segment<3>(3) - x.segment<3>(0), e1 = x.segment<3>(6) - x.segment<3>(3);
  const double a = e0.squaredNorm(), b = e1.squaredNorm(), c = e0.dot(e1);
  const double t = half_angle_tan2(e0, e1), w = r.weight, k0 = r.kb;
  auto zero = [&] {
    if (g) g->setZero();
    if (H) H->setZero();
  };
  if (!std::isfinite(t)) {
    zero();
    return std::numeric_limits<double>::infinity();
  }
  const double rt = std::sqrt(t);
  const double energy = w * (2.0 * rt - k0) * (2.0 * rt - k0);
  if (!g && !H) return energy;
  if (!(a > 0) || !(b > 0) || (k0 > 0 && !(t > 0))) {  // degenerate segment, or the cone point
    zero();
    return energy;
  }
  // Psi = f(t): f' = w (4 - 2 k0 / sqrt t), f'' = w k0 t^(-3/2).
  const double f1 = w * (4.0 - (k0 > 0 ? 2.0 * k0 / rt : 0.0));
  const double f2 = k0 > 0 ? w * k0 / (t * rt) : 0.0;
  // t(L, c) = (L - c)/(L + c), L = sqrt(ab): derivatives in u = (a, b, c).
  const double L = std::sqrt(a * b), s = L + c, s2 = s * s, s3 = s2 * s;
  const double tL = 2 * c / s2, tc = -2 * L / s2;
  const double tLL = -4 * c / s3, tcc = 4 * L / s3, tLc = 2 * (L - c) / s3;
  const Vec3 Lu(L / (2 * a), L / (2 * b), 0.0);
  Mat3 Luu;
  Luu << -L / (4 * a * a), 1 / (4 * L), 0, 1 / (4 * L), -L / (4 * b * b), 0, 0, 0, 0;
  const Vec3 ec(0, 0, 1);
  const Vec3 tu = tL * Lu + tc * ec;
  const Mat3 tuu = tLL * Lu * Lu.transpose() + tLc * (Lu * ec.transpose() + ec * Lu.transpose()) +
                   tcc * ec * ec.transpose() + tL * Luu;
  const Vec3 Pu = f1 * tu;                                    // dPsi/du
  const Mat3 Puu = f2 * tu * tu.transpose() + f1 * tuu;       // d2Psi/du2
  // u(e): a = e0.e0, b = e1.e1, c = e0.e1; J = du/de (3 x 6).
  Eigen::Matrix<double, 3, 6> J;
  J.row(0) << 2 * e0.transpose(), 0, 0, 0;
  J.row(1) << 0, 0, 0, 2 * e1.transpose();
  J.row(2) << e1.transpose(), e0.transpose();
  const Vec6 ge = J.transpose() * Pu;
  // e0 = x1 - x0, e1 = x2 - x1.
  auto to_vertices = [](const Vec6& v, Vec9& out) {
    out.segment<3>(0) = -v.head<3>();
    out.segment<3>(3) = v.head<3>() - v.tail<3>();
    out.segment<3>(6) = v.tail<3>();
  };
  if (g) to_vertices(ge, *g);
  if (H) {
    Mat6 He = J.transpose() * Puu * J;
    He.topLeftCorner<3, 3>().diagonal().array() += 2 * Pu(0);
    He.bottomRightCorner<3, 3>().diagonal().array() += 2 * Pu(1);
    He.topRightCorner<3, 3>().diagonal().array() += Pu(2);
    He.bottomLeftCorner<3, 3>().diagonal().array() += Pu(2);
    if (project) project_psd<6>(He);
    // H_x = E^T He E with E = [-I I 0; 0 -I I].
    Eigen::Matrix<double, 6, 9> E = Eigen::Matrix<double, 6, 9>::Zero();
    E.block<3, 3>(0, 0) = -Mat3::Identity();
    E.block<3, 3>(0, 3) = Mat3::Identity();
    E.block<3, 3>(3, 3) = -Mat3::Identity();
    E.block<3, 3>(3, 6) = Mat3::Identity();
    H->noalias() = E.transpose() * He * E;
  }
  return energy;
}

}  // namespace weft
