// Implicit mass-spring (paper 002 sections 11 and 13.1-13.2; `method: mass_spring`).
#pragma once
#include <memory>

#include "methods/stepper.hpp"

namespace weft {

// Implicit Euler as the minimisation of
//   E(x) = 1/2 ||x - x_hat||_M^2 + h^2 E_springs(x) (+ B(x) + D(x) with contact)
// (002 eq. of sec. 13.1: g(x) = 1/(2h^2) ||x - y||_M^2 + E(x), times h^2), by the shared
// projected Newton with the filtered line search (002 sec. 13.2 with backtracking).
std::unique_ptr<Stepper> make_mass_spring_stepper(const Scene& scene, const LocalView& lv);

}  // namespace weft
