// A scene built on rank 0 and sent out in parts (io/scene_parts.hpp, SceneOptions::send_parts),
// or a particle scene each rank builds its own part of (io/particle_parts.hpp), at 1, 2 and
// 3 ranks: every rank's part must hold exactly what the whole scene, built on
// this process alone and cut the way a run cuts it (LocalView's support, the triangles with a
// vertex in the block, the stencils touching the block), holds there: the same values, ids,
// objects, whole-set indices and rest bytes. And no rank but 0 receives more than its part.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "energy/membrane_orthotropic.hpp"
#include "energy/tri_rest.hpp"
#include "io/case_loader.hpp"
#include "io/particle_parts.hpp"
#include "io/scene_loader.hpp"
#include "parallel/local_view.hpp"

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same(const weft::TriRest& a, const weft::TriRest& b) {
  return std::memcmp(a.Dm_inv.data(), b.Dm_inv.data(), 4 * sizeof(double)) == 0 && same_bits(a.area, b.area);
}

// The rest data of two sets, entry by entry. Bytes, except for the types holding a TriRest:
// its 2x2 Eigen matrix is 16-byte aligned, so the struct ends in 8 padding bytes whose
// contents are not values (they travel as they are, but two builds leave different ones).
bool same_rest(const weft::ElementSet& p, const weft::ElementSet& c) {
  if (p.holds<weft::TriRest>()) {
    const auto &a = p.rest<weft::TriRest>(), &b = c.rest<weft::TriRest>();
    for (size_t k = 0; k < a.size(); ++k)
      if (!same(a[k], b[k])) return false;
    return a.size() == b.size();
  }
  if (p.holds<weft::OrthotropicRest>()) {
    const auto &a = p.rest<weft::OrthotropicRest>(), &b = c.rest<weft::OrthotropicRest>();
    for (size_t k = 0; k < a.size(); ++k)
      if (!same(a[k].tri, b[k].tri) || std::memcmp(&a[k].p, &b[k].p, sizeof a[k].p) != 0 ||
          std::memcmp(a[k].warp.data(), b[k].warp.data(), 3 * sizeof(double)) != 0)
        return false;
    return a.size() == b.size();
  }
  weft::ByteWriter wp, wc;
  std::vector<int> all(static_cast<size_t>(c.size()));
  for (int k = 0; k < c.size(); ++k) all[k] = k;
  p.pack(all, wp);
  c.pack(all, wc);
  return wp.bytes() == wc.bytes();
}

