// make_sphere: subdivided icosahedron projected to the sphere, outward normals.
#include <cmath>
#include <map>
#include <utility>

#include "mesh/generator_args.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"

namespace weft {

TriMesh make_sphere(double radius, int subdivisions) {
  const char* g = "sphere";
  detail::require_positive(g, "radius", radius);
  detail::require_at_least(g, "subdivisions", subdivisions, 0);
  if (subdivisions > 8)
    throw InputError("sphere: subdivisions must be <= 8 (655362 vertices), got " +
                     std::to_string(subdivisions));

  const double p = (1.0 + std::sqrt(5.0)) / 2.0;
  TriMesh m;
  m.vertices = {Vec3(-1, p, 0), Vec3(1, p, 0),  Vec3(-1, -p, 0), Vec3(1, -p, 0),
                Vec3(0, -1, p), Vec3(0, 1, p),  Vec3(0, -1, -p), Vec3(0, 1, -p),
                Vec3(p, 0, -1), Vec3(p, 0, 1),  Vec3(-p, 0, -1), Vec3(-p, 0, 1)};
  for (Vec3& v : m.vertices) v.normalize();
  m.triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                 {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                 {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                 {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int s = 0; s < subdivisions; ++s) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      int id = static_cast<int>(m.vertices.size());
      m.vertices.push_back((m.vertices[a] + m.vertices[b]).normalized());
      mid.emplace(key, id);
      return id;
    };
    std::vector<Tri> next;
    next.reserve(4 * m.triangles.size());
    for (const Tri& f : m.triangles) {
      int ab = midpoint(f[0], f[1]), bc = midpoint(f[1], f[2]), ca = midpoint(f[2], f[0]);
      next.push_back({f[0], ab, ca});
      next.push_back({f[1], bc, ab});
      next.push_back({f[2], ca, bc});
      next.push_back({ab, bc, ca});
    }
    m.triangles.swap(next);
  }
  for (Vec3& v : m.vertices) v *= radius;
  orient_outward(m);
  return m;
}

}  // namespace weft
