// A scene built on one rank and sent out in parts (issue 20 point 2: meshes are read on one
// rank and sent out; no other rank holds the whole scene). Used by build_scene with
// SceneOptions::send_parts.
//
// Rank 0 builds the whole scene, partitions it and sends rank r:
//   - to every rank (one broadcast): the counts, vertex blocks, id maps and per-vertex
//     objects and motions, the triangles', segments', points' and tets' objects (all as
//     runs), the tearing spares, the stitches (whole, as the Scene holds them), the whole
//     scene's vertex summary and which registered terms have sets;
//   - to rank r alone: the rest positions and masses of its block and of its support (the
//     ghosts and every vertex of a triangle or segment with a vertex in its block:
//     parallel/local_view's contact_support), the triangles (and their warp directions),
//     segments, points and tets with a vertex in its block, and every set's stencils
//     touching its block with their objects, whole-set indices and rest data.
// So rank r's Scene is what a whole build cut to its part (keep_vertex_part,
// keep_triangle_part, keep_primitive_part, the sets cut to its block) would have been,
// value for value.
//
// The other ranks wait for rank 0 idly (a nonblocking broadcast tested every millisecond):
// on a machine with fewer cores than ranks they leave the cores to the build. Rank 0
// announces first what comes: the parts; its build's failure (every rank then throws the
// same error); or a parallel partition, for which it sends each rank its slice of the
// graph's rows and weights and every rank joins PT-Scotch.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "core/scene.hpp"
#include "io/case_spec.hpp"
#include "partition/metis_partition.hpp"

namespace weft {

// Rank 0's side.
class PartsSender {
 public:
  enum Code : int { kParts = 0, kInputError = 1, kFailure = 2, kPartition = 3 };
  explicit PartsSender(MPI_Comm comm) : comm_(comm) {}
  // PT-Scotch: every rank joins partition_graph_parallel with the slice rank 0 sends it.
  void start_partition();
  void send_slice(int rank, const VertexGraphRows& g, const std::vector<int>& weights);
  // The build failed: every rank throws InputError (code kInputError) or RuntimeFailure.
  void fail(Code code, const std::string& message);
  // The whole scene (element sets whole, in solver ids) to every other rank, its part.
  void send_parts(const Scene& whole);

 private:
  MPI_Comm comm_;
};

// A rank other than 0: waits for rank 0's announcements (joining a parallel partition if
// asked) and returns its part, or throws rank 0's error.
Scene receive_scene_part(const CaseSpec& spec, MPI_Comm comm);

}  // namespace weft
