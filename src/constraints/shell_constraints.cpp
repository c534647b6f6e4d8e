// Shell constraints (issue 18; DESIGN.md "Position-based methods"): stretch on every mesh
// edge, bending (dihedral, 001 sec. 4.1, or isometric, 003 eq. 5) on every interior edge,
// the edge strain clamp (002 sec. 12.2) when strain_limit is given, and with `pressure` > 0
// the volume constraint of the closed shell (001 sec. 4.4, eq. 14).
#include "constraints/dihedral_bending.hpp"
#include "constraints/pressure.hpp"
#include "constraints/registry.hpp"
#include "core/error.hpp"
#include "core/scene.hpp"
#include "energy/hinge_bending.hpp"
#include "mesh/topology.hpp"

namespace weft {
namespace {

void build_shell(const ConstraintBuild& b, int o, ConstraintLists& out) {
  const Scene& s = b.scene;
  const PbdSpec& p = b.spec;
  const std::vector<Vec3>& Xin = b.rest_input;
  const MaterialSpec& mat = s.spec.objects[o].material;
  // Edges and hinges from the topology over input ids (edges sorted by input ids, hinges in
  // edge order: the input order, the same at every rank count).
  // The current triangles (tearing changes their corners, tearing.hpp).
  const std::vector<Tri>& cur = b.tris();
  TriMesh m;
  m.vertices = Xin;
  for (size_t t = 0; t < cur.size(); ++t)
    if (s.triangle_object[t] == o) m.triangles.push_back({s.input_of(cur[t][0]), s.input_of(cur[t][1]), s.input_of(cur[t][2])});
  if (m.triangles.empty()) return;
  const MeshTopology topo = build_topology(m);
  // Pressure (001 sec. 4.4): only a closed surface encloses a volume; on an open one C
  // depends on the origin and the projection would push the whole sheet around.
  if (p.pressure > 0) {
    TriMesh m0;  // the scene's mesh: refused when open; once torn open, the gas escapes (no constraint)
    m0.vertices = Xin;
    for (size_t t = 0; t < s.triangles.size(); ++t)
      if (s.triangle_object[t] == o)
        m0.triangles.push_back({s.input_of(s.triangles[t][0]), s.input_of(s.triangles[t][1]), s.input_of(s.triangles[t][2])});
    const size_t open0 = build_topology(m0).boundary_edges.size();
    if (open0 > 0)
      throw InputError(s.spec.path + ": " + b.method() + ".pressure: object '" + s.objects[o].name +
                       "' is an open mesh (" + std::to_string(open0) +
                       " boundary edges); the pressure constraint needs closed shells");
  }
  if (p.pressure > 0 && topo.boundary_edges.empty()) {
    VolumeConstraint v;
    v.object = o;
    std::vector<Tri> tris;
    for (size_t t = 0; t < cur.size(); ++t)
      if (s.triangle_object[t] == o) tris.push_back(cur[t]);
    v.target = p.pressure * closed_mesh_volume6(Eigen::Map<const Eigen::Matrix3Xd>(s.rest[0].data(), 3,
                                                                                  s.num_vertices),
                                                tris);
    for (const Tri& t : tris) v.tris.insert(v.tris.end(), t.begin(), t.end());
    out.volumes.push_back(std::move(v));
  }
  auto area = [&](int t) {
    const Tri& tr = m.triangles[t];
    return 0.5 * (Xin[tr[1]] - Xin[tr[0]]).cross(Xin[tr[2]] - Xin[tr[0]]).norm();
  };
  // Stretch: k_e = E t A_e / L^2 with A_e a third of the adjacent triangles' area, so a
  // sheet stretched uniformly by eps stores E t eps^2 / 2 per unit area.
  for (size_t e = 0; e < topo.edges.size(); ++e) {
    const Edge& ed = topo.edges[e];
    const double L = (Xin[ed[1]] - Xin[ed[0]]).norm();
    double A = area(topo.edge_triangles[e][0]);
    if (topo.edge_triangles[e][1] >= 0) A += area(topo.edge_triangles[e][1]);
    const double ae = L * L / (mat.youngs * mat.thickness * A / 3.0);
    out.stretch.add({s.solver_of(ed[0]), s.solver_of(ed[1])}, L, p.compliance >= 0 ? p.compliance : ae, ae);
    if (p.strain_limit) out.clamp.add({s.solver_of(ed[0]), s.solver_of(ed[1])}, L, 0.0, 0.0);
  }
  // Bending (material bending_youngs 0 disables it, as for cipc): discrete shells'
  // k_b = E_b t^3 / (24 (1 - nu^2)) gives the dihedral compliance 1 / (2 w),
  // w = k_b 3 |e|^2 / (A0 + A1) (energy w psi^2), and the isometric one 1 / (2 k_b).
  const double Eb = mat.bending_youngs < 0 ? mat.youngs : mat.bending_youngs;
  if (!(Eb > 0)) return;
  const double kb = bending_stiffness(Eb, mat.poisson, mat.thickness);
  ConstraintList& bend = out.bend;
  for (size_t h = 0; h < topo.hinges.size(); ++h) {
    const auto& hv = topo.hinges[h];
    Stencil3<4> Xs;
    for (int a = 0; a < 4; ++a) Xs.col(a) = Xin[hv[a]];
    const int e = topo.hinge_edge[h];
    const double A = area(topo.edge_triangles[e][0]) + area(topo.edge_triangles[e][1]);
    const double el2 = (Xs.col(1) - Xs.col(0)).squaredNorm();
    const std::initializer_list<int> st = {s.solver_of(hv[0]), s.solver_of(hv[1]), s.solver_of(hv[2]), s.solver_of(hv[3])};
    if (bend.type == ConstraintType::Dihedral) {
      const double ae = 1.0 / (2.0 * kb * 3.0 * el2 / A);
      bend.add(st, make_dihedral_rest(Xs).psi0, p.bending_compliance >= 0 ? p.bending_compliance : ae, ae);
    } else {
      const double ae = 1.0 / (2.0 * kb);
      bend.add(st, 0.0, p.bending_compliance >= 0 ? p.bending_compliance : ae, ae);
      bend.iso.push_back(make_isometric_bending_rest(Xs));
    }
  }
}

}  // namespace

extern const ConstraintFactory kShellConstraints = {ObjectKind::Shell, "shell: stretch, bending, clamp, pressure",
                                                    "pbd,xpbd", &build_shell};

}  // namespace weft
