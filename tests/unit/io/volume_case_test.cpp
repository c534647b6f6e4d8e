// Volumes and orthotropic shells through the case file, the scene and the result file
// (issue 19 points 1, 2 and 5): keys, defaults, refusals, masses, tets in the scene and in
// the file, per-triangle warp directions and limits.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "energy/registry.hpp"
#include "io/case_loader.hpp"
#include "io/result_file.hpp"
#include "io/scene_loader.hpp"
#include "io_test_util.hpp"
#include "mesh/generators.hpp"
#include "parallel/local_view.hpp"

using namespace weft;
using weft::iotest::TempDir;

namespace {

const char* kVolumes = R"(
objects:
  - name: column
    kind: volume
    mesh: {generator: box, size: [0.2, 0.6, 0.4], resolution: [2, 4, 3]}
    material: {model: fixed_corotated, density: 1000, youngs: 1.0e5, poisson: 0.3}
    pins: [{box: [[-1, -0.31, -1], [1, -0.29, 1]]}]
  - name: ball
    kind: volume
    mesh: {generator: sphere, radius: 0.1, resolution: 5}
    transform: {translate: [0, 1, 0]}
    material: {density: 500, youngs: 2.0e4, poisson: 0.0}
    initial: {velocity: [0, -1, 0]}
    contact: {offset: 0.002}
  - name: cloth
    kind: shell
    mesh: {generator: grid, size: 1, resolution: 3}
    transform: {translate: [0, -1, 0]}
    material: {model: orthotropic, density: 200, thickness: 0.001, a11: 2.0e5, a22: 1.0e5, a12: 3.0e4, g12: 5.0e4}
    strain_limit: {warp: 1.02, weft: 1.05, shear: 0.1, warp_direction: [0, 0, 2]}
)";

// The column of kVolumes as its generator makes it (object 0: input ids = mesh ids).
TriMesh make_tet_box_for_test() { return make_tet_box(Vec3(0.2, 0.6, 0.4), 2, 4, 3); }

double tet_volume(VertexSpan<Vec3> x, const std::array<int, 4>& t) {
  return (x[t[1]] - x[t[0]]).dot((x[t[2]] - x[t[0]]).cross(x[t[3]] - x[t[0]])) / 6.0;
}

std::vector<double> read_f64(hid_t f, const char* name, std::vector<hsize_t>* dims = nullptr) {
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  hid_t sp = H5Dget_space(ds);
  std::vector<hsize_t> d(H5Sget_simple_extent_ndims(sp));
  H5Sget_simple_extent_dims(sp, d.data(), nullptr);
  std::vector<double> v(H5Sget_simple_extent_npoints(sp));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(sp);
  H5Dclose(ds);
  if (dims) *dims = d;
  return v;
}

std::vector<long long> read_i64(hid_t f, const char* name, std::vector<hsize_t>* dims = nullptr) {
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  hid_t sp = H5Dget_space(ds);
  std::vector<hsize_t> d(H5Sget_simple_extent_ndims(sp));
  H5Sget_simple_extent_dims(sp, d.data(), nullptr);
  std::vector<long long> v(H5Sget_simple_extent_npoints(sp));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(sp);
  H5Dclose(ds);
  if (dims) *dims = d;
  return v;
}

}  // namespace

TEST(VolumeCase, KeysAndDefaults) {
  const CaseSpec s = load_case_from_string(kVolumes, "vol.yaml");
  ASSERT_EQ(s.objects.size(), 3u);
  const ObjectSpec& col = s.objects[0];
  EXPECT_EQ(col.kind, ObjectKind::Volume);
  EXPECT_EQ(col.mesh.generator, "box");
  EXPECT_EQ(col.mesh.block, (std::array<int, 3>{2, 4, 3}));
  EXPECT_EQ(col.material.model, "fixed_corotated");
  EXPECT_EQ(col.material.youngs, 1.0e5);
  EXPECT_EQ(col.offset, 0.0);  // volumes: 0 by default
  const ObjectSpec& ball = s.objects[1];
  EXPECT_EQ(ball.mesh.generator, "sphere");
  EXPECT_EQ(ball.mesh.resolution[0], 5);
  EXPECT_EQ(ball.material.model, "neo_hookean");  // the default model
  EXPECT_EQ(ball.material.poisson, 0.0);
  EXPECT_EQ(ball.offset, 0.002);
  const ObjectSpec& cloth = s.objects[2];
  EXPECT_EQ(cloth.material.model, "orthotropic");
  EXPECT_EQ(cloth.material.a11, 2.0e5);
  EXPECT_EQ(cloth.material.a22, 1.0e5);
  EXPECT_EQ(cloth.material.a12, 3.0e4);
  EXPECT_EQ(cloth.material.g12, 5.0e4);
  EXPECT_EQ(cloth.material.aniso_limit.warp, 1.02);
  EXPECT_EQ(cloth.material.aniso_limit.weft, 1.05);
  EXPECT_EQ(cloth.material.aniso_limit.shear, 0.1);
  EXPECT_EQ(cloth.material.aniso_limit.warp_direction, Vec3(0, 0, 2));
  EXPECT_EQ(cloth.strain_limit, 0.0);  // no isotropic limit
  // Bending defaults to sqrt(a11 a22) when bending_youngs is not given.
  EXPECT_NEAR(cloth.material.youngs, std::sqrt(2.0e5 * 1.0e5), 1e-9);
  // Defaults of the generators: box [2, 2, 2], sphere 8.
  const CaseSpec d = load_case_from_string(
      "objects:\n  - {kind: volume, mesh: {generator: box}}\n  - {kind: volume, mesh: {generator: sphere}}\n",
      "d.yaml");
  EXPECT_EQ(d.objects[0].mesh.block, (std::array<int, 3>{2, 2, 2}));
  EXPECT_EQ(d.objects[1].mesh.resolution[0], 8);
}

