#include <gtest/gtest.h>

#include "io/case_loader.hpp"
#include "io/case_scaling.hpp"

using namespace weft;

namespace {

const char* kCase = R"(
name: mix
time: {dt: 0.01, frames: 1}
objects:
  - name: cloth
    kind: shell
    mesh: {generator: grid, size: [1, 1], resolution: [64, 32]}
    material: {density: 200, youngs: 1.0e5, poisson: 0.3, thickness: 1.0e-3}
  - name: grains
    kind: particles
    mesh: {generator: particle_block, size: [0.1, 0.1, 0.1], resolution: [40, 20, 8]}
    material: {density: 1600, radius: 1.0e-3}
    transform: {translate: [0, 1, 0]}
  - name: noodle
    kind: rod
    mesh: {generator: line, length: 1.0, segments: 100}
    material: {density: 1000, youngs: 1.0e7, radius: 1.0e-3}
    transform: {translate: [0, 2, 0]}
  - name: ball
    kind: obstacle
    mesh: {generator: sphere, radius: 0.2, subdivisions: 5}
    transform: {translate: [0, -1, 0]}
  - name: skirt
    kind: obstacle
    mesh: {generator: cylinder, radius: 0.3, height: 0.5, resolution: [100, 40], capped: false}
    transform: {translate: [0, -3, 0]}
  - name: jelly
    kind: volume
    mesh: {generator: box, size: [0.1, 0.1, 0.1], resolution: [12, 12, 12]}
    material: {density: 1000, youngs: 1.0e5, poisson: 0.3}
    transform: {translate: [0, 3, 0]}
)";

}  // namespace

TEST(CaseScaling, EachGeneratorScalesItsVertexCount) {
  const CaseSpec full = load_case_from_string(kCase, "mix.yaml");
  const CaseSpec q = scaled_case(full, 0.25);
  EXPECT_EQ(q.objects[0].mesh.resolution, (std::array<int, 2>{32, 16}));  // sqrt per side
  EXPECT_EQ(q.objects[1].mesh.block, (std::array<int, 3>{25, 13, 5}));     // cbrt per axis
  EXPECT_EQ(q.objects[2].mesh.segments, 25);
  EXPECT_EQ(q.objects[3].mesh.subdivisions, 4);                            // 4x per subdivision
  EXPECT_EQ(q.objects[4].mesh.resolution, (std::array<int, 2>{50, 20}));
  EXPECT_EQ(q.objects[5].mesh.block, (std::array<int, 3>{8, 8, 8}));
  EXPECT_EQ(full.objects[0].mesh.resolution, (std::array<int, 2>{64, 32}));  // the original is untouched
  // Every count stays at its generator's minimum.
  const CaseSpec tiny = scaled_case(full, 1e-9);
  EXPECT_EQ(tiny.objects[0].mesh.resolution, (std::array<int, 2>{2, 2}));
  EXPECT_EQ(tiny.objects[3].mesh.subdivisions, 0);
  EXPECT_EQ(tiny.objects[4].mesh.resolution, (std::array<int, 2>{3, 2}));
  EXPECT_EQ(tiny.objects[5].mesh.block, (std::array<int, 3>{2, 2, 2}));
  // The vertex count follows the factor (within the rounding of each side).
  const double n = static_cast<double>(count_case_vertices(full));
  const double nq = static_cast<double>(count_case_vertices(q));
  EXPECT_EQ(count_case_vertices(tiny) > 0, true);
  EXPECT_NEAR(nq / n, 0.25, 0.03);
}
