// Rod bending for polylines: the three-point (triangle) bending constraint of Kelager, Niebe
// & Erleben 2010 ("A triangle bending constraint model for position-based dynamics"), for
// consecutive segments x0 - x1 - x2:
//   C = |x1 - c| - h0,   c = (x0 + x1 + x2) / 3,   h0 = the rest value of |x1 - c|.
// Paper 003 describes rods only through XPBD's chain of distance constraints (sec. 4.4) and
// Cosserat rods with orientations (Mueller et al. [22]), which a particle polyline does not
// carry; among the particle-only choices this one is distance-based, so:
//  - its gradient d = x1 - c, n = d / |d|: grad_1 = 2/3 n, grad_0 = grad_2 = -1/3 n is
//    bounded (no 1/sin blow-up of an angle constraint at a straight rod), translation and
//    rotation free (momentum conserved), and C is linear along it: one projection with
//    k = 1 gives C = 0 exactly;
//  - for a straight rest rod (h0 = 0), C = |d| >= 0 and 1/(2 alpha) C^2 = |d|^2 / (2 alpha)
//    is a smooth quadratic energy for XPBD; for equal segments of length l and turning
//    angle phi, |d| = (2 l / 3) sin(phi / 2).
// It is coupled to stretching (|d| scales with the segment lengths), unlike an angle.
// Exactly straight with h0 = 0 (d = 0) has no direction: zero gradient, the projection skips.
#pragma once
#include "constraints/projection.hpp"

namespace weft {

struct ThreePointBendRest {
  double h0;
};

// Throws InputError on a zero-length rest segment.
ThreePointBendRest make_three_point_bend_rest(const Stencil3<3>& X);

double three_point_bending_constraint(const Stencil3<3>& x, const ThreePointBendRest& rest,
                                      Stencil3<3>* grad);

}  // namespace weft
