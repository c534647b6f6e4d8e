#include "constraints/pressure.hpp"

namespace weft {

double triangle_volume_term(const Stencil3<3>& x, Stencil3<3>* grad) {
  if (grad) {
    grad->col(0) = x.col(1).cross(x.col(2));
    grad->col(1) = x.col(2).cross(x.col(0));
    grad->col(2) = x.col(0).cross(x.col(1));
  }
  return x.col(0).cross(x.col(1)).dot(x.col(2));
}

double closed_mesh_volume6(const Eigen::Matrix3Xd& x, const std::vector<Tri>& tris) {
  double sum = 0.0;
  for (const Tri& t : tris) sum += x.col(t[0]).cross(x.col(t[1])).dot(x.col(t[2]));
  return sum;
}

double pressure_constraint(const Eigen::Matrix3Xd& x, const std::vector<Tri>& tris, double target,
                           Eigen::Matrix3Xd* grad) {
  if (grad) grad->setZero(3, x.cols());
  double sum = 0.0;
  Stencil3<3> xt, gt;
  for (const Tri& t : tris) {
    for (int k = 0; k < 3; ++k) xt.col(k) = x.col(t[k]);
    sum += triangle_volume_term(xt, grad ? &gt : nullptr);
    if (grad)
      for (int k = 0; k < 3; ++k) grad->col(t[k]) += gt.col(k);
  }
  return sum - target;
}

}  // namespace weft
