// PT-Scotch through PETSc's MatPartitioning (partition/parallel_partition.hpp) at 1, 2 and 3
// ranks: every rank receives the same part vector, every part is used and balanced, the
// cut is close to METIS's on the same graph, zero-weight (kinematic) vertices do not count
// in the balance, and two calls agree (deterministic).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
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

}  // namespace
