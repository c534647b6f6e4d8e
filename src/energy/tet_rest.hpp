// Rest data of a tetrahedron and the (constant) map between its vertex positions and its
// 3x3 deformation gradient F = [x1-x0, x2-x0, x3-x0] Dm^-1 (volume elements, issue 19).
// Orientation: a tet (x0, x1, x2, x3) is positive when (x1-x0) . ((x2-x0) x (x3-x0)) > 0;
// every tet weft simulates is positive at rest, and the line search keeps it so (det F > 0).
#pragma once
#include <Eigen/Dense>

#include "core/types.hpp"

namespace weft {

struct TetRest {
  Mat3 Dm_inv;    // inverse of the rest edge matrix [X1-X0, X2-X0, X3-X0]
  double volume;  // rest volume (> 0); the loader lumps rho * volume / 4 to each vertex
};

// Signed volume (x1-x0) . ((x2-x0) x (x3-x0)) / 6: > 0 for a positively oriented tet.
double tet_signed_volume(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3);

// Throws InputError when the rest tet is inverted or degenerate (signed volume <= 1e-12 *
// longest edge^3) or not finite.
TetRest make_tet_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec3& X3);

// x = [x0; x1; x2; x3] stacked.
Mat3 deformation_gradient(const Vec12& x, const TetRest& r);

// det F = deformed / rest signed volume. The feasibility test of every tet term: a tet is
// feasible (not inverted, not flat) exactly when tet_jacobian > 0.
double tet_jacobian(const Vec12& x, const TetRest& r);

// F is linear in x: F = sum_a x_a c_a^T, c (4x3) = [-(sum of the rows of Dm^-1); Dm^-1].
Eigen::Matrix<double, 4, 3> tet_dF_coeffs(const TetRest& r);

}  // namespace weft
