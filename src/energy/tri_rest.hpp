// Rest data of a triangle and the (constant) map between vertex positions and its 3x2
// deformation gradient F = [x1-x0, x2-x0] Dm^-1 (C-IPC sec. 4.1: F^t = U Sigma V^T).
#pragma once
#include <Eigen/Dense>

#include "core/types.hpp"

namespace weft {

using Mat6 = MatN<6>;

struct TriRest {
  Mat2 Dm_inv;  // inverse of the rest edge matrix in a 2D frame of the rest plane
  double area;  // rest area
};

// Frame: t1 along X1-X0, t2 = n x t1 in the triangle plane. Throws InputError when the
// rest triangle is degenerate (area <= 1e-12 * longest edge^2) or not finite.
TriRest make_tri_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2);

// x = [x0; x1; x2] stacked.
Mat32 deformation_gradient(const Vec9& x, const TriRest& r);

// F is linear in x: F(:,j) = sum_a c(a,j) x_a with c = [-(row0+row1) of Dm_inv; Dm_inv].
// Coefficients c (3x2, row a = vertex, column j = column of F).
Eigen::Matrix<double, 3, 2> dF_coeffs(const TriRest& r);

// dPsi/dx from P = dPsi/dF (3x2): g_a = sum_j P(:,j) c(a,j).
Vec9 grad_from_dF(const Mat32& P, const TriRest& r);

// d2Psi/dx2 = B^T HF B, HF indexed by the column-major vec(F) (entry 3*j + i = F(i,j)).
// A PSD HF gives a PSD result (congruence), so projecting in F-space is enough.
Mat9 hess_from_dF(const Mat6& HF, const TriRest& r);

}  // namespace weft
