// Mesh file readers. Every failure throws InputError with a one-line message that starts
// with the file path (and ":LINE" for parse errors). The readers return the file's
// vertices in file order, its triangles and (OBJ, MeshUse::rods / particles) its segments;
// they do not validate topology (see validate_mesh) and keep vertices nothing uses (see
// remove_unreferenced_vertices; for particles those vertices are the particles).
//
// Emptiness: the reader checks only that the file holds what the caller's MeshUse needs
// (surface: triangles, rods: segments, particles: vertices); whether a mesh with several
// kinds of elements is acceptable is the caller's decision (validate_mesh with the same
// MeshUse). The default, MeshUse::surface, is exactly the reader of a surface-only weft.
#pragma once
#include <string>

#include "mesh/tri_mesh.hpp"

namespace weft {

// Wavefront OBJ: `v x y z [...]`, `f a b c ...` and `l a b c ...` lines; face and line
// corners may be `i`, `i/t`, `i//n` or `i/t/n`, negative indices count back from the last
// vertex read (for faces and lines alike); polygons are fan-triangulated (v0, vk, vk+1).
// Texture coordinates (`vt u v`) are kept per triangle corner (TriMesh::triangle_uv) when
// every face gives them (`i/t` or `i/t/n`); a bad or out-of-range texture index is an
// error. Other statements (vn, o, g, s, usemtl, ...) are ignored.
//   use = surface (default): 'f' lines required ("PATH: no faces ('f' lines) in the OBJ
//     file"); 'l' lines are ignored, as they always were.
//   use = rods: an `l v0 v1 ... vk` polyline adds the segments (v0, v1), ..., (vk-1, vk) in
//     file order; faces are read too. Segments whose unordered pair is an edge of a
//     triangle are dropped (they are not codimensional); repeated or zero-length segments
//     are kept for validate_mesh to refuse. Needs at least one segment after that ("PATH:
//     no lines ('l' lines that are not edges of faces) in the OBJ file").
//   use = particles: 'f' and 'l' are read as for rods; needs only vertices: a file of 'v'
//     lines alone is a particle set (vertices, no triangles, no segments).
// Every use fails on a file without any vertex: surface with the "no faces" message,
// rods and particles with "PATH: no vertices ('v' lines) in the OBJ file".
TriMesh read_obj(const std::string& path, MeshUse use = MeshUse::surface);

// Gmsh MSH 4.1, ASCII: $Nodes and $Elements. Nodes keep file order. Version 2.x / 4.0
// and binary files are refused with a message saying how to re-export.
//   use = surface (default): triangles (element type 2) are kept, every other element type
//     and section is skipped; needs a triangle.
//   use = volume: 4-node tetrahedra (type 4) are kept, in file order, each reoriented to
//     positive (nodes 2 and 3 swapped when its signed volume is negative: Gmsh files from
//     other tools need not follow one orientation); triangles and other types are skipped
//     (a volume's surface is extract_boundary_surface(tets)); 10-node tetrahedra (type 11)
//     are refused ("re-export with first-order elements"); needs a tetrahedron.
TriMesh read_msh(const std::string& path, MeshUse use = MeshUse::surface);

// Dispatch on the extension (case-insensitive): .obj or .msh. A .msh holds surfaces or
// volumes: use = rods or particles with a .msh is an InputError naming the file and
// suggesting OBJ; use = volume with an .obj is an InputError suggesting .msh.
TriMesh read_mesh(const std::string& path, MeshUse use = MeshUse::surface);

// True when read_mesh() knows the extension of `path`.
bool mesh_format_supported(const std::string& path);

}  // namespace weft
