// Codimensional neo-Hookean membrane: with C = F^T F (2x2) and J = sqrt(det C) (area ratio),
//   psi = mu/2 (tr C - 2) - mu ln J + lambda/2 (ln J)^2.
#pragma once
#include "energy/isotropic.hpp"
#include "energy/membrane.hpp"

namespace weft {

// J below this is treated as collapsed: energy +inf (the ln J terms diverge there anyway),
// g and H (if given) are zeroed; a line search must step back.
constexpr double kNeoHookeanMinJ = 1e-10;

// Returns area*thickness*psi; fills g, H (exact, or PSD-projected when project) if non-null.
double membrane_neo_hookean(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g,
                            Mat9* H, bool project);

// The same energy in singular values, for callers that add several isotropic energies of
// one F before a single isotropic_grad_hess (shell_membrane_term.cpp: + the strain limit):
// fills d with area*thickness times dpsi/dsigma and the eigenvalues (svd = svd32(F)) and
// returns area*thickness*psi, or +inf (d untouched) below kNeoHookeanMinJ.
double membrane_neo_hookean_derivs(const Mat32& F, const Svd32& svd, const TriRest& r, const MembraneParams& p,
                                   IsoDerivs& d);

}  // namespace weft
