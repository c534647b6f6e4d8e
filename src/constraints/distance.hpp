// Distance (stretch) constraint, C = |x1 - x0| - L (001 sec. 4.1 C_stretch; its projection is
// eqs. 10-11): every cloth edge, and every rod segment (XPBD's chain, 003 sec. 4.4).
// grad_0 = -n, grad_1 = n with n = (x1 - x0) / |x1 - x0|. C is linear along n, so one
// projection with k = 1 restores |x1 - x0| = L exactly (up to rounding).
// Coincident points (|x1 - x0| = 0) have no direction: the gradient is returned as zero and
// the projection skips the constraint (the next iteration sees the points apart).
#pragma once
#include <cmath>

#include "constraints/projection.hpp"

namespace weft {

// Inline: the PBD sweeps call it per constraint per iteration (it is their inner loop).
[[gnu::always_inline]] inline double distance_constraint(const Stencil3<2>& x, double rest_length, Stencil3<2>* grad) {
  const Vec3 d = x.col(1) - x.col(0);
  const double len = d.norm();
  if (grad) {
    const Vec3 n = len > 0.0 ? Vec3(d / len) : Vec3::Zero();
    grad->col(0) = -n;
    grad->col(1) = n;
  }
  return len - rest_length;
}

// The same C for the PBD / XPBD sweeps, fused: d = x1 - x0, grad = (-d, d) / |d|, and
// sum_i w_i |grad_i|^2 = w0 + w1 in closed form (|n| = 1); also 1 / (w0 + w1 + alpha_tilde)
// (alpha_tilde: XPBD's alpha / h^2, 0 for PBD), independent of the positions. Returns false
// when |d| = 0 (zero gradient) or w0 + w1 = 0: the projection skips it; f.C is set either way.
struct DistanceFused {
  double C, inv_len, inv;
  double d[3];
};

[[gnu::always_inline]] inline bool distance_fused(const double* x0, const double* x1, double rest_length, double w0,
                                                  double w1, double alpha_tilde, DistanceFused& f) {
  f.inv = 1.0 / (w0 + w1 + alpha_tilde);
  f.d[0] = x1[0] - x0[0], f.d[1] = x1[1] - x0[1], f.d[2] = x1[2] - x0[2];
  const double len = std::sqrt(f.d[0] * f.d[0] + f.d[1] * f.d[1] + f.d[2] * f.d[2]);
  f.C = len - rest_length;
  if (!(len > 0.0) || !(w0 + w1 > 0.0)) return false;
  f.inv_len = 1.0 / len;
  return true;
}

}  // namespace weft
