#include <gtest/gtest.h>

#include <filesystem>

#include "io/case_loader.hpp"
#include "io_test_util.hpp"

using namespace weft;
using weft::iotest::TempDir;

namespace {

const char* kFull = R"(
name: full
time: {dt: 0.02, frames: 7}
gravity: [0, -3.5, 1]
method: xpbd
solver:
  newton_tol: 5.0e-3
  max_newton: 30
  linear: {ksp: gmres, pc: hypre, rtol: 1.0e-8}
contact: {dhat: 2.0e-3, friction: 0.3, friction_iterations: 2, epsilon_v: 1.0e-4}
strain_limit_stiffness: 2000
output: {file: results/full.h5, every: 2, checkpoint_every: 0}
objects:
  - name: cloth
    kind: shell
    mesh: {generator: grid, size: [2.0, 1.5], resolution: [20, 10], jitter: 0.25, seed: 42}
    transform: {translate: [0, 1.0, 0], rotate: [90, 1, 0, 0], scale: 2.0}
    material: {model: stvk, density: 200, youngs: 1.0e5, poisson: 0.3,
               thickness: 1.0e-3, bending_youngs: 0}
    strain_limit: {max: 1.1, threshold: 1.02}
    contact: {offset: 1.0e-3, friction: 0.1}
    pins:
      - box: [[-1.1, 0.9, -0.1], [1.1, 1.1, 0.1]]
      - box: [[-1, -1, -1], [1, 1, 1]]
        motion:
          translate: {velocity: [0, 0.5, 0]}
          rotate: {axis: [0, 0, 2], center: [1, 2, 3], deg_per_s: 45}
          start: 0.5
          until: 1.5
    initial: {velocity: [0.1, 0.2, 0.3]}
  - name: ball
    kind: obstacle
    mesh: {generator: sphere, radius: 0.3, subdivisions: 2}
    contact: {offset: 2.0e-3}
    motion: {rotate: {axis: [0, 1, 0], deg_per_s: 10}, translate: {velocity: [1, 0, 0]}}
  - name: shirt
    mesh: {file: meshes/tri.obj}
  - kind: obstacle
    mesh: {generator: cylinder, radius: 0.2, height: 0.5, resolution: [16, 3], capped: false}
  - mesh: {generator: disk, radius: 0.4, resolution: [24, 4]}
  - mesh: {generator: box, size: [4, 0.1, 4], resolution: 9}
)";

const char* kTri = "v 0 0 0\nv 1 0 0\nv 0 0 -1\nf 1 2 3\n";

// A minimal valid case with `extra` spliced into the first object.
std::string with_object(const std::string& extra) {
  return "objects:\n  - name: cloth\n    mesh: {generator: grid, size: [1, 1], resolution: [4, 4]}\n" + extra;
}

}  // namespace

