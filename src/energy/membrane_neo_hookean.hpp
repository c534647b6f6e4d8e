// Codimensional neo-Hookean membrane: with C = F^T F (2x2) and J = sqrt(det C) (area ratio),
//   psi = mu/2 (tr C - 2) - mu ln J + lambda/2 (ln J)^2.
#pragma once
#include "energy/membrane.hpp"

namespace weft {

// J below this is treated as collapsed: energy +inf (the ln J terms diverge there anyway),
// g and H (if given) are zeroed; a line search must step back.
constexpr double kNeoHookeanMinJ = 1e-10;

// Returns area*thickness*psi; fills g, H (exact, or PSD-projected when project) if non-null.
double membrane_neo_hookean(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g,
                            Mat9* H, bool project);

}  // namespace weft
