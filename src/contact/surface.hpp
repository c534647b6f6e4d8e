// The collision surface: the primitives the contact broad phase pairs up (DESIGN.md, data
// flow 2b). Triangles come from shells, volume / rigid surfaces and obstacles; the edges are
// every triangle edge (codimensional segments are appended later); the points are every
// vertex on a triangle or an edge. Each primitive carries its object's thickness offset xi;
// a pair uses (xi_i + xi_j) / 2 (C-IPC Sec. 5.1).
//
// Indexing:
//  * triangles / edges: the arrays triangle_* and edge_* run parallel to `triangles` /
//    `edges` (a candidate's t / ea / eb index them);
//  * points: identified by their vertex id, so vertex_offset and vertex_object are indexed
//    by VERTEX ID and sized num_vertices; vertices not on the surface have object -1 and
//    offset 0. `vertices` lists the surface vertex ids, ascending.
#pragma once
#include <vector>

#include "core/types.hpp"

namespace weft {

struct CollisionSurface {
  std::vector<Tri> triangles;
  // Unique undirected edges {a, b}, a < b, sorted lexicographically: every edge of a
  // (non-degenerate) triangle (plus codimensional segments later).
  std::vector<Edge> edges;
  // Every vertex on a triangle or an edge, ascending.
  std::vector<int> vertices;
  // xi of each primitive, from its object (vertex_offset per vertex id, see above).
  std::vector<double> vertex_offset, edge_offset, triangle_offset;
  // Object of each primitive: a triangle's is given; an edge or a vertex takes the object of
  // the lowest-numbered triangle that contains it (objects do not share vertices, so this
  // only fixes the order-independence of malformed input).
  std::vector<int> vertex_object, edge_object, triangle_object;

  int num_vertices() const { return static_cast<int>(vertex_offset.size()); }
};

// Builds the surface of `tris` (vertex ids in [0, num_vertices)), triangle t belonging to
// object triangle_object[t] whose offset is object_offset[triangle_object[t]]. Output is
// deterministic (a function of the input arrays only). Linear time.
// Throws InputError on a vertex id or object id out of range, a size mismatch, or a
// negative / non-finite offset.
CollisionSurface build_collision_surface(const std::vector<Tri>& tris, const std::vector<int>& triangle_object,
                                         const std::vector<double>& object_offset, int num_vertices);

}  // namespace weft
