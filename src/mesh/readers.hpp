// Mesh file readers. Every failure throws InputError with a one-line message that starts
// with the file path (and ":LINE" for parse errors). The readers return the file's
// vertices in file order and its triangles; they do not validate topology (see
// validate_mesh) and keep vertices no triangle uses (see remove_unreferenced_vertices).
#pragma once
#include <string>

#include "mesh/tri_mesh.hpp"

namespace weft {

// Wavefront OBJ: `v x y z [...]` and `f a b c ...` lines; face corners may be `i`, `i/t`,
// `i//n` or `i/t/n`, negative indices count back from the last vertex read; polygons are
// fan-triangulated (v0, vk, vk+1). Other statements (vt, vn, o, g, s, usemtl, l, ...) are
// ignored.
TriMesh read_obj(const std::string& path);

// Gmsh MSH 4.1, ASCII: $Nodes and $Elements; triangles (element type 2) are kept, every
// other element type and section is skipped. Nodes keep file order. Version 2.x / 4.0
// and binary files are refused with a message saying how to re-export.
TriMesh read_msh(const std::string& path);

// Dispatch on the extension (case-insensitive): .obj or .msh.
TriMesh read_mesh(const std::string& path);

// True when read_mesh() knows the extension of `path`.
bool mesh_format_supported(const std::string& path);

}  // namespace weft
