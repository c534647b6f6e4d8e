// make_box: the boundary of a lattice of nx x ny x nz points, outward normals.
#include <algorithm>
#include <cmath>
#include <vector>

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"

namespace weft {

TriMesh make_box(const Vec3& size, int resolution) {
  const char* g = "box";
  detail::require_positive(g, "size x", size.x());
  detail::require_positive(g, "size y", size.y());
  detail::require_positive(g, "size z", size.z());
  detail::require_at_least(g, "resolution", resolution, 2);
  const double smax = size.maxCoeff();
  int n[3];
  for (int a = 0; a < 3; ++a) {
    long long k = std::llround((resolution - 1) * size[a] / smax) + 1;
    n[a] = static_cast<int>(std::max(2LL, k));
  }
  detail::require_size(g, 2LL * (static_cast<long long>(n[0]) * n[1] + static_cast<long long>(n[1]) * n[2] +
                                  static_cast<long long>(n[0]) * n[2]));

  TriMesh m;
  // Lattice point -> vertex id, boundary points only, in (k, j, i) order.
  std::vector<int> id(static_cast<std::size_t>(n[0]) * n[1] * n[2], -1);
  auto lat = [&](int i, int j, int k) {
    return (static_cast<std::size_t>(k) * n[1] + j) * n[0] + i;
  };
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        bool boundary = i == 0 || j == 0 || k == 0 || i == n[0] - 1 || j == n[1] - 1 || k == n[2] - 1;
        if (!boundary) continue;
        id[lat(i, j, k)] = static_cast<int>(m.vertices.size());
        Vec3 p(i * size.x() / (n[0] - 1), j * size.y() / (n[1] - 1), k * size.z() / (n[2] - 1));
        m.vertices.push_back(p - 0.5 * size);
      }
  // Each face: the two in-plane axes (u, w), the normal axis a at index 0 or n[a]-1.
  for (int a = 0; a < 3; ++a) {
    const int u = (a + 1) % 3, w = (a + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      const int c = side ? n[a] - 1 : 0;
      for (int q = 0; q + 1 < n[w]; ++q)
        for (int p = 0; p + 1 < n[u]; ++p) {
          auto at = [&](int pu, int pw) {
            int ijk[3];
            ijk[a] = c;
            ijk[u] = pu;
            ijk[w] = pw;
            return id[lat(ijk[0], ijk[1], ijk[2])];
          };
          int v00 = at(p, q), v10 = at(p + 1, q), v01 = at(p, q + 1), v11 = at(p + 1, q + 1);
          m.triangles.push_back({v00, v10, v11});
          m.triangles.push_back({v00, v11, v01});
        }
    }
  }
  orient_outward(m);
  return m;
}

}  // namespace weft
