// Hierarchical PBD levels (003 sec. 4.3 after Mueller 2008, "Hierarchical Position Based
// Dynamics"): level 0 is the mesh's particles with its distance constraints; level l + 1
// keeps a proper subset of level l's particles (a greedy maximal independent set of level
// l's graph, in vertex-key order), and every particle of level l left out is tied to k = 2
// or more of them, its parents: its coarse neighbours in level l's graph, filled up to two
// from coarse particles two edges away (nearest at rest first). Level l + 1's constraints
// join two coarse particles that are neighbours in level l or share a child; they are
// unilateral distance constraints (only stretching is resisted, so the coarse levels add no
// artificial bending stiffness). Everything depends on the graph and rest positions only,
// visited in a rank-count independent key order: the same hierarchy at every rank count.
#pragma once
#include <vector>

#include "core/paged_array.hpp"
#include "core/types.hpp"

namespace weft {

struct HierarchyLevel {
  std::vector<int> particles;               // vertex ids of this level (coarser than the last)
  std::vector<Edge> edges;                  // its constraints' vertex pairs
  std::vector<double> rest;                 // their rest lengths
  // The previous level's particles left out here, each with its parents and weights
  // (1 / rest distance, normalised): parent_start is CSR over children.
  std::vector<int> children, parent_start{0}, parents;
  std::vector<double> weights;
};

// edges: level 0's distance constraints (vertex ids < num_vertices), rest: positions by
// vertex id, key: the visiting order of vertices, a permutation of 0 .. n - 1 (e.g. their input ids). Returns levels
// 1 .. levels - 1 (fewer when a level would keep every particle or none with an edge).
std::vector<HierarchyLevel> build_hierarchy(const std::vector<Edge>& edges, VertexSpan<Vec3> rest,
                                            const std::vector<int>& key, int levels);

}  // namespace weft
