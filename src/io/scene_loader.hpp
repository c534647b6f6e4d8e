// Case -> Scene: build every object's mesh, place it, compute rest data and masses,
// select pins, partition the vertex graph over the ranks (METIS on every rank, or PT-Scotch
// shared over the ranks for large graphs, see SceneOptions) and renumber vertices into
// contiguous per-rank blocks. Deterministic, so every rank builds the same Scene (the
// PT-Scotch answer is gathered to every rank); or, with SceneOptions::send_parts, rank 0
// builds it alone and every other rank receives its part (io/scene_parts.hpp).
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

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
  // Under `comm` with more than one rank: rank 0 alone builds the scene (and partitions it:
  // METIS on rank 0, or PT-Scotch with every rank given its slice of the graph's rows by
  // rank 0) and sends every other rank its part (io/scene_parts.hpp): its block's and
  // support vertices' rest positions and masses, the triangles with a vertex in its block
  // and the stencils touching it. Rank 0's Scene is whole (its sets cut to its own); the
  // others' are parts from the start (Scene::vertex_part, triangle_part). For a run whose
  // method reads only its part of the scene (issue 20: no rank holds the whole scene).
  bool send_parts = false;
};

Scene build_scene(const CaseSpec& spec, int ranks, const SceneOptions& options = {});

// Appends case object o's parameters (ObjectParams, without its tearing spares, which
// depend on its mesh) and motions (an obstacle's, then its pins') to s. The build calls it
// per object; a rank receiving its part calls it for every object instead of the build.
void add_object(const CaseSpec& spec, size_t o, Scene& s, int* obstacle_motion, std::vector<int>* pin_motion);

// The stencils of `set` with a vertex in [lo, hi), ascending.
std::vector<int> stencils_touching(const ElementSet& set, int lo, int hi);

// Whether a pin's box holds p (bounds included), and the input error of case object o's pin
// k holding no vertex.
bool in_pin_box(const Vec3& p, const PinSpec& pin);
std::string pin_selects_nothing(const CaseSpec& spec, std::size_t o, std::size_t k);
// The input error of a partition leaving `rank` without a vertex.
std::string empty_rank_message(const CaseSpec& spec, int rank, int ranks);
// Cuts the scene's element sets to the stencils touching a vertex of `rank`'s block (what its
// matrix rows, LocalView and terms read): Scene::sets_rank = rank.
void cut_sets_to_rank(Scene& s, int rank);

}  // namespace weft
