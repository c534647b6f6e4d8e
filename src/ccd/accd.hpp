// Additive CCD (ACCD) with a thickness offset: C-IPC (Li et al. 2021), Sec. 5.3-5.4,
// eq. 16 and Algorithm 1.
//
// A pair of primitives moves linearly, x_i(t) = x_i + t p_i for t in [0, 1]. With the
// displacements centred (p_i -= mean p, which leaves relative motion unchanged) and
//   l_p = max_{i in primitive 1} |p_i| + max_{j in primitive 2} |p_j|      (eq. 16),
// the distance between the primitives can shrink at most l_p per unit t, so from a
// configuration whose gap to the offset surface is G = d - xi, a step of G / l_p cannot make
// them meet. ACCD adds such steps:
//
//   G0 = d0 - xi  (computed as (d0^2 - xi^2) / (d0 + xi), robust to cancellation)
//   g  = s G0                       target minimum gap, s in (0, 1)
//   t  = 0,  t_l = (1 - s) G0 / l_p  first step: can only bring the gap down to g, always taken
//   loop: G = gap at x(t + t_l)
//         if t > 0 and G < g: stop, TOI = t
//         t += t_l;  if t >= t_max: no collision before t_max
//         t_l = 0.9 G / l_p
//
// Guarantees (in exact arithmetic; the 0.9 factor leaves 10 % slack for rounding in d):
//  * the configuration at the returned toi has gap d - xi >= g = s (d0 - xi) when hit,
//    and every configuration in [0, toi] has d > xi (never a step ending inside the offset);
//  * toi > 0 whenever d0 > xi (the first step is always taken) — except when that step
//    underflows (G0 / l_p below the resolution of t), reported as a hit at 0;
//  * no relative motion (l_p = 0) returns no hit, toi = t_max;
//  * a start already within the offset (d0 <= xi, including d0 = 0 with xi = 0) returns
//    hit, toi = 0, started_within_offset = true: no positive step is safe;
//  * when t stops advancing in floating point, or after max_iterations, the result is a hit
//    at the current t (safe but possibly conservative; iteration_limit tells which).
// Positions are evaluated as x_i + t p_i at every iteration (no accumulated drift).
#pragma once
#include <limits>
#include <array>
#include <cmath>

#include "core/types.hpp"

namespace weft {

struct AccdParams {
  double s = 0.1;               // conservative rescaling: target gap s (d0 - xi); C-IPC uses 0.1
  double t_max = 1.0;           // t_c: collisions at or after t_max are not reported
  long max_iterations = 1'000'000;  // ~30 ms worst case per pair
};

struct CcdResult {
  bool hit = false;             // a collision (or approach closer than the target gap) before t_max
  double toi = 1.0;             // safe step: t_max when !hit
  long iterations = 0;
  bool started_within_offset = false;
  bool iteration_limit = false; // hit reported because t stagnated or max_iterations ran out
  double d0_sq = std::numeric_limits<double>::quiet_NaN();  // the squared distance at t = 0
};

CcdResult point_triangle_accd(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2, const Vec3& dp,
                              const Vec3& dt0, const Vec3& dt1, const Vec3& dt2, double xi,
                              const AccdParams& params = {});
CcdResult edge_edge_accd(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1, const Vec3& dea0,
                         const Vec3& dea1, const Vec3& deb0, const Vec3& deb1, double xi,
                         const AccdParams& params = {});
CcdResult point_edge_accd(const Vec3& p, const Vec3& e0, const Vec3& e1, const Vec3& dp, const Vec3& de0,
                          const Vec3& de1, double xi, const AccdParams& params = {});
CcdResult point_point_accd(const Vec3& p0, const Vec3& p1, const Vec3& dp0, const Vec3& dp1, double xi,
                           const AccdParams& params = {});

// The gap to the offset surface, d - xi, from a squared distance, without cancellation.
inline double offset_gap(double d2, double xi) { return (d2 - xi * xi) / (std::sqrt(d2) + xi); }

}  // namespace weft
