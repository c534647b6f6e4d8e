#include "contact/point_edge.hpp"

namespace weft {

namespace {

// Map from (p, e0, e1) to (r, e) = (p - e0, e1 - e0): 6x9.
Eigen::Matrix<double, 6, 9> pe_map() {
  Eigen::Matrix<double, 6, 9> J = Eigen::Matrix<double, 6, 9>::Zero();
  const Mat3 I = Mat3::Identity();
  J.block<3, 3>(0, 0) = I;
  J.block<3, 3>(0, 3) = -I;
  J.block<3, 3>(3, 3) = -I;
  J.block<3, 3>(3, 6) = I;
  return J;
}

}  // namespace

Vec9 point_line_distance_sq_gradient(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  const Vec3 r = p - e0, e = e1 - e0;
  const double ee = e.squaredNorm();
  const double alpha = r.dot(e) / ee;
  const Vec3 q = r - alpha * e;
  // f_r = 2q, f_e = -2 alpha q; then chain through r = p - e0, e = e1 - e0.
  const Vec3 fr = 2.0 * q, fe = -2.0 * alpha * q;
  Vec9 g;
  g << fr, -fr - fe, fe;
  return g;
}

Mat9 point_line_distance_sq_hessian(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  const Vec3 r = p - e0, e = e1 - e0;
  const double ee = e.squaredNorm();
  const double alpha = r.dot(e) / ee;
  const Vec3 w = r - 2.0 * alpha * e;  // = q - alpha e
  const Mat3 I = Mat3::Identity();
  MatN<6> H;
  // f_rr = 2 (I - e e^T / ee)
  H.block<3, 3>(0, 0) = 2.0 * (I - e * e.transpose() / ee);
  // f_re = d(2q)/de = -2 alpha I - 2 e w^T / ee
  const Mat3 fre = -2.0 * alpha * I - 2.0 * e * w.transpose() / ee;
  H.block<3, 3>(0, 3) = fre;
  H.block<3, 3>(3, 0) = fre.transpose();
  // f_ee = 2 alpha^2 I - 2 w w^T / ee
  H.block<3, 3>(3, 3) = 2.0 * alpha * alpha * I - 2.0 * w * w.transpose() / ee;
  const Eigen::Matrix<double, 6, 9> J = pe_map();
  return J.transpose().lazyProduct(H).lazyProduct(J);
}

}  // namespace weft
