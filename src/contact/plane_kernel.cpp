#include "contact/plane_kernel.hpp"

namespace weft::detail {

Vec9 plane_kernel_gradient(const Vec3& r, const Vec3& e1, const Vec3& e2) {
  const Vec3 n = e1.cross(e2);
  const double N = n.squaredNorm();
  const double s = n.dot(r);
  const Vec3 fr = (2.0 * s / N) * n;
  const Vec3 fn = (2.0 * s / N) * (r - (s / N) * n);
  // n = e1 x e2:  f_e1 = e2 x f_n,  f_e2 = f_n x e1.
  Vec9 g;
  g << fr, e2.cross(fn), fn.cross(e1);
  return g;
}

Mat9 plane_kernel_hessian(const Vec3& r, const Vec3& e1, const Vec3& e2) {
  const Vec3 n = e1.cross(e2);
  const double N = n.squaredNorm();
  const double s = n.dot(r);
  const Mat3 I = Mat3::Identity();
  const Vec3 fn = (2.0 * s / N) * (r - (s / N) * n);

  // Hessian in z = (r, n).
  MatN<6> Hz;
  const Mat3 nnT = n * n.transpose();
  Hz.block<3, 3>(0, 0) = (2.0 / N) * nnT;
  const Mat3 frn = (2.0 / N) * (n * r.transpose() + s * I) - (4.0 * s / (N * N)) * nnT;
  Hz.block<3, 3>(0, 3) = frn;
  Hz.block<3, 3>(3, 0) = frn.transpose();
  Hz.block<3, 3>(3, 3) = (2.0 / N) * r * r.transpose() -
                         (4.0 * s / (N * N)) * (r * n.transpose() + n * r.transpose()) -
                         (2.0 * s * s / (N * N)) * I + (8.0 * s * s / (N * N * N)) * nnT;

  // z = B y with B = [[I, 0, 0], [0, -[e2]x, [e1]x]].
  Eigen::Matrix<double, 6, 9> B = Eigen::Matrix<double, 6, 9>::Zero();
  B.block<3, 3>(0, 0) = I;
  B.block<3, 3>(3, 3) = -cross_matrix(e2);
  B.block<3, 3>(3, 6) = cross_matrix(e1);
  // (lazy products: at these sizes Eigen would otherwise pack for its GEMM kernel)
  Mat9 H = B.transpose().lazyProduct(Hz).lazyProduct(B);
  // Second-order term of the bilinear n(e1, e2): f_n . (de1 x de2).
  const Mat3 M = -cross_matrix(fn);
  H.block<3, 3>(3, 6) += M;
  H.block<3, 3>(6, 3) += M.transpose();
  return H;
}

}  // namespace weft::detail
