#include "core/scene.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "energy/registry.hpp"

namespace weft {

double Scene::tear_stretch() const {
  if (spec.method == "pbd") return spec.pbd.tear_stretch;
  if (spec.method == "xpbd") return spec.xpbd.tear_stretch;
  return 0.0;
}

void Scene::keep_part(int vbegin, int vend, const std::vector<int>& ghosts, const std::vector<int>& local_triangles) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  PagedArray<Vec3> r = rest.part(vbegin, vend, ghosts, Vec3::Constant(nan));
  PagedArray<double> m = mass.part(vbegin, vend, ghosts, nan);
  PagedArray<Tri> t = triangles.part(0, 0, local_triangles, Tri{-1, -1, -1});
  rest.swap(r);
  mass.swap(m);
  triangles.swap(t);
  part = true;
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
