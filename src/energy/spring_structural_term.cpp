// Structural (stretch) springs of the mass-spring method (paper 002 sec. 11.1: tension):
// one per mesh edge of a shell (on a triangulated quad grid also one quad diagonal, which
// resists shear too), one per segment of a rod. Stiffness: mass_spring.stretch_stiffness,
// or from the material (spring.hpp).
#include <cmath>
#include <set>

#include "energy/spring_term.hpp"

namespace weft {
namespace {

// Each edge once, in the order the triangles first use it (deterministic: input order).
void build_edges(const ObjectStencils& o, ElementSet& set) {
  if (o.triangles.empty()) return;
  const MaterialSpec& m = o.spec.material;
  const double given = o.spec.springs.stretch_stiffness;
  const double k = given > 0 ? given : m.youngs * m.thickness;
  std::set<std::pair<int, int>> seen;
  for (const Tri& t : o.triangles)
    for (int i = 0; i < 3; ++i) {
      const int a = t[i], b = t[(i + 1) % 3];
      if (seen.insert({std::min(a, b), std::max(a, b)}).second) add_spring(o, set, a, b, k);
    }
}

void build_segments(const ObjectStencils& o, ElementSet& set) {
  const MaterialSpec& m = o.spec.material;
  const double given = o.spec.springs.stretch_stiffness;
  if (!o.segments.empty() && !(given > 0) && !(m.radius > 0))
    throw InputError("object '" + o.spec.name + "': rod stretch springs need material.radius > 0 or mass_spring.stretch_stiffness");
  for (const Edge& s : o.segments) {
    const double L = (o.rest[s[0]] - o.rest[s[1]]).norm();
    add_spring(o, set, s[0], s[1], given > 0 ? given : m.youngs * M_PI * m.radius * m.radius / L);
  }
}

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<SpringTerm>(scene, set, local, true);
}

}  // namespace

extern const TermFactory kSpringStructural = {ObjectKind::Shell, "", "spring_structural", 2, &build_edges, &make,
                                              "mass_spring,pd"};
extern const TermFactory kRodSpringStructural = {ObjectKind::Rod, "", "rod_spring_structural", 2, &build_segments,
                                                 &make, "mass_spring,pd"};

}  // namespace weft
