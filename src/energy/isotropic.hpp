// Shared machinery for isotropic energies of a 3x2 deformation gradient, psi(sigma1, sigma2)
// (membranes, C-IPC eq. 5-7 strain limit). The F-space Hessian has a closed-form
// eigensystem (the 3x2 analogue of Smith et al. 2019, "Analytic eigensystems for isotropic
// distortion energies"), with F = U diag(s) V^T, U = [u1 u2] and n = u1 x u2:
//   2 scaling modes   U diag(w) V^T, w eigenvectors of the 2x2 d2psi/dsigma2,
//   "sym" mode        (u1 v2^T + u2 v1^T)/sqrt2, eigenvalue (psi1 - psi2)/(s1 - s2),
//   "rot" mode        (u2 v1^T - u1 v2^T)/sqrt2, eigenvalue (psi1 + psi2)/(s1 + s2),
//   2 out-of-plane    n v_j^T, eigenvalue psi_j / s_j (C = F^T F grows by eps^2 v_j v_j^T).
// So the exact Hessian and its PSD projection cost the same: clamp 6 scalars, no solver.
#pragma once
#include "core/types.hpp"
#include "energy/tri_rest.hpp"

namespace weft {

// Thin SVD of a 3x2 matrix, singular values descending, det V = +1, u2 = n x u1.
struct Svd32 {
  Vec2 s;
  Mat32 U;
  Vec3 n;
  Mat2 V;
  double J;  // |f1 x f2| (= s1 s2), as F.col(0).cross(F.col(1)).norm() gives it
};

Svd32 svd32(const Mat32& F);

// Derivatives of psi with respect to the singular values, and the three closed-form
// eigenvalues; each energy supplies them in a form that is robust when s1 == s2.
struct IsoDerivs {
  double d1, d2;         // dpsi/ds_i
  double h11, h12, h22;  // d2psi/ds_i ds_j
  double l_sym;          // (d1 - d2) / (s1 - s2)
  double l_rot;          // (d1 + d2) / (s1 + s2)
  double l_out1, l_out2; // d_j / s_j
};

// g = scale * dpsi/dx, H = scale * d2psi/dx2 (negative eigenvalues of the F-space
// Hessian clamped to 0 when project). Either pointer may be null.
void isotropic_grad_hess(const Svd32& svd, const IsoDerivs& d, double scale, const TriRest& r,
                         Vec9* g, Mat9* H, bool project);

// Two isotropic energies of the same F (a membrane and the strain-limit barrier, both
// already scaled): g and H of their sum with one set of modes, assembled once. With
// project, each part is clamped on its own and the clamped parts summed, i.e. the sum of
// the two projected Hessians (what assembling them one by one gives); the projection of
// the sum instead changed the soft drape's Newton iterations (213 -> 247 over 4 frames).
void isotropic_pair_grad_hess(const Svd32& svd, const IsoDerivs& a, const IsoDerivs& b, const TriRest& r, Vec9* g,
                              Mat9* H, bool project);

}  // namespace weft
