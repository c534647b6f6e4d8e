// Collision constraints (unilateral, C >= 0; PBD projects them with k = 1).
//
// Point-triangle with thickness (001 sec. 4.3, eqs. 12-13; cloth self-collision): stencil
// (q, p1, p2, p3), n = (p2 - p1) x (p3 - p1) / |...|,
//   C = side (q - p1) . n - h,
// side = +1 keeps q at least h above the triangle (eq. 12), side = -1 at least h below it
// (eq. 13's reversed normal); the caller picks the side q came from. C is translation and
// rotation invariant (momentum conserved, 001 sec. 3.4). Gradient, with r = (I - n n^T)
// (q - p1) / |N| the tangential offset scaled by the normal's length N:
//   grad_q = side n,  grad_p2 = side (p3 - p1) x r,  grad_p3 = side r x (p2 - p1),
//   grad_p1 = -(grad_q + grad_p2 + grad_p3).
// A zero-area triangle has no normal: C = -h and a zero gradient (skipped).
//
// Edge-edge with thickness (cloth self-collision between two edges that cross without either
// edge's vertices passing through a face; the edge-edge case of 001 sec. 4.3's eqs. 12-13):
// stencil (a0, a1, b0, b1), e_a = a1 - a0, e_b = b1 - b0, N = e_a x e_b, n = N / |N|,
// r = a0 - b0,
//   C = side r . n - h,
// the signed distance between the two edges' lines: where the closest points lie inside
// both edges (the only case the caller projects) it is the edges' distance, measured along
// their common normal; side = the sign it had at the start of the substep. Gradient, with
// r_t = (r - (r . n) n) / |N| the in-plane offset scaled by the normal's length:
//   grad_a1 = side e_b x r_t,  grad_b1 = side r_t x e_a,
//   grad_a0 = side n - grad_a1,  grad_b0 = -side n - grad_b1,
// summing to zero (momentum conserved) like the point-triangle one. Parallel edges have
// no common normal: C = -h and a zero gradient (skipped).
//
// Static obstacle (001 sec. 3.4): a point p against a fixed surface point q_c with unit normal
// n_c (the entry point of the ray x -> p found by continuous collision detection, or the
// closest surface point when the ray starts inside), C = (p - q_c) . n_c - h, grad_p = n_c.
// A plane obstacle is q_c = any point of the plane. A moving (kinematic) obstacle triangle
// is the point-triangle constraint with w = 0 on its three vertices.
#pragma once
#include "constraints/projection.hpp"

namespace weft {

double point_triangle_collision_constraint(const Stencil3<4>& x, double thickness, int side,
                                           Stencil3<4>* grad);

double edge_edge_collision_constraint(const Stencil3<4>& x, double thickness, int side, Stencil3<4>* grad);

// Parameters (s, t) of the closest points a0 + s e_a, b0 + t e_b of the two edges' lines
// (stencil as above); false for degenerate or nearly parallel edges (angle below ~6 degrees).
bool edge_edge_line_parameters(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, double* s, double* t);

double static_obstacle_constraint(const Vec3& p, const Vec3& q_c, const Vec3& n_c, double thickness,
                                  Vec3* grad);

}  // namespace weft
