#include "partition/metis_partition.hpp"

#include <metis.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace weft {

VertexGraph build_vertex_graph(int n, const std::vector<std::vector<int>>& elements) {
  return build_vertex_graph(n, [&](const ElementVisitor& visit) {
    for (const auto& e : elements) visit(e.data(), static_cast<int>(e.size()));
  });
}

VertexGraph build_vertex_graph(int n, const ElementSource& each) { return build_vertex_graph_rows(n, 0, n, each).rows; }

VertexGraphRows build_vertex_graph_rows(int num_global, int first, int last, const ElementSource& each) {
  // Upper bound of each row (every other vertex of every element it is in), filled, then
  // each row sorted and made unique in place and the rows packed: O(E log deg) and two
  // arrays of the bound's size at most, for the rows asked only.
  VertexGraphRows out;
  out.first = first;
  out.num_global = num_global;
  const int n = last - first;
  std::vector<long> bound(static_cast<size_t>(n) + 1, 0);
  each([&](const int* v, int arity) {
    for (int a = 0; a < arity; ++a)
      if (v[a] >= first && v[a] < last) bound[v[a] - first + 1] += arity - 1;
  });
  for (int v = 0; v < n; ++v) bound[v + 1] += bound[v];
  std::vector<int> row(bound[n]);
  std::vector<long> fill(bound.begin(), bound.end() - 1);
  each([&](const int* v, int arity) {
    for (int a = 0; a < arity; ++a) {
      const int va = v[a];
      if (va < first || va >= last) continue;
      for (int c = 0; c < arity; ++c)
        if (a != c && va != v[c]) row[fill[va - first]++] = v[c];
    }
  });
  VertexGraph& g = out.rows;
  g.xadj.assign(static_cast<size_t>(n) + 1, 0);
  long packed = 0;
  for (int v = 0; v < n; ++v) {
    auto begin = row.begin() + bound[v], end = row.begin() + fill[v];
    std::sort(begin, end);
    end = std::unique(begin, end);
    for (auto it = begin; it != end; ++it) row[packed++] = *it;
    g.xadj[v + 1] = static_cast<int>(packed);
  }
  std::vector<long>().swap(fill);
  std::vector<long>().swap(bound);
  row.resize(packed);
  row.shrink_to_fit();
  g.adjncy = std::move(row);
  return out;
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
