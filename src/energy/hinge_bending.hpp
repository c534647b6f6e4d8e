// Discrete-shells hinge bending (Grinspun et al. 2003): energy = weight * (theta - theta0)^2,
// weight = k_b * 3 |e|^2 / (A1 + A2) from rest data, k_b = E h^3 / (24 (1 - nu^2)).
//
// Vertex order: x0, x1 = shared edge e = x1 - x0; x2 = opposite vertex of triangle
// (x0, x1, x2); x3 = opposite vertex of triangle (x1, x0, x3) (both consistently oriented).
// Sign convention: with normals nA = (x1-x0) x (x2-x0), nB = (x3-x0) x (x1-x0),
//   theta = atan2(e_hat . (nA x nB), nA . nB),
// theta = 0 when flat, theta > 0 when the wings fold away from the normals (a convex
// ridge, like a closed surface with outward normals), theta < 0 for a valley.
// theta lies in (-pi, pi]: a hinge folded through pi wraps around (self-contact prevents
// that for cloth), so rest angles should stay away from +-pi.
#pragma once
#include <Eigen/Dense>

#include "core/types.hpp"

namespace weft {

struct HingeRest {
  double theta0;
  double weight;
};

// k_b = E h^3 / (24 (1 - nu^2)); throws InputError unless E >= 0, -1 < nu <= 0.5, h > 0.
double bending_stiffness(double youngs, double poisson, double thickness);

// theta0 = rest dihedral angle; throws InputError on a degenerate rest edge or triangle.
HingeRest make_hinge_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec3& X3,
                          double bending_stiffness);

// Signed dihedral angle; optional exact gradient and Hessian of theta. Degenerate hinges
// (zero edge or zero-area wing) give theta from atan2 and zero derivatives.
double dihedral_angle(const Vec12& x, Vec12* grad = nullptr, Mat12* hess = nullptr);

// Which Hessian hinge_bending returns (all modes share energy and gradient):
//  Exact          2w grad grad^T + 2w (theta - theta0) Hess(theta), indefinite if theta != theta0
//  GaussNewton    2w grad grad^T: PSD, rank one, exact at theta == theta0, nearly free.
//  ProjectedExact Exact with negative eigenvalues clamped (Frobenius-nearest PSD) by an 8x8
//                 eigensolve in the complement of the analytic null space (hinge_bending.cpp).
// project == true gives GaussNewton. Hess(theta) has 4 negative, 4 zero and 4 positive
// eigenvalues (checked numerically; cf. Wang, Yang & Wang 2023, "Stable discrete bending by
// analytic eigensystem"), and the rank-one PSD term can lift at most one negative one, so
// for theta != theta0 the exact Hessian is never PSD and an exact projection always needs a
// dense eigensolve: measured ~4.5 us per hinge, ~40x the GaussNewton kernel, far over the
// assembly budget. Dropping the geometric-stiffness term keeps Newton directions descent
// directions; it may cost extra iterations in strongly bent states (use ProjectedExact there).
enum class HingeHessian { Exact, GaussNewton, ProjectedExact };

double hinge_bending(const Vec12& x, const HingeRest& r, Vec12* g, Mat12* H, HingeHessian mode);

// The Gauss-Newton assembly's kernel: returns scale * hinge_bending(x, r, &g, &H, true) and
// leaves g, H scaled by `scale`, the same values bit for bit as scaling them after that call
// (scale * g_i, scale * H_ij with each product formed as there), in one pass over H instead
// of two.
double hinge_bending_gauss_newton(const Vec12& x, const HingeRest& r, double scale, Vec12& g, Mat12& H);

// Returns weight*(theta - theta0)^2; project == false: Exact, project == true: GaussNewton.
inline double hinge_bending(const Vec12& x, const HingeRest& r, Vec12* g, Mat12* H, bool project) {
  return hinge_bending(x, r, g, H, project ? HingeHessian::GaussNewton : HingeHessian::Exact);
}

}  // namespace weft
