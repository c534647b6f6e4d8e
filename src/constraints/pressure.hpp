// Pressure (volume) constraint of a closed triangle mesh, cloth balloons (001 sec. 4.4, eq. 14):
//   C = sum_t (x_t0 x x_t1) . x_t2 - k_pressure V0,
// with V0 the same sum at rest: the sum is 6 x the enclosed volume for outward-oriented
// triangles, so V0 is too. Gradient (eq. 14's second formula): each triangle adds
// x_t1 x x_t2 to vertex t0, x_t2 x x_t0 to t1 and x_t0 x x_t1 to t2. On a closed mesh the
// sum is translation and rotation invariant, so the projection (stiffness 1 in the paper)
// conserves momentum; on an open mesh it is not (it depends on the origin).
// The stencil is the whole mesh: per-triangle fixed-size kernels, summed. Distributed, the
// sum and the projection's denominator sum_i w_i |grad_i C|^2 are global reductions over
// each rank's owned triangles and vertices; the scale s is then the same on every rank.
// A zero-volume start (a flattened mesh) is regular: C = -k V0 with a nonzero gradient.
#pragma once
#include <vector>

#include "constraints/projection.hpp"

namespace weft {

// (x0 x x1) . x2 and its gradient (x1 x x2, x2 x x0, x0 x x1).
double triangle_volume_term(const Stencil3<3>& x, Stencil3<3>* grad);

// sum_t (x_t0 x x_t1) . x_t2 over tris (6 x the enclosed volume).
double closed_mesh_volume6(const Eigen::Matrix3Xd& x, const std::vector<Tri>& tris);

// C = sum - target (target = k_pressure V0); grad (resized to x's shape) accumulates eq. 14's
// gradient over the triangles.
double pressure_constraint(const Eigen::Matrix3Xd& x, const std::vector<Tri>& tris, double target,
                           Eigen::Matrix3Xd* grad);

}  // namespace weft
