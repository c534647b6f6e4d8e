// Codimensional St. Venant-Kirchhoff membrane: E = (F^T F - I)/2 (2x2),
//   psi = mu |E|_F^2 + lambda/2 tr(E)^2.  Finite for collapsed triangles.
#pragma once
#include "energy/isotropic.hpp"
#include "energy/membrane.hpp"

namespace weft {

double membrane_stvk(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g, Mat9* H,
                     bool project);

// The same in singular values (see membrane_neo_hookean_derivs): d = area*thickness times
// the derivatives at svd = svd32(F); returns area*thickness*psi.
double membrane_stvk_derivs(const Mat32& F, const Svd32& svd, const TriRest& r, const MembraneParams& p,
                            IsoDerivs& d);

}  // namespace weft
