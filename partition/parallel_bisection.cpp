#include "partition/parallel_bisection.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>

#include "core/error.hpp"

namespace weft {

namespace {

// A point's place in the serial order along an axis: (coordinate, index) as one unsigned
// 128-bit number, so "before" is "<" and the cut's key can be bisected bit by bit.
using Key = unsigned __int128;
constexpr Key kMaxKey = ~Key(0);

// The double's bits, reordered so unsigned comparison is numeric comparison (negative
// numbers: all bits flipped; the others: the sign bit set). -0 is +0 first: they are equal
// in the serial comparison, which then orders by index.
std::uint64_t ordered_bits(double c) {
  if (c == 0) c = 0.0;
  std::uint64_t b = 0;
  std::memcpy(&b, &c, sizeof b);
  return (b >> 63) != 0 ? ~b : (b | (std::uint64_t(1) << 63));
}

Key make_key(double c, long long index) {
  return (Key(ordered_bits(c)) << 64) | Key(static_cast<std::uint64_t>(index));
}

struct Node {
  int part0, parts;
};

// This rank's points of one node, in key order, with the prefix sums of their weights.
struct NodePoints {
  std::vector<Key> keys;
  std::vector<double> below;  // below[i]: weight of keys[0..i)
  std::vector<double> weight;
  // Points with key < k, their weight, and the weight of the point with key k (if here).
  void less_than(Key k, double* count, double* w_less, double* w_equal) const {
    const size_t i = std::lower_bound(keys.begin(), keys.end(), k) - keys.begin();
    *count += static_cast<double>(i);
    *w_less += below[i];
    if (i < keys.size() && keys[i] == k) *w_equal += weight[i];
  }
};

// For every node k with active[k], the smallest key K with pred_k(K) true, where pred_k is
// monotone and true at kMaxKey (checked by the caller). `sums(k, K, out)` adds this rank's
// terms of the sums the predicate reads (`width` doubles per node); `pred(k, summed)`
// decides from the sums over every rank. One MPI_Allreduce per step, all nodes together.
template <class Sums, class Pred>
std::vector<Key> bisect_keys(const std::vector<char>& active, int width, Sums sums, Pred pred, MPI_Comm comm) {
  const size_t m = active.size();
  std::vector<Key> lo(m, 0), hi(m, kMaxKey);
  std::vector<double> buf(width * m);
  for (;;) {
    bool any = false;
    std::fill(buf.begin(), buf.end(), 0.0);
    std::vector<Key> mid(m, 0);
    for (size_t k = 0; k < m; ++k) {
      if (!active[k] || lo[k] == hi[k]) continue;
      any = true;
      mid[k] = lo[k] + (hi[k] - lo[k]) / 2;
      sums(k, mid[k], &buf[width * k]);
    }
    // (Every rank holds the same lo and hi: they change only by the summed predicate.)
    if (!any) break;
    MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_DOUBLE, MPI_SUM, comm);
    for (size_t k = 0; k < m; ++k) {
      if (!active[k] || lo[k] == hi[k]) continue;
      if (pred(k, &buf[width * k]))
        hi[k] = mid[k];
      else
        lo[k] = mid[k] + 1;
    }
  }
  return lo;
}

}  // namespace

