// Distance (stretch) constraint, C = |x1 - x0| - L (001 sec. 4.1 C_stretch; its projection is
// eqs. 10-11): every cloth edge, and every rod segment (XPBD's chain, 003 sec. 4.4).
// grad_0 = -n, grad_1 = n with n = (x1 - x0) / |x1 - x0|. C is linear along n, so one
// projection with k = 1 restores |x1 - x0| = L exactly (up to rounding).
// Coincident points (|x1 - x0| = 0) have no direction: the gradient is returned as zero and
// the projection skips the constraint (the next iteration sees the points apart).
#pragma once
#include "constraints/projection.hpp"

namespace weft {

// Inline: the PBD sweeps call it per constraint per iteration (it is their inner loop).
inline double distance_constraint(const Stencil3<2>& x, double rest_length, Stencil3<2>* grad) {
  const Vec3 d = x.col(1) - x.col(0);
  const double len = d.norm();
  if (grad) {
    const Vec3 n = len > 0.0 ? Vec3(d / len) : Vec3::Zero();
    grad->col(0) = -n;
    grad->col(1) = n;
  }
  return len - rest_length;
}

}  // namespace weft
