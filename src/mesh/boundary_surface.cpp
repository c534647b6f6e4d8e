#include "mesh/boundary_surface.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace weft {

std::vector<Tri> extract_boundary_surface(const std::vector<std::array<int, 4>>& tets) {
  static constexpr int kFace[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  // (sorted face, tet * 4 + face), sorted: a face's uses are adjacent.
  std::vector<std::pair<Tri, long>> faces;
  faces.reserve(4 * tets.size());
  for (size_t t = 0; t < tets.size(); ++t)
    for (int f = 0; f < 4; ++f) {
      Tri key{tets[t][kFace[f][0]], tets[t][kFace[f][1]], tets[t][kFace[f][2]]};
      std::sort(key.begin(), key.end());
      faces.push_back({key, static_cast<long>(4 * t + f)});
    }
  std::sort(faces.begin(), faces.end());
  std::vector<long> boundary;
  for (size_t i = 0; i < faces.size();) {
    size_t j = i + 1;
    while (j < faces.size() && faces[j].first == faces[i].first) ++j;
    if (j - i > 2) {
      const Tri& k = faces[i].first;
      throw InputError("tet mesh is not conforming: face (" + std::to_string(k[0]) + ", " + std::to_string(k[1]) +
                       ", " + std::to_string(k[2]) + ") is shared by " + std::to_string(j - i) + " tetrahedra");
    }
    if (j - i == 1) boundary.push_back(faces[i].second);
    i = j;
  }
  std::sort(boundary.begin(), boundary.end());
  std::vector<Tri> out;
  out.reserve(boundary.size());
  for (long id : boundary) {
    const auto& t = tets[id / 4];
    const int* f = kFace[id % 4];
    out.push_back({t[f[0]], t[f[1]], t[f[2]]});
  }
  return out;
}

}  // namespace weft
