#include "mesh/topology.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace weft {

namespace {

// A half-edge in 12 bytes (the sort below holds six per vertex: at 4M vertices the setup's
// largest transient): its undirected edge and w = (backward << 31) | (t << 2) | k, the
// directed edge tri[k] -> tri[k + 1] of triangle t, backward when tri[k] > tri[k + 1].
// Ordering by (lo, hi, w) puts an edge's forward half-edge first, then by triangle.
struct HalfEdge {
  int lo, hi;
  std::uint32_t w;
  int t() const { return static_cast<int>((w >> 2) & 0x1FFFFFFFu); }
  int k() const { return static_cast<int>(w & 3u); }
  bool forward() const { return (w >> 31) == 0; }
};

}  // namespace

MeshTopology build_topology(const TriMesh& m) {
  const int nt = static_cast<int>(m.triangles.size());
  if (m.triangles.size() >= (std::size_t(1) << 29))
    throw InputError("build_topology: more than 536870911 triangles in one mesh");
  std::vector<HalfEdge> he;
  he.reserve(3 * static_cast<std::size_t>(nt));
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = m.triangles[t][k], b = m.triangles[t][(k + 1) % 3];
      he.push_back({std::min(a, b), std::max(a, b),
                    (std::uint32_t(a > b) << 31) | (std::uint32_t(t) << 2) | std::uint32_t(k)});
    }
  // Sort by edge, then the forward half-edge first, then by triangle: fully deterministic.
  std::sort(he.begin(), he.end(), [](const HalfEdge& x, const HalfEdge& y) {
    if (x.lo != y.lo) return x.lo < y.lo;
    if (x.hi != y.hi) return x.hi < y.hi;
    return x.w < y.w;
  });
  auto edge_name = [](const HalfEdge& h) { return "(" + std::to_string(h.lo) + ", " + std::to_string(h.hi) + ")"; };
  auto opposite = [&m](const HalfEdge& h) { return m.triangles[h.t()][(h.k() + 2) % 3]; };
  // Counted first, so that every output is allocated once at its size (no growth copies).
  std::size_t n_edges = 0, n_hinges = 0, n_boundary = 0;
  for (std::size_t i = 0; i < he.size();) {
    std::size_t j = i;
    while (j < he.size() && he[j].lo == he[i].lo && he[j].hi == he[i].hi) ++j;
    ++n_edges;
    (j - i == 2 ? n_hinges : n_boundary) += 1;
    i = j;
  }
  MeshTopology topo;
  topo.edges.reserve(n_edges);
  topo.edge_triangles.reserve(n_edges);
  topo.hinges.reserve(n_hinges);
  topo.hinge_edge.reserve(n_hinges);
  topo.boundary_edges.reserve(n_boundary);
  std::vector<int> bverts;
  bverts.reserve(2 * n_boundary);
  for (std::size_t i = 0; i < he.size();) {
    std::size_t j = i;
    while (j < he.size() && he[j].lo == he[i].lo && he[j].hi == he[i].hi) ++j;
    if (j - i > 2)
      throw InputError("build_topology: non-manifold edge " + edge_name(he[i]) + " (" + std::to_string(j - i) +
                       " triangles)");
    const int e = static_cast<int>(topo.edges.size());
    topo.edges.push_back({he[i].lo, he[i].hi});
    if (j - i == 2) {
      if (!he[i].forward() || he[i + 1].forward())
        throw InputError("build_topology: triangles " + std::to_string(he[i].t()) + " and " +
                         std::to_string(he[i + 1].t()) + " are inconsistently oriented across edge " +
                         edge_name(he[i]));
      topo.hinges.push_back({he[i].lo, he[i].hi, opposite(he[i]), opposite(he[i + 1])});
      topo.hinge_edge.push_back(e);
      topo.edge_triangles.push_back({he[i].t(), he[i + 1].t()});
    } else {
      topo.boundary_edges.push_back(e);
      topo.edge_triangles.push_back({he[i].t(), -1});
      bverts.push_back(he[i].lo);
      bverts.push_back(he[i].hi);
    }
    i = j;
  }
  std::vector<HalfEdge>().swap(he);
  std::sort(bverts.begin(), bverts.end());
  bverts.erase(std::unique(bverts.begin(), bverts.end()), bverts.end());
  bverts.shrink_to_fit();
  topo.boundary_vertices = std::move(bverts);
  return topo;
}

}  // namespace weft