TEST(CaseLoader, FullCaseParsesToTheRightValues) {
  TempDir tmp;
  tmp.write("meshes/tri.obj", kTri);
  const std::string path = tmp.write("full.yaml", kFull);
  CaseSpec s = load_case(path, {});
  EXPECT_EQ(s.path, path);
  EXPECT_EQ(s.name, "full");
  EXPECT_EQ(s.dt, 0.02);
  EXPECT_EQ(s.frames, 7);
  EXPECT_EQ(s.gravity, Vec3(0, -3.5, 1));
  EXPECT_EQ(s.method, "xpbd");
  EXPECT_EQ(s.newton_tol, 5e-3);
  EXPECT_EQ(s.max_newton, 30);
  EXPECT_EQ(s.linear.ksp, "gmres");
  EXPECT_EQ(s.linear.pc, "hypre");
  EXPECT_EQ(s.linear.rtol, 1e-8);
  EXPECT_EQ(s.dhat, 2e-3);
  EXPECT_EQ(s.friction, 0.3);
  EXPECT_EQ(s.friction_iterations, 2);
  EXPECT_EQ(s.epsilon_v, 1e-4);
  EXPECT_EQ(s.kappa_s, 2000);
  EXPECT_EQ(s.output_file, "results/full.h5");  // relative to the working directory: kept as given
  EXPECT_EQ(s.output_every, 2);
  EXPECT_EQ(s.checkpoint_every, 0);
  ASSERT_EQ(s.objects.size(), 6u);

  const ObjectSpec& c = s.objects[0];
  EXPECT_EQ(c.name, "cloth");
  EXPECT_EQ(c.kind, ObjectKind::Shell);
  EXPECT_EQ(c.mesh.generator, "grid");
  EXPECT_TRUE(c.mesh.file.empty());
  EXPECT_EQ(c.mesh.size[0], 2.0);
  EXPECT_EQ(c.mesh.size[1], 1.5);
  EXPECT_EQ(c.mesh.resolution, (std::array<int, 2>{20, 10}));
  EXPECT_EQ(c.mesh.jitter, 0.25);
  EXPECT_EQ(c.mesh.seed, 42u);
  EXPECT_EQ(c.transform.translate, Vec3(0, 1, 0));
  EXPECT_EQ(c.transform.rotate_deg, 90);
  EXPECT_EQ(c.transform.rotate_axis, Vec3(1, 0, 0));
  EXPECT_EQ(c.transform.scale, 2.0);
  EXPECT_EQ(c.material.model, "stvk");
  EXPECT_EQ(c.material.density, 200);
  EXPECT_EQ(c.material.youngs, 1e5);
  EXPECT_EQ(c.material.poisson, 0.3);
  EXPECT_EQ(c.material.thickness, 1e-3);
  EXPECT_EQ(c.material.bending_youngs, 0);
  EXPECT_EQ(c.strain_limit, 1.1);
  EXPECT_EQ(c.strain_threshold, 1.02);
  EXPECT_EQ(c.offset, 1e-3);
  EXPECT_EQ(c.friction, 0.1);
  ASSERT_EQ(c.pins.size(), 2u);
  EXPECT_EQ(c.pins[0].box_min, Vec3(-1.1, 0.9, -0.1));
  EXPECT_EQ(c.pins[0].box_max, Vec3(1.1, 1.1, 0.1));
  EXPECT_FALSE(c.pins[0].motion.moving());
  const MotionSpec& pm = c.pins[1].motion;
  EXPECT_EQ(pm.velocity, Vec3(0, 0.5, 0));
  EXPECT_EQ(pm.rotate_axis, Vec3(0, 0, 1));  // normalised
  EXPECT_EQ(pm.rotate_center, Vec3(1, 2, 3));
  EXPECT_EQ(pm.deg_per_s, 45);
  EXPECT_EQ(pm.start, 0.5);
  EXPECT_EQ(pm.until, 1.5);
  EXPECT_EQ(c.initial_velocity, Vec3(0.1, 0.2, 0.3));

  const ObjectSpec& b = s.objects[1];
  EXPECT_EQ(b.kind, ObjectKind::Obstacle);
  EXPECT_EQ(b.mesh.generator, "sphere");
  EXPECT_EQ(b.mesh.radius, 0.3);
  EXPECT_EQ(b.mesh.subdivisions, 2);
  EXPECT_EQ(b.offset, 2e-3);
  EXPECT_EQ(b.friction, -1.0);  // use contact.friction
  EXPECT_EQ(b.motion.deg_per_s, 10);
  EXPECT_EQ(b.motion.velocity, Vec3(1, 0, 0));
  EXPECT_EQ(b.motion.until, MotionSpec{}.until);

  const ObjectSpec& sh = s.objects[2];
  EXPECT_EQ(sh.kind, ObjectKind::Shell);
  EXPECT_TRUE(sh.mesh.generator.empty());
  EXPECT_EQ(sh.mesh.file, (std::filesystem::path(tmp.dir()) / "meshes" / "tri.obj").string());
  EXPECT_TRUE(std::filesystem::path(sh.mesh.file).is_absolute());
  EXPECT_EQ(sh.strain_limit, 0.0);  // none
  EXPECT_EQ(sh.material.density, MaterialSpec{}.density);

  EXPECT_EQ(s.objects[3].name, "object3");
  EXPECT_EQ(s.objects[3].mesh.resolution, (std::array<int, 2>{16, 3}));
  EXPECT_FALSE(s.objects[3].mesh.capped);
  EXPECT_EQ(s.objects[4].mesh.resolution, (std::array<int, 2>{24, 4}));
  EXPECT_EQ(s.objects[5].mesh.size, Vec3(4, 0.1, 4));
  EXPECT_EQ(s.objects[5].mesh.resolution[0], 9);

  // Every object's mesh builds.
  for (size_t i = 0; i < s.objects.size(); ++i) EXPECT_NO_THROW(load_object_mesh(s, i)) << i;
  EXPECT_EQ(load_object_mesh(s, 2).triangles.size(), 1u);
}

