// PT-Scotch through PETSc's MatPartitioning (partition/parallel_partition.hpp) at 1, 2 and 3
// ranks: every rank receives the same part vector, every part is used and balanced, the
// cut is close to METIS's on the same graph, zero-weight (kinematic) vertices do not count
// in the balance, and two calls agree (deterministic).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <vector>

#include "partition/metis_partition.hpp"
#include "partition/parallel_partition.hpp"

namespace {

// The vertex graph of an nx x ny triangulated grid (two triangles per cell).
weft::VertexGraph grid_graph(int nx, int ny) {
  std::vector<std::vector<int>> tris;
  for (int i = 0; i + 1 < nx; ++i)
    for (int j = 0; j + 1 < ny; ++j) {
      const int a = i * ny + j;
      tris.push_back({a, a + ny, a + 1});
      tris.push_back({a + 1, a + ny, a + ny + 1});
    }
  return weft::build_vertex_graph(nx * ny, tris);
}

bool same_on_every_rank(const std::vector<int>& v) {
  long h = 0;
  for (size_t i = 0; i < v.size(); ++i) h = h * 1000003 + v[i] + 7 * static_cast<long>(i);
  long lo = h, hi = h;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

TEST(ParallelPartition, BalancedPartsOnEveryRank) {
  const weft::VertexGraph g = grid_graph(80, 60);
  const int n = g.num_vertices();
  for (int parts : {2, 3, 4}) {
    const std::vector<int> part = weft::partition_graph_parallel(g, parts, nullptr, MPI_COMM_WORLD);
    ASSERT_EQ(static_cast<int>(part.size()), n);
    EXPECT_TRUE(same_on_every_rank(part)) << parts << " parts";
    const weft::PartitionQuality q = weft::partition_quality(g, part, parts);
    for (int p = 0; p < parts; ++p) EXPECT_GT(q.part_sizes[p], 0);
    EXPECT_LT(q.imbalance, 1.06) << parts << " parts";
    // A grid cut into compact parts: within 1.6x of METIS's cut.
    const weft::PartitionQuality m = weft::partition_quality(g, weft::partition_graph(g, parts), parts);
    EXPECT_LT(q.edge_cut, 1.6 * m.edge_cut) << "PT-Scotch " << q.edge_cut << ", METIS " << m.edge_cut;
    // Deterministic: the same answer again.
    EXPECT_EQ(part, weft::partition_graph_parallel(g, parts, nullptr, MPI_COMM_WORLD));
  }
}

TEST(ParallelPartition, ZeroWeightVerticesDoNotCountInTheBalance) {
  // The grid's left half is kinematic (weight 0, like an obstacle): the dynamic right half
  // must be split evenly, whatever happens to the left.
  const int nx = 80, ny = 60;
  const weft::VertexGraph g = grid_graph(nx, ny);
  std::vector<int> w(nx * ny, 0);
  for (int i = nx / 2; i < nx; ++i)
    for (int j = 0; j < ny; ++j) w[i * ny + j] = 1;
  const int parts = 3;
  const std::vector<int> part = weft::partition_graph_parallel(g, parts, &w, MPI_COMM_WORLD);
  EXPECT_TRUE(same_on_every_rank(part));
  std::vector<long> dyn(parts, 0);
  for (int v = 0; v < nx * ny; ++v) dyn[part[v]] += w[v];
  const long total = (nx / 2) * ny;
  for (int p = 0; p < parts; ++p) EXPECT_NEAR(dyn[p], total / 3.0, 0.06 * total / 3.0) << "part " << p;
  // Counted by vertices instead, the parts would hold a third of ALL vertices each: the
  // weights changed the answer.
  const std::vector<int> plain = weft::partition_graph_parallel(g, parts, nullptr, MPI_COMM_WORLD);
  std::vector<long> dyn_plain(parts, 0);
  for (int v = 0; v < nx * ny; ++v) dyn_plain[plain[v]] += w[v];
  EXPECT_GT(*std::max_element(dyn_plain.begin(), dyn_plain.end()), 1.3 * total / 3.0);
}

TEST(ParallelPartition, EachRankBuildsOnlyItsRowsAndGetsTheSameParts) {
  // The scene build's path (issue 20 point 2): every rank builds the rows of its slice
  // straight from the elements. Those rows equal the whole graph's, and the parts equal
  // those from the whole graph sliced, weights included.
  const int nx = 70, ny = 50, n = nx * ny;
  std::vector<std::array<int, 3>> tris;
  for (int i = 0; i + 1 < nx; ++i)
    for (int j = 0; j + 1 < ny; ++j) {
      const int a = i * ny + j;
      tris.push_back({a, a + ny, a + 1});
      tris.push_back({a + 1, a + ny, a + ny + 1});
    }
  const weft::ElementSource each = [&](const weft::ElementVisitor& visit) {
    for (const auto& t : tris) visit(t.data(), 3);
  };
  const weft::VertexGraph whole = weft::build_vertex_graph(n, each);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int first = weft::partition_slice_first(n, rank, size), last = weft::partition_slice_first(n, rank + 1, size);
  const weft::VertexGraphRows rows = weft::build_vertex_graph_rows(n, first, last, each);
  ASSERT_EQ(rows.first, first);
  ASSERT_EQ(rows.rows.num_vertices(), last - first);
  for (int v = first; v < last; ++v) {
    const std::vector<int> mine(rows.rows.adjncy.begin() + rows.rows.xadj[v - first],
                                rows.rows.adjncy.begin() + rows.rows.xadj[v - first + 1]);
    const std::vector<int> theirs(whole.adjncy.begin() + whole.xadj[v], whole.adjncy.begin() + whole.xadj[v + 1]);
    ASSERT_EQ(mine, theirs) << "row " << v;
  }
  std::vector<int> w(n);
  for (int v = 0; v < n; ++v) w[v] = v % 7 == 0 ? 0 : 1 + v % 3;
  const std::vector<int> slice_w(w.begin() + first, w.begin() + last);
  for (int parts : {2, 3}) {
    const std::vector<int> from_rows = weft::partition_graph_parallel(rows, parts, &slice_w, MPI_COMM_WORLD);
    EXPECT_EQ(from_rows, weft::partition_graph_parallel(whole, parts, &w, MPI_COMM_WORLD)) << parts << " parts";
    EXPECT_TRUE(same_on_every_rank(from_rows));
  }
  // A rank handing in rows that are not its slice is refused.
  if (size > 1) {
    const weft::VertexGraphRows all_rows = weft::build_vertex_graph_rows(n, 0, n, each);
    EXPECT_THROW(weft::partition_graph_parallel(all_rows, 2, nullptr, MPI_COMM_WORLD), std::exception);
  }
}

}  // namespace
