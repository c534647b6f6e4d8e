// make_rod_net: straight rods along x and along z in the x-z plane, sharing their crossings.
#include <vector>

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"

namespace weft {

TriMesh make_rod_net(double size_a, double size_b, int m, int n, int subdivisions) {
  const char* g = "rod_net";
  detail::require_positive(g, "size_a", size_a);
  detail::require_positive(g, "size_b", size_b);
  detail::require_at_least(g, "m (rods along x)", m, 2);
  detail::require_at_least(g, "n (rods along z)", n, 2);
  detail::require_at_least(g, "subdivisions", subdivisions, 1);
  const long long s = subdivisions;
  const long long x_pieces = static_cast<long long>(m) * (n - 1);  // rod pieces between crossings
  const long long z_pieces = static_cast<long long>(n) * (m - 1);
  detail::require_size(g, static_cast<long long>(m) * n + (s - 1) * (x_pieces + z_pieces));

  // Crossing coordinates: x_i for the z-rods, z_j for the x-rods (far rim pinned exactly).
  std::vector<double> xs(n), zs(m);
  const double dx = size_a / (n - 1), dz = size_b / (m - 1);
  for (int i = 0; i < n; ++i) xs[i] = -0.5 * size_a + i * dx;
  for (int j = 0; j < m; ++j) zs[j] = -0.5 * size_b + j * dz;
  xs[n - 1] = 0.5 * size_a;
  zs[m - 1] = 0.5 * size_b;

  TriMesh mesh;
  const int crossings = m * n;
  mesh.vertices.reserve(static_cast<std::size_t>(crossings + (s - 1) * (x_pieces + z_pieces)));
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < n; ++i) mesh.vertices.emplace_back(xs[i], 0.0, zs[j]);
  const int x_interior = crossings;  // first interior vertex of the x-rods
  for (int j = 0; j < m; ++j)
    for (int i = 0; i + 1 < n; ++i)
      for (int k = 1; k < subdivisions; ++k)
        mesh.vertices.emplace_back(xs[i] + k * (xs[i + 1] - xs[i]) / subdivisions, 0.0, zs[j]);
  const int z_interior = static_cast<int>(mesh.vertices.size());  // first interior vertex of the z-rods
  for (int i = 0; i < n; ++i)
    for (int j = 0; j + 1 < m; ++j)
      for (int k = 1; k < subdivisions; ++k)
        mesh.vertices.emplace_back(xs[i], 0.0, zs[j] + k * (zs[j + 1] - zs[j]) / subdivisions);

  mesh.segments.reserve(static_cast<std::size_t>(s * (x_pieces + z_pieces)));
  // One piece from crossing a to crossing b through the interior run first, first + 1, ...
  auto piece = [&](int a, int b, int first) {
    int prev = a;
    for (int k = 1; k < subdivisions; ++k) {
      mesh.segments.push_back({prev, first + k - 1});
      prev = first + k - 1;
    }
    mesh.segments.push_back({prev, b});
  };
  for (int j = 0; j < m; ++j)
    for (int i = 0; i + 1 < n; ++i)
      piece(j * n + i, j * n + i + 1, x_interior + (j * (n - 1) + i) * (subdivisions - 1));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j + 1 < m; ++j)
      piece(j * n + i, (j + 1) * n + i, z_interior + (i * (m - 1) + j) * (subdivisions - 1));
  return mesh;
}

}  // namespace weft