TEST(CaseLoader, DefaultsAndNameFromStem) {
  TempDir tmp;
  const std::string path = tmp.write("my_scene.yaml", "objects:\n  - mesh: {generator: grid}\n"
                                                      "  - mesh: {generator: disk}\n"
                                                      "  - mesh: {generator: box}\n"
                                                      "  - mesh: {generator: cylinder, radius: 0.5, height: 1}\n"
                                                      "  - mesh: {generator: sphere}\n"
                                                      "  - mesh: {generator: grid, size: 2, resolution: 5}\n");
  CaseSpec s = load_case(path, {});
  EXPECT_EQ(s.name, "my_scene");
  EXPECT_EQ(s.output_file, "out/my_scene.h5");
  const CaseSpec d;
  EXPECT_EQ(s.dt, d.dt);
  EXPECT_EQ(s.frames, d.frames);
  EXPECT_EQ(s.method, "cipc");
  EXPECT_EQ(s.gravity, d.gravity);
  EXPECT_EQ(s.objects[0].name, "object0");
  EXPECT_EQ(s.objects[0].kind, ObjectKind::Shell);
  EXPECT_EQ(s.objects[0].mesh.resolution, (std::array<int, 2>{16, 16}));
  EXPECT_EQ(s.objects[0].mesh.size[0], 1.0);
  EXPECT_EQ(s.objects[0].mesh.jitter, 0.0);
  EXPECT_EQ(s.objects[1].mesh.resolution, (std::array<int, 2>{48, 8}));
  EXPECT_EQ(s.objects[2].mesh.resolution[0], 2);
  EXPECT_EQ(s.objects[2].mesh.size, Vec3(1, 1, 1));
  EXPECT_EQ(s.objects[3].mesh.resolution[0], 32);
  EXPECT_EQ(s.objects[3].mesh.resolution[1], 11);  // 1 m / (2 pi 0.5 / 32) ~ 10 bands
  EXPECT_TRUE(s.objects[3].mesh.capped);
  EXPECT_EQ(s.objects[4].mesh.subdivisions, 3);
  EXPECT_EQ(s.objects[5].mesh.size[1], 2.0);
  EXPECT_EQ(s.objects[5].mesh.resolution, (std::array<int, 2>{5, 5}));
  EXPECT_EQ(load_object_mesh(s, 2).triangles.size(), 12u);
  EXPECT_EQ(s.objects[0].strain_limit, 0.0);
  EXPECT_EQ(s.objects[0].friction, -1.0);
}

struct BadCase {
  std::string yaml;
  std::string fragment;
};

class CaseLoaderErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(CaseLoaderErrors, ThrowsInputErrorNamingTheKey) {
  const BadCase& bc = GetParam();
  EXPECT_INPUT_ERROR(load_case_from_string(bc.yaml, "case.yaml"), "case.yaml:");
  EXPECT_INPUT_ERROR(load_case_from_string(bc.yaml, "case.yaml"), bc.fragment);
}

