// Shared kernel of the point-plane (PT, P_T) and line-line (EE, EA_EB) distances:
//   f(r, e1, e2) = (r . n)^2 / (n . n),   n = e1 x e2,
// the squared distance along n between the point / line through the origin spanned by e1, e2
// and the point / line displaced by r. Derivatives are with respect to y = (r, e1, e2) in R^9.
// Internal to the contact layer.
#pragma once
#include <Eigen/Geometry>

#include "core/types.hpp"

namespace weft::detail {

inline double plane_kernel_value(const Vec3& r, const Vec3& e1, const Vec3& e2) {
  const Vec3 n = e1.cross(e2);
  const double s = n.dot(r);
  return s * s / n.squaredNorm();
}
Vec9 plane_kernel_gradient(const Vec3& r, const Vec3& e1, const Vec3& e2);
Mat9 plane_kernel_hessian(const Vec3& r, const Vec3& e1, const Vec3& e2);

// Cross-product matrix [v]x with [v]x w = v x w.
inline Mat3 cross_matrix(const Vec3& v) {
  Mat3 m;
  m << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return m;
}

}  // namespace weft::detail
