// Shared membrane parameters (Lame mu, lambda in Pa; thickness in m). Element energy is
// area * thickness * psi(F) for the 3x2 deformation gradient F (tri_rest.hpp).
#pragma once
#include "core/types.hpp"
#include "energy/tri_rest.hpp"

namespace weft {

struct MembraneParams {
  double mu, lambda, thickness;
};

}  // namespace weft
