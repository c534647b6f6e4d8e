// LocalView (parallel/local_view.hpp) on a hand-made scene split in two blocks: the rank
// seen is rank 0 of the communicator, owning vertices [0, 3) of 10. Exact answers for its
// triangles, ghosts (with a stitch partner) and the contact support a rank's scene part
// keeps (Scene::keep_vertex_part, keep_triangle_part).
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "core/scene.hpp"
#include "parallel/local_view.hpp"

namespace weft {
namespace {

// t0 {0,3,4} leads here (first vertex owned); t1 {5,1,6} and t3 {7,2,5} touch an owned
// vertex but are led elsewhere; t2 {6,7,9} does not touch. Segment {2,8} touches, {8,9} does
// not. Vertex 4 is stitched to 9 (both on the other block).
Scene two_block_scene(bool stitched) {
  Scene s;
  s.num_vertices = 10;
  s.vertex_range = {0, 3, 10};
  s.triangles = PagedArray<Tri>::adopt({{0, 3, 4}, {5, 1, 6}, {6, 7, 9}, {7, 2, 5}});
  s.segments = {{2, 8}, {8, 9}};
  if (stitched) s.stitches = {{4, 9}};
  return s;
}

TEST(LocalView, TrianglesGhostsAndContactSupportOfTheOwnedBlock) {
  const Scene s = two_block_scene(false);
  ContactSupport support;
  const LocalView lv = make_local_view(s, MPI_COMM_SELF, &support);
  EXPECT_EQ(lv.vbegin, 0);
  EXPECT_EQ(lv.vend, 3);
  EXPECT_EQ(lv.triangles, (std::vector<int>{0}));
  EXPECT_EQ(lv.ghosts, (std::vector<int>{3, 4}));
  // Ghosts, plus the other vertices of t1, t3 and segment {2,8}; never 9 (untouched).
  EXPECT_EQ(support.vertices, (std::vector<int>{3, 4, 5, 6, 7, 8}));
  // Every triangle with an owned vertex: t0, t1 and t3, never t2.
  EXPECT_EQ(support.triangles, (std::vector<int>{0, 1, 3}));
  // Segment 0 {2,8} touches the block, segment 1 {8,9} does not.
  EXPECT_EQ(support.segments, (std::vector<int>{0}));
  // Local triangle in local ids: owned 0 -> 0, ghosts 3 -> 3, 4 -> 4 (after the 3 owned).
  ASSERT_EQ(lv.triangle_local.size(), 1u);
  EXPECT_EQ(lv.triangle_local[0], (Tri{0, 3, 4}));
}

TEST(LocalView, ThePartKeepsTheSegmentsPointsAndTetsTouchingTheBlock) {
  Scene s = two_block_scene(false);
  s.segments = {{8, 9}, {2, 8}, {5, 6}};
  s.segment_object = std::vector<int>{1, 1, 2};
  s.points = {7, 1, 9};
  s.point_object = std::vector<int>{3, 3, 3};
  s.tets = {{5, 6, 7, 8}, {3, 4, 5, 2}, {0, 3, 4, 5}};
  s.tet_object = std::vector<int>{4, 4, 4};
  ContactSupport support;
  make_local_view(s, MPI_COMM_SELF, &support);
  EXPECT_EQ(support.segments, (std::vector<int>{1}));
  EXPECT_EQ(support.points, (std::vector<int>{1}));
  EXPECT_EQ(support.tets, (std::vector<int>{1, 2}));  // (a tet led elsewhere touches vertex 2)
  s.keep_primitive_part(support.segments, support.points, support.tets);
  EXPECT_TRUE(s.primitive_part);
  EXPECT_EQ(s.segments, (std::vector<Edge>{{2, 8}}));
  EXPECT_EQ(s.segment_index(0), 1);
  EXPECT_EQ(s.points, (std::vector<int>{1}));
  EXPECT_EQ(s.point_index(0), 1);
  ASSERT_EQ(s.tets.size(), 2u);
  EXPECT_EQ(s.tets[1], (std::array<int, 4>{0, 3, 4, 5}));
  EXPECT_EQ(s.tet_index(1), 2);
  // The counts and objects stay the whole scene's.
  EXPECT_EQ(s.num_segments(), 3u);
  EXPECT_EQ(s.num_points(), 3u);
  EXPECT_EQ(s.num_tets(), 3u);
  EXPECT_EQ(s.segment_object[2], 2);
}

TEST(LocalView, AStitchedGhostBringsItsPartnerIntoGhostsAndSupport) {
  const Scene s = two_block_scene(true);
  ContactSupport support;
  const LocalView lv = make_local_view(s, MPI_COMM_SELF, &support);
  EXPECT_EQ(lv.ghosts, (std::vector<int>{3, 4, 9}));
  EXPECT_EQ(support.vertices, (std::vector<int>{3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(lv.local_of(9), 5);
  EXPECT_EQ(lv.local_of(5), -1);
}

TEST(LocalView, WithoutASupportListTheViewIsTheSame) {
  const Scene s = two_block_scene(true);
  ContactSupport support;
  const LocalView a = make_local_view(s, MPI_COMM_SELF, &support);
  const LocalView b = make_local_view(s, MPI_COMM_SELF);
  EXPECT_EQ(a.ghosts, b.ghosts);
  EXPECT_EQ(a.triangles, b.triangles);
}

}  // namespace
}  // namespace weft
