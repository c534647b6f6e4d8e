#include "mesh/topology.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace weft {

namespace {

struct HalfEdge {
  int lo, hi, t, opp;
  bool forward;  // directed lo -> hi in triangle t
};

}  // namespace

MeshTopology build_topology(const TriMesh& m) {
  const int nt = static_cast<int>(m.triangles.size());
  std::vector<HalfEdge> he;
  he.reserve(3 * static_cast<std::size_t>(nt));
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      int a = m.triangles[t][k], b = m.triangles[t][(k + 1) % 3], c = m.triangles[t][(k + 2) % 3];
      he.push_back({std::min(a, b), std::max(a, b), t, c, a < b});
    }
  // Sort by edge, then the forward half-edge first, then by triangle: fully deterministic.
  std::sort(he.begin(), he.end(), [](const HalfEdge& x, const HalfEdge& y) {
    if (x.lo != y.lo) return x.lo < y.lo;
    if (x.hi != y.hi) return x.hi < y.hi;
    if (x.forward != y.forward) return x.forward;
    return x.t < y.t;
  });
  MeshTopology topo;
  std::vector<int> bverts;
  for (std::size_t i = 0; i < he.size();) {
    std::size_t j = i;
    while (j < he.size() && he[j].lo == he[i].lo && he[j].hi == he[i].hi) ++j;
    const std::string edge = "(" + std::to_string(he[i].lo) + ", " + std::to_string(he[i].hi) + ")";
    if (j - i > 2)
      throw InputError("build_topology: non-manifold edge " + edge + " (" + std::to_string(j - i) + " triangles)");
    const int e = static_cast<int>(topo.edges.size());
    topo.edges.push_back({he[i].lo, he[i].hi});
    if (j - i == 2) {
      if (!he[i].forward || he[i + 1].forward)
        throw InputError("build_topology: triangles " + std::to_string(he[i].t) + " and " +
                         std::to_string(he[i + 1].t) + " are inconsistently oriented across edge " + edge);
      topo.hinges.push_back({he[i].lo, he[i].hi, he[i].opp, he[i + 1].opp});
      topo.hinge_edge.push_back(e);
      topo.edge_triangles.push_back({he[i].t, he[i + 1].t});
    } else {
      topo.boundary_edges.push_back(e);
      topo.edge_triangles.push_back({he[i].t, -1});
      bverts.push_back(he[i].lo);
      bverts.push_back(he[i].hi);
    }
    i = j;
  }
  std::sort(bverts.begin(), bverts.end());
  bverts.erase(std::unique(bverts.begin(), bverts.end()), bverts.end());
  topo.boundary_vertices = std::move(bverts);
  return topo;
}

}  // namespace weft
