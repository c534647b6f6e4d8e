// Recursive coordinate bisection over points shared out between the ranks (issue 20 point 2:
// particle-only scenes partitioned in parallel): the parts partition_coordinates
// (partition/coordinate_bisection.hpp) gives the union of every rank's points, without any
// rank holding them all.
//
// Each rank holds some of the points with their indices in the whole set (distinct, as the
// serial version numbers them) and weights. Every cut of the serial recursion is found
// from reductions alone: a node's box (MPI min / max), its total weight, and the cut's key
// in the serial order (coordinate along the node's longest axis, then index) by bisection
// of the 128-bit key space, each step one MPI_Allreduce over every node of a recursion
// level (128 steps for the weighted cut, 128 for the count cut: O(log parts) levels).
//
// The same parts as the serial version whenever the weights are integers (the scene
// loader's are 0 and 1): every weight sum is then exact, whatever order it is summed in.
// With fractional weights a cut can differ from the serial one where a prefix sum meets
// the target to the last bit.
#pragma once
#include <mpi.h>

#include <vector>

#include "core/types.hpp"

namespace weft {

// The part in [0, parts) of each of this rank's points (collective over comm). `index`:
// each point's index in the whole set; `weights`: one per point (>= 0) or null for 1.
std::vector<int> partition_coordinates_parallel(const std::vector<Vec3>& points, const std::vector<long long>& index,
                                                int parts, const std::vector<double>* weights, MPI_Comm comm);

}  // namespace weft
