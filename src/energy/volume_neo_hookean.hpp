// Classic compressible neo-Hookean elasticity of a tet (the 3D form of
// membrane_neo_hookean.hpp; Bonet & Wood):
//   psi = mu/2 (tr(F^T F) - 3) - mu ln J + lambda/2 (ln J)^2,  J = det F.
// The classic form (not Smith et al.'s stable one) on purpose: ln J is itself a barrier
// against inversion, the same condition the line search enforces (J > 0), and at the
// rest state it agrees with linear elasticity with the same (mu, lambda).
#pragma once
#include "energy/tet_rest.hpp"
#include "energy/volume_elastic.hpp"

namespace weft {

// Returns volume * psi, +inf (g, H zeroed) when J <= 0; fills g, H (exact, or PSD-projected
// in closed form when project).
double volume_neo_hookean(const Vec12& x, const TetRest& r, const VolumeParams& p, Vec12* g, Mat12* H,
                          bool project);

}  // namespace weft
