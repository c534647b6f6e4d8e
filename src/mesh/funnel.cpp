// make_funnel: a truncated cone open at both ends, rings of vertices along the y axis.
#include <cmath>

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"

namespace weft {

TriMesh make_funnel(double top_radius, double bottom_radius, double height, int segments, int rings) {
  const char* g = "funnel";
  detail::require_positive(g, "top_radius", top_radius);
  detail::require_positive(g, "bottom_radius", bottom_radius);
  detail::require_positive(g, "height", height);
  detail::require_at_least(g, "segments", segments, 3);
  detail::require_at_least(g, "rings", rings, 2);
  detail::require_size(g, static_cast<long long>(segments) * rings);

  TriMesh m;
  m.vertices.reserve(static_cast<size_t>(segments) * rings);
  for (int r = 0; r < rings; ++r) {
    // The last ring is placed exactly (no rounding drift) so the rims sit at +-height/2.
    const double u = (r == rings - 1) ? 1.0 : static_cast<double>(r) / (rings - 1);
    const double y = (r == rings - 1) ? 0.5 * height : -0.5 * height + height * u;
    const double rad = (r == rings - 1) ? top_radius : bottom_radius + (top_radius - bottom_radius) * u;
    for (int s = 0; s < segments; ++s) {
      const double a = 2.0 * detail::kPi * s / segments;
      m.vertices.push_back(Vec3(rad * std::cos(a), y, rad * std::sin(a)));
    }
  }
  auto id = [segments](int r, int s) { return r * segments + (s % segments); };
  // The angle grows from +x towards +z and r grows along +y, so (r,s), (r+1,s+1), (r,s+1)
  // has its right-hand normal (up x around) pointing away from the axis.
  m.triangles.reserve(2 * static_cast<size_t>(segments) * (rings - 1));
  for (int r = 0; r + 1 < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      m.triangles.push_back({id(r, s), id(r + 1, s + 1), id(r, s + 1)});
      m.triangles.push_back({id(r, s), id(r + 1, s), id(r + 1, s + 1)});
    }
  return m;
}

}  // namespace weft