std::vector<int> partition_coordinates_parallel(const std::vector<Vec3>& points, const std::vector<long long>& index,
                                                int parts, const std::vector<double>* weights, MPI_Comm comm) {
  if (parts < 1) throw InputError("coordinate bisection: parts must be >= 1");
  const int n = static_cast<int>(points.size());
  if (static_cast<int>(index.size()) != n) throw InputError("coordinate bisection: one index per point");
  std::vector<double> w = weights ? *weights : std::vector<double>(n, 1.0);
  if (static_cast<int>(w.size()) != n) throw InputError("coordinate bisection: one weight per point");

  std::vector<int> out(n, 0);
  std::vector<int> node_of(n, 0);  // the point's node in this level's list, -1 once placed
  std::vector<Node> nodes = {{0, parts}};
  const double inf = std::numeric_limits<double>::infinity();
  while (!nodes.empty()) {
    const int m = static_cast<int>(nodes.size());
    // The node's count, total weight and box over every rank (the box as minima of
    // (lo, -hi): one reduction).
    std::vector<double> sums(2 * m, 0.0), box(6 * m, inf);
    for (int i = 0; i < n; ++i) {
      const int k = node_of[i];
      if (k < 0) continue;
      sums[2 * k] += 1, sums[2 * k + 1] += w[i];
      for (int d = 0; d < 3; ++d) {
        box[6 * k + d] = std::min(box[6 * k + d], points[i][d]);
        box[6 * k + 3 + d] = std::min(box[6 * k + 3 + d], -points[i][d]);
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, sums.data(), 2 * m, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, box.data(), 6 * m, MPI_DOUBLE, MPI_MIN, comm);

    // A node of one part or at most one point is a leaf (as in the serial recursion); the
    // others are cut across their box's longest axis.
    std::vector<char> cut(m, 0);
    std::vector<int> axis(m, 0);
    for (int k = 0; k < m; ++k) {
      cut[k] = nodes[k].parts > 1 && sums[2 * k] > 1;
      const Vec3 lo(box[6 * k], box[6 * k + 1], box[6 * k + 2]);
      const Vec3 hi(-box[6 * k + 3], -box[6 * k + 4], -box[6 * k + 5]);
      if (cut[k]) (hi - lo).maxCoeff(&axis[k]);
    }
    // This rank's points of each node to be cut, in key order.
    std::vector<NodePoints> local(m);
    {
      std::vector<std::vector<int>> members(m);
      for (int i = 0; i < n; ++i)
        if (node_of[i] >= 0 && cut[node_of[i]]) members[node_of[i]].push_back(i);
      for (int k = 0; k < m; ++k) {
        std::vector<std::pair<Key, int>> kv;
        kv.reserve(members[k].size());
        for (int i : members[k]) kv.emplace_back(make_key(points[i][axis[k]], index[i]), i);
        std::sort(kv.begin(), kv.end());
        NodePoints& np = local[k];
        np.below.assign(1, 0.0);
        for (const auto& [key, i] : kv) {
          np.keys.push_back(key);
          np.weight.push_back(w[i]);
          np.below.push_back(np.below.back() + w[i]);
        }
      }
    }
    // The serial cut: the first point (in key order) whose weight before it plus half its
    // own reaches the lower share of the node's weight, i.e. the smallest key K with
    // W(< K) + w(K) / 2 >= target (monotone in K; at a key no point has, W(< K) alone).
    // The count before that key is the cut; none reaching the target: every point.
    std::vector<long long> count(m), c(m, 0);
    std::vector<char> weighted(m, 0);
    for (int k = 0; k < m; ++k) {
      count[k] = static_cast<long long>(sums[2 * k]);
      weighted[k] = cut[k] && sums[2 * k + 1] > 0;
    }
    auto target = [&](size_t k) { return sums[2 * k + 1] * (nodes[k].parts / 2) / nodes[k].parts; };
    {
      std::vector<double> at_max(2 * m, 0.0);
      for (int k = 0; k < m; ++k) {
        double cnt = 0;
        if (weighted[k]) local[k].less_than(kMaxKey, &cnt, &at_max[2 * k], &at_max[2 * k + 1]);
      }
      MPI_Allreduce(MPI_IN_PLACE, at_max.data(), 2 * m, MPI_DOUBLE, MPI_SUM, comm);
      std::vector<char> search(m, 0);
      for (int k = 0; k < m; ++k) {
        if (!weighted[k]) continue;
        search[k] = at_max[2 * k] + 0.5 * at_max[2 * k + 1] >= target(k);
        if (!search[k]) c[k] = count[k];
      }
      const std::vector<Key> first = bisect_keys(
          search, 2, [&](size_t k, Key key, double* s) {
            double cnt = 0;
            local[k].less_than(key, &cnt, &s[0], &s[1]);
          },
          [&](size_t k, const double* s) { return s[0] + 0.5 * s[1] >= target(k); }, comm);
      std::vector<double> before(m, 0.0);
      for (int k = 0; k < m; ++k) {
        double wl = 0, we = 0;
        if (search[k]) local[k].less_than(first[k], &before[k], &wl, &we);
      }
      MPI_Allreduce(MPI_IN_PLACE, before.data(), m, MPI_DOUBLE, MPI_SUM, comm);
      for (int k = 0; k < m; ++k)
        if (search[k]) c[k] = static_cast<long long>(before[k]);
    }
    // No weight at all: by count. Then each side keeps at least one point per part where
    // it can (the serial clamp, with the same std::clamp).
    for (int k = 0; k < m; ++k) {
      if (!cut[k]) continue;
      const long long left_parts = nodes[k].parts / 2;
      if (!weighted[k]) c[k] = count[k] * left_parts / nodes[k].parts;
      c[k] = std::clamp(c[k], std::min(left_parts, count[k]),
                        std::max(count[k] - (nodes[k].parts - left_parts), 0LL));
    }
    // The split: the points before the smallest key K with c points before it (K = 0: none;
    // c = count: every point, K = kMaxKey, which no point has).
    std::vector<char> split_search(m, 0);
    for (int k = 0; k < m; ++k) split_search[k] = cut[k] && c[k] > 0 && c[k] < count[k];
    std::vector<Key> split = bisect_keys(
        split_search, 1, [&](size_t k, Key key, double* s) {
          double wl = 0, we = 0;
          local[k].less_than(key, &s[0], &wl, &we);
        },
        [&](size_t k, const double* s) { return static_cast<long long>(s[0]) >= c[k]; }, comm);
    for (int k = 0; k < m; ++k)
      if (cut[k] && !split_search[k]) split[k] = c[k] == 0 ? 0 : kMaxKey;

    // The next level: a node's two halves, or its part for every point of a leaf.
    std::vector<Node> next;
    std::vector<int> child(2 * m, -1);
    for (int k = 0; k < m; ++k) {
      if (!cut[k]) continue;
      const int left_parts = nodes[k].parts / 2;
      child[2 * k] = static_cast<int>(next.size());
      next.push_back({nodes[k].part0, left_parts});
      child[2 * k + 1] = static_cast<int>(next.size());
      next.push_back({nodes[k].part0 + left_parts, nodes[k].parts - left_parts});
    }
    for (int i = 0; i < n; ++i) {
      const int k = node_of[i];
      if (k < 0) continue;
      if (!cut[k]) {
        out[i] = nodes[k].part0, node_of[i] = -1;
        continue;
      }
      const bool left = make_key(points[i][axis[k]], index[i]) < split[k];
      node_of[i] = child[2 * k + (left ? 0 : 1)];
    }
    nodes.swap(next);
  }
  return out;
}

}  // namespace weft
