// Stateless per-pair contact barrier potentials with a thickness offset (C-IPC eq. 12):
//   P(x) = kappa * b(d^2(x) - xi^2, 2 xi dhat + dhat^2),
// its gradient  kappa b'(s) grad d^2  and Hessian  kappa (b''(s) grad d^2 grad d^2^T + b'(s) Hess d^2)
// with s = d^2 - xi^2 (eq. 13). d^2 is the clamped distance of the pair (distance_type.hpp).
//
// PSD projection (when BarrierParams::project_psd): the local Hessian is projected onto
// the PSD cone by eigenvalue clamping (IPC's default), in the complement of the 3 rigid
// translations, where every pair potential is constant (psd.hpp, project_points_to_psd). It is only nonzero on the points of
// the active distance type (2 for point-point types, 3 for point-edge types, 4 otherwise),
// so the projection is done on that block (6x6 / 9x9 / 12x12) — the same result as
// projecting the whole zero-padded 12x12, at a fraction of the cost. The mollified
// edge-edge potential involves all four points and is projected as a 12x12.
//
// Points that are not unknowns (obstacle or pinned vertices: BarrierParams::fixed_points)
// have no rows or columns in the Newton system, so what the system receives is the block of
// the Hessian over the other points. With fixed points the projection is of that block
// (3 / 6 / 9 rows for 1 / 2 / 3 free points) and the fixed points' rows and columns come
// back zero: the nearest PSD matrix to the Hessian the solver actually sees, and for a
// cloth point on an obstacle triangle a 3x3 eigen-problem instead of a 9x9 one. Only when
// every point the potential depends on is free does the translation argument above apply.
// The obstacle pairs of a drape (a free point against a fixed feature, a fixed point against
// a free edge or triangle, a free edge against a fixed edge) get that projection in closed
// form, from the distance's second-order expansion (pair_potential.cpp): the same matrix to
// rounding, without the 12 x 12 distance Hessian.
//
// Outside the active range (d >= xi + dhat) everything is zero and `active` is false.
// At or inside the offset (d <= xi) the pair is infeasible: value = +inf, derivatives zero
// and `feasible` false; the line search (guarded by ACCD) never goes there.
#pragma once
#include "contact/distance_type.hpp"
#include "core/types.hpp"

namespace weft {

struct BarrierParams {
  double kappa = 1.0;  // barrier stiffness
  double dhat = 1e-3;  // activation distance beyond the offset
  double xi = 0.0;     // thickness offset of the pair, (xi_i + xi_j) / 2
  bool project_psd = true;
  // Bit a set: point a (in the argument order of the functions below) is not an unknown.
  unsigned fixed_points = 0;
};

template <int N>
struct LocalEnergy {
  double value = 0.0;
  VecN<N> gradient = VecN<N>::Zero();
  MatN<N> hessian = MatN<N>::Zero();
  bool active = false;    // inside the barrier's support
  bool feasible = true;   // d > xi
};

// Energies only (cheap, for line searches).
double point_point_barrier_energy(const Vec3& p0, const Vec3& p1, const BarrierParams& bp);
double point_edge_barrier_energy(const Vec3& p, const Vec3& e0, const Vec3& e1, const BarrierParams& bp);
double point_triangle_barrier_energy(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2,
                                     const BarrierParams& bp);
// eps_x <= 0 disables the mollifier.
double edge_edge_barrier_energy(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                double eps_x, const BarrierParams& bp);

// Energy, gradient and (projected) Hessian.
LocalEnergy<6> point_point_barrier(const Vec3& p0, const Vec3& p1, const BarrierParams& bp);
LocalEnergy<9> point_edge_barrier(const Vec3& p, const Vec3& e0, const Vec3& e1, const BarrierParams& bp);
LocalEnergy<12> point_triangle_barrier(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2,
                                       const BarrierParams& bp);
// Mollified edge-edge barrier m(c(x)) * P(x) (IPC); eps_x from edge_edge_mollifier_threshold
// on rest positions, eps_x <= 0 disables the mollifier.
LocalEnergy<12> edge_edge_barrier(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                  double eps_x, const BarrierParams& bp);
// The same with the pair's distance type and squared distance already known
// (classify_point_edge / classify_point_triangle / classify_edge_edge at these positions,
// and the *_distance_sq of that type, bit for bit): the classification is most of a far
// pair's cost, and ContactModel keeps both per proximity pair.
LocalEnergy<9> point_edge_barrier(const Vec3& p, const Vec3& e0, const Vec3& e1, PointEdgeType type, double d2,
                                  const BarrierParams& bp);
LocalEnergy<12> point_triangle_barrier(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2,
                                       PointTriangleType type, double d2, const BarrierParams& bp);
LocalEnergy<12> edge_edge_barrier(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                  EdgeEdgeType type, double d2, double eps_x, const BarrierParams& bp);

// Indices (0..3) of the points that the distance of a type depends on; returns the count.
int active_points(PointEdgeType t, int idx[3]);
int active_points(PointTriangleType t, int idx[4]);
int active_points(EdgeEdgeType t, int idx[4]);

}  // namespace weft
