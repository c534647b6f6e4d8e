// Conservative inclusion-based CCD with Boost.Interval (in the spirit of Redon et al. 2002
// and the inclusion test of Wang et al. 2021, "Tight Inclusion"): the primitives touch iff
//   F(t, u, v) = 0 for some (t, u, v) in the domain, with
//   vertex-face: F = p(t) - a(t) - u (b(t) - a(t)) - v (c(t) - a(t)),  u, v >= 0, u + v <= 1,
//   edge-edge:   F = ea0(t) + u (ea1(t) - ea0(t)) - eb0(t) - v (eb1(t) - eb0(t)),  u, v in [0, 1],
// and linear motion x(t) = x0 + t (x1 - x0). Boxes of (t, u, v) are examined earliest-t first;
// a box whose interval enclosure of some component of F excludes [-delta, delta] holds no
// contact and is dropped, others are split along their widest axis. A box narrower than the
// tolerance in every direction reports a collision at its lower t.
//
// Every operation is outward-rounded (Boost.Interval, including x1 - x0), so the result is
// conservative for the exact input coordinates: it never misses a contact; near misses
// within the tolerances are reported (false positives). If the box budget runs out the
// result is a hit at the earliest lower t still in question (also conservative).
#pragma once
#include "core/types.hpp"

namespace weft {

struct IntervalCcdParams {
  double time_tolerance = 1e-6;   // width in t of a box that is reported as a contact
  double param_tolerance = 1e-6;  // width in u and v
  double delta = 0.0;             // minimum separation accepted as contact (per component)
  long max_boxes = 1'000'000;
};

struct IntervalCcdResult {
  bool hit = false;
  double toi = 1.0;      // lower bound of the first contact time (1 when !hit)
  long boxes = 0;        // boxes examined
  bool budget_exhausted = false;
};

// Positions at t = 0 and t = 1.
IntervalCcdResult point_triangle_interval_ccd(const Vec3& p0, const Vec3& a0, const Vec3& b0, const Vec3& c0,
                                              const Vec3& p1, const Vec3& a1, const Vec3& b1, const Vec3& c1,
                                              const IntervalCcdParams& params = {});
IntervalCcdResult edge_edge_interval_ccd(const Vec3& ea0_0, const Vec3& ea1_0, const Vec3& eb0_0, const Vec3& eb1_0,
                                         const Vec3& ea0_1, const Vec3& ea1_1, const Vec3& eb0_1, const Vec3& eb1_1,
                                         const IntervalCcdParams& params = {});

}  // namespace weft
