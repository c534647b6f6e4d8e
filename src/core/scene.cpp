#include "core/scene.hpp"

#include <algorithm>

namespace weft {

int Scene::owner_of(int v) const {
  auto it = std::upper_bound(vertex_range.begin(), vertex_range.end(), v);
  return static_cast<int>(it - vertex_range.begin()) - 1;
}

}  // namespace weft