INSTANTIATE_TEST_SUITE_P(
    All, CaseLoaderErrors,
    ::testing::Values(
        // unknown keys
        BadCase{"tme: {dt: 1}\n" + with_object(""), "case.yaml: unknown key 'tme' (expected one of: name, time, gravity"},
        BadCase{with_object("    materal: {density: 1}\n"),
                "case.yaml: unknown key 'objects[0].materal' (expected one of: name, kind, mesh, transform, material"},
        BadCase{"time: {dt: 0.1, frame: 3}\n" + with_object(""), "unknown key 'time.frame' (expected one of: dt, frames)"},
        BadCase{"solver: {linear: {kps: cg}}\n" + with_object(""), "unknown key 'solver.linear.kps'"},
        BadCase{with_object("    pins: [{box: [[0,0,0],[1,1,1]], motion: {translate: {speed: [0,1,0]}}}]\n"),
                "unknown key 'objects[0].pins[0].motion.translate.speed' (expected one of: velocity)"},
        BadCase{"time: {dt: 0.1, dt: 0.2}\n" + with_object(""), "time.dt: duplicate key"},
        // wrong types
        BadCase{"time: {dt: fast}\n" + with_object(""), "time.dt: expected a number, got 'fast'"},
        BadCase{"time: {frames: 2.5}\n" + with_object(""), "time.frames: expected an integer, got '2.5'"},
        BadCase{"time: 5\n" + with_object(""), "time: expected a mapping"},
        BadCase{"gravity: [0, -9.81]\n" + with_object(""), "gravity: expected a list of 3 numbers [x, y, z], got a list of 2"},
        BadCase{"gravity: [0, g, 0]\n" + with_object(""), "gravity[1]: expected a number, got 'g'"},
        BadCase{"gravity: [0, .nan, 0]\n" + with_object(""), "gravity[1]: expected a finite number"},
        BadCase{"name: [a, b]\n" + with_object(""), "name: expected a string, got a list"},
        BadCase{"objects: {mesh: {generator: grid}}\n", "objects: expected a list of objects, got a mapping"},
        BadCase{"objects: [cloth]\n", "objects[0]: expected a mapping"},
        BadCase{with_object("    transform: {rotate: [90, 1, 0]}\n"),
                "objects[0].transform.rotate: expected [degrees, axis_x, axis_y, axis_z]"},
        BadCase{with_object("    initial: {velocity: 3}\n"), "objects[0].initial.velocity: expected a list of 3 numbers"},
        BadCase{with_object("    pins: {box: [[0,0,0],[1,1,1]]}\n"), "objects[0].pins: expected a list"},
        BadCase{"objects:\n  - mesh: {generator: cylinder, capped: maybe}\n", "objects[0].mesh.capped: expected true or false"},
        BadCase{"objects:\n  - mesh: {generator: funnel, radius: 0.5}\n",
                "objects[0].mesh.radius: is not used by generator 'funnel' (it takes: top_radius, bottom_radius, height, resolution)"},
        BadCase{"objects:\n  - mesh: {generator: funnel, bottom_radius: -0.1}\n", "objects[0].mesh.bottom_radius: must be > 0"},
        BadCase{"objects:\n  - mesh: {generator: funnel, resolution: [2, 4]}\n", "objects[0].mesh.resolution[0]: must be >= 3"},
        BadCase{"objects:\n  - mesh: {generator: funnel, top_radius: wide}\n", "objects[0].mesh.top_radius: expected a number"},
        BadCase{"method: fem\n" + with_object(""), "method: expected one of: cipc, pbd, xpbd, mass_spring, pd (got 'fem')"},
        BadCase{with_object("    material: {model: linear}\n"), "objects[0].material.model: expected one of: neo_hookean, stvk"},
        BadCase{"solver: {linear: {ksp: 'cg -x'}}\n" + with_object(""), "solver.linear.ksp: expected a PETSc type name"},
        // out of range
        BadCase{"time: {dt: -0.1}\n" + with_object(""), "time.dt: must be > 0 (seconds) (got -0.1)"},
        BadCase{"time: {dt: 0}\n" + with_object(""), "time.dt: must be > 0"},
        BadCase{"time: {frames: -1}\n" + with_object(""), "time.frames: must be >= 0 (got -1)"},
        BadCase{with_object("    material: {density: -1}\n"), "objects[0].material.density: must be > 0 (kg/m^3) (got -1)"},
        BadCase{with_object("    material: {youngs: 0}\n"), "objects[0].material.youngs: must be > 0"},
        BadCase{with_object("    material: {thickness: -1e-4}\n"), "objects[0].material.thickness: must be > 0"},
        BadCase{with_object("    material: {poisson: 0.5}\n"), "objects[0].material.poisson: must be in (-1, 0.5) (got 0.5)"},
        BadCase{with_object("    material: {poisson: -1}\n"), "objects[0].material.poisson: must be in (-1, 0.5)"},
        BadCase{with_object("    material: {bending_youngs: -2}\n"), "objects[0].material.bending_youngs: must be >= 0"},
        BadCase{with_object("    strain_limit: {max: 0.9}\n"), "objects[0].strain_limit.max: must be >= 1"},
        BadCase{with_object("    strain_limit: {max: 1.0}\n"),
                "objects[0].strain_limit.max: must be > strain_limit.threshold = 1 (got 1)"},
        BadCase{with_object("    strain_limit: {max: 1.1, threshold: 1.2}\n"), "objects[0].strain_limit.max: must be > strain_limit.threshold"},
        BadCase{with_object("    strain_limit: {max: 1.1, threshold: 0.9}\n"), "objects[0].strain_limit.threshold: must be >= 1"},
        BadCase{with_object("    strain_limit: {threshold: 1.0}\n"), "missing required key 'objects[0].strain_limit.max'"},
        BadCase{"objects:\n  - mesh: {generator: grid, jitter: 0.5}\n", "objects[0].mesh.jitter: must be in [0, 0.4] (got 0.5)"},
        BadCase{"objects:\n  - mesh: {generator: grid, jitter: -0.1}\n", "objects[0].mesh.jitter: must be in [0, 0.4]"},
        BadCase{"objects:\n  - mesh: {generator: grid, resolution: [1, 10]}\n", "objects[0].mesh.resolution[0]: must be >= 2 (got 1)"},
        BadCase{"objects:\n  - mesh: {generator: grid, resolution: 1}\n", "objects[0].mesh.resolution: must be >= 2"},
        BadCase{"objects:\n  - mesh: {generator: grid, size: [1, 0]}\n", "objects[0].mesh.size[1]: must be > 0"},
        BadCase{"objects:\n  - mesh: {generator: sphere, radius: 0}\n", "objects[0].mesh.radius: must be > 0"},
        BadCase{"objects:\n  - mesh: {generator: sphere, subdivisions: 12}\n", "objects[0].mesh.subdivisions: must be in [0, 8]"},
        BadCase{"objects:\n  - mesh: {generator: box, resolution: 1}\n", "objects[0].mesh.resolution: must be >= 2"},
        BadCase{"objects:\n  - mesh: {generator: disk, resolution: [5, 5]}\n",
                "objects[0].mesh.resolution[0]: must be >= 7 for 5 rings"},
        BadCase{"objects:\n  - mesh: {generator: cylinder, resolution: [16, 1]}\n", "objects[0].mesh.resolution[1]: must be >= 2"},
        BadCase{"objects:\n  - mesh: {generator: grid, seed: -3}\n", "objects[0].mesh.seed: must be in [0, 4294967295]"},
        BadCase{"objects:\n  - mesh: {file: nowhere/shirt.obj}\n", "objects[0].mesh.file: mesh file not found: '"},
        BadCase{with_object("    transform: {scale: 0}\n"), "objects[0].transform.scale: must be > 0"},
        BadCase{with_object("    transform: {rotate: [30, 0, 0, 0]}\n"), "objects[0].transform.rotate: the rotation axis must be non-zero"},
        BadCase{with_object("    contact: {offset: -1}\n"), "objects[0].contact.offset: must be >= 0"},
        BadCase{"contact: {dhat: 0}\n" + with_object(""), "contact.dhat: must be > 0"},
        BadCase{"contact: {friction: -0.1}\n" + with_object(""), "contact.friction: must be >= 0"},
        BadCase{"solver: {max_newton: 0}\n" + with_object(""), "solver.max_newton: must be >= 1"},
        BadCase{"solver: {linear: {rtol: 2}}\n" + with_object(""), "solver.linear.rtol: must be in (0, 1)"},
        BadCase{"solver: {linear: {factor_reuse_its: -1}}\n" + with_object(""),
                "solver.linear.factor_reuse_its: must be in [0, 100000]"},
        BadCase{"output: {every: 0}\n" + with_object(""), "output.every: must be >= 1"},
        BadCase{"strain_limit_stiffness: -5\n" + with_object(""), "strain_limit_stiffness: must be > 0"},
        BadCase{with_object("    pins: [{box: [[0,0,0],[1,-1,1]]}]\n"), "objects[0].pins[0].box: min must be <= max"},
        BadCase{with_object("    pins: [{box: [[0,0,0]]}]\n"), "objects[0].pins[0].box: expected [[min_x, min_y, min_z], [max_x, max_y, max_z]]"},
        BadCase{with_object("    pins: [{motion: {}}]\n"), "objects[0].pins[0]: missing required key 'box'"},
        BadCase{with_object("    pins: [{box: [[0,0,0],[1,1,1]], motion: {start: 2, until: 1}}]\n"),
                "objects[0].pins[0].motion.until: must be > start"},
        BadCase{with_object("    pins: [{box: [[0,0,0],[1,1,1]], motion: {rotate: {axis: [0,0,0]}}}]\n"),
                "objects[0].pins[0].motion.rotate.axis: must be a non-zero vector"},
        // missing / structural
        BadCase{"time: {dt: 0.1}\n", "case.yaml: missing required key 'objects'"},
        BadCase{"objects: []\n", "objects: must list at least one object"},
        BadCase{"objects:\n  - name: cloth\n", "missing required key 'objects[0].mesh'"},
        BadCase{"objects:\n  - mesh: {radius: 1}\n", "objects[0].mesh: needs 'generator'"},
        BadCase{"objects:\n  - mesh: {generator: grid, file: a.obj}\n", "objects[0].mesh: give either 'generator' or 'file'"},
        BadCase{"objects:\n  - mesh: {generator: torus}\n", "objects[0].mesh.generator: expected one of: grid, disk, sphere, box, cylinder"},
        BadCase{"objects:\n  - mesh: {generator: grid, radius: 1}\n",
                "objects[0].mesh.radius: is not used by generator 'grid' (it takes: size, resolution, jitter, seed)"},
        BadCase{"objects:\n  - mesh: {generator: sphere, resolution: 4}\n", "objects[0].mesh.resolution: is not used by generator 'sphere'"},
        BadCase{"objects:\n  - mesh: {file: a.obj, jitter: 0.1}\n", "objects[0].mesh.jitter: is not used by a mesh file"},
        BadCase{"objects:\n  - {kind: rigid, mesh: {generator: box}}\n",
                "objects[0].kind: 'rigid' is not supported yet (supported: shell, rod, particles, volume, obstacle)"},
        BadCase{"objects:\n  - {kind: rod, mesh: {generator: box}, material: {radius: 1}}\n",
                "objects[0].mesh.generator: 'box' is not a generator for kind 'rod'"},
        BadCase{"objects:\n  - {kind: particles, mesh: {generator: box}}\n", "'box' is not a generator for kind 'particles'"},
        BadCase{"objects:\n  - {kind: volume, mesh: {generator: disk}}\n", "'disk' is not a generator for kind 'volume'"},
        BadCase{"objects:\n  - {kind: cloth, mesh: {generator: box}}\n", "objects[0].kind: expected one of: shell, rod, particles, volume, obstacle (got 'cloth')"},
        BadCase{"objects:\n  - {kind: obstacle, mesh: {generator: box}, material: {density: 1}}\n",
                "objects[0].material: is not used by kind 'obstacle'"},
        BadCase{"objects:\n  - {kind: obstacle, mesh: {generator: box}, pins: []}\n", "objects[0].pins: is not used by kind 'obstacle'"},
        BadCase{with_object("    motion: {translate: {velocity: [0, 1, 0]}}\n"), "objects[0].motion: is not used by kind 'shell'"},
        BadCase{with_object("  - name: cloth\n    mesh: {generator: sphere}\n"),
                "objects[1].name: 'cloth' is already the name of objects[0]"},
        BadCase{"", "case.yaml: the case file is empty"},
        BadCase{"- a\n- b\n", "case.yaml: expected a mapping of keys at the top level, got a list"},
        BadCase{"time: {dt: 0.1\nobjects: []\n", "case.yaml:2:"},
        BadCase{"time: {dt: 0.1}\n  bad indent: 1\n", "YAML syntax error"}));

