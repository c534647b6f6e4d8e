// make_line: a straight rod along x, centred at the origin.
#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"

namespace weft {

TriMesh make_line(double length, int segments) {
  const char* g = "line";
  detail::require_positive(g, "length", length);
  detail::require_at_least(g, "segments", segments, 1);
  detail::require_size(g, static_cast<long long>(segments) + 1);

  const double dx = length / segments;
  TriMesh m;
  m.vertices.resize(static_cast<std::size_t>(segments) + 1);
  for (int i = 0; i <= segments; ++i) m.vertices[i] = Vec3(-0.5 * length + i * dx, 0.0, 0.0);
  m.vertices[segments].x() = 0.5 * length;  // i * dx may round off the nominal length
  m.segments.resize(segments);
  for (int i = 0; i < segments; ++i) m.segments[i] = {i, i + 1};
  return m;
}

}  // namespace weft
