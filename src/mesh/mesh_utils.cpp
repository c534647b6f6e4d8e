#include "mesh/mesh_utils.hpp"

#include <algorithm>
#include <utility>

namespace weft {

Vec3 triangle_normal(const TriMesh& m, int t) {
  const Tri& f = m.triangles[t];
  const Vec3& a = m.vertices[f[0]];
  return (m.vertices[f[1]] - a).cross(m.vertices[f[2]] - a);
}

double triangle_area(const TriMesh& m, int t) { return 0.5 * triangle_normal(m, t).norm(); }

double total_area(const TriMesh& m) {
  double s = 0;
  for (int t = 0; t < static_cast<int>(m.triangles.size()); ++t) s += triangle_area(m, t);
  return s;
}

void bounding_box(const TriMesh& m, Vec3& lo, Vec3& hi) {
  if (m.vertices.empty()) {
    lo = hi = Vec3::Zero();
    return;
  }
  lo = hi = m.vertices[0];
  for (const Vec3& v : m.vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
}

double bbox_diagonal(const TriMesh& m) {
  Vec3 lo, hi;
  bounding_box(m, lo, hi);
  return (hi - lo).norm();
}

double signed_volume(const TriMesh& m) {
  double v = 0;
  for (const Tri& f : m.triangles)
    v += m.vertices[f[0]].dot(m.vertices[f[1]].cross(m.vertices[f[2]]));
  return v / 6.0;
}

void orient_outward(TriMesh& m, const Vec3& centre) {
  for (int t = 0; t < static_cast<int>(m.triangles.size()); ++t) {
    Tri& f = m.triangles[t];
    Vec3 c = (m.vertices[f[0]] + m.vertices[f[1]] + m.vertices[f[2]]) / 3.0 - centre;
    if (triangle_normal(m, t).dot(c) < 0) std::swap(f[1], f[2]);
  }
}

void orient_along(TriMesh& m, const Vec3& up) {
  for (int t = 0; t < static_cast<int>(m.triangles.size()); ++t)
    if (triangle_normal(m, t).dot(up) < 0) std::swap(m.triangles[t][1], m.triangles[t][2]);
}

int remove_unreferenced_vertices(TriMesh& m, MeshUse use) {
  if (use == MeshUse::particles) return 0;
  std::vector<int> remap(m.vertices.size(), -1);
  for (const Tri& f : m.triangles)
    for (int v : f) remap[v] = 0;
  for (const Edge& e : m.segments)
    for (int v : e) remap[v] = 0;
  for (const auto& t : m.tets)
    for (int v : t) remap[v] = 0;
  int n = 0;
  for (std::size_t i = 0; i < remap.size(); ++i)
    if (remap[i] == 0) {
      remap[i] = n;
      m.vertices[n++] = m.vertices[i];
    }
  int dropped = static_cast<int>(m.vertices.size()) - n;
  m.vertices.resize(n);
  for (Tri& f : m.triangles)
    for (int& v : f) v = remap[v];
  for (Edge& e : m.segments)
    for (int& v : e) v = remap[v];
  for (auto& t : m.tets)
    for (int& v : t) v = remap[v];
  return dropped;
}

double segment_length(const TriMesh& m, int s) {
  const Edge& e = m.segments[s];
  return (m.vertices[e[1]] - m.vertices[e[0]]).norm();
}

int drop_segments_on_triangles(TriMesh& m) {
  if (m.segments.empty() || m.triangles.empty()) return 0;
  std::vector<Edge> tri_edges;
  tri_edges.reserve(3 * m.triangles.size());
  for (const Tri& f : m.triangles)
    for (int k = 0; k < 3; ++k) {
      int a = f[k], b = f[(k + 1) % 3];
      tri_edges.push_back({std::min(a, b), std::max(a, b)});
    }
  std::sort(tri_edges.begin(), tri_edges.end());
  std::size_t n = 0;
  for (const Edge& e : m.segments) {
    Edge key{std::min(e[0], e[1]), std::max(e[0], e[1])};
    if (!std::binary_search(tri_edges.begin(), tri_edges.end(), key)) m.segments[n++] = e;
  }
  int dropped = static_cast<int>(m.segments.size() - n);
  m.segments.resize(n);
  return dropped;
}

}  // namespace weft