TEST(CaseLoader, MissingCaseFile) {
  TempDir tmp;
  EXPECT_INPUT_ERROR(load_case(tmp.file("nope.yaml")), "nope.yaml: case file not found");
  EXPECT_INPUT_ERROR(load_case(tmp.dir()), "is a directory");
}

TEST(CaseLoader, MeshFileRelativeToCaseFolderAndUnsupportedFormat) {
  TempDir tmp;
  tmp.write("sub/meshes/tri.obj", kTri);
  tmp.write("sub/meshes/tri.ply", "ply\n");
  const std::string path = tmp.write("sub/c.yaml", "objects:\n  - mesh: {file: meshes/tri.obj}\n");
  CaseSpec s = load_case(path);
  EXPECT_EQ(s.objects[0].mesh.file, std::filesystem::path(tmp.file("sub/meshes/tri.obj")).lexically_normal().string());
  tmp.write("sub/d.yaml", "objects:\n  - mesh: {file: meshes/tri.ply}\n");
  EXPECT_INPUT_ERROR(load_case(tmp.file("sub/d.yaml")), "objects[0].mesh.file: unsupported mesh format '.ply'");
  // A case referring to a bad mesh loads; building the mesh names case, object and file.
  tmp.write("sub/meshes/fin.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nf 1 2 3\nf 2 4 3\nf 2 3 5\n");
  const std::string fin = tmp.write("sub/fin.yaml", "objects:\n  - {name: fin, mesh: {file: meshes/fin.obj}}\n");
  CaseSpec f = load_case(fin);
  EXPECT_INPUT_ERROR(load_object_mesh(f, 0), fin + ": objects[0] (fin) mesh ");
  EXPECT_INPUT_ERROR(load_object_mesh(f, 0), "fin.obj: non-manifold edge (1, 2)");
}

