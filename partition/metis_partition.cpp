#include "partition/metis_partition.hpp"

#include <metis.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace weft {

VertexGraph build_vertex_graph(int n, const std::vector<std::vector<int>>& elements) {
  // Collect directed pairs, sort, unique: O(E log E) and no per-vertex containers.
  std::vector<std::pair<int, int>> pairs;
  size_t guess = 0;
  for (const auto& e : elements) guess += e.size() * (e.size() - 1);
  pairs.reserve(guess);
  for (const auto& e : elements)
    for (size_t a = 0; a < e.size(); ++a)
      for (size_t b = 0; b < e.size(); ++b)
        if (a != b && e[a] != e[b]) pairs.emplace_back(e[a], e[b]);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  VertexGraph g;
  g.xadj.assign(n + 1, 0);
  g.adjncy.reserve(pairs.size());
  for (auto& [a, b] : pairs) {
    ++g.xadj[a + 1];
    g.adjncy.push_back(b);
  }
  std::partial_sum(g.xadj.begin(), g.xadj.end(), g.xadj.begin());
  return g;
}

std::vector<int> partition_graph(const VertexGraph& g, int parts, const std::vector<int>* weights) {
  const int n = g.num_vertices();
  std::vector<int> part(n, 0);
  if (parts <= 1 || n == 0) return part;
  if (parts > n) throw InputError("cannot split " + std::to_string(n) + " vertices over " +
                                  std::to_string(parts) + " ranks");
  idx_t nv = n, ncon = 1, np = parts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // fixed seed: all ranks agree without communicating
  options[METIS_OPTION_CONTIG] = 0;
  std::vector<idx_t> xadj(g.xadj.begin(), g.xadj.end()), adj(g.adjncy.begin(), g.adjncy.end());
  std::vector<idx_t> out(n), vwgt;
  if (weights && static_cast<int>(weights->size()) == n &&
      std::any_of(weights->begin(), weights->end(), [](int w) { return w > 0; }))
    vwgt.assign(weights->begin(), weights->end());
  int rc = METIS_PartGraphKway(&nv, &ncon, xadj.data(), adj.data(), vwgt.empty() ? nullptr : vwgt.data(), nullptr,
                               nullptr, &np,
                               nullptr, nullptr, options, &cut, out.data());
  if (rc != METIS_OK) throw RuntimeFailure("METIS_PartGraphKway failed (code " + std::to_string(rc) + ")");
  std::copy(out.begin(), out.end(), part.begin());
  // METIS may leave a part empty on tiny graphs; an empty rank would own no rows.
  std::vector<int> sizes(parts, 0);
  for (int p : part) ++sizes[p];
  for (int p = 0; p < parts; ++p)
    if (sizes[p] == 0) throw RuntimeFailure("METIS left part " + std::to_string(p) + " empty");
  return part;
}

PartitionQuality partition_quality(const VertexGraph& g, const std::vector<int>& part, int parts) {
  PartitionQuality q;
  q.part_sizes.assign(parts, 0);
  q.ghost_counts.assign(parts, 0);
  const int n = g.num_vertices();
  for (int v = 0; v < n; ++v) ++q.part_sizes[part[v]];
  // A vertex is a ghost of part p if a neighbour of it lives in p and it does not.
  std::vector<int> seen(parts, -1);
  for (int v = 0; v < n; ++v) {
    for (int k = g.xadj[v]; k < g.xadj[v + 1]; ++k) {
      int u = g.adjncy[k], pu = part[u];
      if (pu != part[v]) {
        if (u > v) ++q.edge_cut;
        if (seen[pu] != v) {
          seen[pu] = v;
          ++q.ghost_counts[pu];
        }
      }
    }
  }
  double mean = double(n) / parts;
  q.imbalance = *std::max_element(q.part_sizes.begin(), q.part_sizes.end()) / mean;
  return q;
}

}  // namespace weft
