// A mesh as plain data: positions, 0-based triangle indices and codimensional segments.
//
// One struct holds every codimension:
//   - triangles: surface elements (shells, volume and rigid surfaces, obstacles);
//   - segments:  codimensional edges, i.e. edges that belong to no triangle (rods, segment
//                meshes). A segment equal (as an unordered pair) to a triangle edge is not
//                codimensional: readers drop such segments and validate_mesh() refuses them;
//   - particles: vertices referenced by no triangle and no segment (isolated points). They
//                are not stored separately; they are whatever vertices nothing references;
//   - tets:      volume elements (kind: volume), positively oriented; a volume's collision
//                surface is their boundary (extract_boundary_surface), set by the caller.
// Surface-only meshes (every mesh before rods) simply have an empty `segments`.
#pragma once
#include <vector>

#include "core/types.hpp"

namespace weft {

struct TriMesh {
  std::vector<Vec3> vertices;
  std::vector<Tri> triangles;
  // Edges that belong to no triangle (rods): {a, b} with a != b, both in range, each
  // unordered pair at most once. Order within a segment is the rod's direction (a -> b).
  std::vector<Edge> segments;
  // Tetrahedra {a, b, c, d}, positively oriented: (b-a) . ((c-a) x (d-a)) > 0 (volumes).
  std::vector<std::array<int, 4>> tets;
  // Texture coordinates (OBJ 'vt') of each triangle's corners, parallel to `triangles`;
  // empty unless every face of the file gives them. Orthotropic shells take their warp
  // direction from them (u = warp, energy/warp_direction.hpp).
  std::vector<std::array<Vec2, 3>> triangle_uv;
};

// What a caller uses a mesh for. It decides the emptiness checks of the readers and of
// validate_mesh() and whether remove_unreferenced_vertices() may drop isolated vertices:
//   surface   triangles required (shells, obstacles, volume / rigid surfaces); the
//             behaviour every caller had before rods and particles, and the default;
//   rods      segments required (triangles may be present too);
//   particles vertices required; isolated vertices are the particles and are kept;
//   volume    tets required (Gmsh .msh only); vertices of tets count as used.
enum class MeshUse { surface, rods, particles, volume };

}  // namespace weft