// The example in DESIGN.md "Case files — the minimum every version accepts", verbatim.
TEST(CaseLoader, DesignDocExample) {
  const char* design = R"(
name: drape
time: {dt: 0.04, frames: 50}
gravity: [0, -9.81, 0]
method: cipc                 # cipc | pbd | xpbd | mass_spring | pd
solver: {newton_tol: 1.0e-2, max_newton: 200, linear: {ksp: cg, pc: gamg}}
contact: {dhat: 1.0e-3, friction: 0.4, friction_iterations: 1}
output: {file: out/drape.h5, every: 1, checkpoint_every: 10}
objects:
  - name: cloth
    kind: shell              # shell | rod | particles | volume | rigid | obstacle
    mesh: {generator: grid, size: [1.0, 1.0], resolution: [64, 64]}   # or {file: path.obj}
    transform: {translate: [0, 1.0, 0], rotate: [90, 1, 0, 0], scale: 1.0}
    material: {model: neo_hookean, density: 472.6, youngs: 8.0e5, poisson: 0.243,
               thickness: 3.18e-4, bending_youngs: 8.0e5}
    strain_limit: {max: 1.06}
    contact: {offset: 0.0}   # xi, the hard thickness; pairs use (xi_i + xi_j) / 2
    pins: [{box: [[-0.51, 0.9, -0.51], [0.51, 1.1, -0.49]]}]
    initial: {velocity: [0, 0, 0]}
  - name: ball
    kind: obstacle           # kinematic: follows its motion, never reacts
    mesh: {generator: sphere, radius: 0.3, subdivisions: 4}
    motion: {rotate: {axis: [0, 1, 0], deg_per_s: 0}, translate: {velocity: [0, 0, 0]}}
)";
  CaseSpec s = load_case_from_string(design, "drape.yaml");
  EXPECT_EQ(s.name, "drape");
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[0].mesh.resolution, (std::array<int, 2>{64, 64}));
  EXPECT_EQ(s.objects[0].strain_limit, 1.06);
  EXPECT_EQ(s.objects[0].material.bending_youngs, 8.0e5);
  EXPECT_EQ(s.objects[1].kind, ObjectKind::Obstacle);
  EXPECT_EQ(s.objects[1].mesh.subdivisions, 4);
  EXPECT_EQ(s.linear.pc, "gamg");
  EXPECT_EQ(s.checkpoint_every, 10);
  EXPECT_EQ(load_object_mesh(s, 1).vertices.size(), 2562u);
}

