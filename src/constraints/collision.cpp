#include "constraints/collision.hpp"

namespace weft {

double point_triangle_collision_constraint(const Stencil3<4>& x, double thickness, int side,
                                           Stencil3<4>* grad) {
  const Vec3 e1 = x.col(2) - x.col(1), e2 = x.col(3) - x.col(1);
  const Vec3 N = e1.cross(e2);
  const double len = N.norm();
  if (!(len > 0.0)) {
    if (grad) grad->setZero();
    return -thickness;
  }
  const double sg = side >= 0 ? 1.0 : -1.0;
  const Vec3 n = N / len;
  const Vec3 q = x.col(0) - x.col(1);
  const double dist = q.dot(n);
  if (grad) {
    const Vec3 r = (q - dist * n) / len;
    grad->col(0) = sg * n;
    grad->col(2) = sg * e2.cross(r);
    grad->col(3) = sg * r.cross(e1);
    grad->col(1) = -(grad->col(0) + grad->col(2) + grad->col(3));
  }
  return sg * dist - thickness;
}

double static_obstacle_constraint(const Vec3& p, const Vec3& q_c, const Vec3& n_c, double thickness,
                                  Vec3* grad) {
  if (grad) *grad = n_c;
  return (p - q_c).dot(n_c) - thickness;
}

}  // namespace weft
