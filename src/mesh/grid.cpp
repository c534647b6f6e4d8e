// make_grid: a (jittered) rectangle of nx x nz vertices in the x-z plane, normals +y.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"

namespace weft {

namespace {

// Cross product's y component of (b - a) x (c - a), i.e. twice the signed area seen from +y.
double signed_area2_y(const Vec3& a, const Vec3& b, const Vec3& c) {
  Vec3 u = b - a, w = c - a;
  return u.z() * w.x() - u.x() * w.z();
}

}  // namespace

TriMesh make_grid(double size_x, double size_z, int nx, int nz, double jitter, unsigned seed) {
  const char* g = "grid";
  detail::require_positive(g, "size_x", size_x);
  detail::require_positive(g, "size_z", size_z);
  detail::require_at_least(g, "nx (vertices along x)", nx, 2);
  detail::require_at_least(g, "nz (vertices along z)", nz, 2);
  detail::require_size(g, static_cast<long long>(nx) * nz);
  if (!(jitter >= 0.0 && jitter <= 0.4))
    throw InputError("grid: jitter must be in [0, 0.4], got " + std::to_string(jitter));

  const double dx = size_x / (nx - 1), dz = size_z / (nz - 1);
  TriMesh m;
  m.vertices.resize(static_cast<std::size_t>(nx) * nz);
  auto id = [nx](int i, int j) { return j * nx + i; };
  for (int j = 0; j < nz; ++j)
    for (int i = 0; i < nx; ++i)
      m.vertices[id(i, j)] = Vec3(-0.5 * size_x + i * dx, 0.0, -0.5 * size_z + j * dz);
  // Pin the far edges exactly (i * dx may round off the nominal size).
  for (int j = 0; j < nz; ++j) m.vertices[id(nx - 1, j)].x() = 0.5 * size_x;
  for (int i = 0; i < nx; ++i) m.vertices[id(i, nz - 1)].z() = 0.5 * size_z;

  const bool jittered = jitter > 0.0;
  m.triangles.reserve(2 * static_cast<std::size_t>(nx - 1) * (nz - 1));
  for (int j = 0; j + 1 < nz; ++j)
    for (int i = 0; i + 1 < nx; ++i) {
      int v00 = id(i, j), v10 = id(i + 1, j), v01 = id(i, j + 1), v11 = id(i + 1, j + 1);
      bool flip = jittered && ((i + j) % 2 == 1);
      if (!flip) {  // diagonal v00-v11
        m.triangles.push_back({v00, v11, v10});
        m.triangles.push_back({v00, v01, v11});
      } else {  // diagonal v10-v01
        m.triangles.push_back({v00, v01, v10});
        m.triangles.push_back({v10, v01, v11});
      }
    }
  if (!jittered) return m;

  // Interior vertices move by up to jitter * spacing per axis.
  std::vector<Vec3> rest = m.vertices;
  std::vector<Vec3> disp(m.vertices.size(), Vec3::Zero());
  for (int j = 1; j + 1 < nz; ++j)
    for (int i = 1; i + 1 < nx; ++i) {
      int v = id(i, j);
      disp[v] = Vec3(jitter * dx * detail::hash_unit(seed, 2ull * v),
                     0.0,
                     jitter * dz * detail::hash_unit(seed, 2ull * v + 1));
    }
  // Scale back the jitter of triangles that would get too small (or inverted): halve the
  // displacement of their vertices until every triangle keeps a quarter of its regular area.
  const double min_area2 = 0.25 * dx * dz;
  std::vector<char> shrink(m.vertices.size());
  for (int pass = 0; pass < 60; ++pass) {
    for (std::size_t v = 0; v < m.vertices.size(); ++v) m.vertices[v] = rest[v] + disp[v];
    std::fill(shrink.begin(), shrink.end(), 0);
    bool any = false;
    for (const Tri& f : m.triangles)
      if (signed_area2_y(m.vertices[f[0]], m.vertices[f[1]], m.vertices[f[2]]) < min_area2) {
        for (int v : f) shrink[v] = 1;
        any = true;
      }
    if (!any) break;
    for (std::size_t v = 0; v < disp.size(); ++v)
      if (shrink[v]) disp[v] *= (pass < 50 ? 0.5 : 0.0);
  }
  for (std::size_t v = 0; v < m.vertices.size(); ++v) m.vertices[v] = rest[v] + disp[v];
  return m;
}

}  // namespace weft
