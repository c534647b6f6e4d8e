#include "constraints/edge_strain_limit.hpp"

#include "constraints/distance.hpp"

namespace weft {

double edge_strain_limit_constraint(const Stencil3<2>& x, double rest_length, double sigma_min,
                                    double sigma_max, Stencil3<2>* grad) {
  const double len = (x.col(1) - x.col(0)).norm();
  double target = len;
  if (len < sigma_min * rest_length) target = sigma_min * rest_length;
  if (len > sigma_max * rest_length) target = sigma_max * rest_length;
  if (target == len) {
    if (grad) grad->setZero();
    return 0.0;
  }
  return distance_constraint(x, target, grad);
}

}  // namespace weft
