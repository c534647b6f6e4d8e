// validate_tets: the tetrahedra of a volume mesh (validate.hpp).
#include <Eigen/Geometry>
#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "mesh/boundary_surface.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh/validate.hpp"

namespace weft {

void validate_tets(const TriMesh& m, const std::string& what) {
  auto fail = [&what](const std::string& msg) { throw InputError(what + ": " + msg); };
  const int nv = static_cast<int>(m.vertices.size());
  for (size_t t = 0; t < m.tets.size(); ++t) {
    const auto& q = m.tets[t];
    for (int v : q)
      if (v < 0 || v >= nv)
        fail("tetrahedron " + std::to_string(t) + " references vertex " + std::to_string(v) + " (the mesh has " +
             std::to_string(nv) + " vertices)");
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b)
        if (q[a] == q[b]) fail("tetrahedron " + std::to_string(t) + " repeats vertex " + std::to_string(q[a]));
  }
  const double diag = bbox_diagonal(m);
  const double min_volume = 1e-12 * diag * diag * diag;
  for (size_t t = 0; t < m.tets.size(); ++t) {
    const auto& q = m.tets[t];
    const Vec3 &a = m.vertices[q[0]], &b = m.vertices[q[1]], &c = m.vertices[q[2]], &d = m.vertices[q[3]];
    const double vol = (b - a).dot((c - a).cross(d - a)) / 6.0;
    if (!(vol > min_volume)) {
      std::ostringstream os;
      os << "tetrahedron " << t << (vol < 0 ? " is inverted" : " is degenerate") << " (signed volume " << vol
         << (vol < 0 ? "; vertices must be ordered so (b-a).((c-a)x(d-a)) > 0)" : " <= 1e-12 * bbox_diagonal^3)");
      fail(os.str());
    }
  }
  try {
    extract_boundary_surface(m.tets);
  } catch (const InputError& e) {
    fail(e.what());
  }
}

}  // namespace weft
