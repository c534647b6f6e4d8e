// Squared distance from a point to the infinite LINE through an edge, and its derivatives.
// Coordinates (p, e0, e1). This is the "P_E" distance of IPC; the clamped point-SEGMENT
// distance dispatches on PointEdgeType (distance_type.hpp).
//
// Formulation: with r = p - e0, e = e1 - e0, alpha = (r.e)/(e.e), q = r - alpha e,
//   d^2 = r.r - (r.e)^2/(e.e) = |q|^2.
// The derivatives are taken in the difference vectors (r, e) and mapped to (p, e0, e1) by
// the constant linear map, so the Hessian is exact and analytic.
#pragma once
#include <Eigen/Geometry>

#include "core/types.hpp"

namespace weft {

inline double point_line_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  // |(e0 - p) x (e1 - p)|^2 / |e|^2 is the numerically friendlier form of |q|^2.
  return (e0 - p).cross(e1 - p).squaredNorm() / (e1 - e0).squaredNorm();
}
Vec9 point_line_distance_sq_gradient(const Vec3& p, const Vec3& e0, const Vec3& e1);
Mat9 point_line_distance_sq_hessian(const Vec3& p, const Vec3& e0, const Vec3& e1);

}  // namespace weft
