#include "io/stitch_match.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "core/error.hpp"

namespace weft {

std::vector<int> vertices_along_box(const std::vector<Vec3>& vertices, const Vec3& lo, const Vec3& hi) {
  int axis = 0;
  for (int d = 1; d < 3; ++d)
    if (hi[d] - lo[d] > hi[axis] - lo[axis]) axis = d;
  std::vector<int> ids;
  for (size_t v = 0; v < vertices.size(); ++v)
    if ((vertices[v].array() >= lo.array()).all() && (vertices[v].array() <= hi.array()).all())
      ids.push_back(static_cast<int>(v));
  std::stable_sort(ids.begin(), ids.end(),
                   [&](int a, int b) { return vertices[a][axis] < vertices[b][axis]; });
  return ids;
}

std::vector<std::array<int, 2>> match_stitches(const std::string& path, const std::vector<StitchSpec>& stitches,
                                               const std::vector<TriMesh>& meshes, const std::vector<int>& base,
                                               std::vector<int>* which) {
  std::vector<std::array<int, 2>> pairs;
  std::set<int> used;
  for (size_t i = 0; i < stitches.size(); ++i) {
    const std::string key = path + ": stitches[" + std::to_string(i) + "]";
    const StitchSpec& s = stitches[i];
    const std::vector<int> a = vertices_along_box(meshes[s.a.object].vertices, s.a.box_min, s.a.box_max);
    const std::vector<int> b = vertices_along_box(meshes[s.b.object].vertices, s.b.box_min, s.b.box_max);
    if (a.empty() || b.empty())
      throw InputError(key + (a.empty() ? ".a" : ".b") +
                       ".box selects no vertex (boxes are in world coordinates, after the transform)");
    if (a.size() != b.size())
      throw InputError(key + ": box a selects " + std::to_string(a.size()) + " vertices but box b selects " +
                       std::to_string(b.size()) + " (a stitch matches equal counts in order)");
    // Vertices that share an element of a shared object would collapse it when welded.
    std::set<std::pair<int, int>> adjacent;
    if (s.a.object == s.b.object) {
      const TriMesh& m = meshes[s.a.object];
      auto add = [&](int x, int y) { adjacent.insert({std::min(x, y), std::max(x, y)}); };
      for (const Tri& t : m.triangles) add(t[0], t[1]), add(t[1], t[2]), add(t[0], t[2]);
      for (const Edge& e : m.segments) add(e[0], e[1]);
      for (const auto& t : m.tets)
        for (int p = 0; p < 4; ++p)
          for (int q = p + 1; q < 4; ++q) add(t[p], t[q]);
    }
    for (size_t k = 0; k < a.size(); ++k) {
      const int ga = base[s.a.object] + a[k], gb = base[s.b.object] + b[k];
      if (ga == gb)
        throw InputError(key + ": vertex " + std::to_string(ga) + " is in both boxes (it would be stitched to itself)");
      if (adjacent.count({std::min(a[k], b[k]), std::max(a[k], b[k])}))
        throw InputError(key + ": vertices " + std::to_string(ga) + " and " + std::to_string(gb) +
                         " share an element (welding them would collapse it)");
      for (int v : {ga, gb})
        if (!used.insert(v).second)
          throw InputError(key + ": vertex " + std::to_string(v) + " is already in another stitch pair");
      pairs.push_back({ga, gb});
      if (which) which->push_back(static_cast<int>(i));
    }
  }
  return pairs;
}

}  // namespace weft
