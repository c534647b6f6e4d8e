#include "energy/spring.hpp"

#include <cmath>

namespace weft {

double spring_energy(const Vec6& x, const SpringRest& r, Vec6* g, Mat6* H, bool project) {
  const Vec3 d = x.head<3>() - x.tail<3>();
  const double l = d.norm(), s = l - r.length;
  const double e = 0.5 * r.stiffness * s * s;
  if (!g && !H) return e;
  Mat3 A;
  if (l > 0.0) {
    const Vec3 n = d / l;
    if (g) {
      const Vec3 gd = r.stiffness * s * n;
      *g << gd, -gd;
    }
    if (H) {
      double across = 1.0 - r.length / l;
      if (project && across < 0.0) across = 0.0;
      const Mat3 nn = n * n.transpose();
      A = r.stiffness * (nn + across * (Mat3::Identity() - nn));
    }
  } else {
    if (g) g->setZero();
    A = r.stiffness * Mat3::Identity();
  }
  if (H) {
    H->topLeftCorner<3, 3>() = A;
    H->bottomRightCorner<3, 3>() = A;
    H->topRightCorner<3, 3>() = -A;
    H->bottomLeftCorner<3, 3>() = -A;
  }
  return e;
}

double spring_stretch(const Vec6& x, const SpringRest& r) {
  return (x.head<3>() - x.tail<3>()).norm() / r.length;
}

}  // namespace weft
