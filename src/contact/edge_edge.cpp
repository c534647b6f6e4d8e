#include "contact/edge_edge.hpp"

#include "contact/plane_kernel.hpp"

namespace weft {

namespace {

// (ea0, ea1, eb0, eb1) -> (r, e1, e2) = (eb0 - ea0, ea1 - ea0, eb1 - eb0).
Eigen::Matrix<double, 9, 12> ee_map() {
  Eigen::Matrix<double, 9, 12> J = Eigen::Matrix<double, 9, 12>::Zero();
  const Mat3 I = Mat3::Identity();
  J.block<3, 3>(0, 0) = -I;
  J.block<3, 3>(0, 6) = I;
  J.block<3, 3>(3, 0) = -I;
  J.block<3, 3>(3, 3) = I;
  J.block<3, 3>(6, 6) = -I;
  J.block<3, 3>(6, 9) = I;
  return J;
}

}  // namespace

Vec12 line_line_distance_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  const Vec9 g = detail::plane_kernel_gradient(eb0 - ea0, ea1 - ea0, eb1 - eb0);
  const Vec3 gr = g.segment<3>(0), g1 = g.segment<3>(3), g2 = g.segment<3>(6);
  Vec12 out;
  out << -gr - g1, g1, gr - g2, g2;
  return out;
}

Mat12 line_line_distance_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  const Mat9 H = detail::plane_kernel_hessian(eb0 - ea0, ea1 - ea0, eb1 - eb0);
  const Eigen::Matrix<double, 9, 12> J = ee_map();
  return J.transpose() * H * J;
}

}  // namespace weft
