// Shared machinery for isotropic energies of a 3x3 deformation gradient, psi(s1, s2, s3)
// (tet volumes). Smith, de Goes, Kim 2019, "Analytic eigensystems for isotropic distortion
// energies": with the rotation-variant SVD F = U diag(s) V^T (U, V rotations, so s3 < 0 for
// an inverted F), the F-space Hessian has 9 eigenpairs in closed form:
//   3 scaling modes  U diag(w) V^T, w the eigenvectors of the 3x3 d2psi/ds2,
//   per pair (i, j)  "flip"  (u_i v_j^T + u_j v_i^T)/sqrt2, eigenvalue (psi_i - psi_j)/(s_i - s_j),
//                    "twist" (u_i v_j^T - u_j v_i^T)/sqrt2, eigenvalue (psi_i + psi_j)/(s_i + s_j).
// So the exact Hessian and its PSD projection cost the same (clamp 9 scalars, one 3x3
// symmetric eigensolve), and both are assembled as sum_k lambda_k q_k q_k^T in x-space.
#pragma once
#include "core/types.hpp"
#include "energy/tet_rest.hpp"

namespace weft {

struct Svd3 {
  Vec3 s;  // s1 >= s2 >= |s3|, s3 carries the sign of det F
  Mat3 U, V;
};

// Rotation-variant SVD (det U = det V = +1).
Svd3 svd3(const Mat3& F);

// Derivatives of psi in the singular values and the closed-form pair eigenvalues, which
// each energy supplies in a form robust at s_i == s_j. Pairs in the order (0,1), (0,2), (1,2).
struct IsoDerivs3 {
  Vec3 d;          // dpsi/ds_i
  Mat3 h;          // d2psi/ds_i ds_j (symmetric)
  Vec3 l_flip;     // (d_i - d_j) / (s_i - s_j)
  Vec3 l_twist;    // (d_i + d_j) / (s_i + s_j)
};

// g = scale * dpsi/dx, H = scale * d2psi/dx2 (negative F-space eigenvalues clamped to 0 when
// project: by congruence the x-space result is then PSD). Either pointer may be null.
void isotropic3_grad_hess(const Svd3& svd, const IsoDerivs3& d, double scale, const TetRest& r, Vec12* g,
                          Mat12* H, bool project);

}  // namespace weft
