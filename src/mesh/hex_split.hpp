// Internal to src/mesh: the conforming 5-tet split of a hexahedral cell (tet_box,
// tet_sphere).
#pragma once
#include <Eigen/Geometry>
#include <array>
#include <utility>
#include <vector>

#include "core/types.hpp"

namespace weft::detail {

// Corners v[c] of a hex, c = bits (b0, b1, b2) along its three edge directions; `parity` the
// global vertex parity of corner 0, neighbouring corners alternating (a 2-colouring of the
// whole hex mesh). The corners of even parity form a central tet, each odd corner a tet
// with its three neighbours; a face shared by two hexes is then cut along the diagonal
// joining its even corners in both, so the split is conforming. Each tet is appended
// positively oriented (two vertices swapped when needed).
inline void split_hex_5(const int v[8], int parity, const std::vector<Vec3>& X, std::vector<std::array<int, 4>>& tets) {
  int even[4], odd[4], ne = 0, no = 0;
  for (int c = 0; c < 8; ++c) (((parity + __builtin_popcount(c)) & 1) == 0 ? even[ne++] : odd[no++]) = c;
  auto add = [&](int c0, int c1, int c2, int c3) {
    std::array<int, 4> t{v[c0], v[c1], v[c2], v[c3]};
    const Vec3& a = X[t[0]];
    if ((X[t[1]] - a).dot((X[t[2]] - a).cross(X[t[3]] - a)) < 0) std::swap(t[2], t[3]);
    tets.push_back(t);
  };
  add(even[0], even[1], even[2], even[3]);
  for (int q = 0; q < 4; ++q) add(odd[q], odd[q] ^ 1, odd[q] ^ 2, odd[q] ^ 4);
}

}  // namespace weft::detail
