// make_tet_sphere: an "O-grid" ball (an inner cube lattice wrapped by six layered sectors),
// its hexes split into 5 tets.
#include <algorithm>
#include <cmath>

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"
#include "mesh/hex_split.hpp"

namespace weft {

// Why an O-grid: mapping a plain cube lattice onto the ball either degenerates at the cube's
// corners (smooth cube-to-ball maps) or flattens the lattice cells across the cube's
// diagonal planes (shell-by-shell radial maps), and the worst tet then flattens further as
// the lattice refines (measured: min quality 0.02 at 33 points per diameter). Here every
// hex is either an inner-cube cell or a sector cell whose side faces are radial, so the
// shapes stay bounded whatever the resolution.
TriMesh make_tet_sphere(double radius, int resolution) {
  const char* g = "sphere (volume)";
  detail::require_positive(g, "radius", radius);
  detail::require_at_least(g, "resolution", resolution, 2);
  detail::require_size(g, static_cast<long long>(resolution) * resolution * resolution);
  // L layers around an inner cube of N cells per side, N + 2L = resolution - 1 (at least 1
  // each); the inner half-size c = N / (N + 2L) of the radius makes the inner cells and
  // the layers equally thick along the axes.
  const int L = std::max(1, (resolution + 1) / 4);
  const int N = std::max(1, resolution - 1 - 2 * L);
  const double c = static_cast<double>(N) / (N + 2 * L);
  const int n1 = N + 1;
  auto lat = [n1](int i, int j, int k) { return i + n1 * (j + n1 * k); };
  auto unit = [N](int i) { return i == N ? 1.0 : -1.0 + 2.0 * i / N; };  // lattice -> [-1, 1]

  TriMesh m;
  // Inner lattice points, then L layers of copies of its boundary points.
  std::vector<int> bnd(static_cast<size_t>(n1) * n1 * n1, -1);  // lattice point -> boundary index
  std::vector<Vec3> bnd_cube, bnd_sphere;                         // ... its inner-cube and sphere points
  for (int k = 0; k <= N; ++k)
    for (int j = 0; j <= N; ++j)
      for (int i = 0; i <= N; ++i) {
        const Vec3 p(unit(i), unit(j), unit(k));
        m.vertices.push_back(c * radius * p);
        if (i == 0 || j == 0 || k == 0 || i == N || j == N || k == N) {
          bnd[lat(i, j, k)] = static_cast<int>(bnd_cube.size());
          bnd_cube.push_back(c * radius * p);
          // Equiangular direction: a coordinate +-1 stays, the others become tan(pi/4 x).
          Vec3 d;
          for (int a = 0; a < 3; ++a) d[a] = std::abs(p[a]) == 1.0 ? p[a] : std::tan(0.25 * detail::kPi * p[a]);
          bnd_sphere.push_back(radius * d.normalized());
        }
      }
  const int nb = static_cast<int>(bnd_cube.size());
  const int inner = static_cast<int>(m.vertices.size());
  for (int l = 1; l <= L; ++l) {
    const double t = static_cast<double>(l) / L;
    for (int b = 0; b < nb; ++b)
      m.vertices.push_back(l == L ? bnd_sphere[b] : Vec3((1 - t) * bnd_cube[b] + t * bnd_sphere[b]));
  }
  // Vertex of boundary lattice point (i, j, k) at layer l (layer 0 = the inner lattice).
  auto layered = [&](int i, int j, int k, int l) { return l == 0 ? lat(i, j, k) : inner + (l - 1) * nb + bnd[lat(i, j, k)]; };

  m.tets.reserve(5 * (static_cast<size_t>(N) * N * N + 6 * static_cast<size_t>(N) * N * L));
  // Parity (2-colouring) of vertex (i, j, k, l): i + j + k + l.
  for (int k = 0; k < N; ++k)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) {
        int v[8];
        for (int q = 0; q < 8; ++q) v[q] = lat(i + (q & 1), j + ((q >> 1) & 1), k + ((q >> 2) & 1));
        detail::split_hex_5(v, (i + j + k) & 1, m.vertices, m.tets);
      }
  // Sectors: for each face of the inner cube (axis a at side 0 or N), each face cell (u, w)
  // and each layer, the hex between the two layers.
  for (int a = 0; a < 3; ++a)
    for (int side : {0, N}) {
      const int b = (a + 1) % 3, e = (a + 2) % 3;
      for (int w = 0; w < N; ++w)
        for (int u = 0; u < N; ++u)
          for (int l = 0; l < L; ++l) {
            int v[8], ijk0[3];
            for (int q = 0; q < 8; ++q) {
              int ijk[3];
              ijk[a] = side;
              ijk[b] = u + (q & 1);
              ijk[e] = w + ((q >> 1) & 1);
              if (q == 0) std::copy(ijk, ijk + 3, ijk0);
              v[q] = layered(ijk[0], ijk[1], ijk[2], l + ((q >> 2) & 1));
            }
            detail::split_hex_5(v, (ijk0[0] + ijk0[1] + ijk0[2] + l) & 1, m.vertices, m.tets);
          }
    }
  return m;
}

}  // namespace weft
