// Conventional floating-point root-finding CCD, the baseline ACCD is compared against
// (Provot 1997; Bridson et al. 2002): with linear motion the four points are coplanar when
//   f(t) = ((x1(t) - x0(t)) x (x2(t) - x0(t))) . (x3(t) - x0(t)) = 0,
// a cubic in t. Its real roots in [0, 1] are found (critical points split [0, 1] into
// monotone pieces, each bracketed root is refined by bisection; a critical value with
// |f| below a small tolerance counts as a double root), and at each root in increasing order
// an inside test with a relative tolerance decides whether the primitives actually touch.
// If the cubic vanishes identically (coplanar motion) the distance is sampled at a few
// times instead. No thickness offset, no minimum separation, floating point throughout:
// it can miss collisions (false negatives) in degenerate configurations — which is the
// point of the comparison.
#pragma once
#include "core/types.hpp"

namespace weft {

struct RootFindingParams {
  double inside_tolerance = 1e-6;  // relative slack of the barycentric / segment-parameter test
  double distance_tolerance = 1e-8;  // relative (to the primitives' size) distance at a root
};

struct RootFindingResult {
  bool hit = false;
  double toi = 1.0;
};

// Positions at t = 0 (x*) and at t = 1 (y*).
RootFindingResult point_triangle_root_ccd(const Vec3& p0, const Vec3& a0, const Vec3& b0, const Vec3& c0,
                                          const Vec3& p1, const Vec3& a1, const Vec3& b1, const Vec3& c1,
                                          const RootFindingParams& params = {});
RootFindingResult edge_edge_root_ccd(const Vec3& ea0_0, const Vec3& ea1_0, const Vec3& eb0_0, const Vec3& eb1_0,
                                     const Vec3& ea0_1, const Vec3& ea1_1, const Vec3& eb0_1, const Vec3& eb1_1,
                                     const RootFindingParams& params = {});

// Real roots of c0 + c1 t + c2 t^2 + c3 t^3 in [0, 1], ascending (exposed for tests).
// Returns the count (<= 3); `degenerate` is set when all coefficients are (nearly) zero.
int cubic_roots_in_unit_interval(double c0, double c1, double c2, double c3, double roots[3], bool* degenerate);

}  // namespace weft
