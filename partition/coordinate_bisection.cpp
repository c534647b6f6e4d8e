#include "partition/coordinate_bisection.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace weft {

namespace {

void bisect(const std::vector<Vec3>& p, const std::vector<double>& w, std::vector<int>& ids, int first, int last,
            int part0, int parts, std::vector<int>& out) {
  if (parts == 1 || last - first <= 1) {
    for (int i = first; i < last; ++i) out[ids[i]] = part0;
    return;
  }
  Vec3 lo = p[ids[first]], hi = lo;
  for (int i = first; i < last; ++i) lo = lo.cwiseMin(p[ids[i]]), hi = hi.cwiseMax(p[ids[i]]);
  int axis = 0;
  (hi - lo).maxCoeff(&axis);
  std::sort(ids.begin() + first, ids.begin() + last, [&](int a, int b) {
    return p[a][axis] < p[b][axis] || (p[a][axis] == p[b][axis] && a < b);
  });
  const int left_parts = parts / 2;
  double total = 0;
  for (int i = first; i < last; ++i) total += w[ids[i]];
  // Smallest prefix holding at least the lower share of the weight (by count when the
  // weights are all zero); each side keeps at least one point per part where it can.
  const double target = total * left_parts / parts;
  int cut = first;
  double acc = 0;
  if (total > 0) {
    while (cut < last && acc + 0.5 * w[ids[cut]] < target) acc += w[ids[cut++]];
  } else {
    cut = first + static_cast<int>((long long)(last - first) * left_parts / parts);
  }
  cut = std::clamp(cut, std::min(first + left_parts, last), std::max(last - (parts - left_parts), first));
  bisect(p, w, ids, first, cut, part0, left_parts, out);
  bisect(p, w, ids, cut, last, part0 + left_parts, parts - left_parts, out);
}

}  // namespace

std::vector<int> partition_coordinates(const std::vector<Vec3>& points, int parts, const std::vector<double>* weights) {
  if (parts < 1) throw InputError("coordinate bisection: parts must be >= 1");
  const int n = static_cast<int>(points.size());
  std::vector<double> w = weights ? *weights : std::vector<double>(n, 1.0);
  if (static_cast<int>(w.size()) != n) throw InputError("coordinate bisection: one weight per point");
  std::vector<int> ids(n), out(n, 0);
  std::iota(ids.begin(), ids.end(), 0);
  bisect(points, w, ids, 0, n, 0, parts, out);
  return out;
}

}  // namespace weft
