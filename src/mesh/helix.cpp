// make_helix: a helical rod with axis y, centred at the origin.
#include <cmath>

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"

namespace weft {

TriMesh make_helix(double radius, double pitch, double turns, int segments) {
  const char* g = "helix";
  detail::require_positive(g, "radius", radius);
  detail::require_positive(g, "pitch", pitch);
  detail::require_positive(g, "turns", turns);
  detail::require_at_least(g, "segments", segments, 1);
  detail::require_size(g, static_cast<long long>(segments) + 1);

  const double height = pitch * turns;
  TriMesh m;
  m.vertices.resize(static_cast<std::size_t>(segments) + 1);
  for (int i = 0; i <= segments; ++i) {
    const double theta = 2.0 * detail::kPi * turns * i / segments;
    m.vertices[i] = Vec3(radius * std::cos(theta), -0.5 * height + height * i / segments, radius * std::sin(theta));
  }
  m.vertices[segments].y() = 0.5 * height;
  m.segments.resize(segments);
  for (int i = 0; i < segments; ++i) m.segments[i] = {i, i + 1};
  return m;
}

}  // namespace weft
