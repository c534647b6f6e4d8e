// Cloth tearing for the position-based methods (issue 18, `tear_stretch`; DESIGN.md
// "Tearing"): between substeps, every mesh edge stretched past tear_stretch x its rest length
// splits one of its endpoints. The split vertex keeps the triangles on the near side of the
// plane through it perpendicular to the edge (the side of the edge's other endpoint); those
// on the far side move to a spare vertex taken from its object's pool (allocated up front by
// the scene loader, so the vertex count never changes). The crack therefore opens across the
// stretch direction, as a tension crack does.
//
// Everything here is a pure function of the inputs and the vertex keys (input ids), so every
// rank, holding the whole scene, applies the same splits in the same order.
#pragma once
#include <vector>

#include "core/types.hpp"

namespace weft {

struct TearMesh {
  std::vector<Tri> triangles;          // current corners, case order (only `tearable` objects' change)
  std::vector<int> triangle_object;
  std::vector<char> tearable;          // per object
  std::vector<double> mass;            // per vertex (a spare: 0 until used)
  std::vector<Vec3> rest;              // per vertex rest position (a used spare: its origin's)
  std::vector<char> fixed;             // per vertex: never splits (pins)
  std::vector<int> key;                // per vertex: the order ties are broken by (input id)
  std::vector<std::vector<int>> spares;  // per object: the pool, in the order spares are taken
  std::vector<int> used;               // per object: spares taken so far
};

struct TearSplit {
  int vertex;  // the vertex that split
  int spare;   // the spare that took its far-side triangles (position, velocity: copy of vertex's)
};

// Splits `v` by the plane through x[v] with normal `dir` (pointing away from the near side):
// the triangles of v whose centroid lies strictly beyond the plane go to the next spare of
// their object. Refused (false, nothing changed) when v is fixed, a side would be empty,
// either side is not one edge-connected fan around v (the split would leave a non-manifold
// vertex), or the object's pool is empty (*exhausted set). On success x[spare] = x[v], the
// rest position is copied and v's mass is shared in proportion to the sides' rest areas (the
// lumped-mass rule: a third of each triangle's mass per corner).
bool tear_split_vertex(TearMesh& m, std::vector<Vec3>& x, int v, const Vec3& dir, TearSplit* out,
                       bool* exhausted = nullptr);

// One tearing pass: every edge of a tearable object with |x_b - x_a| > threshold |X_b - X_a|,
// most stretched first (ties by the endpoints' keys), splits the endpoint with more incident
// triangles (ties: lower key; a fixed endpoint, or one that cannot split, leaves the other
// to try), the normal pointing from the other endpoint. An edge an earlier split of the pass
// removed is skipped (the next pass sees the new one), and so is an edge touching the
// triangles around an earlier split of the pass (one crack per neighbourhood and pass: a band
// of edges stretched together does not open parallel cracks). x: positions per vertex, updated for
// the spares taken. Stops at the first empty pool (*exhausted). held (optional, per vertex):
// vertices that do not split in this pass, as if fixed (the edge's other end may).
std::vector<TearSplit> tear_pass(TearMesh& m, std::vector<Vec3>& x, double threshold, bool* exhausted,
                                 const std::vector<char>* held = nullptr);

}  // namespace weft
