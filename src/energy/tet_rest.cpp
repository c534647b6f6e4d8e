#include "energy/tet_rest.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace weft {

double tet_signed_volume(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3) {
  return (x1 - x0).dot((x2 - x0).cross(x3 - x0)) / 6.0;
}

TetRest make_tet_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec3& X3) {
  Mat3 Dm;
  Dm << X1 - X0, X2 - X0, X3 - X0;
  const double vol = Dm.determinant() / 6.0;
  double lmax2 = std::max({Dm.col(0).squaredNorm(), Dm.col(1).squaredNorm(), Dm.col(2).squaredNorm(),
                           (X2 - X1).squaredNorm(), (X3 - X1).squaredNorm(), (X3 - X2).squaredNorm()});
  const double lmax = std::sqrt(lmax2);
  if (!std::isfinite(vol) || !std::isfinite(lmax) || !(vol > 1e-12 * lmax * lmax * lmax))
    throw InputError(std::string(vol < 0 ? "inverted" : "degenerate") + " rest tetrahedron (signed volume " +
                     std::to_string(vol) + ")");
  TetRest r;
  r.Dm_inv = Dm.inverse();
  r.volume = vol;
  return r;
}

Mat3 deformation_gradient(const Vec12& x, const TetRest& r) {
  Mat3 Ds;
  Ds << x.segment<3>(3) - x.segment<3>(0), x.segment<3>(6) - x.segment<3>(0), x.segment<3>(9) - x.segment<3>(0);
  return Ds * r.Dm_inv;
}

double tet_jacobian(const Vec12& x, const TetRest& r) { return deformation_gradient(x, r).determinant(); }

Eigen::Matrix<double, 4, 3> tet_dF_coeffs(const TetRest& r) {
  Eigen::Matrix<double, 4, 3> c;
  c.row(0) = -r.Dm_inv.colwise().sum();
  c.bottomRows<3>() = r.Dm_inv;
  return c;
}

}  // namespace weft