TEST(VolumeCase, BadValuesAreRefused) {
  auto load = [](const std::string& obj) {
    return load_case_from_string("objects:\n  - " + obj + "\n", "bad.yaml");
  };
  const std::string box = "kind: volume, mesh: {generator: box}";
  EXPECT_INPUT_ERROR(load("{" + box + ", material: {poisson: 0.5}}"),
                     "bad.yaml: objects[0].material.poisson: must be in (-1, 0.5) (got 0.5)");
  EXPECT_INPUT_ERROR(load("{" + box + ", material: {poisson: -1}}"), "objects[0].material.poisson: must be in (-1, 0.5)");
  EXPECT_INPUT_ERROR(load("{" + box + ", material: {density: 0}}"), "objects[0].material.density: must be > 0");
  EXPECT_INPUT_ERROR(load("{" + box + ", material: {youngs: -3}}"), "objects[0].material.youngs: must be > 0");
  EXPECT_INPUT_ERROR(load("{" + box + ", material: {model: stvk}}"),
                     "objects[0].material.model: expected one of: fixed_corotated, neo_hookean (got 'stvk')");
  EXPECT_INPUT_ERROR(load("{" + box + ", material: {thickness: 0.1}}"),
                     "objects[0].material.thickness: is not used by kind 'volume'");
  EXPECT_INPUT_ERROR(load("{" + box + ", strain_limit: {max: 1.1}}"),
                     "objects[0].strain_limit: is not used by kind 'volume'");
  EXPECT_INPUT_ERROR(load("{kind: volume, mesh: {generator: box, resolution: 3}}"),
                     "objects[0].mesh.resolution: expected [nx, ny, nz]");
  EXPECT_INPUT_ERROR(load("{kind: volume, mesh: {generator: box, resolution: [2, 1, 2]}}"),
                     "objects[0].mesh.resolution[1]: must be in [2, 100000] (got 1)");
  EXPECT_INPUT_ERROR(load("{kind: volume, mesh: {generator: sphere, subdivisions: 2}}"),
                     "objects[0].mesh.subdivisions: is not used by generator 'sphere' of kind 'volume'");
  EXPECT_INPUT_ERROR(load("{kind: volume, mesh: {generator: grid}}"),
                     "'grid' is not a generator for kind 'volume' (it takes: box, sphere)");
  // Orthotropic shells.
  const std::string ortho = "kind: shell, mesh: {generator: grid}, material: {model: orthotropic";
  EXPECT_INPUT_ERROR(load("{" + ortho + ", a11: 1, a22: 1}}"), "missing required key 'objects[0].material.g12'");
  EXPECT_INPUT_ERROR(load("{" + ortho + ", a11: 0, a22: 1, g12: 1}}"), "objects[0].material.a11: must be > 0");
  EXPECT_INPUT_ERROR(load("{" + ortho + ", a11: 1, a22: 4, a12: 2, g12: 1}}"),
                     "objects[0].material.a12: must satisfy a12^2 < a11 a22 = 4 (got 2)");
  EXPECT_INPUT_ERROR(load("{" + ortho + ", a11: 1, a22: 1, g12: 1, youngs: 3}}"),
                     "objects[0].material.youngs: is not used by material.model 'orthotropic'");
  const std::string ok = "{" + ortho + ", a11: 1, a22: 1, g12: 1}, ";
  EXPECT_INPUT_ERROR(load(ok + "strain_limit: {warp: 1.0}}"), "objects[0].strain_limit.warp: must be > 1");
  EXPECT_INPUT_ERROR(load(ok + "strain_limit: {weft: 0.9}}"), "objects[0].strain_limit.weft: must be > 1");
  EXPECT_INPUT_ERROR(load(ok + "strain_limit: {shear: 0}}"), "objects[0].strain_limit.shear: must be > 0");
  EXPECT_INPUT_ERROR(load(ok + "strain_limit: {warp: 1.1, max: 1.1}}"),
                     "objects[0].strain_limit.max: is the isotropic limit");
  EXPECT_INPUT_ERROR(load(ok + "strain_limit: {warp_direction: [1, 0, 0]}}"),
                     "objects[0].strain_limit: needs at least one of warp, weft");
  EXPECT_INPUT_ERROR(load(ok + "strain_limit: {warp: 1.1, warp_direction: [0, 0, 0]}}"),
                     "objects[0].strain_limit.warp_direction: must be a non-zero vector");
  EXPECT_INPUT_ERROR(load("{kind: shell, mesh: {generator: grid}, strain_limit: {max: 1.1, warp: 1.1}}"),
                     "objects[0].strain_limit.warp: is a per-direction limit of material.model 'orthotropic'");
  EXPECT_INPUT_ERROR(load("{kind: shell, mesh: {generator: grid}, material: {a11: 3}}"),
                     "objects[0].material.a11: is not used by kind 'shell'");
}

