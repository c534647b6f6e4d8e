#include "contact/point_triangle.hpp"

#include "contact/plane_kernel.hpp"

namespace weft {

namespace {

// (p, t0, t1, t2) -> (r, e1, e2) = (p - t0, t1 - t0, t2 - t0): coefficient of point a in argument i.
constexpr int kPtMap[4][3] = {{1, 0, 0}, {-1, -1, -1}, {0, 1, 0}, {0, 0, 1}};

}  // namespace

Vec12 point_plane_distance_sq_gradient(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  const Vec9 g = detail::plane_kernel_gradient(p - t0, t1 - t0, t2 - t0);
  Vec12 out;
  out << g.segment<3>(0), -g.segment<3>(0) - g.segment<3>(3) - g.segment<3>(6), g.segment<3>(3),
      g.segment<3>(6);
  return out;
}

Mat12 point_plane_distance_sq_hessian(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  return detail::pull_back_4(detail::plane_kernel_hessian(p - t0, t1 - t0, t2 - t0), kPtMap);
}

}  // namespace weft
