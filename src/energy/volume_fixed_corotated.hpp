// Fixed-corotated elasticity (Stomakhin et al. 2012) of a tet:
//   psi = mu |F - R|^2 + lambda/2 (J - 1)^2,  R the rotation of F's polar decomposition, J = det F,
// i.e. psi(s) = mu sum (s_i - 1)^2 + lambda/2 (s1 s2 s3 - 1)^2 in the signed singular values.
// Defined for every F (inverted too); the term refuses J <= 0 through its feasibility test.
#pragma once
#include "energy/tet_rest.hpp"
#include "energy/volume_elastic.hpp"

namespace weft {

// Returns volume * psi; fills g, H (exact, or PSD-projected in closed form when project).
double volume_fixed_corotated(const Vec12& x, const TetRest& r, const VolumeParams& p, Vec12* g, Mat12* H,
                              bool project);

}  // namespace weft
