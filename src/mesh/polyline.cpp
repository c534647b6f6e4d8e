// make_polyline: an open rod through given points (not re-centred).
#include <sstream>

#include "core/error.hpp"
#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"

namespace weft {

TriMesh make_polyline(const std::vector<Vec3>& points) {
  const char* g = "polyline";
  const long long np = static_cast<long long>(points.size());
  if (np < 2) throw InputError("polyline: points must hold at least 2 points, got " + std::to_string(np));
  detail::require_size(g, np);
  TriMesh m;
  m.vertices = points;
  for (long long i = 0; i < np; ++i)
    if (!points[i].allFinite()) {
      std::ostringstream os;
      os << "polyline: point " << i << " has a non-finite coordinate (" << points[i].x() << ", " << points[i].y()
         << ", " << points[i].z() << ")";
      throw InputError(os.str());
    }
  // The shortest segment validate_mesh() accepts.
  const double min_length = 1e-12 * bbox_diagonal(m);
  m.segments.resize(np - 1);
  for (int i = 0; i + 1 < np; ++i) {
    m.segments[i] = {i, i + 1};
    const double len = (points[i + 1] - points[i]).norm();
    if (!(len >= min_length) || len == 0.0) {
      std::ostringstream os;
      os << "polyline: points " << i << " and " << i + 1 << " coincide (segment length " << len
         << "; consecutive points must differ)";
      throw InputError(os.str());
    }
  }
  return m;
}

}  // namespace weft
