// Exact orientation of four points (the sign of a 3x3 determinant of double coordinates):
// a floating-point filter with a forward error bound, and expansion arithmetic (sums of
// non-overlapping doubles, error-free two-sum / two-product) when the filter cannot decide.
// The crossing tests of self-collision use it so that a flat sheet's rounding never makes a
// coplanar, non-crossing edge-triangle pair look like a crossing.
#pragma once
#include <Eigen/Geometry>
#include <cmath>

#include "core/types.hpp"

namespace weft {

// Relative forward error bound of (b - a) x (c - a) . (d - a) evaluated in double (differences,
// cross product, dot product; any summation order) against its permanent
// |w.x| (|u.y v.z| + |u.z v.y|) + |w.y| (...) + |w.z| (...) with u = b - a, v = c - a, w = d - a:
// Shewchuk's bound is (7 + 56 eps) eps = 7.77e-16, taken with margin.
inline constexpr double kOrientErrorBound = 1.0e-15;

// The sign (+1, 0, -1) of (b - a) x (c - a) . (d - a), exact for any double coordinates whose
// products neither overflow nor underflow (positions in metres, far from both).
int orient3d_sign(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

// The same without the filter (always the expansion arithmetic): for tests and for callers that
// already know the filter failed.
int orient3d_sign_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

// The filter of orient3d_sign on a value already evaluated as normal.dot(d - a) with normal =
// (b - a).cross(c - a) and abs_normal = (|u.y v.z| + |u.z v.y|, |u.z v.x| + |u.x v.z|,
// |u.x v.y| + |u.y v.x|) (the triangle's part of the permanent, computed once per triangle):
// the sign if certain, else the exact sign.
inline int orient3d_sign_filtered(double value, const Vec3& abs_normal, const Vec3& a, const Vec3& b,
                                  const Vec3& c, const Vec3& d) {
  const double bound = kOrientErrorBound * (d - a).cwiseAbs().dot(abs_normal);
  if (value > bound) return 1;
  if (value < -bound) return -1;
  if (bound == 0) return 0;  // every product is an exact zero (no underflow at these scales)
  return orient3d_sign_exact(a, b, c, d);
}

// The per-triangle part of the permanent for orient3d_sign_filtered.
inline Vec3 orient_abs_normal(const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 u = b - a, v = c - a;
  return Vec3(std::abs(u.y() * v.z()) + std::abs(u.z() * v.y()), std::abs(u.z() * v.x()) + std::abs(u.x() * v.z()),
              std::abs(u.x() * v.y()) + std::abs(u.y() * v.x()));
}

}  // namespace weft
