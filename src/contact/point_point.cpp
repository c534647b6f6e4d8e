#include "contact/point_point.hpp"

namespace weft {

Vec6 point_point_distance_sq_gradient(const Vec3& p0, const Vec3& p1) {
  const Vec3 r = 2.0 * (p0 - p1);
  Vec6 g;
  g << r, -r;
  return g;
}

Mat6 point_point_distance_sq_hessian(const Vec3&, const Vec3&) {
  Mat6 H;
  const Mat3 I2 = 2.0 * Mat3::Identity();
  H << I2, -I2, -I2, I2;
  return H;
}

}  // namespace weft
