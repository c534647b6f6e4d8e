// The start's check: the initial configuration must be intersection-free and every pair of
// primitives at least its offset apart, since the barrier method can only keep a state
// feasible, not repair one. It uses the same independent predicates as weft-verify
// (verify/checks.hpp).
//
// Distributed (issue 20 point 2). A rank reads only what its part of the scene holds. It
// LEADS a primitive (triangle, segment, point) whose first vertex it owns, and it examines
// the pairs whose lower primitive it leads: those it leads itself, and the primitives of
// other ranks near them. To find the near ones, every rank groups the primitives it leads
// into chunks of consecutive ones and publishes each chunk's box, inflated by half the
// largest offset in it (one MPI_Allgatherv of boxes: a few per thousand primitives). A rank
// then sends every other rank the primitives it leads whose inflated boxes meet that rank's
// chunk boxes, with their vertices' positions (one MPI_Alltoallv). A pair that can violate
// its offset has overlapping inflated boxes, so the lower primitive's leader holds both.
//
// The counts and the example pair (the lowest, by whole-mesh index) are merged over the
// ranks, so the check says the same at every rank count.
#pragma once
#include <mpi.h>

#include "core/scene.hpp"
#include "verify/checks.hpp"

namespace weft {

// The merged statistics of the start (frame 0 at the rest positions): intersections and
// offset violations with their example pairs, over the whole scene. Collective.
verify::Stats check_start(const Scene& scene, MPI_Comm comm);

// check_start, then InputError naming the case and an example pair where the start
// intersects itself or a pair is closer than its offset.
void check_initial_configuration(const Scene& scene, MPI_Comm comm);

}  // namespace weft
