// make_cylinder: rings of vertices along the y axis, optionally capped by centre fans.
#include <cmath>

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"

namespace weft {

TriMesh make_cylinder(double radius, double height, int segments, int rings, bool capped) {
  const char* g = "cylinder";
  detail::require_positive(g, "radius", radius);
  detail::require_positive(g, "height", height);
  detail::require_at_least(g, "segments", segments, 3);
  detail::require_at_least(g, "rings", rings, 2);
  detail::require_size(g, static_cast<long long>(segments) * rings + 2);

  TriMesh m;
  for (int r = 0; r < rings; ++r) {
    const double y = (r == rings - 1) ? 0.5 * height : -0.5 * height + height * r / (rings - 1);
    for (int s = 0; s < segments; ++s) {
      const double a = 2.0 * detail::kPi * s / segments;
      m.vertices.push_back(Vec3(radius * std::cos(a), y, radius * std::sin(a)));
    }
  }
  auto id = [segments](int r, int s) { return r * segments + (s % segments); };
  for (int r = 0; r + 1 < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      m.triangles.push_back({id(r, s), id(r, s + 1), id(r + 1, s + 1)});
      m.triangles.push_back({id(r, s), id(r + 1, s + 1), id(r + 1, s)});
    }
  if (capped) {
    const int bottom = static_cast<int>(m.vertices.size());
    m.vertices.push_back(Vec3(0, -0.5 * height, 0));
    const int top = bottom + 1;
    m.vertices.push_back(Vec3(0, 0.5 * height, 0));
    for (int s = 0; s < segments; ++s) {
      m.triangles.push_back({bottom, id(0, s), id(0, s + 1)});
      m.triangles.push_back({top, id(rings - 1, s), id(rings - 1, s + 1)});
    }
  }
  orient_outward(m);
  return m;
}

}  // namespace weft
