// Orthotropic membrane with per-direction strain limits, C-IPC sec. 4.2. With E the Green
// strain in the (warp, weft) frame (eq. 8's aligned D^T E D; warp_direction.hpp) and
// V = area * thickness:
//   psi = a11/2 phi(E11; m11) + a22/2 phi(E22; m22) + a12 E11 E22 + g12 phi_s(E12; m12),
// eq. 8 with eta_1 = eta_3 = eta_4 the barrier of eq. 10 on the squared strain,
//   eta(x) = -x_max ln((x_max - x) / x_max),  x = E^2, x_max = m^2,
// so eta(0) = 0, eta'(0) = 1: at rest the energy, stress and stiffness are those of the
// linear orthotropic model, and psi -> +inf as a strain reaches its limit m, which therefore
// holds in every iterate. Our choices (the paper leaves them open):
//   - warp and weft limits are stretch limits: phi(E; m) = eta(E^2) for E > 0 and E^2 for
//     E <= 0 (compression unlimited). eta(E^2) - E^2 = E^4 / (2 m^2) + O(E^6), so the two
//     branches join C^3 at E = 0. A symmetric barrier would also cap compression at a
//     stretch of sqrt(2 - s^2), which cloth pressed in plane (pins, contact) can reach.
//   - shear is symmetric: phi_s(E12; m12) = eta(E12^2), the sign of E12 being arbitrary.
//   - the coupling a12 E11 E22 keeps eta_2 = identity: |E11 E22| is bounded by the two
//     limits already, and a barrier there would couple them and could make the strain
//     Hessian indefinite; with it linear, d2psi/dE2 >= the linear model's (phi'' >= 2).
// A limit m = 0 means none (phi = E^2): the plain orthotropic StVK membrane.
#pragma once
#include "core/types.hpp"
#include "energy/tri_rest.hpp"

namespace weft {

struct OrthotropicParams {
  double a11, a22, a12, g12;  // Pa (eq. 8's moduli)
  double thickness;           // m
  double m11, m22, m12;       // Green strain limits (warp, weft: E < m; shear: |E12| < m); 0 = none
};

// Per triangle of an orthotropic shell: warp-aligned rest data, the material, and the warp
// direction in the rest frame (world coordinates at rest; /mesh/warp_direction).
struct OrthotropicRest {
  TriRest tri;
  OrthotropicParams p;
  Vec3 warp;
};

// Green strain limit of a stretch-ratio limit s (> 1): (s^2 - 1) / 2.
inline double green_strain_of_stretch(double s) { return 0.5 * (s * s - 1.0); }

// (E11, E22, E12) of the element; r is the warp-aligned rest data (make_aligned_tri_rest).
Vec3 aligned_green_strain(const Vec9& x, const TriRest& r);

// Every limit holds: E11 < m11, E22 < m22, |E12| < m12 (those that are set).
bool orthotropic_feasible(const Vec3& E, const OrthotropicParams& p);

// Returns V * psi, +inf (g, H zeroed) when infeasible; fills g, H (exact, or PSD-projected
// when project: the 6x6 Hessian in G = [F d_warp, F d_weft] is clamped when its stress
// part or strain part is indefinite, else it is already PSD and left exact).
double membrane_orthotropic(const Vec9& x, const TriRest& r, const OrthotropicParams& p, Vec9* g, Mat9* H,
                            bool project);

}  // namespace weft
