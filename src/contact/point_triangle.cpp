#include "contact/point_triangle.hpp"

#include "contact/plane_kernel.hpp"

namespace weft {

namespace {

// (p, t0, t1, t2) -> (r, e1, e2) = (p - t0, t1 - t0, t2 - t0).
Eigen::Matrix<double, 9, 12> pt_map() {
  Eigen::Matrix<double, 9, 12> J = Eigen::Matrix<double, 9, 12>::Zero();
  const Mat3 I = Mat3::Identity();
  J.block<3, 3>(0, 0) = I;
  J.block<3, 3>(0, 3) = -I;
  J.block<3, 3>(3, 3) = -I;
  J.block<3, 3>(3, 6) = I;
  J.block<3, 3>(6, 3) = -I;
  J.block<3, 3>(6, 9) = I;
  return J;
}

}  // namespace

Vec12 point_plane_distance_sq_gradient(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  const Vec9 g = detail::plane_kernel_gradient(p - t0, t1 - t0, t2 - t0);
  Vec12 out;
  out << g.segment<3>(0), -g.segment<3>(0) - g.segment<3>(3) - g.segment<3>(6), g.segment<3>(3),
      g.segment<3>(6);
  return out;
}

Mat12 point_plane_distance_sq_hessian(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  const Mat9 H = detail::plane_kernel_hessian(p - t0, t1 - t0, t2 - t0);
  const Eigen::Matrix<double, 9, 12> J = pt_map();
  return J.transpose() * H * J;
}

}  // namespace weft
