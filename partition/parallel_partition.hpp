// Parallel graph partitioning with PT-Scotch (issue 20 point 2), through PETSc's
// MatPartitioning on an MPIAdj matrix: each rank hands in one contiguous block of the
// graph's rows, PT-Scotch's distributed multilevel method splits the graph, and every rank
// receives the whole part vector.
//
// Why beside METIS: METIS (partition_graph) runs the whole graph on every rank, so its time
// and its workspace (~10x the graph) do not shrink with the rank count; PT-Scotch shares
// both over the ranks. weft uses METIS up to kParallelPartitionAbove dynamic vertices (its
// parts are a little better and it needs no communication) and PT-Scotch beyond;
// `-weft_partitioner metis | ptscotch | auto` (a PETSc option; weft-partition's
// --partitioner) forces one.
// The answer is gathered to every rank, so the scene built from it is the same everywhere.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "partition/metis_partition.hpp"

namespace weft {

// Dynamic vertices above which `auto` partitions in parallel (documented in the README).
constexpr long kParallelPartitionAbove = 2000000;

enum class Partitioner { automatic, metis, ptscotch };

// The partitioner the PETSc option -weft_partitioner names (automatic when absent); throws
// InputError naming the option on an unknown value.
Partitioner partitioner_from_options();
const char* partitioner_name(Partitioner p);

// Part id per vertex in [0, parts), on every rank of comm (collective). Rank r of comm
// hands its rows g = [r n / size, (r + 1) n / size) of the graph (build_vertex_graph_rows)
// and their weights (absent, or one per row: balanced over the parts; all zero on every
// rank: counts) to PT-Scotch. Deterministic for a given graph, part count and
// communicator size.
std::vector<int> partition_graph_parallel(const VertexGraphRows& g, int parts, const std::vector<int>* row_weights,
                                          MPI_Comm comm);

// The same from the whole graph and whole weights held on every rank (tools and tests):
// each rank hands in its slice of them.
std::vector<int> partition_graph_parallel(const VertexGraph& g, int parts, const std::vector<int>* weights,
                                          MPI_Comm comm);

// The rows rank `rank` of `size` hands to PT-Scotch: [first, last) of n.
inline int partition_slice_first(int n, int rank, int size) {
  return static_cast<int>(static_cast<long>(n) * rank / size);
}

}  // namespace weft
