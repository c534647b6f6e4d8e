#include "core/scene.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "energy/registry.hpp"

namespace weft {

double Scene::tear_stretch() const {
  if (spec.method == "pbd") return spec.pbd.tear_stretch;
  if (spec.method == "xpbd") return spec.xpbd.tear_stretch;
  return 0.0;
}

Scene::VertexSummary Scene::vertex_summary() const {
  if (vertex_part) return summary_;
  VertexSummary s;
  if (num_vertices > 0) s.lo = s.hi = rest[0];
  for (int v = 0; v < num_vertices; ++v) {
    s.lo = s.lo.cwiseMin(rest[v]);
    s.hi = s.hi.cwiseMax(rest[v]);
    if (!kinematic(v)) s.dynamic_mass_sum += mass[v], s.dynamic_count += 1;
  }
  return s;
}

void Scene::keep_vertex_part(int vbegin, int vend, const std::vector<int>& ghosts) {
  if (vertex_part) return;
  summary_ = vertex_summary();
  // One array at a time, the whole one freed before the next part is made: the transient is
  // one part (the rest positions' owned block), not both beside the whole arrays.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  rest = rest.part(vbegin, vend, ghosts, Vec3::Constant(nan));
  mass = mass.part(vbegin, vend, ghosts, nan);
  vertex_part = true;
}

void Scene::keep_triangle_part(std::vector<int> triangle_ids) {
  if (triangle_part) return;  // (a part received as such: io/scene_parts)
  triangles = triangles.part(0, 0, triangle_ids, Tri{-1, -1, -1});
  if (!triangle_warp.empty()) triangle_warp = triangle_warp.part(0, 0, triangle_ids, Vec3::Zero());
  triangle_ids.shrink_to_fit();
  kept_triangles = std::move(triangle_ids);
  triangle_part = true;
}

namespace {

// list[k] for k in `keep` (ascending case-order indices of a whole list), exactly sized.
template <class T>
std::vector<T> kept(const std::vector<T>& list, const std::vector<int>& keep) {
  std::vector<T> out;
  out.reserve(keep.size());
  for (int k : keep) out.push_back(list[static_cast<size_t>(k)]);
  return out;
}

}  // namespace

void Scene::keep_primitive_part(const std::vector<int>& segment_keep, const std::vector<int>& point_keep,
                                const std::vector<int>& tet_keep) {
  if (primitive_part) return;  // (a part received as such: io/scene_parts)
  segments = kept(segments, segment_keep);
  points = kept(points, point_keep);
  tets = kept(tets, tet_keep);
  segment_ids = IdRuns(segment_keep);
  point_ids = IdRuns(point_keep);
  tet_ids = IdRuns(tet_keep);
  primitive_part = true;
}

std::size_t Scene::primitive_bytes() const {
  return segments.capacity() * sizeof(Edge) + points.capacity() * sizeof(int) +
         tets.capacity() * sizeof(std::array<int, 4>) + segment_ids.memory_bytes() + point_ids.memory_bytes() +
         tet_ids.memory_bytes() + segment_object.memory_bytes() + point_object.memory_bytes() +
         tet_object.memory_bytes();
}

int Scene::owner_of(int v) const {
  auto it = std::upper_bound(vertex_range.begin(), vertex_range.end(), v);
  return static_cast<int>(it - vertex_range.begin()) - 1;
}

long Scene::count_stencils(const char* term) const {
  long n = 0;
  for (const ElementSet& set : element_sets)
    if (std::strcmp(set.term->name, term) == 0) n += set.whole_size();
  return n;
}

}  // namespace weft
