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
//      funnel    make_funnel(top_radius, bottom_radius, height, resolution[0], resolution[1])
//      bowl      make_bowl(radius, segments = resolution[0], rings = resolution[1])
//      line      make_line(length, segments)          (rods)
//      polyline  make_polyline(points)                (rods)
//      helix     make_helix(radius, pitch, turns, segments)
//      rod_net   make_rod_net(size[0], size[1], resolution[0], resolution[1], subdivisions)
//      particle_block  make_particle_block(size, block[0], block[1], block[2], jitter, seed)
//    use = volume (kind: volume): box -> make_tet_box(size, block[0], block[1], block[2]),
//    sphere -> make_tet_sphere(radius, resolution[0]), a file is a .msh of tets; then
//    validate_tets and triangles = extract_boundary_surface(tets) (the collision surface).
//    `use` (mesh_use_of(kind)) decides what a file must hold: rods read 'l' lines and refuse
//    faces, particles read 'v' lines and refuse faces and lines, surfaces read faces.
// Every failure is an InputError.
TriMesh build_object_mesh(const MeshSpec& mesh, const TransformSpec& transform, const std::string& case_dir,
                          const std::string& what = "", MeshUse use = MeshUse::surface);

// What an object of this kind uses its mesh for: rods -> rods, particles -> particles,
// volumes -> volume, everything else a surface.
MeshUse mesh_use_of(ObjectKind kind);

}  // namespace weft
