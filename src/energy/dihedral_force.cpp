#include "energy/dihedral_force.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "energy/hinge_bending.hpp"

namespace weft {

DihedralForceRest make_dihedral_force_rest(const Vec12& X, double k, bool planar) {
  const Vec3 e = X.segment<3>(3) - X.segment<3>(0);
  const double N1 = e.cross(X.segment<3>(6) - X.segment<3>(0)).norm();
  const double N2 = e.cross(X.segment<3>(9) - X.segment<3>(0)).norm();
  const double e2 = e.squaredNorm();
  if (!(e2 > 0) || !(N1 > 1e-12 * e2) || !(N2 > 1e-12 * e2))
    throw InputError("degenerate rest hinge for dihedral bending (edge^2 " + std::to_string(e2) + ")");
  return {planar ? 0.0 : dihedral_angle(X), k * e2 / (N1 + N2)};
}

double dihedral_force_energy(const Vec12& x, const DihedralForceRest& r, Vec12* g, Mat12* H, bool project) {
  Vec12 gp;
  Mat12 Hp;
  const bool exact = H && !project;
  const double psi = dihedral_angle(x, (g || H) ? &gp : nullptr, exact ? &Hp : nullptr);
  const double s0 = std::sin(0.5 * r.psi0);
  const double e = r.c * (2.0 * (std::cos(0.5 * r.psi0) - std::cos(0.5 * psi)) - (psi - r.psi0) * s0);
  const double d1 = r.c * (std::sin(0.5 * psi) - s0);  // dPsi/dpsi: 002's f(theta)
  const double d2 = 0.5 * r.c * std::cos(0.5 * psi);  // > 0 for |psi| < pi
  if (g) *g = d1 * gp;
  if (H) {
    *H = std::max(d2, 0.0) * gp * gp.transpose();
    if (exact) *H = d2 * gp * gp.transpose() + d1 * Hp;
  }
  return e;
}

}  // namespace weft
