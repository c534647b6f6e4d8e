#include "energy/rod_topology.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace weft {

std::vector<std::array<int, 3>> rod_bend_triples(const std::vector<Edge>& segments, const std::vector<Vec3>& rest) {
  // (vertex, segment) incidences, sorted: each vertex's segments in listing order.
  std::vector<std::pair<int, int>> inc;
  inc.reserve(2 * segments.size());
  for (size_t s = 0; s < segments.size(); ++s) {
    if (segments[s][0] == segments[s][1]) continue;  // a loop segment bends nothing
    inc.emplace_back(segments[s][0], static_cast<int>(s));
    inc.emplace_back(segments[s][1], static_cast<int>(s));
  }
  std::sort(inc.begin(), inc.end());

  auto other = [&](int s, int v) { return segments[s][0] == v ? segments[s][1] : segments[s][0]; };
  // Polyline direction through v: from the segment that ends at v to the one leaving it.
  auto triple = [&](int s0, int s1, int v) -> std::array<int, 3> {
    if (segments[s0][0] == v && segments[s1][1] == v) return {other(s1, v), v, other(s0, v)};
    return {other(s0, v), v, other(s1, v)};
  };

  std::vector<std::array<int, 3>> out;
  std::vector<int> segs;
  std::vector<std::tuple<double, int, int>> pairs;  // (turning angle, i, j) into segs
  std::vector<char> used;
  for (size_t b = 0; b < inc.size();) {
    const int v = inc[b].first;
    size_t e = b;
    segs.clear();
    for (; e < inc.size() && inc[e].first == v; ++e) segs.push_back(inc[e].second);
    b = e;
    const int n = static_cast<int>(segs.size());
    if (n < 2) continue;
    if (n == 2) {
      out.push_back(triple(segs[0], segs[1], v));
      continue;
    }
    // Crossing: the turning angle of p -> v -> q is the angle between v - p and q - v.
    pairs.clear();
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const Vec3 a = rest[v] - rest[other(segs[i], v)], c = rest[other(segs[j], v)] - rest[v];
        const double sn = a.cross(c).norm(), cs = a.dot(c);
        if (!(sn > 0) && !(cs > 0)) continue;  // folded back (or degenerate): no bending pair
        pairs.emplace_back(std::atan2(sn, cs), i, j);
      }
    std::sort(pairs.begin(), pairs.end());
    used.assign(n, 0);
    for (const auto& [angle, i, j] : pairs) {
      if (used[i] || used[j]) continue;
      used[i] = used[j] = 1;
      out.push_back(triple(segs[i], segs[j], v));
    }
  }
  return out;
}

}  // namespace weft
