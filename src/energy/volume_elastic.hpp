// Parameters shared by the tet volume energies (Lame mu, lambda in Pa). Element energy is
// rest volume * psi(F) for the tet's 3x3 deformation gradient F (tet_rest.hpp).
#pragma once

namespace weft {

struct VolumeParams {
  double mu, lambda;
};

// Lame parameters from Young's modulus and Poisson's ratio (-1 < nu < 0.5).
inline VolumeParams volume_params(double youngs, double poisson) {
  return {youngs / (2.0 * (1.0 + poisson)), youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson))};
}

}  // namespace weft
