#include "ccd/accd.hpp"

#include <algorithm>
#include <cmath>

#include "contact/distance_type.hpp"

namespace weft {

namespace {

// Algorithm 1 for N points, the first K of which form the first primitive.
template <int N, int K, class DistSq>
CcdResult additive_ccd(const std::array<Vec3, N>& x, std::array<Vec3, N> p, double xi, const AccdParams& prm,
                       const DistSq& dist_sq) {
  CcdResult r;
  r.toi = prm.t_max;
  // Centre the displacements: relative motion only.
  Vec3 mean = Vec3::Zero();
  for (const Vec3& v : p) mean += v;
  mean /= double(N);
  for (Vec3& v : p) v -= mean;
  double m1 = 0.0, m2 = 0.0;
  for (int i = 0; i < K; ++i) m1 = std::max(m1, p[i].squaredNorm());
  for (int i = K; i < N; ++i) m2 = std::max(m2, p[i].squaredNorm());
  const double lp = std::sqrt(m1) + std::sqrt(m2);  // eq. 16

  const double d2_0 = dist_sq(x);
  r.d0_sq = d2_0;
  if (!(d2_0 > xi * xi)) {  // also catches NaN
    r.hit = true;
    r.toi = 0.0;
    r.started_within_offset = true;
    return r;
  }
  if (lp == 0.0) return r;

  // gap = d - xi; with xi = 0 simply d (no division on the loop's critical path).
  auto gap_of = [xi](double d2) { return xi == 0.0 ? std::sqrt(d2) : offset_gap(d2, xi); };
  const double gap0 = gap_of(d2_0);
  const double g = prm.s * gap0;
  // Steps use 0.9 / l_p as one factor; rounding of that product is far inside the 0.9 slack.
  const double step_scale = 0.9 / lp;
  double t = 0.0;
  double tl = (1.0 - prm.s) * gap0 / lp;
  std::array<Vec3, N> xt;
  for (;;) {
    ++r.iterations;
    const double tn = t + tl;
    if (!(tn > t)) {  // t no longer advances in floating point: as close as we can resolve
      r.hit = true;
      r.toi = t;
      r.iteration_limit = true;
      return r;
    }
    // The first step's distance only feeds the next step length (the target-gap test
    // starts at t > 0): a first step that already reaches t_max (most candidate pairs: far
    // apart for their motion) ends here, one distance evaluation instead of two.
    if (t == 0.0 && tn >= prm.t_max) {
      r.toi = prm.t_max;
      return r;
    }
    for (int i = 0; i < N; ++i) xt[i] = x[i] + tn * p[i];
    const double gap = gap_of(dist_sq(xt));
    if (t > 0.0 && !(gap >= g)) break;  // reached the target gap (or NaN): t is the TOI
    t = tn;
    if (t >= prm.t_max) {
      r.toi = prm.t_max;
      return r;
    }
    if (r.iterations >= prm.max_iterations) {
      r.hit = true;
      r.toi = t;
      r.iteration_limit = true;
      return r;
    }
    tl = step_scale * gap;
    if (!(tl > 0.0)) {  // only possible through rounding right after the first step
      r.hit = true;
      r.toi = t;
      return r;
    }
  }
  r.hit = true;
  r.toi = t;
  return r;
}

}  // namespace

CcdResult point_triangle_accd(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2, const Vec3& dp,
                              const Vec3& dt0, const Vec3& dt1, const Vec3& dt2, double xi,
                              const AccdParams& params) {
  return additive_ccd<4, 1>({p, t0, t1, t2}, {dp, dt0, dt1, dt2}, xi, params, [](const std::array<Vec3, 4>& y) {
    return point_triangle_distance_sq(y[0], y[1], y[2], y[3]);
  });
}

CcdResult edge_edge_accd(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1, const Vec3& dea0,
                         const Vec3& dea1, const Vec3& deb0, const Vec3& deb1, double xi,
                         const AccdParams& params) {
  return additive_ccd<4, 2>({ea0, ea1, eb0, eb1}, {dea0, dea1, deb0, deb1}, xi, params,
                            [](const std::array<Vec3, 4>& y) { return edge_edge_distance_sq(y[0], y[1], y[2], y[3]); });
}

CcdResult point_edge_accd(const Vec3& p, const Vec3& e0, const Vec3& e1, const Vec3& dp, const Vec3& de0,
                          const Vec3& de1, double xi, const AccdParams& params) {
  return additive_ccd<3, 1>({p, e0, e1}, {dp, de0, de1}, xi, params,
                            [](const std::array<Vec3, 3>& y) { return point_edge_distance_sq(y[0], y[1], y[2]); });
}

CcdResult point_point_accd(const Vec3& p0, const Vec3& p1, const Vec3& dp0, const Vec3& dp1, double xi,
                           const AccdParams& params) {
  return additive_ccd<2, 1>({p0, p1}, {dp0, dp1}, xi, params,
                            [](const std::array<Vec3, 2>& y) { return (y[0] - y[1]).squaredNorm(); });
}

}  // namespace weft
