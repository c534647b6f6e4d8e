// Lagged, smoothed friction of IPC (Li et al. 2020, Sec. 5; C-IPC uses it unchanged with
// the offset barrier's contact force as lambda).
//
// Smoothed static-to-dynamic transition with eps = eps_v * h (a displacement):
//   f1(y) = 2 y / eps - y^2 / eps^2  (y < eps),  1 otherwise,
//   f0(y) = -y^3 / (3 eps^2) + y^2 / eps + eps / 3  (y < eps),  y otherwise   (f0' = f1, C^1 at eps),
//   f1_over_x(y) = f1(y) / y = 2 / eps - y / eps^2  (y < eps),  1 / y otherwise,
//   df1_over_x(y) = (f1'(y) y - f1(y)) / y^3 = -1 / (eps^2 y)  (y < eps),  -1 / y^3 otherwise.
//
// Per pair, with lagged closest-point coordinates (hence a lagged relative-displacement
// operator Gamma, 3 x 3n) and a lagged orthonormal tangent basis P (3 x 2), the tangential
// relative displacement is u = T^T dx with T = Gamma^T P (3n x 2), dx = x - x_prev, and
//   D(x) = mu lambda f0(|u|),
//   grad  = mu lambda f1(|u|)/|u| T u,
//   Hess  = mu lambda T [ f1_over_x I + df1_over_x u u^T ] T^T.
// The inner 2x2 is PSD for every y (eigenvalues 2/eps - 2y/eps^2 >= 0 along u and
// f1_over_x across for y < eps; 0 and 1/y for y >= eps); it is still clamped to PSD
// against rounding, so the 3n x 3n Hessian is PSD by construction.
#pragma once
#include "contact/distance_type.hpp"
#include "contact/pair_potential.hpp"
#include <Eigen/Geometry>

#include "core/types.hpp"

namespace weft {

double friction_f0(double y, double eps);
double friction_f1(double y, double eps);
double friction_f1_over_x(double y, double eps);
double friction_df1_over_x(double y, double eps);

// Orthonormal tangent bases (3 x 2) whose columns span the plane orthogonal to the contact
// normal of each pair class. Degenerate configurations (coincident points, point on the
// edge's line, parallel edges) fall back to any orthonormal complement of a valid normal.
Mat32 point_point_tangent_basis(const Vec3& p0, const Vec3& p1);
Mat32 point_edge_tangent_basis(const Vec3& p, const Vec3& e0, const Vec3& e1);
Mat32 point_triangle_tangent_basis(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2);
Mat32 edge_edge_tangent_basis(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1);

// Closest-point coordinates:
//   point-edge: alpha, closest point (1 - alpha) e0 + alpha e1 on the line;
//   point-triangle: (beta1, beta2), closest point t0 + beta1 (t1 - t0) + beta2 (t2 - t0) on the plane;
//   edge-edge: (gamma_a, gamma_b), closest points ea0 + gamma_a (ea1 - ea0), eb0 + gamma_b (eb1 - eb0)
//   on the lines.
double point_edge_closest_point(const Vec3& p, const Vec3& e0, const Vec3& e1);
Vec2 point_triangle_closest_point(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2);
Vec2 edge_edge_closest_point(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1);

// Relative displacement operators Gamma: (first primitive's closest point) - (second's).
Eigen::Matrix<double, 3, 6> point_point_relative_jacobian();
Eigen::Matrix<double, 3, 9> point_edge_relative_jacobian(double alpha);
Eigen::Matrix<double, 3, 12> point_triangle_relative_jacobian(const Vec2& beta);
Eigen::Matrix<double, 3, 12> edge_edge_relative_jacobian(const Vec2& gamma);

// Lagged friction frame of a pair: T = Gamma^T P in the pair's local coordinates. The
// point-triangle / edge-edge / point-edge versions classify the distance type at the lagged
// positions and use the frame of the active features (e.g. a point closest to a triangle's
// vertex gets the point-point frame), as IPC does.
template <int N>
using TangentOperator = Eigen::Matrix<double, N, 2>;
TangentOperator<6> point_point_friction_operator(const Vec3& p0, const Vec3& p1);
TangentOperator<9> point_edge_friction_operator(const Vec3& p, const Vec3& e0, const Vec3& e1);
TangentOperator<12> point_triangle_friction_operator(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2);
TangentOperator<12> edge_edge_friction_operator(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1);

// Lagged friction potential of one pair: mu_lambda = mu * lambda (lagged contact force),
// dx = x - x_prev in local coordinates, eps = eps_v * h.
template <int N>
LocalEnergy<N> friction_potential(const TangentOperator<N>& T, const VecN<N>& dx, double mu_lambda, double eps);

extern template LocalEnergy<6> friction_potential<6>(const TangentOperator<6>&, const VecN<6>&, double, double);
extern template LocalEnergy<9> friction_potential<9>(const TangentOperator<9>&, const VecN<9>&, double, double);
extern template LocalEnergy<12> friction_potential<12>(const TangentOperator<12>&, const VecN<12>&, double, double);

// The same on the rows and columns of K of the pair's points (keep[0..K), the unknowns; u is
// still T^T dx over all of them): the entries of friction_potential's gradient and Hessian
// there, bit for bit, without the rest (a cloth point against an obstacle triangle: 3 x 3
// instead of 12 x 12).
template <int K>
LocalEnergy<3 * K> friction_potential_rows(const TangentOperator<12>& T, const VecN<12>& dx, double mu_lambda,
                                           double eps, const int* keep);

extern template LocalEnergy<3> friction_potential_rows<1>(const TangentOperator<12>&, const VecN<12>&, double, double,
                                                          const int*);
extern template LocalEnergy<6> friction_potential_rows<2>(const TangentOperator<12>&, const VecN<12>&, double, double,
                                                          const int*);
extern template LocalEnergy<9> friction_potential_rows<3>(const TangentOperator<12>&, const VecN<12>&, double, double,
                                                          const int*);

}  // namespace weft
