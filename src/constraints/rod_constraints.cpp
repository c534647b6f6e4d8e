// Rod constraints (issue 18): along the polyline of the object's Scene::segments, a distance
// constraint per segment (k = E pi r^2 / L) and three-point bending per consecutive pair
// (alpha = l^3 / (9 E I), I = pi r^4 / 4: for a small turn phi, C ~ l phi / 3 and
// C^2 / (2 alpha) = E I phi^2 / (2 l); constraints/rod_bending.hpp).
#include <cmath>

#include "constraints/registry.hpp"
#include "constraints/rod_bending.hpp"
#include "core/error.hpp"
#include "core/scene.hpp"
#include "energy/rod_topology.hpp"

namespace weft {
namespace {

void build_rod(const ConstraintBuild& b, int o, ConstraintLists& out) {
  const Scene& s = b.scene;
  const PbdSpec& p = b.spec;
  const std::vector<Vec3>& Xin = b.rest_input;
  const MaterialSpec& mat = s.spec.objects[o].material;
  std::vector<Edge> segs;
  for (size_t k = 0; k < s.segments.size(); ++k)
    if (s.segment_object[s.segment_index(k)] == o) segs.push_back({s.input_of(s.segments[k][0]), s.input_of(s.segments[k][1])});
  const double r = mat.radius, EA = mat.youngs * M_PI * r * r, EI = mat.youngs * M_PI * r * r * r * r / 4;
  if (b.xpbd && !(r > 0) && (p.compliance < 0 || p.bending_compliance < 0))
    throw InputError(s.spec.path + ": objects[" + std::to_string(o) +
                     "]: xpbd needs material.radius to derive the rod's compliance, or xpbd.compliance and "
                     "xpbd.bending_compliance");
  for (const Edge& e : segs) {
    const double L = (Xin[e[1]] - Xin[e[0]]).norm();
    const double ae = r > 0 ? L / EA : 0.0;
    out.stretch.add({s.solver_of(e[0]), s.solver_of(e[1])}, L, p.compliance >= 0 ? p.compliance : ae, ae);
  }
  for (const auto& tr : rod_bend_triples(segs, Xin)) {
    Stencil3<3> Xs;
    for (int a = 0; a < 3; ++a) Xs.col(a) = Xin[tr[a]];
    const double l = 0.5 * ((Xs.col(1) - Xs.col(0)).norm() + (Xs.col(2) - Xs.col(1)).norm());
    const double ae = r > 0 ? l * l * l / (9.0 * EI) : 0.0;
    out.rod_bend.add({s.solver_of(tr[0]), s.solver_of(tr[1]), s.solver_of(tr[2])}, make_three_point_bend_rest(Xs).h0,
                     p.bending_compliance >= 0 ? p.bending_compliance : ae, ae);
  }
}

}  // namespace

extern const ConstraintFactory kRodConstraints = {ObjectKind::Rod, "rod: distance, three-point bending", "pbd,xpbd",
                                                  &build_rod};

}  // namespace weft