void expect_same_part(const weft::Scene& whole, const weft::Scene& part, int rank, const std::string& name) {
  ASSERT_EQ(part.num_vertices, whole.num_vertices) << name;
  ASSERT_EQ(part.vertex_range, whole.vertex_range) << name;
  EXPECT_TRUE(part.input_of_solver == whole.input_of_solver.to_vector()) << name;
  EXPECT_TRUE(part.solver_of_input == whole.solver_of_input.to_vector()) << name;
  EXPECT_TRUE(part.vertex_object == whole.vertex_object.to_vector()) << name;
  EXPECT_TRUE(part.vertex_motion == whole.vertex_motion.to_vector()) << name;
  EXPECT_TRUE(part.triangle_object == whole.triangle_object.to_vector()) << name;
  EXPECT_EQ(part.partitioner, whole.partitioner) << name;
  ASSERT_EQ(part.objects.size(), whole.objects.size()) << name;
  for (size_t o = 0; o < whole.objects.size(); ++o) {
    EXPECT_EQ(part.objects[o].name, whole.objects[o].name) << name;
    EXPECT_EQ(part.objects[o].spare_first, whole.objects[o].spare_first) << name;
    EXPECT_EQ(part.objects[o].offset, whole.objects[o].offset) << name;
  }
  EXPECT_EQ(part.motions.size(), whole.motions.size()) << name;
  EXPECT_TRUE(part.segment_object == whole.segment_object.to_vector()) << name;
  EXPECT_TRUE(part.point_object == whole.point_object.to_vector()) << name;
  EXPECT_TRUE(part.tet_object == whole.tet_object.to_vector()) << name;
  EXPECT_EQ(part.stitches, whole.stitches) << name;
  EXPECT_EQ(part.stitch_stiffness0, whole.stitch_stiffness0) << name;
  const weft::Scene::VertexSummary a = part.vertex_summary(), b = whole.vertex_summary();
  EXPECT_TRUE(same_bits(a.dynamic_mass_sum, b.dynamic_mass_sum)) << name;
  EXPECT_EQ(a.lo, b.lo) << name;
  EXPECT_EQ(a.hi, b.hi) << name;

  const int lo = whole.vertex_range[rank], hi = whole.vertex_range[rank + 1];
  const weft::ContactSupport support = weft::contact_support(whole, lo, hi);
  std::vector<int> held(support.vertices);
  for (int v = lo; v < hi; ++v) held.push_back(v);
  for (int v : held) {
    for (int d = 0; d < 3; ++d) EXPECT_TRUE(same_bits(part.rest[v][d], whole.rest[v][d])) << name << " vertex " << v;
    EXPECT_TRUE(same_bits(part.mass[v], whole.mass[v])) << name << " vertex " << v;
  }
  // Nothing else: a vertex outside the block and the support reads NaN.
  int outside = 0;
  for (int v = 0; v < whole.num_vertices; ++v) {
    if ((v >= lo && v < hi) || std::binary_search(support.vertices.begin(), support.vertices.end(), v)) continue;
    EXPECT_TRUE(std::isnan(part.rest[v][0]) && std::isnan(part.mass[v])) << name << " vertex " << v;
    ++outside;
  }
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks > 1) {
    EXPECT_GT(outside, 0) << name << ": a part holding every vertex proves nothing";
  }
  EXPECT_EQ(part.kept_triangles, support.triangles) << name;
  for (size_t t = 0; t < whole.triangles.size(); ++t) {
    const bool kept = std::binary_search(support.triangles.begin(), support.triangles.end(), static_cast<int>(t));
    const weft::Tri unkept{-1, -1, -1};
    EXPECT_EQ(part.triangles[t], kept ? whole.triangles[t] : unkept) << name << " triangle " << t;
  }
  // The warp directions of its triangles; the segments, points and tets with a vertex in its
  // block, with their indices, and no others.
  EXPECT_EQ(part.triangle_warp.empty(), whole.triangle_warp.empty()) << name;
  if (!whole.triangle_warp.empty()) {
    for (int t : support.triangles)
      for (int d = 0; d < 3; ++d)
        EXPECT_TRUE(same_bits(part.triangle_warp[t][d], whole.triangle_warp[t][d])) << name << " triangle " << t;
  }
  EXPECT_TRUE(part.primitive_part) << name;
  EXPECT_TRUE(part.segment_ids == support.segments) << name;
  EXPECT_TRUE(part.point_ids == support.points) << name;
  EXPECT_TRUE(part.tet_ids == support.tets) << name;
  ASSERT_EQ(part.segments.size(), support.segments.size()) << name;
  ASSERT_EQ(part.points.size(), support.points.size()) << name;
  ASSERT_EQ(part.tets.size(), support.tets.size()) << name;
  for (size_t k = 0; k < support.segments.size(); ++k) EXPECT_EQ(part.segments[k], whole.segments[support.segments[k]]);
  for (size_t k = 0; k < support.points.size(); ++k) EXPECT_EQ(part.points[k], whole.points[support.points[k]]);
  for (size_t k = 0; k < support.tets.size(); ++k) EXPECT_EQ(part.tets[k], whole.tets[support.tets[k]]);
  // The sets: the whole build's cut to this rank.
  weft::Scene cut;
  cut.vertex_range = whole.vertex_range;
  cut.element_sets = whole.element_sets;
  weft::cut_sets_to_rank(cut, rank);
  ASSERT_EQ(part.element_sets.size(), cut.element_sets.size()) << name;
  EXPECT_EQ(part.sets_rank, rank) << name;
  for (size_t s = 0; s < cut.element_sets.size(); ++s) {
    const weft::ElementSet &p = part.element_sets[s], &c = cut.element_sets[s];
    EXPECT_EQ(p.term, c.term) << name;
    ASSERT_EQ(p.size(), c.size()) << name << " set " << s;
    EXPECT_EQ(p.whole_size(), c.whole_size()) << name;
    EXPECT_EQ(p.vertices, c.vertices) << name << " set " << s;
    for (int k = 0; k < c.size(); ++k) {
      EXPECT_EQ(p.object_of(k), c.object_of(k)) << name;
      EXPECT_EQ(p.global_of(k), c.global_of(k)) << name;
    }
    EXPECT_TRUE(same_rest(p, c)) << name << " set " << s << ": rest data";
  }
}

// The input error build_scene throws on this rank ("" for none).
std::string build_error(const weft::CaseSpec& spec, bool send_parts) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  weft::SceneOptions options;
  options.comm = MPI_COMM_WORLD;
  options.send_parts = send_parts;
  try {
    weft::build_scene(spec, ranks, options);
  } catch (const weft::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SceneParts, EveryRankReceivesTheWholeBuildsPart) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string tests = WEFT_TEST_DIR, cases = tests + "/../cases/";
  // Shells with an obstacle and pins, rods and particles beside cloth, stitched panels,
  // volumes, orthotropic cloth.
  for (const std::string& path : {cases + "drape_default.yaml", cases + "rod_net.yaml", tests + "/data/codim/mixed.yaml",
                                 cases + "skirt.yaml", cases + "all_in.yaml", cases + "anisotropic_drape.yaml"}) {
    const weft::CaseSpec spec = weft::load_case(path, {});
    weft::SceneOptions options;
    options.comm = MPI_COMM_WORLD;
    options.send_parts = true;
    const weft::Scene part = weft::build_scene(spec, ranks, options);
    // The whole scene as one process builds it for this rank count (the same partition:
    // METIS is deterministic).
    weft::SceneOptions alone;
    const weft::Scene whole = weft::build_scene(spec, ranks, alone);
    if (rank == 0) {
      // Rank 0 builds the whole scene and keeps it whole (its sets cut to its block).
      EXPECT_FALSE(part.vertex_part) << path;
      EXPECT_EQ(part.sets_rank, ranks > 1 ? 0 : -1) << path;
    } else {
      EXPECT_TRUE(part.vertex_part && part.triangle_part) << path;
      expect_same_part(whole, part, rank, path);
    }
  }
}

