// Shear springs of the mass-spring method (paper 002 sec. 11.1: shearing, the diagonal
// springs of the structured layout): for every hinge that is the diagonal of the quad its
// two triangles make (its edge the longest of both triangles), a spring along the quad's
// other diagonal, between the hinge's opposite vertices. On a triangulated quad grid these
// are exactly the diagonals the triangulation left out, so with the structural springs
// every quad has both (Provot's layout); on an unstructured mesh, the hinges of
// near-right-angled triangle pairs. Stiffness: mass_spring.shear_stiffness, or
// E t / (2 (1 + nu)).
#include "energy/spring_term.hpp"

namespace weft {
namespace {

void build(const ObjectStencils& o, ElementSet& set) {
  const MaterialSpec& m = o.spec.material;
  const double given = o.spec.springs.shear_stiffness;
  const double k = given > 0 ? given : m.youngs * m.thickness / (2.0 * (1.0 + m.poisson));
  for (const auto& h : o.hinges)
    if (hinge_is_quad_diagonal(o.rest, h)) add_spring(o, set, h[2], h[3], k);
}

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<SpringTerm>(scene, set, local, false);
}

}  // namespace

extern const TermFactory kSpringShear = {ObjectKind::Shell, "", "spring_shear", 2, &build, &make, "mass_spring,pd"};

}  // namespace weft
