#include "partition/kinematic_owner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace weft {
namespace {

// Uniform grid over the dynamic vertices (CSR by cell), for exact nearest-vertex queries
// by rings of cells around the query's cell.
struct NearestGrid {
  Vec3 lo;
  double h = 1.0;
  std::array<int, 3> dims{1, 1, 1};
  std::vector<int> start, ids;
  const std::vector<Vec3>* x = nullptr;

  int axis_cell(double p, int d) const {
    const double c = std::floor((p - lo[d]) / h);
    if (!(c > 0)) return 0;  // also NaN
    return static_cast<int>(std::min<double>(c, dims[d] - 1));
  }
  int flat(int i, int j, int k) const { return (k * dims[1] + j) * dims[0] + i; }

  NearestGrid(const std::vector<Vec3>& pos, const std::vector<int>& dyn) : x(&pos) {
    Vec3 hi = pos[dyn[0]];
    lo = hi;
    for (int v : dyn) lo = lo.cwiseMin(pos[v]), hi = hi.cwiseMax(pos[v]);
    // About one cell per dynamic vertex over the longest extent's cube root: flat cloth
    // gets a single layer of cells, a volume no more cells than vertices.
    const double extent = (hi - lo).maxCoeff();
    const int per_axis = std::max(1, static_cast<int>(std::ceil(std::cbrt(static_cast<double>(dyn.size())))));
    h = extent > 0 ? extent / per_axis : 1.0;
    for (int d = 0; d < 3; ++d) dims[d] = std::min(per_axis, 1 + static_cast<int>((hi[d] - lo[d]) / h));
    start.assign(static_cast<size_t>(dims[0]) * dims[1] * dims[2] + 1, 0);
    std::vector<int> cell(dyn.size());
    for (size_t n = 0; n < dyn.size(); ++n) {
      const Vec3& p = pos[dyn[n]];
      cell[n] = flat(axis_cell(p[0], 0), axis_cell(p[1], 1), axis_cell(p[2], 2));
      ++start[cell[n] + 1];
    }
    for (size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
    ids.resize(dyn.size());
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (size_t n = 0; n < dyn.size(); ++n) ids[fill[cell[n]]++] = dyn[n];  // ascending ids per cell
  }

  // Nearest dynamic vertex to q: rings of cells of growing Chebyshev radius r around q's
  // (clamped) cell, until no unsearched cell can hold a point as close as the best.
  int nearest(const Vec3& q) const {
    const int c[3] = {axis_cell(q[0], 0), axis_cell(q[1], 1), axis_cell(q[2], 2)};
    double best = std::numeric_limits<double>::infinity();
    int best_id = -1;
    for (int r = 0;; ++r) {
      int b[3], e[3];
      for (int d = 0; d < 3; ++d) b[d] = std::max(0, c[d] - r), e[d] = std::min(dims[d] - 1, c[d] + r);
      for (int k = b[2]; k <= e[2]; ++k)
        for (int j = b[1]; j <= e[1]; ++j)
          for (int i = b[0]; i <= e[0]; ++i) {
            // Only the shell at radius r is new.
            if (std::max({std::abs(i - c[0]), std::abs(j - c[1]), std::abs(k - c[2])}) != r) continue;
            const int cell = flat(i, j, k);
            for (int n = start[cell]; n < start[cell + 1]; ++n) {
              const int v = ids[n];
              const double d2 = ((*x)[v] - q).squaredNorm();
              if (d2 < best || (d2 == best && v < best_id)) best = d2, best_id = v;
            }
          }
      // Lower bound on the distance to any cell outside the searched block.
      double bound = std::numeric_limits<double>::infinity();
      for (int d = 0; d < 3; ++d) {
        if (b[d] > 0) bound = std::min(bound, q[d] - (lo[d] + b[d] * h));
        if (e[d] < dims[d] - 1) bound = std::min(bound, lo[d] + (e[d] + 1) * h - q[d]);
      }
      if (!std::isfinite(bound)) return best_id;  // the whole grid is searched
      if (best_id >= 0 && bound > 0 && bound * bound > best) return best_id;
    }
  }
};

}  // namespace

std::vector<int> loose_kinematic_vertices(const VertexGraph& g, int first, const std::vector<char>& kinematic) {
  std::vector<int> loose;
  const int rows = g.num_vertices();
  for (int r = 0; r < rows; ++r) {
    if (!kinematic[first + r]) continue;
    bool touches_dynamic = false;
    for (int k = g.xadj[r]; k < g.xadj[r + 1] && !touches_dynamic; ++k) touches_dynamic = !kinematic[g.adjncy[k]];
    if (!touches_dynamic) loose.push_back(first + r);
  }
  return loose;
}

std::vector<std::pair<double, int>> nearest_points(const std::vector<Vec3>& queries, const std::vector<Vec3>& x,
                                                   const std::vector<int>& candidates) {
  std::vector<std::pair<double, int>> out;
  out.reserve(queries.size());
  const NearestGrid grid(x, candidates);
  for (const Vec3& q : queries) {
    const int v = grid.nearest(q);
    out.emplace_back((x[v] - q).squaredNorm(), v);
  }
  return out;
}

void attach_kinematic_to_nearest(const VertexGraph& g, const std::vector<Vec3>& x, const std::vector<char>& kinematic,
                                 std::vector<int>& part) {
  attach_kinematic_to_nearest(loose_kinematic_vertices(g, 0, kinematic), x, kinematic, part);
}

void attach_kinematic_to_nearest(const std::vector<int>& loose, const std::vector<Vec3>& x,
                                 const std::vector<char>& kinematic, std::vector<int>& part) {
  const int n = static_cast<int>(part.size());
  std::vector<int> dyn;
  for (int v = 0; v < n; ++v)
    if (!kinematic[v]) dyn.push_back(v);
  if (dyn.empty() || loose.empty()) return;
  const NearestGrid grid(x, dyn);
  std::vector<int> moved(part);
  for (int v : loose) moved[v] = part[grid.nearest(x[v])];
  // Fewer dynamic vertices than parts: a part METIS filled with obstacles alone would be
  // left empty, and a rank must own rows. Keep METIS's answer then.
  const int parts = 1 + *std::max_element(part.begin(), part.end());
  std::vector<int> sizes(parts, 0);
  for (int p : moved) ++sizes[p];
  if (std::find(sizes.begin(), sizes.end(), 0) == sizes.end()) part.swap(moved);
}

}  // namespace weft
