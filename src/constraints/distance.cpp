#include "constraints/distance.hpp"

namespace weft {

double distance_constraint(const Stencil3<2>& x, double rest_length, Stencil3<2>* grad) {
  const Vec3 d = x.col(1) - x.col(0);
  const double len = d.norm();
  if (grad) {
    const Vec3 n = len > 0.0 ? Vec3(d / len) : Vec3::Zero();
    grad->col(0) = -n;
    grad->col(1) = n;
  }
  return len - rest_length;
}

}  // namespace weft
