// The start's check (methods/initial_check.hpp) at 1, 2 and 3 ranks: each rank reads only
// its part of the scene (the triangles and vertices a run keeps after LocalView) and the
// primitives the other ranks send it, and the merged counts, smallest gap and example pairs
// must be exactly those of one process checking the whole scene. A near pair missing from a
// rank's exchange would show as a lower pair count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"
#include "methods/initial_check.hpp"
#include "parallel/local_view.hpp"

namespace {

struct Case {
  const char* path;  // under tests/ or the source tree's cases/
  std::vector<std::string> overrides;
};

weft::verify::Stats whole_check(const weft::CaseSpec& spec) {
  const weft::Scene whole = weft::build_scene(spec, 1);
  return weft::check_start(whole, MPI_COMM_SELF);
}

// The scene as a run on MPI_COMM_WORLD holds it: built under the communicator, then cut to
// the rank's part.
weft::verify::Stats part_check(const weft::CaseSpec& spec, bool* is_part) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  weft::SceneOptions options;
  options.comm = MPI_COMM_WORLD;
  weft::Scene scene = weft::build_scene(spec, ranks, options);
  weft::ContactSupport support;
  const weft::LocalView lv = weft::make_local_view(scene, MPI_COMM_WORLD, ranks > 1 ? &support : nullptr);
  if (ranks > 1) {
    scene.keep_vertex_part(lv.vbegin, lv.vend, support.vertices);
    scene.keep_triangle_part(std::move(support.triangles));
    scene.keep_primitive_part(std::move(support.segments), std::move(support.points), std::move(support.tets));
  }
  *is_part = scene.vertex_part && scene.triangle_part && scene.primitive_part;
  return weft::check_start(scene, MPI_COMM_WORLD);
}

void expect_same_pair(const weft::verify::PairRef& a, const weft::verify::PairRef& b, const std::string& what) {
  EXPECT_EQ(a.kind_a, b.kind_a) << what;
  EXPECT_EQ(a.a, b.a) << what;
  EXPECT_EQ(a.kind_b, b.kind_b) << what;
  EXPECT_EQ(a.b, b.b) << what;
}

TEST(InitialCheck, PartsGiveTheWholeScenesCountsAndExamples) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string tests = WEFT_TEST_DIR, cases = tests + "/../cases/";
  // Valid starts with many near pairs across the parts' borders (stacked cloths, rods and
  // particles beside cloth), and refused ones: crossing cloths, a rod through a cloth,
  // overlapping particles.
  const std::vector<Case> all = {
      {"cloth_stack.yaml", {}},
      {"codim/mixed.yaml", {}},
      {"rod_net.yaml", {}},
      {"sprinkles.yaml", {}},
      {"bad_starts/self_intersecting.yaml", {}},
      {"bad_starts/rod_through_cloth.yaml", {}},
      {"bad_starts/particles_overlap.yaml", {}},
  };
  for (const Case& c : all) {
    const std::string name = c.path;
    const std::string path =
        (name.find('/') == std::string::npos ? cases : tests + "/data/") + name;
    const weft::CaseSpec spec = weft::load_case(path, c.overrides);
    const weft::verify::Stats one = whole_check(spec);
    bool is_part = false;
    const weft::verify::Stats s = part_check(spec, &is_part);
    EXPECT_EQ(is_part, ranks > 1) << name;
    EXPECT_GT(one.candidate_pairs, 0) << name << ": a check with no pair tests nothing";
    EXPECT_EQ(s.candidate_pairs, one.candidate_pairs) << name;
    EXPECT_EQ(s.distance_pairs, one.distance_pairs) << name;
    EXPECT_EQ(s.intersections, one.intersections) << name;
    EXPECT_EQ(s.distance_violations, one.distance_violations) << name;
    EXPECT_EQ(s.distance_gap, one.distance_gap) << name;  // (bitwise: the same predicates on the same positions)
    expect_same_pair(s.distance_pair, one.distance_pair, name + " distance");
    if (one.intersections > 0) expect_same_pair(s.intersection_pair, one.intersection_pair, name + " intersection");
  }
}

}  // namespace
