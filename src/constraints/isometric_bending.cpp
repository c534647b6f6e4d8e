#include "constraints/isometric_bending.hpp"

#include <cmath>

#include "core/error.hpp"

namespace weft {

namespace {
// cot of the angle between u and v.
double cot(const Vec3& u, const Vec3& v) { return u.dot(v) / u.cross(v).norm(); }
}  // namespace

IsometricBendingRest make_isometric_bending_rest(const Stencil3<4>& X) {
  const Vec3 e0 = X.col(1) - X.col(0);
  const Vec3 e1 = X.col(2) - X.col(0), e2 = X.col(3) - X.col(0);
  const Vec3 e3 = X.col(2) - X.col(1), e4 = X.col(3) - X.col(1);
  const double A0 = 0.5 * e0.cross(e1).norm(), A1 = 0.5 * e0.cross(e2).norm();
  const double l2 = std::max({e0.squaredNorm(), e1.squaredNorm(), e2.squaredNorm(),
                              e3.squaredNorm(), e4.squaredNorm()});
  // A triangle with area below 1e-8 |longest edge|^2 has no usable cotangent.
  if (!(A0 > 1e-8 * l2) || !(A1 > 1e-8 * l2))
    throw InputError("isometric bending: degenerate rest hinge (zero-area triangle)");
  const double c01 = cot(e0, e1), c02 = cot(e0, e2);
  const double c03 = cot(-e0, e3), c04 = cot(-e0, e4);
  IsometricBendingRest r;
  r.K << c03 + c04, c01 + c02, -(c01 + c03), -(c02 + c04);
  r.scale = 3.0 / (A0 + A1);
  return r;
}

double isometric_bending_constraint(const Stencil3<4>& x, const IsometricBendingRest& rest,
                                    Stencil3<4>* grad) {
  const Vec3 kx = x * rest.K;
  if (grad) *grad = rest.scale * kx * rest.K.transpose();
  return 0.5 * rest.scale * kx.squaredNorm();
}

double isometric_bending_xpbd_constraint(const Stencil3<4>& x, const IsometricBendingRest& rest,
                                         Stencil3<4>* grad) {
  const Vec3 kx = x * rest.K;
  const double n = kx.norm(), root = std::sqrt(rest.scale);
  if (grad) {
    if (n > 0.0)
      *grad = (root / n) * kx * rest.K.transpose();
    else
      grad->setZero();
  }
  return root * n;
}

}  // namespace weft
