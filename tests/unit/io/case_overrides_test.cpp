#include <gtest/gtest.h>

#include "io/case_loader.hpp"
#include "io_test_util.hpp"

using namespace weft;

namespace {

const char* kBase = R"(
time: {dt: 0.04, frames: 10}
objects:
  - name: cloth
    mesh: {generator: grid, size: [1, 1], resolution: [8, 8]}
    material: &cotton {density: 472.6, youngs: 8.0e5}
    pins: [{box: [[0, 0, 0], [1, 1, 1]]}]
  - name: other
    mesh: {generator: grid}
    material: *cotton
)";

CaseSpec load(const std::vector<std::string>& sets) { return load_case_from_string(kBase, "base.yaml", sets); }

}  // namespace

TEST(CaseOverrides, ChangeValues) {
  CaseSpec s = load({"time.dt=0.02", "objects.0.material.youngs=1e5", "solver.linear.ksp=gmres",
                     "gravity=[0, -1.62, 0]", "objects[1].mesh.resolution=[5, 6]", "name=moon",
                     "contact.friction=0.25", "objects.0.pins.0.box=[[-1,-1,-1],[2,2,2]]",
                     "objects.0.strain_limit={max: 1.05}", "time.frames=3"});
  EXPECT_EQ(s.dt, 0.02);
  EXPECT_EQ(s.frames, 3);
  EXPECT_EQ(s.objects[0].material.youngs, 1e5);
  EXPECT_EQ(s.linear.ksp, "gmres");
  EXPECT_EQ(s.gravity, Vec3(0, -1.62, 0));
  EXPECT_EQ(s.objects[1].mesh.resolution, (std::array<int, 2>{5, 6}));
  EXPECT_EQ(s.name, "moon");
  EXPECT_EQ(s.output_file, "out/moon.h5");
  EXPECT_EQ(s.friction, 0.25);
  EXPECT_EQ(s.objects[0].pins[0].box_min, Vec3(-1, -1, -1));
  EXPECT_EQ(s.objects[0].strain_limit, 1.05);
  // The anchored material is shared in the file, but the override changes only object 0.
  EXPECT_EQ(s.objects[1].material.youngs, 8e5);
  // Later overrides win; list elements can be set one by one.
  CaseSpec t = load({"time.dt=0.1", "time.dt=0.05", "gravity=[0, -9.81, 0]", "gravity.1=-3"});
  EXPECT_EQ(t.dt, 0.05);
  EXPECT_EQ(t.gravity, Vec3(0, -3, 0));
  // Without overrides the file's values stand.
  CaseSpec u = load({});
  EXPECT_EQ(u.dt, 0.04);
  EXPECT_EQ(u.objects[0].material.youngs, 8e5);
}

TEST(CaseOverrides, Errors) {
  EXPECT_INPUT_ERROR(load({"time.dtt=0.1"}),
                     "base.yaml: --set time.dtt=0.1: unknown key 'time.dtt' (expected one of: dt, frames)");
  EXPECT_INPUT_ERROR(load({"objects.0.materal.youngs=1"}), "unknown key 'objects[0].materal'");
  EXPECT_INPUT_ERROR(load({"colour=red"}), "--set colour=red: unknown key 'colour'");
  EXPECT_INPUT_ERROR(load({"objects.5.name=x"}), "'objects[5]' does not exist ('objects' has 2 items)");
  EXPECT_INPUT_ERROR(load({"objects.first.name=x"}), "'objects' is a list: expected an item number");
  EXPECT_INPUT_ERROR(load({"time.dt.x=1"}), "'time.dt' is not a mapping");
  EXPECT_INPUT_ERROR(load({"time.dt"}), "--set time.dt: expected key.path=value");
  EXPECT_INPUT_ERROR(load({"=3"}), "expected key.path=value");
  EXPECT_INPUT_ERROR(load({"time.dt="}), "empty value");
  EXPECT_INPUT_ERROR(load({"time..dt=1"}), "empty key");
  EXPECT_INPUT_ERROR(load({"gravity=[0, 1"}), "cannot parse the value as YAML");
  EXPECT_INPUT_ERROR(load({"objects.0.initial.velocity.1=2"}), "'objects[0].initial.velocity' is not in the case file");
  // A valid key with a bad value is reported by validation, pointing at the override.
  EXPECT_INPUT_ERROR(load({"time.dt=abc"}), "base.yaml: time.dt: expected a number, got 'abc' (from --set time.dt=abc)");
  EXPECT_INPUT_ERROR(load({"objects.1.material.poisson=0.7"}),
                     "objects[1].material.poisson: must be in (-1, 0.5) (got 0.7) (from --set objects.1.material.poisson=0.7)");
  EXPECT_INPUT_ERROR(load({"objects.0.mesh={generator: grid, radius: 2}"}),
                     "objects[0].mesh.radius: is not used by generator 'grid'");
}

TEST(CaseOverrides, CreatesMissingSections) {
  CaseSpec s = load({"solver.linear.pc=jacobi", "output.file=/tmp/x.h5", "objects.1.transform.scale=2"});
  EXPECT_EQ(s.linear.pc, "jacobi");
  EXPECT_EQ(s.output_file, "/tmp/x.h5");
  EXPECT_EQ(s.objects[1].transform.scale, 2.0);
  // Even on an empty file (which then still fails for lack of objects).
  EXPECT_INPUT_ERROR(load_case_from_string("", "e.yaml", {"time.dt=1"}), "e.yaml: missing required key 'objects'");
}
