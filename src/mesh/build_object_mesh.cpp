#include "mesh/build_object_mesh.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "mesh/boundary_surface.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh/readers.hpp"
#include "mesh/transform.hpp"
#include "mesh/validate.hpp"

namespace weft {

MeshUse mesh_use_of(ObjectKind kind) {
  if (kind == ObjectKind::Rod) return MeshUse::rods;
  if (kind == ObjectKind::Particles) return MeshUse::particles;
  if (kind == ObjectKind::Volume) return MeshUse::volume;
  return MeshUse::surface;
}

TriMesh build_object_mesh(const MeshSpec& spec, const TransformSpec& xf, const std::string& case_dir,
                          const std::string& what_in, MeshUse use) {
  TriMesh m;
  std::string what = what_in;
  if (!spec.file.empty()) {
    std::filesystem::path p(spec.file);
    if (p.is_relative() && !case_dir.empty()) p = std::filesystem::path(case_dir) / p;
    const std::string path = p.lexically_normal().string();
    if (what.empty()) what = path;
    m = read_mesh(path, use);
    remove_unreferenced_vertices(m, use);
    // A rod is its segments and a particle set its vertices: faces (and, for particles,
    // lines) in the file would be elements no term of the kind evaluates.
    if (use != MeshUse::surface && !m.triangles.empty())
      throw InputError(what + ": has " + std::to_string(m.triangles.size()) + " faces ('f' lines); " +
                       (use == MeshUse::rods ? "a rod takes lines ('l') only" : "particles take vertices ('v') only"));
    if (use == MeshUse::particles && !m.segments.empty())
      throw InputError(what + ": has " + std::to_string(m.segments.size()) +
                       " line segments ('l' lines); particles take vertices ('v') only");
  } else {
    const std::string& g = spec.generator;
    if (what.empty()) what = "mesh generator '" + g + "'";
    try {
      if (use == MeshUse::volume && g == "box")
        m = make_tet_box(spec.size, spec.block[0], spec.block[1], spec.block[2]);
      else if (use == MeshUse::volume && g == "sphere")
        m = make_tet_sphere(spec.radius, spec.resolution[0]);
      else if (use == MeshUse::volume)
        throw InputError("generator '" + g + "' makes no tetrahedra (a volume takes box or sphere)");
      else if (g == "grid")
        m = make_grid(spec.size[0], spec.size[1], spec.resolution[0], spec.resolution[1], spec.jitter, spec.seed);
      else if (g == "disk")
        m = make_disk(spec.radius, spec.resolution[1], spec.resolution[0]);
      else if (g == "sphere")
        m = make_sphere(spec.radius, spec.subdivisions);
      else if (g == "box")
        m = make_box(spec.size, spec.resolution[0]);
      else if (g == "cylinder")
        m = make_cylinder(spec.radius, spec.height, spec.resolution[0], spec.resolution[1], spec.capped);
      else if (g == "funnel")
        m = make_funnel(spec.top_radius, spec.bottom_radius, spec.height, spec.resolution[0], spec.resolution[1]);
      else if (g == "bowl")
        m = make_bowl(spec.radius, spec.resolution[0], spec.resolution[1]);
      else if (g == "line")
        m = make_line(spec.length, spec.segments);
      else if (g == "polyline")
        m = make_polyline(spec.points);
      else if (g == "helix")
        m = make_helix(spec.radius, spec.pitch, spec.turns, spec.segments);
      else if (g == "rod_net")
        m = make_rod_net(spec.size[0], spec.size[1], spec.resolution[0], spec.resolution[1], spec.subdivisions);
      else if (g == "particle_block")
        m = make_particle_block(spec.size, spec.block[0], spec.block[1], spec.block[2], spec.jitter, spec.seed);
      else if (g.empty())
        throw InputError("neither a mesh file nor a generator is given");
      else
        throw InputError("unknown generator '" + g +
                         "' (expected one of: grid, disk, sphere, box, cylinder, funnel, bowl, line, polyline, helix, "
                         "rod_net, particle_block)");
    } catch (const InputError& e) {
      if (!what_in.empty()) throw InputError(what_in + ": " + e.what());
      throw;
    }
  }
  if (use == MeshUse::volume) {
    // The collision surface of a volume is the boundary of its tets (outward faces).
    validate_tets(m, what);
    try {
      m.triangles = extract_boundary_surface(m.tets);
    } catch (const InputError& e) {
      throw InputError(what + ": " + e.what());
    }
  }
  validate_mesh(m, what, use);
  try {
    apply_transform(m, xf.scale, xf.rotate_deg, xf.rotate_axis, xf.translate);
  } catch (const InputError& e) {
    throw InputError(what + ": " + e.what());
  }
  return m;
}

}  // namespace weft
