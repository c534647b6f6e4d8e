// Scripted motion of pins and obstacles (DESIGN.md "Case files": translate + rotate).
#pragma once
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "io/case_spec.hpp"

namespace weft {

// Position at time t of a point that sat at p0 at t = 0. The motion acts during
// [start, until]: rotation about the axis through rotate_center, then translation.
inline Vec3 scripted_position(const MotionSpec& m, const Vec3& p0, double t) {
  const double active = std::clamp(t, m.start, std::max(m.start, m.until)) - m.start;
  Vec3 p = p0;
  if (m.deg_per_s != 0.0) {
    const double angle = m.deg_per_s * active * M_PI / 180.0;
    const Eigen::AngleAxisd R(angle, m.rotate_axis.normalized());
    p = m.rotate_center + R * (p0 - m.rotate_center);
  }
  return p + m.velocity * active;
}

}  // namespace weft
