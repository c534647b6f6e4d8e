// make_bowl: the lower half of a sphere, open at the top: a container for rods and
// particles (cases/noodles.yaml, sprinkles.yaml).
#include <cmath>

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"

namespace weft {

TriMesh make_bowl(double radius, int segments, int rings) {
  const char* g = "bowl";
  detail::require_positive(g, "radius", radius);
  detail::require_at_least(g, "segments", segments, 3);
  detail::require_at_least(g, "rings", rings, 1);
  detail::require_size(g, 1 + static_cast<long long>(segments) * rings);

  TriMesh m;
  m.vertices.reserve(1 + static_cast<size_t>(segments) * rings);
  m.vertices.push_back(Vec3(0, -radius, 0));
  for (int r = 1; r <= rings; ++r) {
    // Polar angle from the bottom pole; the last ring is the rim, exactly at y = 0.
    const double phi = 0.5 * detail::kPi * r / rings;
    const double rho = r == rings ? radius : radius * std::sin(phi);
    const double y = r == rings ? 0.0 : -radius * std::cos(phi);
    for (int s = 0; s < segments; ++s) {
      const double a = 2.0 * detail::kPi * s / segments;
      m.vertices.push_back(Vec3(rho * std::cos(a), y, rho * std::sin(a)));
    }
  }
  auto id = [segments](int r, int s) { return 1 + (r - 1) * segments + (s % segments); };
  // Angle grows from +x towards +z and rings grow upwards, so (r,s), (r+1,s+1), (r,s+1) has
  // its right-hand normal pointing away from the centre, as in make_funnel.
  m.triangles.reserve(static_cast<size_t>(segments) * (2 * rings - 1));
  for (int s = 0; s < segments; ++s) m.triangles.push_back({0, id(1, s), id(1, s + 1)});
  for (int r = 1; r < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      m.triangles.push_back({id(r, s), id(r + 1, s + 1), id(r, s + 1)});
      m.triangles.push_back({id(r, s), id(r + 1, s), id(r + 1, s + 1)});
    }
  return m;
}

}  // namespace weft
