#include "constraints/dihedral_bending.hpp"

#include <cmath>

#include "core/error.hpp"

namespace weft {

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

}  // namespace weft
