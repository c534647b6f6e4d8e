// make_particle_block and ParticleLattice: a (jittered) lattice of isolated points centred at
// the origin, whole or particle by particle.
#include <cmath>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"

namespace weft {

ParticleLattice::ParticleLattice(const Vec3& size, int nx, int ny, int nz, double jitter, unsigned seed)
    : n_{nx, ny, nz}, jitter_(jitter), seed_(seed) {
  const char* g = "particle_block";
  const char* res_name[3] = {"nx", "ny", "nz"};
  const char* size_name[3] = {"size_x", "size_y", "size_z"};
  for (int a = 0; a < 3; ++a) detail::require_at_least(g, res_name[a], n_[a], 1);
  for (int a = 0; a < 3; ++a) {
    if (n_[a] >= 2) {
      detail::require_positive(g, size_name[a], size[a]);
    } else if (!(std::isfinite(size[a]) && size[a] >= 0)) {
      std::ostringstream os;
      os << g << ": " << size_name[a] << " must be a finite number >= 0, got " << size[a];
      throw InputError(os.str());
    }
  }
  detail::require_size(g, count());
  if (!(jitter >= 0.0 && jitter <= 0.4))
    throw InputError("particle_block: jitter must be in [0, 0.4], got " + std::to_string(jitter));
  // Lattice coordinates per axis (far end pinned exactly); spacing 0 on single-layer axes.
  for (int a = 0; a < 3; ++a) {
    coord_[a].assign(n_[a], 0.0);
    spacing_[a] = n_[a] >= 2 ? size[a] / (n_[a] - 1) : 0.0;
    if (n_[a] < 2) continue;
    for (int i = 0; i < n_[a]; ++i) coord_[a][i] = -0.5 * size[a] + i * spacing_[a];
    coord_[a][n_[a] - 1] = 0.5 * size[a];
  }
}

Vec3 ParticleLattice::position(long long v) const {
  const long long i = v % n_[0], jk = v / n_[0];
  const long long j = jk % n_[1], k = jk / n_[1];
  Vec3 p(coord_[0][i], coord_[1][j], coord_[2][k]);
  if (jitter_ > 0.0)
    for (int a = 0; a < 3; ++a)
      if (spacing_[a] > 0.0) p[a] += jitter_ * spacing_[a] * detail::hash_unit(seed_, 3ull * static_cast<unsigned long long>(v) + a);
  return p;
}

TriMesh make_particle_block(const Vec3& size, int nx, int ny, int nz, double jitter, unsigned seed) {
  const ParticleLattice lattice(size, nx, ny, nz, jitter, seed);
  TriMesh m;
  m.vertices.resize(static_cast<std::size_t>(lattice.count()));
  for (std::size_t v = 0; v < m.vertices.size(); ++v) m.vertices[v] = lattice.position(static_cast<long long>(v));
  return m;
}

}  // namespace weft
