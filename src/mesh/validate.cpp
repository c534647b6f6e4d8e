#include "mesh/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "mesh/mesh_utils.hpp"

namespace weft {

namespace {

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(int n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) p[std::max(a, b)] = std::min(a, b);
  }
};

// A directed triangle edge: from a to b, in triangle t, corner k (a = t[k], b = t[k+1]);
// w = (t << 2) | k, 12 bytes a half-edge (six per vertex: at 4M vertices this sort is one of
// the scene build's largest transients).
struct HalfEdge {
  int lo, hi;  // sorted endpoints
  std::uint32_t w;
  int t() const { return static_cast<int>(w >> 2); }
  int k() const { return static_cast<int>(w & 3u); }
};

}  // namespace

void validate_mesh(const TriMesh& m, const std::string& what, MeshUse use) {
  auto fail = [&what](const std::string& msg) { throw InputError(what + ": " + msg); };
  const int nv = static_cast<int>(m.vertices.size());
  const int nt = static_cast<int>(m.triangles.size());
  const int ns = static_cast<int>(m.segments.size());
  if (nv == 0) fail("mesh has no vertices");
  if (use == MeshUse::surface && nt == 0) fail("mesh has no triangles");
  if (use == MeshUse::rods && ns == 0) fail("mesh has no segments");
  if (use == MeshUse::volume && m.tets.empty()) fail("mesh has no tetrahedra");

  for (int v = 0; v < nv; ++v)
    if (!m.vertices[v].allFinite()) {
      std::ostringstream os;
      os << "vertex " << v << " has a non-finite coordinate (" << m.vertices[v].x() << ", "
         << m.vertices[v].y() << ", " << m.vertices[v].z() << ")";
      fail(os.str());
    }
  for (int t = 0; t < nt; ++t)
    for (int v : m.triangles[t])
      if (v < 0 || v >= nv)
        fail("triangle " + std::to_string(t) + " references vertex " + std::to_string(v) +
             " (the mesh has " + std::to_string(nv) + " vertices)");
  for (int s = 0; s < ns; ++s)
    for (int v : m.segments[s])
      if (v < 0 || v >= nv)
        fail("segment " + std::to_string(s) + " references vertex " + std::to_string(v) +
             " (the mesh has " + std::to_string(nv) + " vertices)");
  for (int t = 0; t < nt; ++t) {
    const Tri& f = m.triangles[t];
    if (f[0] == f[1] || f[1] == f[2] || f[0] == f[2])
      fail("triangle " + std::to_string(t) + " is degenerate (repeats a vertex: " + std::to_string(f[0]) + ", " +
           std::to_string(f[1]) + ", " + std::to_string(f[2]) + ")");
  }
  for (int s = 0; s < ns; ++s)
    if (m.segments[s][0] == m.segments[s][1])
      fail("segment " + std::to_string(s) + " is degenerate (repeats vertex " + std::to_string(m.segments[s][0]) +
           ")");
  if (use != MeshUse::particles) {
    std::vector<char> used(nv, 0);
    for (const Tri& f : m.triangles)
      for (int v : f) used[v] = 1;
    for (const Edge& e : m.segments)
      for (int v : e) used[v] = 1;
    if (use == MeshUse::volume) {
      validate_tets(m, what);  // indices in range before they mark vertices
      for (const auto& t : m.tets)
        for (int v : t) used[v] = 1;
    }
    for (int v = 0; v < nv; ++v)
      if (!used[v])
        fail("vertex " + std::to_string(v) + (ns == 0 ? " is not used by any triangle" : " is not used by any triangle or segment"));
  }
  const double diag = bbox_diagonal(m);
  const double min_area = 1e-12 * diag * diag;
  for (int t = 0; t < nt; ++t) {
    double a = triangle_area(m, t);
    if (!(a >= min_area) || a == 0.0) {
      std::ostringstream os;
      os << "triangle " << t << " is degenerate (area " << a << " < 1e-12 * bbox_diagonal^2 = " << min_area << ")";
      fail(os.str());
    }
  }
  const double min_length = 1e-12 * diag;
  for (int s = 0; s < ns; ++s) {
    double len = segment_length(m, s);
    if (!(len >= min_length) || len == 0.0) {
      std::ostringstream os;
      os << "segment " << s << " has zero length (vertices " << m.segments[s][0] << " and " << m.segments[s][1]
         << ": length " << len << " < 1e-12 * bbox_diagonal = " << min_length << ")";
      fail(os.str());
    }
  }
  if (ns > 0) {  // Repeated segments (same unordered pair), then segments on triangle edges.
    std::vector<std::pair<Edge, int>> keys(ns);
    for (int s = 0; s < ns; ++s)
      keys[s] = {Edge{std::min(m.segments[s][0], m.segments[s][1]), std::max(m.segments[s][0], m.segments[s][1])}, s};
    std::sort(keys.begin(), keys.end());
    for (int i = 1; i < ns; ++i)
      if (keys[i].first == keys[i - 1].first)
        fail("segment " + std::to_string(keys[i].second) + " repeats segment " + std::to_string(keys[i - 1].second) +
             " (both join vertices " + std::to_string(keys[i].first[0]) + " and " + std::to_string(keys[i].first[1]) +
             ")");
    for (int t = 0; t < nt; ++t)
      for (int k = 0; k < 3; ++k) {
        int a = m.triangles[t][k], b = m.triangles[t][(k + 1) % 3];
        Edge key{std::min(a, b), std::max(a, b)};
        auto it = std::lower_bound(keys.begin(), keys.end(), std::make_pair(key, -1));
        if (it != keys.end() && it->first == key)
          fail("segment " + std::to_string(it->second) + " (" + std::to_string(key[0]) + ", " + std::to_string(key[1]) +
               ") is an edge of triangle " + std::to_string(t) + " (a segment must belong to no triangle)");
      }
  }
  {  // Duplicate triangles (same vertex set).
    std::vector<std::pair<Tri, int>> keys(nt);
    for (int t = 0; t < nt; ++t) {
      Tri s = m.triangles[t];
      std::sort(s.begin(), s.end());
      keys[t] = {s, t};
    }
    std::sort(keys.begin(), keys.end());
    for (int i = 1; i < nt; ++i)
      if (keys[i].first == keys[i - 1].first)
        fail("triangle " + std::to_string(keys[i].second) + " duplicates triangle " +
             std::to_string(keys[i - 1].second));
  }

  // Edges: group half-edges by undirected edge.
  if (m.triangles.size() >= (std::size_t(1) << 29)) fail("more than 536870911 triangles in one mesh");
  std::vector<HalfEdge> he;
  he.reserve(3 * static_cast<std::size_t>(nt));
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      int a = m.triangles[t][k], b = m.triangles[t][(k + 1) % 3];
      he.push_back({std::min(a, b), std::max(a, b), (std::uint32_t(t) << 2) | std::uint32_t(k)});
    }
  std::sort(he.begin(), he.end(), [](const HalfEdge& x, const HalfEdge& y) {
    if (x.lo != y.lo) return x.lo < y.lo;
    if (x.hi != y.hi) return x.hi < y.hi;
    return x.w < y.w;  // by triangle
  });
  auto forward = [&m](const HalfEdge& h) { return m.triangles[h.t()][h.k()] == h.lo; };  // a < b
  UnionFind corners(3 * nt);  // corner (t, k) = 3 t + k, the corner at vertex m.triangles[t][k]
  for (std::size_t i = 0; i < he.size();) {
    std::size_t j = i;
    while (j < he.size() && he[j].lo == he[i].lo && he[j].hi == he[i].hi) ++j;
    auto edge = [&] { return "(" + std::to_string(he[i].lo) + ", " + std::to_string(he[i].hi) + ")"; };
    if (j - i > 2) {
      std::string tris;
      for (std::size_t q = i; q < j && q < i + 4; ++q) tris += (q > i ? ", " : "") + std::to_string(he[q].t());
      if (j - i > 4) tris += ", ...";
      fail("non-manifold edge " + edge() + " is shared by " + std::to_string(j - i) + " triangles (" + tris + ")");
    }
    if (j - i == 2) {
      const HalfEdge &x = he[i], &y = he[i + 1];
      if (forward(x) == forward(y))
        fail("triangles " + std::to_string(x.t()) + " and " + std::to_string(y.t()) +
             " are inconsistently oriented across edge " + edge() + " (flip one so their normals agree)");
      // The two triangles touch at both edge endpoints: merge their corners there.
      for (int end : {x.lo, x.hi}) {
        auto corner_of = [&](const HalfEdge& h) {
          const Tri& f = m.triangles[h.t()];
          int k = f[h.k()] == end ? h.k() : (h.k() + 1) % 3;
          return 3 * h.t() + k;
        };
        corners.unite(corner_of(x), corner_of(y));
      }
    }
    i = j;
  }
  std::vector<HalfEdge>().swap(he);
  // Each vertex's corners must form one connected fan.
  std::vector<int> root_of_vertex(nv, -1);
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      int v = m.triangles[t][k];
      int r = corners.find(3 * t + k);
      if (root_of_vertex[v] < 0) {
        root_of_vertex[v] = r;
      } else if (root_of_vertex[v] != r) {
        fail("non-manifold vertex " + std::to_string(v) +
             ": its triangles form more than one fan (a 'bowtie'; e.g. triangles " +
             std::to_string(root_of_vertex[v] / 3) + " and " + std::to_string(t) + " meet only at this vertex)");
      }
    }
}

}  // namespace weft
