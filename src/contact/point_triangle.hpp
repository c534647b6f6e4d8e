// Squared distance from a point to the PLANE of a triangle, and its derivatives.
// Coordinates (p, t0, t1, t2). This is the "P_T" distance of IPC; the clamped
// point-triangle distance dispatches on PointTriangleType (distance_type.hpp).
//   d^2 = ((p - t0) . n)^2 / |n|^2,  n = (t1 - t0) x (t2 - t0).
#pragma once
#include "contact/plane_kernel.hpp"
#include "core/types.hpp"

namespace weft {

inline double point_plane_distance_sq(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  return detail::plane_kernel_value(p - t0, t1 - t0, t2 - t0);
}
Vec12 point_plane_distance_sq_gradient(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2);
Mat12 point_plane_distance_sq_hessian(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2);

}  // namespace weft