// A particle scene: every rank builds its own part (io/particle_parts.hpp), rank 0 included,
// and each is the whole build's part, value for value.
TEST(SceneParts, ParticlePartsBuiltByEveryRank) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string data = std::string(WEFT_TEST_DIR) + "/data/";
  for (const std::string& path : {data + "local/particle_parts.yaml", data + "codim/particle_column.yaml",
                                  data + "codim/particle_rest.yaml"}) {
    const weft::CaseSpec spec = weft::load_case(path, {});
    ASSERT_TRUE(weft::builds_particle_parts(spec)) << path;
    weft::SceneOptions options;
    options.comm = MPI_COMM_WORLD;
    options.send_parts = true;
    const weft::Scene part = weft::build_scene(spec, ranks, options);
    const weft::Scene whole = weft::build_scene(spec, ranks, weft::SceneOptions{});
    if (ranks > 1) {
      EXPECT_TRUE(part.vertex_part && part.triangle_part) << path;
      expect_same_part(whole, part, rank, path);
    }
  }
  // Not built so: a scene with a mesh object, or particles read from a file.
  EXPECT_FALSE(weft::builds_particle_parts(weft::load_case(data + "codim/mixed.yaml", {})));
  EXPECT_FALSE(weft::builds_particle_parts(weft::load_case(std::string(WEFT_TEST_DIR) + "/../cases/drape_default.yaml", {})));
}

// A pin box selecting no particle on any rank: every rank throws the whole build's error.
TEST(SceneParts, ParticlePinSelectingNothingIsEveryRanksError) {
  weft::CaseSpec spec = weft::load_case(std::string(WEFT_TEST_DIR) + "/data/local/particle_parts.yaml", {});
  weft::PinSpec far = spec.objects[3].pins[0];
  far.box_min = weft::Vec3::Constant(100.0), far.box_max = weft::Vec3::Constant(101.0);
  spec.objects[3].pins.push_back(far);
  const std::string message = build_error(spec, true);
  EXPECT_NE(message.find("objects[3].pins[2].box selects no vertex"), std::string::npos) << message;
}

// More ranks than the scene can give a vertex each: an input error on every rank, whichever
// way the scene is built (by every rank for its part, or whole), not a run whose empty rank
// leaves the others waiting.
TEST(SceneParts, ARankWithoutAVertexIsRefused) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const weft::CaseSpec spec = weft::load_case(std::string(WEFT_TEST_DIR) + "/data/local/two_grains.yaml", {});
  for (bool send : {true, false}) {
    const std::string message = build_error(spec, send);
    if (ranks <= 2) {
      EXPECT_EQ(message, "") << send;
    } else {
      EXPECT_NE(message.find("two_grains.yaml: the partition leaves rank 0 of 3 without a vertex"), std::string::npos)
          << send << ": " << message;
    }
  }
}

// PT-Scotch: rank 0 hands every rank its slice of the graph's rows, every rank joins the
// partition, and the parts are those of the build every rank makes itself (each giving
// PT-Scotch its own slice).
TEST(SceneParts, ParallelPartitionFromRankZerosSlices) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // (A particle scene has no graph to partition: rank 0 must not ask for one.)
  for (const std::string& path : {std::string(WEFT_TEST_DIR) + "/../cases/cloth_stack.yaml",
                                  std::string(WEFT_TEST_DIR) + "/data/codim/particle_rest.yaml"}) {
    const weft::CaseSpec spec = weft::load_case(path, {});
    weft::SceneOptions options;
    options.comm = MPI_COMM_WORLD;
    options.partitioner = weft::Partitioner::ptscotch;
    const weft::Scene every = weft::build_scene(spec, ranks, options);  // every rank builds
    options.send_parts = true;
    const weft::Scene part = weft::build_scene(spec, ranks, options);
    EXPECT_EQ(part.vertex_range, every.vertex_range) << path;
    EXPECT_EQ(part.partitioner, every.partitioner) << path;
    if (rank > 0) expect_same_part(every, part, rank, path + " (PT-Scotch)");
  }
}

// Rank 0's build failing reaches every rank as the same error, none left waiting.
TEST(SceneParts, RankZerosFailureIsEveryRanksError) {
  weft::CaseSpec spec = weft::load_case(std::string(WEFT_TEST_DIR) + "/../cases/drape_default.yaml", {});
  spec.objects[0].pins.push_back(spec.objects[0].pins.empty() ? weft::PinSpec{} : spec.objects[0].pins[0]);
  spec.objects[0].pins.back().box_min = weft::Vec3::Constant(100.0);  // selects no vertex
  spec.objects[0].pins.back().box_max = weft::Vec3::Constant(101.0);
  const std::string message = build_error(spec, true);
  EXPECT_NE(message.find("selects no vertex"), std::string::npos) << message;
}

}  // namespace
