// Bending springs of the mass-spring method (paper 002 sec. 11.1, `mass_spring.bending:
// springs`): distance-2 springs that lengthen or shorten when the surface bends.
//  - shells: the unstructured layout of 002's figure, one spring per interior edge (hinge)
//    between its two opposite vertices, except the hinges that are quad diagonals (their
//    opposite pair is a shear spring, spring_shear_term.cpp). Any triangle mesh has them,
//    unlike the structured layout's skip-one springs, which need grid lines.
//  - rods: one spring per bending triple (x0, x1, x2) (rod_topology.hpp), from x0 to x2.
// 002's caveat holds: near flat a bend changes these lengths only to second order, so they
// resist small bends weakly; `bending: dihedral` (dihedral_force_term.cpp) does not.
// Stiffness: mass_spring.bending_stiffness (0 = no bending springs), or from the material
// (spring.hpp).
#include <cmath>

#include "energy/rod_topology.hpp"
#include "energy/spring_term.hpp"

namespace weft {
namespace {

void build_hinges(const ObjectStencils& o, ElementSet& set) {
  if (o.spec.springs.bending != "springs") return;
  const double given = o.spec.springs.bending_stiffness;
  if (given == 0) return;
  const double D = shell_flexural_rigidity(o.spec.material);
  for (const auto& h : o.hinges) {
    if (hinge_is_quad_diagonal(o.rest, h)) continue;
    const double k = given > 0 ? given : D / (o.rest[h[0]] - o.rest[h[1]]).squaredNorm();
    if (k > 0) add_spring(o, set, h[2], h[3], k);
  }
}

void build_triples(const ObjectStencils& o, ElementSet& set) {
  if (o.segments.empty()) return;
  const double given = o.spec.springs.bending_stiffness;
  if (given == 0) return;
  const MaterialSpec& m = o.spec.material;
  if (!(given > 0) && !(m.radius > 0))
    throw InputError("object '" + o.spec.name + "': rod bending springs need material.radius > 0 or mass_spring.bending_stiffness");
  const double Eb = m.bending_youngs < 0 ? m.youngs : m.bending_youngs;
  const double EI = Eb * M_PI * std::pow(m.radius, 4) / 4.0;
  for (const auto& t : rod_bend_triples(o.segments, o.rest)) {
    const double l = 0.5 * ((o.rest[t[1]] - o.rest[t[0]]).norm() + (o.rest[t[2]] - o.rest[t[1]]).norm());
    const double k = given > 0 ? given : EI / (l * l * l);
    if (k > 0) add_spring(o, set, t[0], t[2], k);
  }
}

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<SpringTerm>(scene, set, local, false);
}

}  // namespace

extern const TermFactory kSpringBending = {ObjectKind::Shell, "", "spring_bending", 2, &build_hinges, &make,
                                           "mass_spring,pd"};
extern const TermFactory kRodSpringBending = {ObjectKind::Rod, "", "rod_spring_bending", 2, &build_triples, &make,
                                              "mass_spring,pd"};

}  // namespace weft
