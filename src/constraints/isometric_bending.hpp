// Isometric bending (Bergou et al. 2006, quadratic bending model; paper 003 sec. 3.2.3 eq. 5,
// used for PBD by Bender et al.):
//   C(x) = 1/2 sum_ij Q_ij x_i . x_j,   Q = 3 / (A0 + A1) K K^T  (4 x 4, constant),
// over the hinge (x0, x1 shared edge, x2 wing of triangle A = (x0, x1, x2), x3 wing of
// triangle B = (x1, x0, x3); same order as dihedral_bending.hpp), with the rest triangles'
// areas A0, A1 and the cotangent weights
//   K = (c03 + c04, c01 + c02, -(c01 + c03), -(c02 + c04)),
// c01 / c02 = cot of the rest angle at x0 in A / B, c03 / c04 = cot of the one at x1 in A / B.
// K x = sum_i K_i x_i is the hinge's discrete mean-curvature vector: zero for the flat rest
// hinge and any rigid motion of it, |K x| ~ |e| theta for a small isometric bend by theta.
// So C = 3 / (2 (A0 + A1)) |K x|^2 >= 0, ~ 3 |e|^2 theta^2 / (2 (A0 + A1)) (half the
// discrete-shells weight), with gradient grad_i C = sum_j Q_ij x_j = 3 / (A0 + A1) K_i (K x)
// and constant Hessian Q (x) I3: the model is exact for inextensible bending of a flat rest
// state (its assumption). A curved rest hinge is pulled towards flat (use the dihedral
// constraint for curved rest shapes). K sums to zero, so the gradient is translation and
// rotation free and the projection conserves momentum.
//
// For projection: C drives the hinge to K x = 0. PBD's Newton step on this quadratic C
// halves |K x| per projection (k = 1). XPBD wants a constraint whose 1/(2 alpha) C^2 is the
// energy: isometric_bending_xpbd_constraint returns sqrt(2 C) = sqrt(3 / (A0 + A1)) |K x|, so
// compliance alpha gives the energy C / alpha; it is a cone at K x = 0 (zero gradient there).
#pragma once
#include "constraints/projection.hpp"

namespace weft {

struct IsometricBendingRest {
  Vec4 K;            // cotangent weights
  double scale;      // 3 / (A0 + A1)
  Mat4 Q() const { return scale * K * K.transpose(); }
};

// Throws InputError on a degenerate rest hinge (zero-area triangle).
IsometricBendingRest make_isometric_bending_rest(const Stencil3<4>& X);

// Eq. 5's C and its gradient.
double isometric_bending_constraint(const Stencil3<4>& x, const IsometricBendingRest& rest,
                                    Stencil3<4>* grad);

// sqrt(2 C) for XPBD (see above); zero gradient at K x = 0.
double isometric_bending_xpbd_constraint(const Stencil3<4>& x, const IsometricBendingRest& rest,
                                         Stencil3<4>* grad);

}  // namespace weft
