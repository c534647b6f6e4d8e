// Case -> Scene: build every object's mesh, place it, compute rest data and masses,
// select pins, partition the vertex graph with METIS over the communicator's ranks and
// renumber vertices into contiguous per-rank blocks. Deterministic, so every rank builds
// the same Scene without communication.
#pragma once
#include <mpi.h>

#include "core/scene.hpp"
#include "io/case_spec.hpp"

namespace weft {

// How METIS weighs a dynamic vertex (kinematic ones weigh 0 either way):
//   work  (default) its Newton work, so ranks balance shells, rods, particles and tets
//         alike (issue 19 point 4): the measured assembly cost (TermFactory::cost, 10 ns
//         units) of every stencil it leads (elements live on the rank owning their first
//         vertex), plus the blocks of its matrix row, 1 + its graph degree;
//   count 1 each (the weighting before issue 19; kept for comparisons: bench-balance).
enum class PartitionWeights { work, count };

struct SceneOptions {
  PartitionWeights weights = PartitionWeights::work;
};

Scene build_scene(const CaseSpec& spec, int ranks, const SceneOptions& options = {});

}  // namespace weft
