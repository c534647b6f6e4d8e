// make_disk: centre vertex plus concentric rings in the x-z plane, normals +y.
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"

namespace weft {

// Ring k needs enough vertices that its chords pass outside ring k-1 with room to spare
// (the chord's distance from the centre at least halfway between the two ring radii);
// otherwise the band between them would fold.
int disk_min_segments(int k) {
  if (k <= 1) return 3;
  const double need = (k - 0.5) / k;
  int n = 3;
  while (std::cos(detail::kPi / n) < need - 1e-12) ++n;
  return n;
}

TriMesh make_disk(double radius, int rings, int segments) {
  const char* g = "disk";
  detail::require_positive(g, "radius", radius);
  detail::require_at_least(g, "rings", rings, 1);
  detail::require_at_least(g, "segments", segments, 3);
  detail::require_size(g, static_cast<long long>(segments) * (rings + 1));

  auto min_count = disk_min_segments;
  if (segments < min_count(rings))
    throw InputError("disk: segments must be >= " + std::to_string(min_count(rings)) + " for " +
                     std::to_string(rings) + " rings (got " + std::to_string(segments) +
                     "); segments = 6 * rings gives near-equilateral triangles");
  std::vector<int> count(rings + 1, 1), first(rings + 1, 0);
  TriMesh m;
  m.vertices.push_back(Vec3::Zero());
  for (int k = 1; k <= rings; ++k) {
    long long n = std::llround(static_cast<double>(segments) * k / rings);
    count[k] = static_cast<int>(std::max(static_cast<long long>(min_count(k)), n));
    first[k] = static_cast<int>(m.vertices.size());
    const double r = (k == rings) ? radius : radius * k / rings;
    for (int j = 0; j < count[k]; ++j) {
      double a = 2.0 * detail::kPi * j / count[k];
      m.vertices.push_back(Vec3(r * std::cos(a), 0.0, r * std::sin(a)));
    }
  }
  // Centre fan.
  for (int j = 0; j < count[1]; ++j)
    m.triangles.push_back({0, first[1] + j, first[1] + (j + 1) % count[1]});
  // Zip each ring to the next: advance along whichever ring's next vertex comes first in angle.
  for (int k = 2; k <= rings; ++k) {
    const int na = count[k - 1], nb = count[k], fa = first[k - 1], fb = first[k];
    int i = 0, j = 0;
    while (i < na || j < nb) {
      const bool inner = j == nb || (i < na && static_cast<long long>(i + 1) * nb <=
                                                   static_cast<long long>(j + 1) * na);
      if (inner) {
        m.triangles.push_back({fa + i % na, fa + (i + 1) % na, fb + j % nb});
        ++i;
      } else {
        m.triangles.push_back({fa + i % na, fb + j % nb, fb + (j + 1) % nb});
        ++j;
      }
    }
  }
  orient_along(m, Vec3(0, 1, 0));
  return m;
}

}  // namespace weft
