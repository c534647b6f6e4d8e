// method mass_spring: the springs are the energy terms the registry gives every object under
// this method (energy/spring_*_term.cpp, dihedral_force_term.cpp: structural, shear and
// bending springs or dihedral bending; no membrane, no hinge bending, no strain-limit
// barrier). Everything else of an implicit-Euler step is C-IPC's and is shared, not copied:
// the prediction, the pins' and obstacles' scripted moves (ACCD-bounded, AL for obstacles
// left behind), the contact barrier and lagged friction (ContactPotential) and the
// projected Newton minimiser. So with contact on, mass_spring is intersection-free too.
#include "methods/mass_spring.hpp"

#include "methods/cipc.hpp"

namespace weft {

std::unique_ptr<Stepper> make_mass_spring_stepper(const Scene& scene, const LocalView& lv) {
  return std::make_unique<CipcStepper>(scene, lv, "mass_spring");
}

}  // namespace weft
