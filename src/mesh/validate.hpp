// validate_mesh: refuse meshes the simulator cannot use, with a one-line InputError that
// starts with `what` (e.g. "case.yaml: objects[0] (cloth) mesh") and names the offending
// vertex / triangle / edge. Checks, in this order:
//   the mesh has vertices and triangles; every coordinate is finite; every index is in
//   range; no triangle repeats a vertex; every vertex is used by a triangle; no triangle
//   has area < 1e-12 * bbox_diagonal^2; no two triangles share the same three vertices;
//   no edge is shared by more than two triangles (non-manifold edge); adjacent triangles
//   are consistently oriented (each directed edge used at most once); the triangles
//   around each vertex form a single fan (disk or half-disk; a "bowtie" vertex fails).
// A mesh that passes can be given to build_topology().
#pragma once
#include <string>

#include "mesh/tri_mesh.hpp"

namespace weft {

void validate_mesh(const TriMesh& mesh, const std::string& what);

}  // namespace weft
