// make_tet_box: a lattice of nx x ny x nz points, each cell split into 5 tetrahedra.
#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"
#include "mesh/hex_split.hpp"

namespace weft {

TriMesh make_tet_box(const Vec3& size, int nx, int ny, int nz) {
  const char* g = "box (volume)";
  detail::require_positive(g, "size x", size.x());
  detail::require_positive(g, "size y", size.y());
  detail::require_positive(g, "size z", size.z());
  detail::require_at_least(g, "resolution x", nx, 2);
  detail::require_at_least(g, "resolution y", ny, 2);
  detail::require_at_least(g, "resolution z", nz, 2);
  detail::require_size(g, static_cast<long long>(nx) * ny * nz);
  const int n[3] = {nx, ny, nz};
  auto coord = [&](int a, int i) {  // the last point pinned exactly at +size/2
    return i == n[a] - 1 ? 0.5 * size[a] : -0.5 * size[a] + i * size[a] / (n[a] - 1);
  };
  TriMesh m;
  m.vertices.reserve(static_cast<size_t>(nx) * ny * nz);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) m.vertices.push_back(Vec3(coord(0, i), coord(1, j), coord(2, k)));
  auto id = [&](int i, int j, int k) { return i + nx * (j + ny * k); };
  m.tets.reserve(5 * static_cast<size_t>(nx - 1) * (ny - 1) * (nz - 1));
  for (int k = 0; k + 1 < nz; ++k)
    for (int j = 0; j + 1 < ny; ++j)
      for (int i = 0; i + 1 < nx; ++i) {
        int v[8];
        for (int c = 0; c < 8; ++c) v[c] = id(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
        detail::split_hex_5(v, (i + j + k) & 1, m.vertices, m.tets);
      }
  return m;
}

}  // namespace weft
