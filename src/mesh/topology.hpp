// Edges, hinges (interior edges with their two opposite vertices) and boundary of a
// validated, consistently oriented manifold triangle mesh.
#pragma once
#include <array>
#include <vector>

#include "core/types.hpp"
#include "mesh/tri_mesh.hpp"

namespace weft {

struct MeshTopology {
  // Unique undirected edges {a, b} with a < b, sorted lexicographically.
  std::vector<Edge> edges;
  // One per interior edge, in the order of `edges`: {e0, e1, opp0, opp1} with e0 < e1, the
  // triangle (e0, e1, opp0) in that cyclic order and the triangle (e1, e0, opp1).
  // Hence opp0 lies on the side where the normal of (e0, e1, opp0) follows the right-hand rule.
  std::vector<std::array<int, 4>> hinges;
  // Vertices on a boundary edge, sorted ascending.
  std::vector<int> boundary_vertices;
  // Extras: for each edge its adjacent triangles {t0, t1} (t0 contains the directed edge
  // a->b or, on a boundary, is the only one; t1 = -1 on a boundary), the indices into
  // `edges` of the boundary edges (ascending), and each hinge's edge index.
  std::vector<std::array<int, 2>> edge_triangles;
  std::vector<int> boundary_edges;
  std::vector<int> hinge_edge;
};

// Throws InputError if an edge has more than two triangles or two triangles use the same
// directed edge (run validate_mesh first for a full diagnosis).
MeshTopology build_topology(const TriMesh& mesh);

}  // namespace weft
