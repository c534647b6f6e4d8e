// Case -> Scene: build every object's mesh, place it, compute rest data and masses,
// select pins, partition the vertex graph with METIS over the communicator's ranks and
// renumber vertices into contiguous per-rank blocks. Deterministic, so every rank builds
// the same Scene without communication.
#pragma once
#include <mpi.h>

#include "core/scene.hpp"
#include "io/case_spec.hpp"

namespace weft {

Scene build_scene(const CaseSpec& spec, int ranks);

}  // namespace weft
