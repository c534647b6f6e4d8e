// build_scene's partition: obstacles go with the cloth beside them (partition/kinematic_owner.hpp).
#include <gtest/gtest.h>

#include <filesystem>

#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"

using namespace weft;
namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(WEFT_TEST_DIR) / "..";

// Every obstacle vertex has the part of its nearest dynamic vertex (brute force).
void expect_obstacles_with_nearest_cloth(const Scene& s) {
  std::vector<int> dyn;
  for (int v = 0; v < s.num_vertices; ++v)
    if (!s.kinematic(v)) dyn.push_back(v);
  ASSERT_FALSE(dyn.empty());
  int checked = 0;
  for (int v = 0; v < s.num_vertices; ++v) {
    if (s.objects[s.vertex_object[v]].kind != ObjectKind::Obstacle) continue;
    // Nearest, ties to the lower input id (the partition's vertex numbering).
    int best = dyn[0];
    for (int d : dyn) {
      const double a = (s.rest[d] - s.rest[v]).squaredNorm(), b = (s.rest[best] - s.rest[v]).squaredNorm();
      if (a < b || (a == b && s.input_of_solver[d] < s.input_of_solver[best])) best = d;
    }
    ASSERT_EQ(s.partition_of(v), s.partition_of(best)) << "vertex " << v;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace

// Two separate drapes, one per rank: each sphere lives with its own cloth (METIS alone put
// both spheres and the ground on one rank).
TEST(ScenePartition, TwinDrapesKeepTheirSpheres) {
  const CaseSpec spec = load_case((kRoot / "bench" / "cases" / "drape_twin.yaml").string(), {});
  const Scene s = build_scene(spec, 2);
  int cloth_part[2] = {-1, -1};
  for (int v = 0; v < s.num_vertices; ++v) {
    const int o = s.vertex_object[v];
    if (o < 2) {
      if (cloth_part[o] < 0) cloth_part[o] = s.partition_of(v);
      ASSERT_EQ(s.partition_of(v), cloth_part[o]) << "a cloth is split";
    }
  }
  ASSERT_NE(cloth_part[0], cloth_part[1]);
  for (int v = 0; v < s.num_vertices; ++v) {
    const int o = s.vertex_object[v];
    if (o == 2 || o == 3) {
      EXPECT_EQ(s.partition_of(v), cloth_part[o - 2]) << s.objects[o].name;
    }
  }
  expect_obstacles_with_nearest_cloth(s);
}

TEST(ScenePartition, DrapeSphereSplitsWithTheCloth) {
  const CaseSpec spec = load_case((kRoot / "cases" / "drape_default.yaml").string(), {});
  for (int ranks : {2, 3}) {
    SCOPED_TRACE(ranks);
    const Scene s = build_scene(spec, ranks);
    expect_obstacles_with_nearest_cloth(s);
  }
}
