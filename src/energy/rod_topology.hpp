// Bending stencils of a rod object from its segments: the triples (x0, x1, x2) of two
// segments meeting at x1, each one discrete-curvature vertex of C-IPC eq. 3 (Psi_rod).
#pragma once
#include <array>
#include <vector>

#include "core/types.hpp"

namespace weft {

// Triples through every vertex shared by two or more segments, in ascending order of the
// middle vertex:
//  - two incident segments: one triple, ordered along the polyline when the segments are
//    head to tail (a -> b, then b -> c gives (a, b, c) whichever is listed first); else
//    from the segment listed first to the other;
//  - more than two (rod-net crossings): the segments are paired into straight
//    continuations, greedily by smallest rest turning angle (ties by listing order), one
//    triple per pair, each ordered as above; pairs folded back at rest are never formed,
//    and an odd segment out gets none;
//  - endpoints (one segment) get none.
// rest is indexed by the segments' vertex ids.
std::vector<std::array<int, 3>> rod_bend_triples(const std::vector<Edge>& segments, const std::vector<Vec3>& rest);

}  // namespace weft
