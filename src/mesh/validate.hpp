// validate_mesh: refuse meshes the simulator cannot use, with a one-line InputError that
// starts with `what` (e.g. "case.yaml: objects[0] (cloth) mesh" or "mesh generator 'line'")
// and names the offending vertex / triangle / segment / edge. Checks, in this order:
//   the mesh has vertices; `use` = surface: it has triangles ("mesh has no triangles"),
//   rods: it has segments ("mesh has no segments"), particles: nothing more;
//   every coordinate is finite; every triangle and segment index is in range; no triangle
//   repeats a vertex; no segment repeats a vertex ("segment S is degenerate (repeats
//   vertex V)"); surface and rods: every vertex is used by a triangle or a segment (the
//   message says "by any triangle" when the mesh has no segments, as it always did);
//   no triangle has area < 1e-12 * bbox_diagonal^2; no segment is shorter than
//   1e-12 * bbox_diagonal ("segment S has zero length ..."); no two triangles share the
//   same three vertices; no two segments join the same two vertices, in either order
//   ("segment S repeats segment T ..."); no segment is an edge of a triangle (it would not
//   be codimensional); no edge is shared by more than two triangles (non-manifold edge);
//   adjacent triangles are consistently oriented (each directed edge used at most once);
//   the triangles around each vertex form a single fan (disk or half-disk; a "bowtie"
//   vertex fails).
// Segments may branch (a vertex on three or more segments, as at a rod_net crossing) and
// may form closed loops; particles (MeshUse::particles) may coincide. use = volume: it has
// tetrahedra ("mesh has no tetrahedra"), they pass validate_tets, and vertices of tets
// count as used (the triangles, if any, are the boundary surface and checked as above). A mesh without
// segments is validated exactly as before rods existed. A mesh that passes can be given
// to build_topology().
#pragma once
#include <string>

#include "mesh/tri_mesh.hpp"

namespace weft {

void validate_mesh(const TriMesh& mesh, const std::string& what, MeshUse use = MeshUse::surface);

// The tetrahedra of a volume mesh, each failure one InputError starting with `what`:
// indices in range; no tet repeats a vertex; every tet positively oriented with signed
// volume > 1e-12 * bbox_diagonal^3 ("tetrahedron T is inverted ..." / "... is degenerate
// ..."); no face shared by more than two tets (extract_boundary_surface's check).
void validate_tets(const TriMesh& mesh, const std::string& what);

}  // namespace weft
