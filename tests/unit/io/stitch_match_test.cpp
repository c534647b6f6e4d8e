// Stitch pairs from boxes (io/stitch_match.hpp): order along each box's longest axis,
// equal counts, refusals naming the file and the key.
#include <gtest/gtest.h>

#include "io/case_loader.hpp"
#include "io/stitch_match.hpp"
#include "io_test_util.hpp"

using namespace weft;

namespace {

StitchSpec stitch(int a, Vec3 alo, Vec3 ahi, int b, Vec3 blo, Vec3 bhi) {
  StitchSpec s;
  s.a = {a, alo, ahi};
  s.b = {b, blo, bhi};
  return s;
}

}  // namespace

TEST(StitchMatch, OrderAlongEachBoxsLongestAxis) {
  // Object 0: a column along y, listed out of order; object 1: a row along z, reversed.
  TriMesh m0, m1;
  m0.vertices = {{0, 0.3, 0}, {0, 0.1, 0}, {5, 5, 5}, {0, 0.2, 0}};
  m1.vertices = {{1, 0, 0.9}, {1, 0, 0.8}, {1, 0, 0.7}, {9, 9, 9}};
  // Box a is long in y, box b long in z: each list runs along its own box's axis.
  const auto p = match_stitches("c.yaml", {stitch(0, {-0.1, 0, -0.1}, {0.1, 1, 0.1}, 1, {0.9, -0.1, 0}, {1.1, 0.1, 1})},
                                {m0, m1}, {0, 4});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], (std::array<int, 2>{1, 4 + 2}));  // lowest y with lowest z
  EXPECT_EQ(p[1], (std::array<int, 2>{3, 4 + 1}));
  EXPECT_EQ(p[2], (std::array<int, 2>{0, 4 + 0}));
  // A cube: the first axis (x), where these three tie: by id. A box long in y: by y.
  EXPECT_EQ(vertices_along_box(m0.vertices, {-1, -1, -1}, {1, 1, 1}), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(vertices_along_box(m0.vertices, {-1, -1, -1}, {1, 1.5, 1}), (std::vector<int>{1, 3, 0}));
}

TEST(StitchMatch, SameObjectTube) {
  // One 3 x 2 strip (vertices 0..5 on two rows): its left and right columns sewn together.
  TriMesh m;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i) m.vertices.push_back(Vec3(i, j, 0));
  m.triangles = {{0, 1, 4}, {0, 4, 3}, {1, 2, 5}, {1, 5, 4}};
  const auto p = match_stitches("c.yaml", {stitch(0, {-0.1, -1, -1}, {0.1, 2, 1}, 0, {1.9, -1, -1}, {2.1, 2, 1})},
                                {m}, {10});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0], (std::array<int, 2>{10, 12}));
  EXPECT_EQ(p[1], (std::array<int, 2>{13, 15}));
  // Neighbours across one triangle edge would collapse it.
  EXPECT_INPUT_ERROR(match_stitches("c.yaml", {stitch(0, {-0.1, -1, -1}, {0.1, 2, 1}, 0, {0.9, -1, -1}, {1.1, 2, 1})},
                                    {m}, {0}),
                     "c.yaml: stitches[0]: vertices 0 and 1 share an element");
}

TEST(StitchMatch, RefusesUnequalCountsEmptyBoxesAndReuse) {
  TriMesh m0, m1;
  m0.vertices = {{0, 0, 0}, {0, 1, 0}, {0, 2, 0}};
  m1.vertices = {{1, 0, 0}, {1, 1, 0}};
  const Vec3 lo0(-0.1, -1, -0.1), hi0(0.1, 3, 0.1), lo1(0.9, -1, -0.1), hi1(1.1, 3, 0.1);
  EXPECT_INPUT_ERROR(match_stitches("c.yaml", {stitch(0, lo0, hi0, 1, lo1, hi1)}, {m0, m1}, {0, 3}),
                     "c.yaml: stitches[0]: box a selects 3 vertices but box b selects 2");
  EXPECT_INPUT_ERROR(match_stitches("c.yaml", {stitch(0, lo0, hi0, 1, Vec3(5, 5, 5), Vec3(6, 6, 6))}, {m0, m1}, {0, 3}),
                     "c.yaml: stitches[0].b.box selects no vertex");
  const StitchSpec ok = stitch(0, lo0, Vec3(0.1, 1.5, 0.1), 1, lo1, hi1);
  EXPECT_INPUT_ERROR(match_stitches("c.yaml", {ok, ok}, {m0, m1}, {0, 3}),
                     "c.yaml: stitches[1]: vertex 0 is already in another stitch pair");
}

TEST(StitchMatch, CaseKeys) {
  const std::string head =
      "objects:\n"
      "  - {name: left, kind: shell, mesh: {generator: grid, size: 1, resolution: 3}}\n"
      "  - {name: wall, kind: obstacle, mesh: {generator: grid, size: 1, resolution: 3}}\n";
  CaseSpec s = load_case_from_string(
      head + "stitches: [{a: {object: left, box: [[-1, -1, -1], [0, 1, 1]]}, b: {object: left, box: [[0.4, -1, -1], [1, 1, 1]]}}]\n",
      "c.yaml");
  ASSERT_EQ(s.stitches.size(), 1u);
  EXPECT_EQ(s.stitches[0].a.object, 0);
  EXPECT_EQ(s.stitches[0].b.box_min, Vec3(0.4, -1, -1));
  EXPECT_INPUT_ERROR(load_case_from_string(head + "stitches: [{a: {object: nobody, box: [[0, 0, 0], [1, 1, 1]]}, "
                                                  "b: {object: left, box: [[0, 0, 0], [1, 1, 1]]}}]\n", "c.yaml"),
                     "c.yaml: stitches[0].a.object: no object is named 'nobody'");
  EXPECT_INPUT_ERROR(load_case_from_string(head + "stitches: [{a: {object: wall, box: [[0, 0, 0], [1, 1, 1]]}, "
                                                  "b: {object: left, box: [[0, 0, 0], [1, 1, 1]]}}]\n", "c.yaml"),
                     "c.yaml: stitches[0].a.object: 'wall' is kind 'obstacle'");
  EXPECT_INPUT_ERROR(load_case_from_string(head + "stitches: [{a: {object: left, box: [[0, 0, 0], [1, 1, 1]]}}]\n", "c.yaml"),
                     "c.yaml: stitches[0]: missing required key 'b'");
  EXPECT_INPUT_ERROR(load_case_from_string(head + "stitches: [{a: {object: left, box: [[0, 0, 0], [1, 1, 1]], side: 1}, "
                                                  "b: {object: left, box: [[0, 0, 0], [1, 1, 1]]}}]\n", "c.yaml"),
                     "unknown key 'stitches[0].a.side'");
  EXPECT_INPUT_ERROR(load_case_from_string("method: pd\n" + head + "stitches: [{a: {object: left, box: [[0, 0, 0], [1, 1, 1]]}, "
                                                  "b: {object: left, box: [[0, 0, 0], [1, 1, 1]]}}]\n", "c.yaml"),
                     "c.yaml: stitches: need method cipc or mass_spring");
}
