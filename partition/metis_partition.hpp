// METIS partition of a vertex graph, and the quality figures weft-partition reports.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace weft {

// Compressed adjacency of the vertex graph (no self loops, symmetric).
struct VertexGraph {
  std::vector<int> xadj;    // size n+1
  std::vector<int> adjncy;
  int num_vertices() const { return static_cast<int>(xadj.size()) - 1; }
};

// Graph of vertices joined when they share an element; `elements` are vertex tuples.
VertexGraph build_vertex_graph(int num_vertices, const std::vector<std::vector<int>>& elements);

// Elements handed over one by one (no flat copy of them all): `each(visit)` calls
// visit(vertices, arity) once per element.
using ElementVisitor = std::function<void(const int* vertices, int arity)>;
using ElementSource = std::function<void(const ElementVisitor& visit)>;

// Rows [first, first + rows.num_vertices()) of the vertex graph of num_global vertices, the
// columns global ids: what one rank hands a parallel partitioner (issue 20 point 2: no rank
// builds the whole graph). Each row equals the whole graph's row.
struct VertexGraphRows {
  int first = 0;
  int num_global = 0;
  VertexGraph rows;
};
VertexGraphRows build_vertex_graph_rows(int num_global, int first, int last, const ElementSource& each);
VertexGraph build_vertex_graph(int num_vertices, const ElementSource& each);

// Part id per vertex, in [0, parts). Deterministic: every rank computing it gets the same
// answer, so no broadcast is needed. parts == 1 skips METIS. weights (optional, >= 0, not
// all 0): METIS balances their sums over the parts instead of the vertex counts.
std::vector<int> partition_graph(const VertexGraph& g, int parts, const std::vector<int>* weights = nullptr);

struct PartitionQuality {
  std::vector<int> part_sizes;
  std::vector<int> ghost_counts;   // vertices a part references but does not own
  long edge_cut = 0;
  double imbalance = 1.0;          // max part size / mean part size
};

PartitionQuality partition_quality(const VertexGraph& g, const std::vector<int>& part, int parts);

}  // namespace weft
