// Shared kernel of the point-plane (PT, P_T) and line-line (EE, EA_EB) distances:
//   f(r, e1, e2) = (r . n)^2 / (n . n),   n = e1 x e2,
// the squared distance along n between the point / line through the origin spanned by e1, e2
// and the point / line displaced by r. Derivatives are with respect to y = (r, e1, e2) in R^9.
// Internal to the contact layer.
#pragma once
#include <Eigen/Geometry>

#include "core/types.hpp"

namespace weft::detail {

inline double plane_kernel_value(const Vec3& r, const Vec3& e1, const Vec3& e2) {
  const Vec3 n = e1.cross(e2);
  const double s = n.dot(r);
  return s * s / n.squaredNorm();
}
Vec9 plane_kernel_gradient(const Vec3& r, const Vec3& e1, const Vec3& e2);
Mat9 plane_kernel_hessian(const Vec3& r, const Vec3& e1, const Vec3& e2);

// The Hessian over 4 points of a function of y = (r, e1, e2) = sum_i C[a][i] x_a (C: -1, 0, +1
// per point a and kernel argument i): J^T H J, by signed block sums instead of dense products.
inline Mat12 pull_back_4(const Mat9& H, const int (&C)[4][3]) {
  Eigen::Matrix<double, 12, 9> R;
  for (int a = 0; a < 4; ++a) {
    auto row = R.block<3, 9>(3 * a, 0);
    row.setZero();
    for (int i = 0; i < 3; ++i) {
      if (C[a][i] > 0) row += H.block<3, 9>(3 * i, 0);
      else if (C[a][i] < 0) row -= H.block<3, 9>(3 * i, 0);
    }
  }
  Mat12 out;
  for (int b = 0; b < 4; ++b) {
    auto col = out.block<12, 3>(0, 3 * b);
    col.setZero();
    for (int j = 0; j < 3; ++j) {
      if (C[b][j] > 0) col += R.block<12, 3>(0, 3 * j);
      else if (C[b][j] < 0) col -= R.block<12, 3>(0, 3 * j);
    }
  }
  return out;
}

// Cross-product matrix [v]x with [v]x w = v x w.
inline Mat3 cross_matrix(const Vec3& v) {
  Mat3 m;
  m << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return m;
}

}  // namespace weft::detail
