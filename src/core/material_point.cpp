#include "core/material_point.hpp"

#include <stdexcept>
#include <string>

namespace weft {

std::vector<int> tear_roots(const std::vector<Tri>& original, const std::vector<Tri>& current, int num_vertices) {
  if (original.size() != current.size())
    throw std::invalid_argument("tear_roots: " + std::to_string(current.size()) + " current triangles, " +
                                std::to_string(original.size()) + " original");
  std::vector<int> root(num_vertices);
  for (int v = 0; v < num_vertices; ++v) root[v] = v;
  for (size_t t = 0; t < current.size(); ++t)
    for (int k = 0; k < 3; ++k) root[current[t][k]] = original[t][k];
  return root;
}

}  // namespace weft