TEST(CaseLoader, FunnelGeneratorValuesAndDefaults) {
  TempDir tmp;
  const std::string path =
      tmp.write("f.yaml", "objects:\n"
                          "  - kind: obstacle\n"
                          "    mesh: {generator: funnel, top_radius: 0.4, bottom_radius: 0.08, height: 0.3,"
                          " resolution: [24, 5]}\n"
                          "  - kind: obstacle\n    mesh: {generator: funnel}\n");
  CaseSpec s = load_case(path, {});
  const MeshSpec& m = s.objects[0].mesh;
  EXPECT_EQ(m.generator, "funnel");
  EXPECT_EQ(m.top_radius, 0.4);
  EXPECT_EQ(m.bottom_radius, 0.08);
  EXPECT_EQ(m.height, 0.3);
  EXPECT_EQ(m.resolution, (std::array<int, 2>{24, 5}));
  EXPECT_EQ(load_object_mesh(s, 0).vertices.size(), 120u);
  // Defaults: 0.5 / 0.1 / 1, 32 around and rings about as far apart as the top rim's edges.
  const MeshSpec& d = s.objects[1].mesh;
  EXPECT_EQ(d.top_radius, 0.5);
  EXPECT_EQ(d.bottom_radius, 0.1);
  EXPECT_EQ(d.height, 1.0);
  EXPECT_EQ(d.resolution[0], 32);
  EXPECT_EQ(d.resolution[1], 12);  // slant 1.077 m / (2 pi 0.5 / 32) ~ 11 bands
}
