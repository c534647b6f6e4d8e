// Isotropic constitutive strain-limit barrier, C-IPC sec. 4.1:
//   eq. 5/7: per singular value sigma_i of F, y_i = (s_hat - sigma_i)/(s_max - s_hat),
//            bhat(y) = -y^2 ln(1 + y) for y < 0, else 0  (C^2 at y = 0, +inf at y = -1);
//   eq. 6:   Psi_SL = kappa * V_t * sum_i bhat(y_i), V_t = A_t xi_t (area * thickness).
#pragma once
#include <Eigen/Dense>

#include "core/types.hpp"
#include "energy/isotropic.hpp"
#include "energy/rod_stretch.hpp"
#include "energy/tri_rest.hpp"

namespace weft {

struct StrainLimitParams {
  double s_max;   // strain limit s (sigma must stay < s_max); requires s_max > s_hat
  double s_hat;   // activation threshold: no effect while sigma <= s_hat
  double kappa;   // barrier stiffness kappa_s
  double volume;  // V_t = area * thickness
};

// Singular values of a 3x2 matrix, descending, closed form (2x2 eigenproblem of F^T F,
// the smaller one from det: sigma2 = |f1 x f2| / sigma1).
Vec2 singular_values(const Mat32& F);

// Largest singular value of the element's F: the line-search feasibility test
// (C-IPC sec. 4.3) requires max_singular_value < s_max.
double max_singular_value(const Vec9& x, const TriRest& r);

// Returns +inf (g, H zeroed) if sigma_1 >= s_max; 0 (g, H zeroed) if sigma_1 <= s_hat.
// The exact Hessian is PSD here (bhat convex, decreasing); project still clamps round-off.
double strain_limit(const Vec9& x, const TriRest& r, const StrainLimitParams& p, Vec9* g, Mat9* H,
                    bool project);

// The same barrier in singular values, for a caller that sums it with the membrane's
// derivatives at the same F (svd = svd32(F)) before one isotropic_grad_hess: adds
// kappa V_t times its derivatives and eigenvalues to d and returns the energy; 0 (d
// untouched) while inactive, +inf (d untouched) once sigma_1 >= s_max.
double strain_limit_add_derivs(const Mat32& F, const Svd32& svd, const StrainLimitParams& p, IsoDerivs& d);

// The same barrier on a segment (rods, C-IPC sec. 4.1 with the one singular value of a
// segment, its stretch sigma = |e| / L), p.volume = A L: +inf once sigma >= s_max, 0 while
// sigma <= s_hat. bhat is convex and decreasing, so the exact Hessian is PSD: no projection.
double segment_strain_limit(const Vec6& x, double rest_length, const StrainLimitParams& p, Vec6* g, Mat6* H);

// Cap of the adaptive strain-limit stiffness (section 4.1): 0.1 MPa.
constexpr double kStrainKappaMax = 1.0e5;

// Section 4.1's adaptive stiffness, one element (a triangle or a segment) per call, after a
// Newton iteration: kappa_s doubles, up to kStrainKappaMax, once the element's gap to its
// limit s_max - sigma_1 has stayed below 1e-4 (s_max - s_hat) for two consecutive
// iterations; small_gap counts them.
inline void adapt_strain_stiffness(double gap, double s_max, double s_hat, double& kappa, int& small_gap) {
  if (gap < 1e-4 * (s_max - s_hat)) {
    if (++small_gap >= 2) {
      kappa = kappa * 2 < kStrainKappaMax ? kappa * 2 : kStrainKappaMax;
      small_gap = 0;
    }
  } else {
    small_gap = 0;
  }
}

}  // namespace weft