TEST(VolumeCase, MeshFiles) {
  TempDir t;
  std::filesystem::copy_file(std::string(WEFT_DATA_DIR) + "/mesh/tet_cube.msh", t.file("cube.msh"));
  t.write("cube.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  const CaseSpec ok = load_case(t.write("ok.yaml", "objects:\n  - {kind: volume, mesh: {file: cube.msh}}\n"));
  const TriMesh m = load_object_mesh(ok, 0);
  EXPECT_EQ(m.tets.size(), 5u);
  EXPECT_EQ(m.vertices.size(), 8u);
  EXPECT_EQ(m.triangles.size(), 12u);  // the boundary: 2 per cube face
  EXPECT_INPUT_ERROR(load_case(t.write("o.yaml", "objects:\n  - {kind: volume, mesh: {file: cube.obj}}\n")),
                     "objects[0].mesh.file: kind 'volume' reads Gmsh .msh files only");
}

// Masses rho V / 4 per tet vertex (exact: the box's total is rho x its volume), no shell
// mass on a volume's boundary triangles, interior vertices not particles, tets in solver
// ids, only volume terms over tets (no membrane or hinge on the boundary surface).
TEST(VolumeCase, SceneMassesTetsAndTerms) {
  const CaseSpec spec = load_case_from_string(kVolumes, "vol.yaml");
  for (int ranks : {1, 2}) {
    SCOPED_TRACE(ranks);
    const Scene s = build_scene(spec, ranks);
    const int box_tets = 5 * 1 * 3 * 2;
    ASSERT_GE(s.tets.size(), size_t(box_tets));
    std::vector<double> want(s.num_vertices, 0.0);
    double box_mass = 0, ball_mass = 0, ball_volume = 0;
    for (size_t k = 0; k < s.tets.size(); ++k) {
      const double V = tet_volume(s.rest, s.tets[k]);
      EXPECT_GT(V, 0) << k;
      const double rho = s.tet_object[k] == 0 ? 1000 : 500;
      for (int v : s.tets[k]) want[v] += rho * V / 4;
      if (s.tet_object[k] == 1) ball_volume += V;
    }
    for (int v = 0; v < s.num_vertices; ++v) {
      const int o = s.vertex_object[v];
      if (o == 2) continue;
      EXPECT_NEAR(s.mass[v], want[v], 1e-14 * want[v]) << v;
      (o == 0 ? box_mass : ball_mass) += s.mass[v];
    }
    EXPECT_NEAR(box_mass, 1000 * 0.2 * 0.6 * 0.4, 1e-12);
    EXPECT_NEAR(ball_mass, 500 * ball_volume, 1e-12);
    // Tets: case order, object by object; the box's in its generator's order.
    int nbox = 0;
    for (int o : s.tet_object) nbox += o == 0;
    EXPECT_EQ(nbox, box_tets);
    for (size_t k = 1; k < s.tet_object.size(); ++k) EXPECT_LE(s.tet_object[k - 1], s.tet_object[k]);
    // The first box tet, back in input ids, is make_tet_box's first tet.
    const TriMesh box = make_tet_box_for_test();
    for (int a = 0; a < 4; ++a) EXPECT_EQ(s.input_of_solver[s.tets[0][a]], box.tets[0][a]);
    // No particles: interior vertices belong to tets.
    EXPECT_TRUE(s.points.empty());
    EXPECT_TRUE(s.segments.empty());
    // Terms: one volume stencil per tet (fixed-corotated for the column, neo-Hookean for
    // the ball); the boundary triangles get no membrane and no hinge stencil; the cloth gets
    // the orthotropic membrane (and its hinges).
    std::map<std::string, long> count;
    std::set<int> objects_of_triangle_terms;
    for (const ElementSet& set : s.element_sets) {
      count[set.term->name] += set.size();
      if (set.arity == 3 || set.term->kind == ObjectKind::Shell)
        for (int k = 0; k < set.size(); ++k) objects_of_triangle_terms.insert(set.object_of(k));
    }
    EXPECT_EQ(count["volume_fixed_corotated"], box_tets);
    EXPECT_EQ(count["volume_neo_hookean"], long(s.tets.size()) - box_tets);
    EXPECT_EQ(count["membrane_orthotropic"], 8);
    EXPECT_EQ(objects_of_triangle_terms, (std::set<int>{2}));
    // Pins and initial velocity as for other kinds.
    int pinned = 0;
    for (int v = 0; v < s.num_vertices; ++v)
      if (s.vertex_object[v] == 0 && s.kinematic(v)) {
        ++pinned;
        EXPECT_NEAR(s.rest[v].y(), -0.3, 1e-12);
      }
    EXPECT_EQ(pinned, 2 * 3);
    for (int v = 0; v < s.num_vertices; ++v)
      if (s.vertex_object[v] == 1) {
        EXPECT_EQ(s.velocity0(v), Vec3(0, -1, 0));
      }
  }
}

TEST(VolumeCase, VertexMassOverrides) {
  const CaseSpec spec = load_case_from_string(
      "objects:\n  - {kind: volume, mesh: {generator: box, resolution: [3, 3, 3]}, material: {vertex_mass: 0.125}}\n",
      "vm.yaml");
  const Scene s = build_scene(spec, 1);
  ASSERT_EQ(s.num_vertices, 27);
  for (double m : s.mass.to_vector()) EXPECT_EQ(m, 0.125);
}

// /mesh/tets (K, 4) in input vertex order; orthotropic warp directions (rest frame, in each
// triangle's plane) and limits; zeros elsewhere.
TEST(VolumeCase, ResultFileHoldsTetsAndWarp) {
  TempDir t;
  const CaseSpec spec = load_case_from_string(kVolumes, "vol.yaml");
  const Scene s = build_scene(spec, 1);
  const LocalView lv = make_local_view(s, MPI_COMM_SELF);
  const std::string path = t.file("vol.h5");
  {
    ResultFile out(path, s, lv);
    out.finish();
  }
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  std::vector<hsize_t> dims;
  const std::vector<long long> tets = read_i64(f, "/mesh/tets", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{s.tets.size(), 4}));
  for (size_t k = 0; k < s.tets.size(); ++k)
    for (int a = 0; a < 4; ++a) EXPECT_EQ(tets[4 * k + a], s.input_of_solver[s.tets[k][a]]);
  const TriMesh box = make_tet_box_for_test();
  for (size_t k = 0; k < box.tets.size(); ++k)
    for (int a = 0; a < 4; ++a) EXPECT_EQ(tets[4 * k + a], box.tets[k][a]);
  const size_t T = s.triangles.size();
  const std::vector<double> warp = read_f64(f, "/mesh/warp_direction", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{T, 3}));
  const std::vector<double> lw = read_f64(f, "/mesh/strain_limit_warp"), lf = read_f64(f, "/mesh/strain_limit_weft");
  ASSERT_EQ(lw.size(), T);
  ASSERT_EQ(lf.size(), T);
  int ortho = 0;
  for (size_t k = 0; k < T; ++k) {
    const Vec3 d(warp[3 * k], warp[3 * k + 1], warp[3 * k + 2]);
    if (s.triangle_object[k] == 2) {
      ++ortho;
      EXPECT_NEAR((d - Vec3(0, 0, 1)).norm(), 0, 1e-15) << k;  // +z lies in the grid's plane
      EXPECT_EQ(lw[k], 1.02);
      EXPECT_EQ(lf[k], 1.05);
    } else {
      EXPECT_EQ(d, Vec3::Zero());
      EXPECT_EQ(lw[k], 0.0);
      EXPECT_EQ(lf[k], 0.0);
    }
  }
  EXPECT_EQ(ortho, 8);
  H5Fclose(f);
}
