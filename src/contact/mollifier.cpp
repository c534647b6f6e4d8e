#include "contact/mollifier.hpp"

#include "contact/plane_kernel.hpp"

namespace weft {

double edge_edge_mollifier_threshold(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  return kMollifierScale * (ea0 - ea1).squaredNorm() * (eb0 - eb1).squaredNorm();
}

double edge_edge_cross_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  return (ea1 - ea0).cross(eb1 - eb0).squaredNorm();
}

Vec12 edge_edge_cross_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  const Vec3 ea = ea1 - ea0, eb = eb1 - eb0;
  const Vec3 fn = 2.0 * ea.cross(eb);
  const Vec3 ga = eb.cross(fn), gb = fn.cross(ea);  // d/dea, d/deb
  Vec12 g;
  g << -ga, ga, -gb, gb;
  return g;
}

Mat12 edge_edge_cross_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  const Vec3 ea = ea1 - ea0, eb = eb1 - eb0;
  const Vec3 fn = 2.0 * ea.cross(eb);
  // In (ea, eb): B^T (2 I) B with B = [-[eb]x, [ea]x], plus the bilinear term of n = ea x eb.
  Eigen::Matrix<double, 3, 6> B;
  B << -detail::cross_matrix(eb), detail::cross_matrix(ea);
  MatN<6> H = 2.0 * B.transpose() * B;
  H.block<3, 3>(0, 3) -= detail::cross_matrix(fn);
  H.block<3, 3>(3, 0) += detail::cross_matrix(fn);
  // (ea0, ea1, eb0, eb1) -> (ea, eb).
  Eigen::Matrix<double, 6, 12> J = Eigen::Matrix<double, 6, 12>::Zero();
  const Mat3 I = Mat3::Identity();
  J.block<3, 3>(0, 0) = -I;
  J.block<3, 3>(0, 3) = I;
  J.block<3, 3>(3, 6) = -I;
  J.block<3, 3>(3, 9) = I;
  return J.transpose().lazyProduct(H).lazyProduct(J);
}

double mollifier(double c, double eps_x) {
  if (c >= eps_x) return 1.0;
  const double y = c / eps_x;
  return (2.0 - y) * y;
}

double mollifier_first_derivative(double c, double eps_x) {
  if (c >= eps_x) return 0.0;
  return 2.0 / eps_x * (1.0 - c / eps_x);
}

double mollifier_second_derivative(double c, double eps_x) {
  if (c >= eps_x) return 0.0;
  return -2.0 / (eps_x * eps_x);
}

bool edge_edge_mollifier_active(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1, double eps_x) {
  return edge_edge_cross_sq(ea0, ea1, eb0, eb1) < eps_x;
}

double edge_edge_mollifier(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1, double eps_x) {
  return mollifier(edge_edge_cross_sq(ea0, ea1, eb0, eb1), eps_x);
}

Vec12 edge_edge_mollifier_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                   double eps_x) {
  const double c = edge_edge_cross_sq(ea0, ea1, eb0, eb1);
  if (c >= eps_x) return Vec12::Zero();
  return mollifier_first_derivative(c, eps_x) * edge_edge_cross_sq_gradient(ea0, ea1, eb0, eb1);
}

Mat12 edge_edge_mollifier_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                  double eps_x) {
  const double c = edge_edge_cross_sq(ea0, ea1, eb0, eb1);
  if (c >= eps_x) return Mat12::Zero();
  const Vec12 gc = edge_edge_cross_sq_gradient(ea0, ea1, eb0, eb1);
  return mollifier_second_derivative(c, eps_x) * gc * gc.transpose() +
         mollifier_first_derivative(c, eps_x) * edge_edge_cross_sq_hessian(ea0, ea1, eb0, eb1);
}

}  // namespace weft
