#include "io/case_scaling.hpp"

#include <algorithm>
#include <cmath>

#include "io/case_loader.hpp"

namespace weft {
namespace {

int scaled(int n, double s, int lo) { return std::max(lo, static_cast<int>(std::lround(n * s))); }

void scale_mesh(MeshSpec& m, ObjectKind kind, double f) {
  if (!m.file.empty()) return;
  const double s2 = std::sqrt(f), s3 = std::cbrt(f);
  const std::string& g = m.generator;
  if (kind == ObjectKind::Volume) {
    if (g == "box")
      for (int& b : m.block) b = scaled(b, s3, 2);
    else if (g == "sphere")
      m.resolution[0] = scaled(m.resolution[0], s3, 2);
    return;
  }
  if (g == "grid" || g == "cylinder" || g == "funnel" || g == "bowl" || g == "disk") {
    // [around / x, rings / z]: both dimensions of a 2-D lattice.
    m.resolution[0] = scaled(m.resolution[0], s2, g == "grid" ? 2 : 3);
    m.resolution[1] = scaled(m.resolution[1], s2, g == "disk" || g == "bowl" ? 1 : 2);
  } else if (g == "box") {
    m.resolution[0] = scaled(m.resolution[0], s2, 2);
  } else if (g == "sphere") {
    // An icosphere's vertex count grows 4x per subdivision.
    const int drop = static_cast<int>(std::lround(std::log(1.0 / f) / std::log(4.0)));
    m.subdivisions = std::max(0, m.subdivisions - drop);
  } else if (g == "particle_block") {
    for (int& b : m.block) b = scaled(b, s3, 1);
  } else if (g == "line" || g == "helix") {
    m.segments = scaled(m.segments, f, 1);
  } else if (g == "rod_net") {
    m.resolution[0] = scaled(m.resolution[0], s2, 2);
    m.resolution[1] = scaled(m.resolution[1], s2, 2);
  }
}

}  // namespace

CaseSpec scaled_case(const CaseSpec& spec, double vertex_factor) {
  CaseSpec c = spec;
  for (ObjectSpec& o : c.objects) scale_mesh(o.mesh, o.kind, vertex_factor);
  c.name += "_scaled";
  return c;
}

long long count_case_vertices(const CaseSpec& spec) {
  long long n = 0;
  for (std::size_t i = 0; i < spec.objects.size(); ++i) n += static_cast<long long>(load_object_mesh(spec, i).vertices.size());
  return n;
}

}  // namespace weft
