// Squared distance between the two infinite LINES through edges a and b, and its
// derivatives. Coordinates (ea0, ea1, eb0, eb1). This is the "EA_EB" distance of IPC;
// the clamped segment-segment distance dispatches on EdgeEdgeType (distance_type.hpp).
//   d^2 = ((eb0 - ea0) . n)^2 / |n|^2,  n = (ea1 - ea0) x (eb1 - eb0).
// Singular for parallel edges (n = 0): the classification never selects it there.
#pragma once
#include "contact/plane_kernel.hpp"
#include "core/types.hpp"

namespace weft {

inline double line_line_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  // Any vector joining the two lines gives the same value in exact arithmetic; the shortest
  // endpoint-to-endpoint one loses the least to rounding (error ~ eps |r| / sin(angle)).
  Vec3 r = eb0 - ea0;
  double rr = r.squaredNorm();
  for (const Vec3& c : {Vec3(eb1 - ea0), Vec3(eb0 - ea1), Vec3(eb1 - ea1)}) {
    const double cc = c.squaredNorm();
    if (cc < rr) { r = c; rr = cc; }
  }
  return detail::plane_kernel_value(r, ea1 - ea0, eb1 - eb0);
}
Vec12 line_line_distance_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1);
Mat12 line_line_distance_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1);

}  // namespace weft
