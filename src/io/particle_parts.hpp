// A particle scene built in parallel (issue 20 point 2: generators make each rank's part
// directly; particle-only scenes split by recursive coordinate bisection). No rank holds the
// whole particle set at any time:
//   1. every rank generates an even share of each particle_block object by index
//      (mesh/generators.hpp ParticleLattice), placed and pinned as the whole build does;
//   2. the ranks bisect the particles together (partition/parallel_bisection.hpp), the
//      serial bisection's parts exactly;
//   3. the obstacles (grounds, bowls: small) are built by every rank, and each of their
//      vertices, as every pinned particle, joins the part of its nearest free particle (the
//      nearest over every rank's particles: MPI_MINLOC, ties to the lower id), as
//      partition/kinematic_owner.hpp places them;
//   4. each particle is sent to its rank (one MPI_Alltoallv), which numbers its block by
//      input id; the id maps, objects and motions are gathered as runs.
// A rank's Scene is then the part rank 0's whole build would have sent it (io/scene_parts),
// value for value (the dynamic mass sum is summed in solver order, rank after rank), so a
// run is the same bit for bit either way (mpi.scene_parts_ranks compares the two).
#pragma once
#include <mpi.h>

#include "core/scene.hpp"
#include "io/case_spec.hpp"
#include "io/scene_loader.hpp"

namespace weft {

// Whether the case is built this way: at least one particles object, every object either
// particles from the particle_block generator or an obstacle, and no stitches.
bool builds_particle_parts(const CaseSpec& spec);

// This rank's part (collective over options.comm, more than one rank). Input errors are
// thrown on every rank alike.
Scene build_particle_part(const CaseSpec& spec, const SceneOptions& options);

}  // namespace weft
