// Case -> Scene: build every object's mesh, place it, compute rest data and masses,
// select pins, partition the vertex graph over the ranks (METIS on every rank, or PT-Scotch
// shared over the ranks for large graphs, see SceneOptions) and renumber vertices into
// contiguous per-rank blocks. Deterministic, so every rank builds the same Scene (the
// PT-Scotch answer is gathered to every rank).
#pragma once
#include <mpi.h>

#include "core/scene.hpp"
#include "io/case_spec.hpp"
#include "partition/parallel_partition.hpp"

namespace weft {

// How METIS weighs a dynamic vertex (kinematic ones weigh 0 either way):
//   work  (default) its Newton work, so ranks balance shells, rods, particles and tets
//         alike (issue 19 point 4): the measured assembly cost (TermFactory::cost, 10 ns
//         units) of every stencil it leads (elements live on the rank owning their first
//         vertex), plus the blocks of its matrix row, 1 + its graph degree;
//   count 1 each (the weighting before issue 19; kept for comparisons: bench-balance).
enum class PartitionWeights { work, count };

// The mesh vertices' partitioner (partition/parallel_partition.hpp): automatic = METIS up
// to kParallelPartitionAbove dynamic vertices, PT-Scotch over `comm` beyond. comm: the
// run's communicator (MPI_COMM_NULL: this process alone; PT-Scotch's parts depend on the
// process count, so weft-partition reproduces a run's under mpirun with as many ranks).
struct SceneOptions {
  PartitionWeights weights = PartitionWeights::work;
  Partitioner partitioner = Partitioner::automatic;
  MPI_Comm comm = MPI_COMM_NULL;
};

Scene build_scene(const CaseSpec& spec, int ranks, const SceneOptions& options = {});

}  // namespace weft
