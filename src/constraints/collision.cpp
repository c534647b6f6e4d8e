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

double edge_edge_collision_constraint(const Stencil3<4>& x, double thickness, int side, Stencil3<4>* grad) {
  const Vec3 ea = x.col(1) - x.col(0), eb = x.col(3) - x.col(2);
  const Vec3 N = ea.cross(eb);
  const double len = N.norm();
  // Nearly parallel edges (sin of the angle below 1e-10) have no usable common normal.
  if (!(len > 1e-10 * ea.norm() * eb.norm()) || !(len > 0.0)) {
    if (grad) grad->setZero();
    return -thickness;
  }
  const double sg = side >= 0 ? 1.0 : -1.0;
  const Vec3 n = N / len;
  const Vec3 r = x.col(0) - x.col(2);
  const double dist = r.dot(n);
  if (grad) {
    const Vec3 rt = (r - dist * n) / len;
    grad->col(1) = sg * eb.cross(rt);
    grad->col(3) = sg * rt.cross(ea);
    grad->col(0) = sg * n - grad->col(1);
    grad->col(2) = -sg * n - grad->col(3);
  }
  return sg * dist - thickness;
}

bool edge_edge_line_parameters(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, double* s, double* t) {
  // Minimise |r + s e_a - t e_b|^2, r = a0 - b0: the 2x2 normal equations.
  const Vec3 ea = a1 - a0, eb = b1 - b0, r = a0 - b0;
  const double aa = ea.dot(ea), ab = ea.dot(eb), bb = eb.dot(eb), ar = ea.dot(r), br = eb.dot(r);
  const double den = aa * bb - ab * ab;
  // Nearly parallel edges (angle below ~6 degrees, sin^2 < 0.01): the closest points and the
  // common normal are ill-conditioned (the gradient's rotational part grows like 1 / sin of
  // the angle: two sheets sliding over each other popped and dragged), so no pair; the
  // vertex-triangle pairs keep such edges apart.
  if (!(den > 1e-2 * aa * bb) || !(aa > 0) || !(bb > 0)) return false;
  *s = (ab * br - bb * ar) / den;
  *t = (aa * br - ab * ar) / den;
  return true;
}

double static_obstacle_constraint(const Vec3& p, const Vec3& q_c, const Vec3& n_c, double thickness,
                                  Vec3* grad) {
  if (grad) *grad = n_c;
  return (p - q_c).dot(n_c) - thickness;
}

}  // namespace weft
