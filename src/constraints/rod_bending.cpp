#include "constraints/rod_bending.hpp"

#include "core/error.hpp"

namespace weft {

ThreePointBendRest make_three_point_bend_rest(const Stencil3<3>& X) {
  if (!((X.col(1) - X.col(0)).squaredNorm() > 0.0) || !((X.col(2) - X.col(1)).squaredNorm() > 0.0))
    throw InputError("rod bending: zero-length rest segment");
  return {three_point_bending_constraint(X, {0.0}, nullptr)};
}

double three_point_bending_constraint(const Stencil3<3>& x, const ThreePointBendRest& rest,
                                      Stencil3<3>* grad) {
  const Vec3 d = (2.0 * x.col(1) - x.col(0) - x.col(2)) / 3.0;
  const double len = d.norm();
  if (grad) {
    const Vec3 n = len > 0.0 ? Vec3(d / len) : Vec3::Zero();
    grad->col(0) = -n / 3.0;
    grad->col(1) = 2.0 * n / 3.0;
    grad->col(2) = -n / 3.0;
  }
  return len - rest.h0;
}

}  // namespace weft
