// A triangle mesh as plain data: positions and 0-based triangle indices.
#pragma once
#include <vector>

#include "core/types.hpp"

namespace weft {

struct TriMesh {
  std::vector<Vec3> vertices;
  std::vector<Tri> triangles;
};

}  // namespace weft
