#include "energy/tri_rest.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace weft {

TriRest make_tri_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2) {
  const Vec3 e1 = X1 - X0, e2 = X2 - X0;
  const Vec3 nrm = e1.cross(e2);
  const double twice_area = nrm.norm();
  const double lmax2 = std::max({e1.squaredNorm(), e2.squaredNorm(), (X2 - X1).squaredNorm()});
  if (!std::isfinite(twice_area) || !std::isfinite(lmax2) || !(twice_area > 2e-12 * lmax2))
    throw InputError("degenerate rest triangle (area " + std::to_string(0.5 * twice_area) + ")");
  const double l1 = e1.norm();
  const Vec3 t1 = e1 / l1;
  const Vec3 t2 = (nrm / twice_area).cross(t1);
  Mat2 Dm;
  Dm << l1, e2.dot(t1), 0.0, e2.dot(t2);
  TriRest r;
  r.Dm_inv = Dm.inverse();
  r.area = 0.5 * twice_area;
  return r;
}

Mat32 deformation_gradient(const Vec9& x, const TriRest& r) {
  Mat32 Ds;
  Ds.col(0) = x.segment<3>(3) - x.segment<3>(0);
  Ds.col(1) = x.segment<3>(6) - x.segment<3>(0);
  return Ds * r.Dm_inv;
}

Eigen::Matrix<double, 3, 2> dF_coeffs(const TriRest& r) {
  Eigen::Matrix<double, 3, 2> c;
  c.row(0) = -(r.Dm_inv.row(0) + r.Dm_inv.row(1));
  c.row(1) = r.Dm_inv.row(0);
  c.row(2) = r.Dm_inv.row(1);
  return c;
}

Vec9 grad_from_dF(const Mat32& P, const TriRest& r) {
  const Eigen::Matrix<double, 3, 2> c = dF_coeffs(r);
  Vec9 g;
  for (int a = 0; a < 3; ++a) g.segment<3>(3 * a) = P.col(0) * c(a, 0) + P.col(1) * c(a, 1);
  return g;
}

Mat9 hess_from_dF(const Mat6& HF, const TriRest& r) {
  const Eigen::Matrix<double, 3, 2> c = dF_coeffs(r);
  Mat9 H;
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      Mat3 blk = Mat3::Zero();
      for (int j = 0; j < 2; ++j)
        for (int l = 0; l < 2; ++l)
          blk += (c(a, j) * c(b, l)) * HF.block<3, 3>(3 * j, 3 * l);
      H.block<3, 3>(3 * a, 3 * b) = blk;
      if (b != a) H.block<3, 3>(3 * b, 3 * a) = blk.transpose();
    }
  return H;
}

}  // namespace weft
