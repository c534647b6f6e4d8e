// The boundary surface of a tet mesh: its collision surface and output triangles.
#pragma once
#include <array>
#include <vector>

#include "core/types.hpp"

namespace weft {

// The faces used by exactly one tet, oriented outward for positively oriented tets (the
// face opposite vertex a of {v0, v1, v2, v3} is taken as (v1 v2 v3), (v0 v3 v2), (v0 v1 v3)
// or (v0 v2 v1)), in the order of their tets and faces: deterministic. Vertex ids are the
// tets' own (interior vertices stay in the vertex array, used by no triangle). Throws
// InputError when a face is shared by more than two tets (not a conforming tet mesh).
std::vector<Tri> extract_boundary_surface(const std::vector<std::array<int, 4>>& tets);

}  // namespace weft
