// Case files (DESIGN.md "Case files"): YAML -> validated CaseSpec.
//
// Every key is checked against the schema; any problem is an InputError with a one-line
// message "CASE.yaml: KEY.PATH: what was expected" (unknown keys: "CASE.yaml: unknown key
// 'objects[0].materal' (expected one of: ...)"), where CASE.yaml is the path as given.
// Messages caused by a --set override end with "(from --set ...)".
//
// Resolution and defaults:
//  - name defaults to the case file's stem; output.file defaults to out/<name>.h5 and,
//    like every CLI path, is relative to the current working directory (stored as given).
//  - mesh.file is relative to the case file's folder; CaseSpec stores it absolute, and it
//    must exist with a .obj or .msh extension ("mesh file not found").
//  - objects[i].name defaults to "object<i>"; names must be unique.
//  - mesh.resolution defaults per generator: grid [16, 16]; disk [48, 8] (rim segments,
//    rings); box 2 (vertices along the longest edge: 12 triangles); cylinder [32, n] with n
//    rings making the side triangles roughly isotropic; funnel [32, n] likewise along the
//    slant (top_radius 0.5, bottom_radius 0.1, height 1). grid size/resolution accept a
//    single number for a square. sphere: subdivisions 3. Radius 0.5, height 1.
//  - transform.rotate is [degrees, axis_x, axis_y, axis_z]; motion.rotate.axis is stored
//    normalised.
//  - strain_limit: {max (required, >= 1, > threshold), threshold (default 1, >= 1)};
//    absent = no limit (ObjectSpec::strain_limit = 0).
//  - kinds: shell, rod, particles, volume and obstacle. An obstacle takes name, kind, mesh,
//    transform, contact, motion; a shell and a rod everything but motion (pins carry
//    motions); particles neither motion nor strain_limit. Generators per kind: surfaces
//    grid, disk, sphere, box, cylinder, funnel, bowl; rods line (length 1, segments 16),
//    polyline (points, required), helix (radius 0.5, pitch 0.1, turns 3, segments 64),
//    rod_net (size [1, 1], resolution [5, 5], subdivisions 1); particles particle_block
//    (size [1, 1, 1], resolution [4, 4, 4], jitter 0). Rod and particle files are .obj.
//  - material per kind: shell {model, density, youngs, poisson, thickness, bending_youngs,
//    vertex_mass}; rod {density, youngs, radius (required), bending_youngs, vertex_mass};
//    particles {density, radius (required), vertex_mass}; anything else is "not used by".
//  - contact.offset defaults to 2 material.radius for rods and particles, 0 otherwise.
//  - volumes (issue 19): name, kind, mesh, transform, material, contact, pins, initial;
//    generators box {size, resolution: [nx, ny, nz] (default [2, 2, 2])} and sphere
//    {radius, resolution: n (default 8)}, or a .msh file (.obj refused); material {model:
//    fixed_corotated | neo_hookean, density, youngs, poisson, vertex_mass}.
//  - orthotropic shells: material {model: orthotropic, density, thickness, a11, a22, a12,
//    g12, poisson, bending_youngs, vertex_mass} (a11, a22, g12 required > 0, a12^2 < a11
//    a22); strain_limit {warp, weft (> 1), shear (> 0), warp_direction} instead of
//    {max, threshold} (the two sets are exclusive).
//    rigid -> "not supported yet".
#pragma once
#include <string>
#include <vector>

#include "io/case_spec.hpp"
#include "mesh/tri_mesh.hpp"

namespace weft {

// Reads and validates `path`. `overrides` are "key.path=value" strings from --set, applied
// to the YAML tree before validation (see case_overrides.hpp for the syntax).
CaseSpec load_case(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from YAML text; `path` names the file in messages, gives the default name and
// the folder relative mesh files resolve against.
CaseSpec load_case_from_string(const std::string& yaml_text, const std::string& path,
                               const std::vector<std::string>& overrides = {});

// build_object_mesh() for spec.objects[i], with errors prefixed "CASE.yaml: objects[i] (NAME) mesh".
TriMesh load_object_mesh(const CaseSpec& spec, std::size_t i);

}  // namespace weft
