#include "constraints/dihedral_bending.hpp"

#include <cmath>

#include "core/error.hpp"

namespace weft {

double signed_dihedral_angle(const Stencil3<4>& x, Stencil3<4>* grad) {
  const Vec3 e = x.col(1) - x.col(0);
  const Vec3 a = x.col(2) - x.col(0), b = x.col(3) - x.col(0);
  const Vec3 nA = e.cross(a), nB = b.cross(e);
  const double ee = e.squaredNorm(), aa = nA.squaredNorm(), bb = nB.squaredNorm();
  const double len = std::sqrt(ee);
  const double sin_part = len > 0.0 ? nA.cross(nB).dot(e) / len : 0.0;
  const double psi = std::atan2(sin_part, nA.dot(nB));
  if (grad) {
    if (ee > 0.0 && aa > 0.0 && bb > 0.0) {
      const Vec3 g2 = -len / aa * nA, g3 = -len / bb * nB;
      const double tA = a.dot(e) / ee, tB = b.dot(e) / ee;
      grad->col(0) = -(1.0 - tA) * g2 - (1.0 - tB) * g3;
      grad->col(1) = -tA * g2 - tB * g3;
      grad->col(2) = g2;
      grad->col(3) = g3;
    } else {
      grad->setZero();
    }
  }
  return psi;
}

double pbd_dihedral_angle(const Stencil3<4>& x) {
  const Vec3 e = x.col(1) - x.col(0);
  const Vec3 n1 = e.cross(x.col(2) - x.col(0)).normalized();
  const Vec3 n2 = e.cross(x.col(3) - x.col(0)).normalized();
  return std::acos(std::clamp(n1.dot(n2), -1.0, 1.0));
}

DihedralRest make_dihedral_rest(const Stencil3<4>& X) {
  const Vec3 e = X.col(1) - X.col(0);
  const double ee = e.squaredNorm();
  const double aa = e.cross(X.col(2) - X.col(0)).squaredNorm();
  const double bb = e.cross(X.col(3) - X.col(0)).squaredNorm();
  // Relative to the edge: a wing of height below 1e-8 |e| has no usable normal.
  if (!(ee > 0.0) || !(aa > 1e-16 * ee * ee) || !(bb > 1e-16 * ee * ee))
    throw InputError("dihedral bending: degenerate rest hinge (zero-length edge or zero-area wing)");
  return {signed_dihedral_angle(X, nullptr)};
}

double dihedral_bending_constraint(const Stencil3<4>& x, const DihedralRest& rest, Stencil3<4>* grad) {
  double c = signed_dihedral_angle(x, grad) - rest.psi0;
  if (c > M_PI) c -= 2.0 * M_PI;
  if (c <= -M_PI) c += 2.0 * M_PI;
  return c;
}

}  // namespace weft
