// make_particle_block: a (jittered) lattice of isolated points centred at the origin.
#include <cmath>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"

namespace weft {

TriMesh make_particle_block(const Vec3& size, int nx, int ny, int nz, double jitter, unsigned seed) {
  const char* g = "particle_block";
  const int res[3] = {nx, ny, nz};
  const char* res_name[3] = {"nx", "ny", "nz"};
  const char* size_name[3] = {"size_x", "size_y", "size_z"};
  for (int a = 0; a < 3; ++a) detail::require_at_least(g, res_name[a], res[a], 1);
  for (int a = 0; a < 3; ++a) {
    if (res[a] >= 2) {
      detail::require_positive(g, size_name[a], size[a]);
    } else if (!(std::isfinite(size[a]) && size[a] >= 0)) {
      std::ostringstream os;
      os << g << ": " << size_name[a] << " must be a finite number >= 0, got " << size[a];
      throw InputError(os.str());
    }
  }
  const long long total = static_cast<long long>(nx) * ny * nz;
  detail::require_size(g, total);
  if (!(jitter >= 0.0 && jitter <= 0.4))
    throw InputError("particle_block: jitter must be in [0, 0.4], got " + std::to_string(jitter));

  // Lattice coordinates per axis (far end pinned exactly); spacing 0 on single-layer axes.
  std::vector<double> coord[3];
  double spacing[3];
  for (int a = 0; a < 3; ++a) {
    coord[a].assign(res[a], 0.0);
    spacing[a] = res[a] >= 2 ? size[a] / (res[a] - 1) : 0.0;
    if (res[a] < 2) continue;
    for (int i = 0; i < res[a]; ++i) coord[a][i] = -0.5 * size[a] + i * spacing[a];
    coord[a][res[a] - 1] = 0.5 * size[a];
  }

  TriMesh m;
  m.vertices.resize(static_cast<std::size_t>(total));
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const std::size_t v = static_cast<std::size_t>(i) + static_cast<std::size_t>(nx) * (j + static_cast<std::size_t>(ny) * k);
        Vec3 p(coord[0][i], coord[1][j], coord[2][k]);
        if (jitter > 0.0)
          for (int a = 0; a < 3; ++a)
            if (spacing[a] > 0.0) p[a] += jitter * spacing[a] * detail::hash_unit(seed, 3ull * v + a);
        m.vertices[v] = p;
      }
  return m;
}

}  // namespace weft
