// Recursive coordinate bisection (RCB): parts for point sets with no mesh edges to give
// METIS (particle-only scenes, issue 17): compact, axis-aligned slabs.
//
// The set is cut across the longest axis of its bounding box at the weighted quantile
// that gives the lower half floor(k/2) / k of the weight for k parts, then each half is
// cut again for its share of the parts, until every part is one piece. Points are ordered
// along the axis by (coordinate, index), so the result is deterministic: every rank
// computing it gets the same answer. Unit weights when `weights` is null; weights are
// >= 0 and zero-weight points (kinematic) go with the side their coordinate falls on. A
// part may be empty only when there are fewer points than parts.
#pragma once
#include <vector>

#include "core/types.hpp"

namespace weft {

std::vector<int> partition_coordinates(const std::vector<Vec3>& points, int parts,
                                       const std::vector<double>* weights = nullptr);

}  // namespace weft
