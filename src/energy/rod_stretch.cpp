#include "energy/rod_stretch.hpp"

#include <algorithm>

namespace weft {

void segment_hessian(const Vec3& ehat, double a, double b, Mat6& H) {
  const Mat3 P = ehat * ehat.transpose();
  const Mat3 H3 = a * P + b * (Mat3::Identity() - P);
  H.topLeftCorner<3, 3>() = H3;
  H.bottomRightCorner<3, 3>() = H3;
  H.topRightCorner<3, 3>() = -H3;
  H.bottomLeftCorner<3, 3>() = -H3;
}

double segment_stretch(const Vec6& x, const RodStretchRest& r) {
  return (x.tail<3>() - x.head<3>()).norm() / r.length;
}

double rod_stretch(const Vec6& x, const RodStretchRest& r, Vec6* g, Mat6* H, bool project) {
  const Vec3 e = x.tail<3>() - x.head<3>();
  const double len = e.norm(), L = r.length, k = r.stiffness;
  const double strain = len / L - 1.0;
  const double energy = 0.5 * k * L * strain * strain;
  if (!g && !H) return energy;
  // A zero-length segment: the direction is undefined; the energy's gradient there is the
  // limit along any direction, |dPsi/de| = k, so take none (the segment cannot stay there).
  const Vec3 ehat = len > 0 ? Vec3(e / len) : Vec3::Zero();
  if (g) {
    const Vec3 d = k * strain * ehat;
    g->head<3>() = -d;
    g->tail<3>() = d;
  }
  if (H) {
    double transverse = len > 0 ? k * strain / len : 0.0;
    if (project) transverse = std::max(transverse, 0.0);
    segment_hessian(ehat, k / L, transverse, *H);
  }
  return energy;
}

}  // namespace weft
