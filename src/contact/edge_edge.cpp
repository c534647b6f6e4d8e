#include "contact/edge_edge.hpp"

#include "contact/plane_kernel.hpp"

namespace weft {

namespace {

// (ea0, ea1, eb0, eb1) -> (r, e1, e2) = (eb0 - ea0, ea1 - ea0, eb1 - eb0): coefficient of point
// a in argument i.
constexpr int kEeMap[4][3] = {{-1, -1, 0}, {0, 1, 0}, {1, 0, -1}, {0, 0, 1}};

}  // namespace

Vec12 line_line_distance_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  const Vec9 g = detail::plane_kernel_gradient(eb0 - ea0, ea1 - ea0, eb1 - eb0);
  const Vec3 gr = g.segment<3>(0), g1 = g.segment<3>(3), g2 = g.segment<3>(6);
  Vec12 out;
  out << -gr - g1, g1, gr - g2, g2;
  return out;
}

Mat12 line_line_distance_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  return detail::pull_back_4(detail::plane_kernel_hessian(eb0 - ea0, ea1 - ea0, eb1 - eb0), kEeMap);
}

}  // namespace weft
