#include "constraints/tearing.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <Eigen/Geometry>

namespace weft {
namespace {

using Incidence = std::vector<std::vector<int>>;  // vertex -> triangles (tearable objects only)

Incidence incidence(const TearMesh& m) {
  Incidence inc(m.mass.size());
  for (size_t t = 0; t < m.triangles.size(); ++t)
    if (m.tearable[m.triangle_object[t]])
      for (int v : m.triangles[t]) inc[v].push_back(static_cast<int>(t));
  return inc;
}

// Whether the triangles `set` (all containing v) form one fan: connected through the edges
// they share at v.
bool one_fan(const TearMesh& m, int v, const std::vector<int>& set) {
  if (set.empty()) return false;
  std::vector<char> seen(set.size(), 0);
  std::vector<size_t> stack = {0};
  seen[0] = 1;
  size_t reached = 1;
  auto shares_edge = [&](int a, int b) {
    for (int p : m.triangles[a])
      if (p != v)
        for (int q : m.triangles[b])
          if (q == p) return true;
    return false;
  };
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    for (size_t j = 0; j < set.size(); ++j)
      if (!seen[j] && shares_edge(set[i], set[j])) seen[j] = 1, ++reached, stack.push_back(j);
  }
  return reached == set.size();
}

double rest_area(const TearMesh& m, int t) {
  const Tri& tr = m.triangles[t];
  return 0.5 * (m.rest[tr[1]] - m.rest[tr[0]]).cross(m.rest[tr[2]] - m.rest[tr[0]]).norm();
}

bool split(TearMesh& m, Incidence& inc, std::vector<Vec3>& x, int v, const Vec3& dir, TearSplit* out,
           bool* exhausted) {
  if (m.fixed[v] || inc[v].empty()) return false;
  std::vector<int> near, far;
  for (int t : inc[v]) {
    const Tri& tr = m.triangles[t];
    const Vec3 c = (x[tr[0]] + x[tr[1]] + x[tr[2]]) / 3.0;
    ((c - x[v]).dot(dir) > 0 ? far : near).push_back(t);
  }
  if (!one_fan(m, v, near) || !one_fan(m, v, far)) return false;
  const int o = m.triangle_object[inc[v][0]];
  if (m.used[o] >= static_cast<int>(m.spares[o].size())) {
    if (exhausted) *exhausted = true;
    return false;
  }
  const int s = m.spares[o][m.used[o]++];
  double a_near = 0.0, a_far = 0.0;
  for (int t : near) a_near += rest_area(m, t);
  for (int t : far) a_far += rest_area(m, t);
  // Lumped masses: each triangle gives a third of its mass to each corner, so v's mass splits
  // as its triangles' rest areas do (by count if they have none).
  const double share = a_near + a_far > 0 ? a_far / (a_near + a_far)
                                          : static_cast<double>(far.size()) / (near.size() + far.size());
  m.mass[s] = m.mass[v] * share;
  m.mass[v] -= m.mass[s];
  m.rest[s] = m.rest[v];
  x[s] = x[v];
  for (int t : far)
    for (int& c : m.triangles[t])
      if (c == v) c = s;
  inc[v] = near;
  inc[s] = far;
  if (out) *out = {v, s};
  return true;
}

}  // namespace

bool tear_split_vertex(TearMesh& m, std::vector<Vec3>& x, int v, const Vec3& dir, TearSplit* out, bool* exhausted) {
  Incidence inc = incidence(m);
  return split(m, inc, x, v, dir, out, exhausted);
}

std::vector<TearSplit> tear_pass(TearMesh& m, std::vector<Vec3>& x, double threshold, bool* exhausted,
                                 const std::vector<char>* held) {
  std::vector<TearSplit> done;
  // Every edge once, as (key of a, key of b) with key a < key b.
  std::vector<std::tuple<int, int, int, int>> edges;  // key a, key b, a, b
  for (size_t t = 0; t < m.triangles.size(); ++t) {
    if (!m.tearable[m.triangle_object[t]]) continue;
    const Tri& tr = m.triangles[t];
    for (int k = 0; k < 3; ++k) {
      int a = tr[k], b = tr[(k + 1) % 3];
      if (m.key[a] > m.key[b]) std::swap(a, b);
      edges.emplace_back(m.key[a], m.key[b], a, b);
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  struct Over {
    double ratio;
    int ka, kb, a, b;
  };
  std::vector<Over> over;
  for (const auto& [ka, kb, a, b] : edges) {
    const double L = (m.rest[b] - m.rest[a]).norm();
    if (!(L > 0)) continue;
    const double r = (x[b] - x[a]).norm() / L;
    if (r > threshold) over.push_back({r, ka, kb, a, b});
  }
  if (over.empty()) return done;
  std::sort(over.begin(), over.end(), [](const Over& p, const Over& q) {
    return p.ratio > q.ratio || (p.ratio == q.ratio && std::tie(p.ka, p.kb) < std::tie(q.ka, q.kb));
  });
  Incidence inc = incidence(m);
  // One split per neighbourhood and pass: the vertices of the triangles around a split are
  // locked for the rest of the pass, so a band of edges stretched together opens one crack
  // (the next pass sees the relaxed state), not parallel cracks one row apart.
  std::vector<char> locked(m.mass.size(), 0);
  for (const Over& e : over) {
    if (locked[e.a] || locked[e.b]) continue;
    bool is_edge = false;
    for (int t : inc[e.a])
      for (int c : m.triangles[t]) is_edge = is_edge || c == e.b;
    if (!is_edge) continue;
    int first = e.a, second = e.b;
    const size_t na = inc[e.a].size(), nb = inc[e.b].size();
    if (nb > na || (nb == na && e.kb < e.ka)) std::swap(first, second);
    TearSplit s;
    bool out_of_spares = false;
    for (int v : {first, second}) {
      if (held && (*held)[v]) continue;
      const int other = v == e.a ? e.b : e.a;
      if (split(m, inc, x, v, x[v] - x[other], &s, &out_of_spares)) {
        done.push_back(s);
        for (int w : {s.vertex, s.spare})
          for (int t : inc[w])
            for (int c : m.triangles[t]) locked[c] = 1;
        break;
      }
      if (out_of_spares) break;
    }
    if (out_of_spares) {
      if (exhausted) *exhausted = true;
      break;
    }
  }
  return done;
}

}  // namespace weft
