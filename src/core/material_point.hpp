// The crack rule, one definition for the stepper's final self-collision check and for
// weft-verify (DESIGN.md "Tearing"): when a vertex splits, its spare starts at its position
// and the crack's two sides touch there. A vertex and a spare descending from it by splits
// are ONE material point while they sit at exactly the same position (bitwise equal
// coordinates): primitives through them are adjacent, as primitives sharing a vertex are.
// From the moment their positions differ in any bit they are two points, and every rule
// applies to the pairs through them.
#pragma once
#include <vector>

#include "core/types.hpp"

namespace weft {

// Per vertex, the vertex of the untorn mesh it descends from: the corner of the same triangle
// in `original` (the case's triangles; a spare replaces a corner in place, and a spare's spare
// the spare) for every corner of `current`, the vertex itself for the rest. num_vertices:
// every vertex id in both lists is below it. Without tearing (current == original) every root
// is the vertex itself, and no two vertices are one point.
std::vector<int> tear_roots(const std::vector<Tri>& original, const std::vector<Tri>& current, int num_vertices);

// Whether u and w are one material point: the same vertex, or the same root at bitwise the
// same position (root empty: no tearing, only u == w).
inline bool one_material_point(const std::vector<int>& root, int u, int w, const Vec3& xu, const Vec3& xw) {
  return u == w || (!root.empty() && root[u] == root[w] && xu == xw);
}

}  // namespace weft
