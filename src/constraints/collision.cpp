#include "constraints/collision.hpp"

namespace weft {

namespace {

// The shared part of both collision constraints: the offset r measured along the unit normal
// n = N / |N| of N = u x v, with the side's sign, and r's in-plane part scaled by 1 / |N|
// (both gradients are cross products with it). ok = false when |N| <= min_len (no normal).
struct SignedNormalDistance {
  bool ok = false;
  double sg = 1.0, dist = 0.0;
  Vec3 n, rt;
};

SignedNormalDistance signed_normal_distance(const Vec3& u, const Vec3& v, const Vec3& r, int side, double min_len) {
  SignedNormalDistance d;
  const Vec3 N = u.cross(v);
  const double len = N.norm();
  if (!(len > min_len) || !(len > 0.0)) return d;
  d.ok = true;
  d.sg = side >= 0 ? 1.0 : -1.0;
  d.n = N / len;
  d.dist = r.dot(d.n);
  d.rt = (r - d.dist * d.n) / len;
  return d;
}

}  // namespace

double point_triangle_collision_constraint(const Stencil3<4>& x, double thickness, int side,
                                           Stencil3<4>* grad) {
  const Vec3 e1 = x.col(2) - x.col(1), e2 = x.col(3) - x.col(1);
  const SignedNormalDistance d = signed_normal_distance(e1, e2, x.col(0) - x.col(1), side, 0.0);
  if (!d.ok) {
    if (grad) grad->setZero();
    return -thickness;
  }
  if (grad) {
    grad->col(0) = d.sg * d.n;
    grad->col(2) = d.sg * e2.cross(d.rt);
    grad->col(3) = d.sg * d.rt.cross(e1);
    grad->col(1) = -(grad->col(0) + grad->col(2) + grad->col(3));
  }
  return d.sg * d.dist - thickness;
}

double edge_edge_collision_constraint(const Stencil3<4>& x, double thickness, int side, Stencil3<4>* grad) {
  const Vec3 ea = x.col(1) - x.col(0), eb = x.col(3) - x.col(2);
  // Nearly parallel edges (sin of the angle below 1e-10) have no usable common normal.
  const SignedNormalDistance d =
      signed_normal_distance(ea, eb, x.col(0) - x.col(2), side, 1e-10 * ea.norm() * eb.norm());
  if (!d.ok) {
    if (grad) grad->setZero();
    return -thickness;
  }
  if (grad) {
    grad->col(1) = d.sg * eb.cross(d.rt);
    grad->col(3) = d.sg * d.rt.cross(ea);
    grad->col(0) = d.sg * d.n - grad->col(1);
    grad->col(2) = -d.sg * d.n - grad->col(3);
  }
  return d.sg * d.dist - thickness;
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
