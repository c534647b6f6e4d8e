// Adaptive barrier stiffness kappa (IPC: Li et al. 2020, "Incremental Potential Contact",
// Sec. 4.3 and the supplemental's "adaptive barrier stiffness"; with the C-IPC offset,
// Li et al. 2021 Sec. 5.1: the barrier is evaluated at the shifted argument d^2 - xi^2).
//
// 1. Bounds. Take a tiny reference gap d0 = 1e-8 * bbox_diagonal above the offset
//    (squared: D0 = (xi + d0)^2; if that is already outside the barrier's support, use the
//    middle of the support). The stiffness of kappa * b(d^2) along the distance d at D0 is
//    ~ kappa * 4 D0 b''(D0); kappa_min makes it min_scale times the average nodal mass:
//        kappa_min = min_scale * average_mass / (4 D0 b''(D0 - xi^2)),  min_scale = 1e11,
//        kappa_max = 100 kappa_min.
// 2. Initial value. Balance the barrier gradient against the rest of the incremental
//    potential: kappa = argmin_k |g_E + k g_B| = -(g_E . g_B) / (g_B . g_B), clamped to
//    [kappa_min, kappa_max]; kappa_min when g_B = 0 or the ratio is not positive.
// 3. Update after each Newton iteration: if the minimum pair distance (minus offset) stays
//    below eps_d = 1e-9 * bbox_diagonal and keeps decreasing, double kappa (up to kappa_max).
//
// The caller computes the global dot products / minimum distances (MPI reductions) and
// passes scalars here, so these formulas are rank-independent.
#pragma once
#include <algorithm>
#include <cmath>

#include "contact/barrier.hpp"

namespace weft {

struct KappaBounds {
  double min = 0.0;
  double max = 0.0;
};

inline KappaBounds barrier_stiffness_bounds(double dhat, double xi, double average_mass, double bbox_diagonal,
                                            double min_scale = 1e11) {
  const double S = offset_barrier_threshold(xi, dhat);
  double gap = 1e-8 * bbox_diagonal;
  double D0 = (xi + gap) * (xi + gap);  // squared distance of the reference configuration
  if (D0 - xi * xi >= S) D0 = xi * xi + 0.5 * S;
  const double stiffness = 4.0 * D0 * barrier_second_derivative(D0 - xi * xi, S);
  KappaBounds kb;
  kb.min = min_scale * average_mass / stiffness;
  kb.max = 100.0 * kb.min;
  return kb;
}

// gE_dot_gB = g_E . g_B, gB_sq = g_B . g_B (global sums).
inline double initial_barrier_stiffness(double gE_dot_gB, double gB_sq, const KappaBounds& kb) {
  double kappa = gB_sq > 0.0 ? -gE_dot_gB / gB_sq : 0.0;
  if (!std::isfinite(kappa) || kappa < kb.min) kappa = kb.min;
  return std::min(kappa, kb.max);
}

// prev_min_gap / min_gap: the smallest d - xi over all pairs before / after the iteration.
inline double update_barrier_stiffness(double kappa, double prev_min_gap, double min_gap, const KappaBounds& kb,
                                       double bbox_diagonal, double eps_scale = 1e-9) {
  const double eps_d = eps_scale * bbox_diagonal;
  if (prev_min_gap < eps_d && min_gap < eps_d && min_gap < prev_min_gap) return std::min(kb.max, 2.0 * kappa);
  return kappa;
}

}  // namespace weft
