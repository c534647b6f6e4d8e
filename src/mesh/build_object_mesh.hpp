// One case object's mesh, ready for the scene: generated or read, validated, placed.
#pragma once
#include <string>

#include "io/case_spec.hpp"
#include "mesh/tri_mesh.hpp"

namespace weft {

// 1. mesh.file set: read_mesh(file) (a relative file resolves against case_dir; load_case
//    already stores it absolute) and drop vertices no triangle uses (e.g. tet-interior
//    nodes of a .msh); otherwise call the generator named by mesh.generator:
//      grid      make_grid(size[0], size[1], resolution[0], resolution[1], jitter, seed)
//      disk      make_disk(radius, rings = resolution[1], segments = resolution[0])
//      sphere    make_sphere(radius, subdivisions)
//      box       make_box(size, resolution[0])
//      cylinder  make_cylinder(radius, height, resolution[0], resolution[1], capped)
// 2. validate_mesh(mesh, what); `what` defaults to the file path or "mesh generator 'NAME'".
// 3. apply_transform(scale, rotate, translate).
// Every failure is an InputError.
TriMesh build_object_mesh(const MeshSpec& mesh, const TransformSpec& transform, const std::string& case_dir,
                          const std::string& what = "");

}  // namespace weft
