// attach_kinematic_to_nearest: obstacle vertices join the part of their nearest dynamic
// vertex; kinematic vertices tied to dynamic ones (pins) keep METIS's part.
#include <gtest/gtest.h>

#include <random>

#include "partition/kinematic_owner.hpp"

using namespace weft;

namespace {

// Vertex graph of loose points plus the given edges.
VertexGraph graph(int n, const std::vector<std::vector<int>>& edges) { return build_vertex_graph(n, edges); }

}  // namespace

// Two dynamic cloth patches (parts 0 and 1) and a kinematic "ground" segment under both,
// all of it put on part 0: the ground vertices left of x = 0 stay with part 0, those right
// of it go to part 1, and a kinematic "ball" beside the right patch goes to part 1.
TEST(KinematicOwner, ObstacleVerticesJoinTheNearestCloth) {
  std::vector<Vec3> x = {
      {-1.0, 1.0, 0.0}, {-0.5, 1.0, 0.0},  // 0, 1: left cloth (part 0)
      {0.5, 1.0, 0.0},  {1.0, 1.0, 0.0},   // 2, 3: right cloth (part 1)
      {-2.0, 0.0, 0.0}, {-0.2, 0.0, 0.0}, {0.2, 0.0, 0.0}, {2.0, 0.0, 0.0},  // 4-7: ground
      {1.5, 1.2, 0.0},  {1.6, 1.3, 0.0},   // 8, 9: ball
  };
  const VertexGraph g = graph(10, {{0, 1}, {2, 3}, {4, 5}, {5, 6}, {6, 7}, {8, 9}});
  std::vector<char> kin = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
  std::vector<int> part = {0, 0, 1, 1, 0, 0, 0, 0, 0, 0};
  attach_kinematic_to_nearest(g, x, kin, part);
  EXPECT_EQ(part, (std::vector<int>{0, 0, 1, 1, 0, 0, 1, 1, 1, 1}));
}

// A pinned vertex shares an element with a dynamic one: its part is METIS's, even when a
// dynamic vertex of another part is nearer.
TEST(KinematicOwner, PinsBesideDynamicVerticesKeepTheirPart) {
  std::vector<Vec3> x = {{0, 0, 0}, {1, 0, 0}, {1.1, 0, 0}, {3, 0, 0}};
  const VertexGraph g = graph(4, {{0, 1}, {2, 3}});  // 1 (pinned) is tied to 0, 2 is dynamic
  std::vector<char> kin = {0, 1, 0, 0};
  std::vector<int> part = {0, 0, 1, 1};
  attach_kinematic_to_nearest(g, x, kin, part);
  EXPECT_EQ(part, (std::vector<int>{0, 0, 1, 1}));
}

// Equidistant dynamic vertices: the lower vertex id wins, whatever the grid cells are.
TEST(KinematicOwner, TiesGoToTheLowerVertexId) {
  std::vector<Vec3> x = {{1, 0, 0}, {-1, 0, 0}, {0, 0, 0}};
  const VertexGraph g = graph(3, {});
  std::vector<int> part = {1, 0, 0};
  attach_kinematic_to_nearest(g, x, {0, 0, 1}, part);
  EXPECT_EQ(part[2], 1);  // vertex 0 (part 1) and vertex 1 (part 0) are both at distance 1
}

// Fewer dynamic vertices than parts: moving the obstacle would empty part 1.
TEST(KinematicOwner, NeverEmptiesAPart) {
  std::vector<Vec3> x = {{0, 0, 0}, {5, 0, 0}, {6, 0, 0}};
  const VertexGraph g = graph(3, {{1, 2}});
  std::vector<int> part = {0, 1, 1};
  attach_kinematic_to_nearest(g, x, {0, 1, 1}, part);
  EXPECT_EQ(part, (std::vector<int>{0, 1, 1}));
}

// No dynamic vertex at all: nothing to attach to.
TEST(KinematicOwner, AllKinematicLeftAlone) {
  std::vector<Vec3> x = {{0, 0, 0}, {1, 0, 0}};
  std::vector<int> part = {0, 1};
  attach_kinematic_to_nearest(graph(2, {}), x, {1, 1}, part);
  EXPECT_EQ(part, (std::vector<int>{0, 1}));
}

// The grid search is exact: against brute force for a flat cloud of dynamic vertices (one
// layer of cells) and query points inside, beside and far outside it.
TEST(KinematicOwner, GridSearchMatchesBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int nd = 2000, nq = 500;
  std::vector<Vec3> x;
  for (int i = 0; i < nd; ++i) x.emplace_back(u(rng), 0.01 * u(rng), u(rng));
  for (int i = 0; i < nq; ++i) x.emplace_back(6.0 * u(rng) - 3.0, 4.0 * u(rng) - 2.0, 6.0 * u(rng) - 3.0);
  std::vector<char> kin(nd + nq, 0);
  std::vector<int> part(nd + nq, 0);
  for (int i = 0; i < nd; ++i) part[i] = i;  // every dynamic vertex its own "part"
  for (int i = nd; i < nd + nq; ++i) kin[i] = 1, part[i] = 0;
  attach_kinematic_to_nearest(graph(nd + nq, {}), x, kin, part);
  for (int q = nd; q < nd + nq; ++q) {
    int best = 0;
    for (int i = 1; i < nd; ++i)
      if ((x[i] - x[q]).squaredNorm() < (x[best] - x[q]).squaredNorm()) best = i;
    ASSERT_EQ(part[q], best) << "query " << q;
  }
}

// The loose kinematic vertices found from slices of the graph's rows (the PT-Scotch path:
// each rank holds its rows only) are those found in the whole graph, in the same order.
TEST(KinematicOwner, LooseVerticesFromRowSlicesEqualTheWholeGraphs) {
  const std::vector<std::vector<int>> edges = {{0, 1}, {1, 2}, {3, 4}, {4, 5}, {6, 7}, {2, 8}};
  const std::vector<char> kin = {0, 1, 1, 1, 1, 0, 1, 1, 1, 1};  // 9: isolated, kinematic
  const int n = static_cast<int>(kin.size());
  const std::vector<int> whole = loose_kinematic_vertices(graph(n, edges), 0, kin);
  EXPECT_EQ(whole, (std::vector<int>{2, 3, 6, 7, 8, 9}));  // 1 touches 0, 4 touches 5
  const ElementSource each = [&](const ElementVisitor& visit) {
    for (const auto& e : edges) visit(e.data(), 2);
  };
  for (int slices : {2, 3, 4}) {
    std::vector<int> gathered;
    for (int r = 0; r < slices; ++r) {
      const int first = n * r / slices, last = n * (r + 1) / slices;
      const VertexGraphRows rows = build_vertex_graph_rows(n, first, last, each);
      for (int v : loose_kinematic_vertices(rows.rows, first, kin)) gathered.push_back(v);
    }
    EXPECT_EQ(gathered, whole) << slices << " slices";
  }
}
