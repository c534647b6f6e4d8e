#include "constraints/self_collision.hpp"

#include <algorithm>
#include <Eigen/Geometry>
#include <cmath>
#include <limits>
#include <optional>

#include "constraints/collision.hpp"
#include "constraints/patch_hierarchy.hpp"
#include "core/exact_orient.hpp"
#include "core/material_point.hpp"

namespace weft {

void SpatialHash::build(double cell, const std::vector<Vec3>& lo, const std::vector<Vec3>& hi) {
  inv_cell_ = 1.0 / cell;
  // Counting sort of (bucket, id) into a CSR table of about two buckets per box.
  const size_t nb = 2 * lo.size() + 1;
  num_buckets_ = nb;
  start_.assign(nb + 1, 0);
  auto each_cell = [&](size_t n, auto&& f) {
    const auto a = cell_of(lo[n]), b = cell_of(hi[n]);
    for (std::int64_t i = a[0]; i <= b[0]; ++i)
      for (std::int64_t j = a[1]; j <= b[1]; ++j)
        for (std::int64_t k = a[2]; k <= b[2]; ++k) f(bucket_of(hash(i, j, k), nb));
  };
  // The first pass keeps each entry's bucket (box by box, cells in visiting order), so the
  // second places them without hashing the cells again.
  std::vector<std::uint32_t> bucket;
  std::vector<int> count(lo.size());
  bucket.reserve(2 * lo.size());
  for (size_t n = 0; n < lo.size(); ++n) {
    const size_t before = bucket.size();
    each_cell(n, [&](std::uint64_t b) { ++start_[b + 1], bucket.push_back(static_cast<std::uint32_t>(b)); });
    count[n] = static_cast<int>(bucket.size() - before);
  }
  for (size_t b = 0; b < nb; ++b) start_[b + 1] += start_[b];
  ids_.resize(start_[nb]);
  std::vector<int> fill(start_.begin(), start_.end() - 1);
  size_t k = 0;
  for (size_t n = 0; n < lo.size(); ++n)
    for (int c = 0; c < count[n]; ++c) ids_[fill[bucket[k++]]++] = static_cast<int>(n);
}

// floor(v) as an integer for |v| < 2^63: truncation, one less for a negative non-integer
// (std::floor is a library call without SSE4.1, once per axis per box and per query).
static std::int64_t floor_to_int(double v) {
  const auto i = static_cast<std::int64_t>(v);
  return i - (static_cast<double>(i) > v ? 1 : 0);
}

std::array<std::int64_t, 3> SpatialHash::cell_of(const Vec3& p) const {
  return {floor_to_int(p[0] * inv_cell_), floor_to_int(p[1] * inv_cell_), floor_to_int(p[2] * inv_cell_)};
}

// Teschner et al.'s large primes, mixed into 64 bits (distinct cells rarely share a key;
// when they do the caller's exact test drops the false hit).
std::uint64_t SpatialHash::hash(std::int64_t i, std::int64_t j, std::int64_t k) {
  std::uint64_t h = static_cast<std::uint64_t>(i) * 73856093ULL ^ static_cast<std::uint64_t>(j) * 19349663ULL ^
                    static_cast<std::uint64_t>(k) * 83492791ULL;
  h ^= h >> 31;
  h *= 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

namespace {

// Queries [g0, g1) of n go together (one hash scan for the group) while their union box
// stays within twice the largest member's side: box_of(m, lo, hi) fills member m's query
// box into qlo / qhi[m - g0] (group members at most); glo, ghi is the group's union. Returns g1.
template <class BoxOf>
size_t grow_group(size_t g0, size_t n, size_t group, const BoxOf& box_of, Vec3* qlo, Vec3* qhi, Vec3& glo,
                  Vec3& ghi) {
  box_of(g0, qlo[0], qhi[0]);
  glo = qlo[0], ghi = qhi[0];
  double side = (qhi[0] - qlo[0]).maxCoeff();
  size_t g1 = g0 + 1;
  for (; g1 < n && g1 - g0 < group; ++g1) {
    const size_t k = g1 - g0;
    box_of(g1, qlo[k], qhi[k]);
    const Vec3 ulo = glo.cwiseMin(qlo[k]), uhi = ghi.cwiseMax(qhi[k]);
    const double s2 = std::max(side, (qhi[k] - qlo[k]).maxCoeff());
    if (!((uhi - ulo).maxCoeff() <= 2.0 * s2)) break;
    glo = ulo, ghi = uhi, side = s2;
  }
  return g1;
}

// Per vertex, the bits of a query group's members whose closed one-ring holds it, valid for
// one group (its stamp): a neighbour test is then one lookup per candidate instead of ring
// scans per member. A new stamp clears a vertex's old bits on first touch.
class RingMarks {
 public:
  explicit RingMarks(const VertexRings& rings) : rings_(rings), marks_(rings.start.size() - 1) {}
  // Sets `bits` on v and on its one-ring, for the group `stamp`.
  void mark(int v, int stamp, int bits) {
    set(v, stamp, bits);
    for (int e = rings_.start[v]; e < rings_.start[v + 1]; ++e) set(rings_.nbr[e], stamp, bits);
  }
  int mask(int v, int stamp) const { return marks_[v].stamp == stamp ? marks_[v].bits : 0; }

 private:
  struct Mark {
    int stamp = -1, bits = 0;
  };
  void set(int v, int stamp, int bits) {
    Mark& r = marks_[v];
    if (r.stamp != stamp) r.stamp = stamp, r.bits = 0;
    r.bits |= bits;
  }
  const VertexRings& rings_;
  std::vector<Mark> marks_;
};

// The hash's cell size: the mean of the boxes' largest sides.
double typical_extent(const std::vector<Vec3>& lo, const std::vector<Vec3>& hi) {
  double e = 0.0;
  for (size_t n = 0; n < lo.size(); ++n) e += (hi[n] - lo[n]).maxCoeff();
  return lo.empty() ? 0.0 : e / lo.size();
}

// Barycentric coordinates (of a, b, c) of points' projections on the triangle's plane; false
// for a degenerate triangle. The triangle's part is computed once for many points.
struct BarycentricFrame {
  Vec3 a, e0, e1;
  double d00, d01, d11, den;
  BarycentricFrame() = default;
  BarycentricFrame(const Vec3& a_, const Vec3& b, const Vec3& c) : a(a_), e0(b - a_), e1(c - a_) {
    d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1);
    den = d00 * d11 - d01 * d01;
  }
  bool coordinates(const Vec3& y, Vec3* out) const {
    const Vec3 d = y - a;
    const double d20 = d.dot(e0), d21 = d.dot(e1);
    if (!(den > 0)) return false;
    const double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
    *out = Vec3(1 - v - w, v, w);
    return true;
  }
  bool contains(const Vec3& y, double tol) const {
    Vec3 l;
    return coordinates(y, &l) && l.minCoeff() >= -tol;
  }
};

// The same expressions whether the frame is kept or not, hence the same values.
bool raw_barycentric(const Vec3& y, const Vec3& a, const Vec3& b, const Vec3& c, Vec3* out) {
  return BarycentricFrame(a, b, c).coordinates(y, out);
}

}  // namespace

bool projects_into_triangle(const Vec3& y, const Vec3& a, const Vec3& b, const Vec3& c, double tol) {
  return BarycentricFrame(a, b, c).contains(y, tol);
}

Vec3 barycentric_weights(const Vec3& y, const Vec3& a, const Vec3& b, const Vec3& c) {
  Vec3 l;
  if (!raw_barycentric(y, a, b, c, &l)) return Vec3::Constant(1.0 / 3.0);
  l = l.cwiseMax(0.0);
  return l / l.sum();
}

void find_self_collision_pairs(const std::vector<Tri>& tris, const std::vector<int>& tri_subset,
                               const std::vector<int>& verts, const double* x0, const double* x1, double reach,
                               const Vec3& shift, const VertexRings& rings, std::vector<SelfCollisionPair>& out) {
  if (tri_subset.empty() || verts.empty()) return;
  auto P0 = [&](int v) { return Eigen::Map<const Vec3>(x0 + 3 * static_cast<size_t>(v)); };
  auto P1 = [&](int v) { return Eigen::Map<const Vec3>(x1 + 3 * static_cast<size_t>(v)); };
  // Boxes in the frame moving by `shift` over the substep (x1 - shift): distances at every
  // instant of the linear motion are the same in it, so the box test stays conservative,
  // and a common motion no longer inflates every swept box.
  auto S1 = [&](int v) { return Vec3(P1(v) - shift); };
  std::vector<Vec3> lo(tri_subset.size()), hi(tri_subset.size());
  for (size_t n = 0; n < tri_subset.size(); ++n) {
    const Tri& t = tris[tri_subset[n]];
    lo[n] = hi[n] = P0(t[0]);
    for (int a = 0; a < 3; ++a)
      for (const Vec3& p : {Vec3(P0(t[a])), S1(t[a])}) lo[n] = lo[n].cwiseMin(p), hi[n] = hi[n].cwiseMax(p);
  }
  // Cells about the size of a (swept) triangle (001 sec. 4.3 assumes triangles of similar
  // size).
  const double cell = typical_extent(lo, hi) + reach;
  SpatialHash grid;
  grid.build(cell > 0 ? cell : 1.0, lo, hi);
  // Each vertex's swept box grown by the reach (computed per group: per-call arrays of
  // everything, as the triangles' barycentric frames were, pushed the hash and the boxes out of
  // the cache).
  const size_t nq = verts.size();
  auto vertex_box = [&](size_t m, Vec3& lo_m, Vec3& hi_m) {
    const Vec3 q0 = P0(verts[m]), s1 = S1(verts[m]);
    lo_m = q0.cwiseMin(s1).array() - reach, hi_m = q0.cwiseMax(s1).array() + reach;
  };
  // Queries by groups of up to kGroup consecutive vertices (mesh neighbours in a generated
  // grid's order) whose union box is at most twice as large as their largest box: one hash
  // scan for the group, each triangle found then tested against every member's own box.
  // Neighbouring vertices' boxes overlap mostly, so the group scans nearly the cells one of
  // them would, once instead of once per vertex. The pairs are those of per-vertex queries
  // (each member's own box test decides).
  // Neighbours (q a vertex of t or an edge neighbour of one) by per-vertex bitmasks of the
  // group's members whose closed one-ring holds the vertex: one test per triangle and group
  // rather than three ring scans per member, and before the projection (of ~0.69 M member
  // box overlaps per step on 128^2 hang_two_corners ~0.38 M are neighbours).
  constexpr size_t kGroup = 4;
  std::vector<int> seen(tri_subset.size(), -1);
  RingMarks ring(rings);
  Vec3 qlo[kGroup], qhi[kGroup];  // the group's members' boxes
  for (size_t g0 = 0; g0 < nq;) {
    Vec3 glo, ghi;
    const size_t g1 = grow_group(g0, nq, kGroup, vertex_box, qlo, qhi, glo, ghi);
    const int stamp = static_cast<int>(g0);
    for (size_t m = g0; m < g1; ++m) {
      ring.mark(verts[m], stamp, 1 << (m - g0));
    }
    auto ring_mask = [&](int v) { return ring.mask(v, stamp); };
    const int members = (1 << (g1 - g0)) - 1;
    grid.query(glo, ghi, [&](int n) {
      // Each triangle once per group (a triangle in several of the group's cells, 0.37 M of
      // the 0.69 M that meet a group's box per step at 128^2), then the box test (the hash's
      // false hits and the cells' far triangles are most candidates).
      if (seen[n] == stamp) return;
      seen[n] = stamp;
      if ((glo.array() > hi[n].array()).any() || (ghi.array() < lo[n].array()).any()) return;
      const Tri& t = tris[tri_subset[n]];
      const int far = members & ~(ring_mask(t[0]) | ring_mask(t[1]) | ring_mask(t[2]));
      std::optional<BarycentricFrame> bary1;  // t's at x1 (the projection test's), once per triangle and group
      for (int f = far; f != 0; f &= f - 1) {
        const int k = __builtin_ctz(f);
        const size_t m = g0 + k;
        if ((qlo[k].array() > hi[n].array()).any() || (qhi[k].array() < lo[n].array()).any()) continue;
        // The tests are one conjunction, the most selective first: the projection (of ~0.31 M
        // non-ring box overlaps per step, the sheet's own neighbours beside t, ~3 K project
        // into t); the plane distances reject ~1%.
        const int q = verts[m];
        const Vec3 q1 = P1(q);
        if (!bary1) bary1.emplace(P1(t[0]), P1(t[1]), P1(t[2]));
        if (!bary1->contains(q1, 0.25)) continue;
        // t's plane at x0 and x1 (a corner, the normal N and |N|).
        const Vec3 a0 = P0(t[0]), N0 = (Vec3(P0(t[1])) - a0).cross(Vec3(P0(t[2])) - a0);
        const Vec3 a1 = P1(t[0]), N1 = (Vec3(P1(t[1])) - a1).cross(Vec3(P1(t[2])) - a1);
        const double n0 = N0.norm(), n1 = N1.norm();
        if (!(n0 > 0) || !(n1 > 0)) continue;
        const Vec3 q0 = P0(q);
        const double d0 = (q0 - a0).dot(N0) / n0, d1 = (q1 - a1).dot(N1) / n1;
        const bool near = std::abs(d0) < reach || std::abs(d1) < reach || (d0 < 0) != (d1 < 0);
        if (!near) continue;
        out.push_back({q, tri_subset[n], d0 >= 0 ? 1 : -1});
      }
    });
    g0 = g1;
  }
}

std::vector<Edge> self_collision_edges(const std::vector<Tri>& tris, const std::vector<int>& key) {
  std::vector<Edge> e;
  e.reserve(3 * tris.size());
  for (const Tri& t : tris)
    for (int a = 0; a < 3; ++a) {
      int u = t[a], v = t[(a + 1) % 3];
      if (key[v] < key[u]) std::swap(u, v);
      e.push_back({u, v});
    }
  auto by_key = [&](const Edge& p, const Edge& q) {
    return key[p[0]] < key[q[0]] || (key[p[0]] == key[q[0]] && key[p[1]] < key[q[1]]);
  };
  std::sort(e.begin(), e.end(), by_key);
  e.erase(std::unique(e.begin(), e.end()), e.end());
  return e;
}

bool edges_face_each_other(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, double tol) {
  double s, t;
  if (!edge_edge_line_parameters(a0, a1, b0, b1, &s, &t)) return false;
  return s >= -tol && s <= 1 + tol && t >= -tol && t <= 1 + tol;
}

void find_self_collision_edge_pairs(const std::vector<Edge>& edges, const std::vector<int>& edge_subset,
                                    const double* x0, const double* x1, double reach, const VertexRings& rings,
                                    std::vector<SelfCollisionEdgePair>& out) {
  if (edge_subset.empty() || edges.empty()) return;
  auto P0 = [&](int v) { return Vec3(Eigen::Map<const Vec3>(x0 + 3 * static_cast<size_t>(v))); };
  auto P1 = [&](int v) { return Vec3(Eigen::Map<const Vec3>(x1 + 3 * static_cast<size_t>(v))); };
  // Boxes at x1 alone, not swept from x0: a pair is kept only when its edges are within
  // reach at x1 anyway (close, or crossed and still close); one that crossed and ended
  // farther apart is the final check's (find_new_crossings sends its vertices back). On a
  // stretching sheet the swept boxes overlapped many times more boxes (128^2
  // hang_two_corners: the search took 32% of a step, 14% with boxes at x1).
  std::vector<Vec3> lo(edges.size()), hi(edges.size());
  for (size_t n = 0; n < edges.size(); ++n) {
    lo[n] = P1(edges[n][0]).cwiseMin(P1(edges[n][1]));
    hi[n] = P1(edges[n][0]).cwiseMax(P1(edges[n][1]));
  }
  const double cell = typical_extent(lo, hi) + reach;
  SpatialHash grid;
  grid.build(cell > 0 ? cell : 1.0, lo, hi);
  // The lines' signed distance at one instant (edge_edge_collision_constraint's value with
  // side +1 and h 0, in closed form): o = r . (e_a x e_b) over |e_a x e_b|, r = a0 - b0; 0 for
  // nearly parallel edges (|e_a x e_b| <= 1e-10 |e_a| |e_b|: no common normal). Kept as the
  // pair (o, |N|^2) so the cheap tests need no square root.
  struct LineDistance {
    double o = 0.0, nsq = 0.0;
    bool parallel = true;
    double value() const { return parallel ? 0.0 : o / std::sqrt(nsq); }
    bool negative() const { return !parallel && o < 0; }
    bool within(double r) const { return parallel || o * o < r * r * nsq; }
  };
  auto line_distance = [&](const Vec3& ea, const Vec3& eb, auto&& P, int a, int b) {
    LineDistance d;
    const Vec3 N = ea.cross(eb);
    d.nsq = N.squaredNorm();
    d.parallel = !(d.nsq > 1e-20 * ea.squaredNorm() * eb.squaredNorm()) || !(d.nsq > 0);
    d.o = (P(edges[a][0]) - P(edges[b][0])).dot(N);
    return d;
  };
  // The exact tests of a pair (a the edge asking, b the other) whose boxes overlap and that
  // are no neighbours.
  auto decide = [&](int a, int b) {
    const Edge &ea = edges[a], &eb = edges[b];
    // The lines' signed distance (the orientation of the four points, scaled) is symmetric
    // in the two edges (swapping them flips both r and N), so the side does not depend on
    // which edge asked. Its sign tells the side only while the edges face each other: the
    // lines also pass through each other beside the edges (a flat sheet's edges all lie on
    // coplanar lines) without any crossing. So a sign change is a crossing, and the side
    // the one at x0, only when they faced each other at x0 too (and were not touching:
    // a torn crack's sides start at one point); otherwise the side is the one at x1 (no
    // crossing judged: one that happened near an end is the vertex-triangle pairs' and the
    // final check's business).
    // The edge vectors at both instants (per pair: of the ~49 K edges only those of the
    // ~26 K pairs decided here are needed).
    const Vec3 a0 = P0(ea[1]) - P0(ea[0]), b0 = P0(eb[1]) - P0(eb[0]);
    const Vec3 a1 = P1(ea[1]) - P1(ea[0]), b1 = P1(eb[1]) - P1(eb[0]);
    const LineDistance l0 = line_distance(a0, b0, P0, a, b), l1 = line_distance(a1, b1, P1, a, b);
    if (l0.negative() == l1.negative() && !l1.within(reach)) return;  // the cheap tests first
    // Crossings inside both edges only (0.1% from either end): near an end the vertex-
    // triangle pairs act, and a torn sheet's two crack sides meet exactly at their ends
    // (a vertex and its spare share a position) without being neighbours.
    if (!edges_face_each_other(P1(ea[0]), P1(ea[1]), P1(eb[0]), P1(eb[1]), -1e-3)) return;
    const double d0 = l0.value(), d1 = l1.value();
    const double scale = a0.norm() + b0.norm();
    const bool facing0 =
        std::abs(d0) > 1e-9 * scale && edges_face_each_other(P0(ea[0]), P0(ea[1]), P0(eb[0]), P0(eb[1]), 0.05);
    const bool crossed = facing0 && (d0 < 0) != (d1 < 0);
    if (!(crossed || std::abs(d1) < reach)) return;
    const int side = (facing0 ? d0 : d1) >= 0 ? 1 : -1;
    out.push_back({std::min(a, b), std::max(a, b), side});
  };
  std::vector<int> seen(edges.size(), -1);
  RingMarks ring(rings);
  std::vector<char> asks(edges.size(), 0);  // a pair of two asking edges is taken from the smaller
  for (int a : edge_subset) asks[a] = 1;
  const bool all_ask = std::count(asks.begin(), asks.end(), 1) == static_cast<long>(edges.size());
  const size_t ns = edge_subset.size();
  // Queries by groups of up to kGroup consecutive asking edges (ordered by their first
  // vertex: the edges from one vertex, then from the next) whose union box is at most twice
  // as large as their largest box, as in the vertex-triangle search: one hash scan for the
  // group, each edge found tested against the group's box, then, once per group, against the
  // members it is no neighbour of. The pairs are those of one query per edge (each member's
  // own box test, ring and order rule decide), the scans fewer: on 128^2 hang_two_corners,
  // per step, 0.75 M scanned entries instead of 1.84 M, 0.17 M distinct edges met by a group
  // instead of 0.37 M pairs met by an edge (most of them neighbours).
  constexpr size_t kGroup = 8;
  // Each member's box grown by the reach (its query box).
  Vec3 qlo[kGroup], qhi[kGroup];
  auto query_box = [&](size_t m, Vec3& lo_m, Vec3& hi_m) {
    lo_m = lo[edge_subset[m]].array() - reach, hi_m = hi[edge_subset[m]].array() + reach;
  };
  for (size_t g0 = 0; g0 < ns;) {
    Vec3 glo, ghi;
    const size_t g1 = grow_group(g0, ns, kGroup, query_box, qlo, qhi, glo, ghi);
    const int stamp = static_cast<int>(g0);
    int first = edge_subset[g0];  // the group's smallest index
    int ends[2 * kGroup], end_bits[2 * kGroup], nends = 0;
    for (size_t m = g0; m < g1; ++m) {
      first = std::min(first, edge_subset[m]);
      // The members' distinct ends, each with the members it ends (consecutive edges share
      // their first vertex), so that each end's ring is marked once.
      for (int v : edges[edge_subset[m]]) {
        int k = 0;
        while (k < nends && ends[k] != v) ++k;
        if (k == nends) ends[nends] = v, end_bits[nends++] = 0;
        end_bits[k] |= 1 << (m - g0);
      }
    }
    for (int k = 0; k < nends; ++k) ring.mark(ends[k], stamp, end_bits[k]);
    auto ring_mask = [&](int v) { return ring.mask(v, stamp); };
    const int members = (1 << (g1 - g0)) - 1;
    auto visit = [&](int b) __attribute__((always_inline)) {
      if ((glo.array() > hi[b].array()).any() || (ghi.array() < lo[b].array()).any()) return;
      if (seen[b] == stamp) return;
      seen[b] = stamp;
      const Edge& eb = edges[b];
      // The members b is no neighbour of (most edges found are neighbours of every member).
      for (int far = members & ~(ring_mask(eb[0]) | ring_mask(eb[1])); far != 0; far &= far - 1) {
        const int k = __builtin_ctz(far);
        const int a = edge_subset[g0 + k];
        if (b == a || (b < a && asks[b])) continue;
        if ((qlo[k].array() > hi[b].array()).any() || (qhi[k].array() < lo[b].array()).any()) continue;
        decide(a, b);
      }
    };
    // Every edge asking (one rank): a pair is taken from its smaller index, so only the ids
    // above the group's smallest are scanned.
    if (all_ask)
      grid.query_above(glo, ghi, first, visit);
    else
      grid.query(glo, ghi, visit);
    g0 = g1;
  }
}

void sort_self_collision_edge_pairs(std::vector<SelfCollisionEdgePair>& pairs) {
  std::sort(pairs.begin(), pairs.end(), [](const SelfCollisionEdgePair& p, const SelfCollisionEdgePair& q) {
    return p.a < q.a || (p.a == q.a && p.b < q.b);
  });
  pairs.erase(std::unique(pairs.begin(), pairs.end(),
                          [](const SelfCollisionEdgePair& p, const SelfCollisionEdgePair& q) {
                            return p.a == q.a && p.b == q.b;
                          }),
              pairs.end());
}

VertexRings vertex_rings(const std::vector<Tri>& tris, int num_vertices) {
  std::vector<std::vector<int>> adj(num_vertices);
  for (const Tri& t : tris)
    for (int a = 0; a < 3; ++a) adj[t[a]].push_back(t[(a + 1) % 3]), adj[t[(a + 1) % 3]].push_back(t[a]);
  VertexRings r;
  for (auto& l : adj) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    r.nbr.insert(r.nbr.end(), l.begin(), l.end());
    r.start.push_back(static_cast<int>(r.nbr.size()));
  }
  return r;
}

void sort_self_collision_pairs(std::vector<SelfCollisionPair>& pairs, const std::vector<int>& key) {
  std::sort(pairs.begin(), pairs.end(), [&](const SelfCollisionPair& a, const SelfCollisionPair& b) {
    return key[a.v] < key[b.v] || (a.v == b.v && a.t < b.t);
  });
  pairs.erase(std::unique(pairs.begin(), pairs.end(),
                          [](const SelfCollisionPair& a, const SelfCollisionPair& b) { return a.v == b.v && a.t == b.t; }),
              pairs.end());
}

}  // namespace weft

namespace weft {

namespace {

// Both ends strictly on one side of the plane (sp, sq: the exact signs of orient3d(a, b, c,
// p / q)), or the segment in the plane (a flat sheet's own edges: the other edges' crossings
// reveal a coplanar overlap), is no crossing. Exact signs: a flat sheet's rounding never puts
// its edges on both sides of its own triangles' planes.
bool apart_from_plane(int sp, int sq) { return sp == sq; }

// The line pq passes through the closed triangle: the three signed volumes of pq with its
// edges agree in sign (zero allowed: touching counts, as for weft-verify), exactly.
bool line_meets_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c) {
  const int u = orient3d_sign(p, q, a, b), v = orient3d_sign(p, q, b, c), w = orient3d_sign(p, q, c, a);
  return (u >= 0 && v >= 0 && w >= 0) || (u <= 0 && v <= 0 && w <= 0);
}

}  // namespace

bool segment_crosses_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c) {
  return !apart_from_plane(orient3d_sign(a, b, c, p), orient3d_sign(a, b, c, q)) && line_meets_triangle(p, q, a, b, c);
}

void find_new_crossings(const std::vector<Tri>& tris, const std::vector<Edge>& edges, const double* x0,
                        const double* x1, std::vector<std::array<int, 2>>& out, const std::vector<char>* only,
                        PatchHierarchy* patches, const std::vector<int>* root) {
  out.clear();
  if (tris.empty() || edges.empty()) return;
  auto P0 = [&](int v) { return Vec3(Eigen::Map<const Vec3>(x0 + 3 * static_cast<size_t>(v))); };
  auto P1 = [&](int v) { return Vec3(Eigen::Map<const Vec3>(x1 + 3 * static_cast<size_t>(v))); };
  auto marked = [&](int v) { return !only || (*only)[v]; };
  // An edge end and a triangle corner that are one material point (core/material_point.hpp:
  // a vertex and a spare of it at one position) make the pair adjacent at those positions.
  static const std::vector<int> no_roots;
  const std::vector<int>& R = root ? *root : no_roots;
  auto touches_at_corner = [&R](auto&& P, int i, int j, const Tri& T) {
    for (int u : {i, j})
      for (int w : T)
        if (one_material_point(R, u, w, P(u), P(w))) return true;
    return false;
  };
  // The exact decision for a candidate sharing no vertex whose boxes at x1 overlap, given
  // the triangle's normal and error-bound part at x1: the plane side of the edge's ends
  // (the exact orient3d(a, b, c, .) signs of segment_crosses_triangle, filtered) rejects
  // most candidates first.
  auto decide = [&](int e, int t, const Vec3& normal, const Vec3& abs_normal) {
    const int i = edges[e][0], j = edges[e][1];
    const Vec3 p = P1(i), q = P1(j);
    const Tri& T = tris[t];
    const Vec3 a = P1(T[0]), b = P1(T[1]), c = P1(T[2]);
    const int sp = orient3d_sign_filtered(normal.dot(p - a), abs_normal, a, b, c, p);
    const int sq = orient3d_sign_filtered(normal.dot(q - a), abs_normal, a, b, c, q);
    if (apart_from_plane(sp, sq)) return;
    if (!line_meets_triangle(p, q, a, b, c)) return;
    // A torn crack's two sides begin at one point: a vertex and its spare share a position.
    // An edge from such a vertex meets the triangle at that point only (a segment leaving a
    // triangle's corner off its plane), which is the crack, not a crossing; so a pair with
    // an edge end and a triangle corner that are one material point is no crossing at x1
    // (weft-verify's rule too), and at x0 that touching does not excuse a crossing at x1
    // (the crack's faces folding through each other are judged like any pair).
    if (touches_at_corner(P1, i, j, T)) return;
    // Already crossing at x0 (any other way): not this substep's.
    if (segment_crosses_triangle(P0(i), P0(j), P0(T[0]), P0(T[1]), P0(T[2])) && !touches_at_corner(P0, i, j, T))
      return;
    out.push_back({e, t});
  };
  // Candidates from the flat-patch hierarchy (pairs inside a flat patch cannot cross; the
  // same decisions on the rest).
  if (patches && !patches->empty()) {
    patches->for_each_candidate(
        x1,
        [&](int e, int t) {
          const Tri& T = tris[t];
          if (only && !marked(edges[e][0]) && !marked(edges[e][1]) && !marked(T[0]) && !marked(T[1]) && !marked(T[2]))
            return;
          const Vec3 a = P1(T[0]), b = P1(T[1]), c = P1(T[2]);
          decide(e, t, Vec3((b - a).cross(c - a)), orient_abs_normal(a, b, c));
        },
        only);
    std::sort(out.begin(), out.end());
    return;
  }
  auto tri_box = [&](const Tri& t, Vec3& lo, Vec3& hi) {
    lo = hi = P1(t[0]);
    for (int a = 1; a < 3; ++a) lo = lo.cwiseMin(P1(t[a])), hi = hi.cwiseMax(P1(t[a]));
  };
  // With `only`: every pair to test has a marked primitive, so both lie within the box of
  // the marked primitives; the others are skipped by a box test, not hashed.
  Vec3 blo = Vec3::Constant(-std::numeric_limits<double>::infinity()), bhi = -blo;
  if (only) {
    blo = -blo, bhi = -bhi;
    Vec3 lo, hi;
    for (const Tri& t : tris)
      if (marked(t[0]) || marked(t[1]) || marked(t[2])) tri_box(t, lo, hi), blo = blo.cwiseMin(lo), bhi = bhi.cwiseMax(hi);
    for (const Edge& e : edges)
      if (marked(e[0]) || marked(e[1]))
        blo = blo.cwiseMin(P1(e[0]).cwiseMin(P1(e[1]))), bhi = bhi.cwiseMax(P1(e[0]).cwiseMax(P1(e[1])));
  }
  auto in_box = [&](const Vec3& lo, const Vec3& hi) {
    return !((lo.array() > bhi.array()).any() || (hi.array() < blo.array()).any());
  };
  std::vector<int> kept;
  std::vector<Vec3> lo, hi;
  kept.reserve(tris.size()), lo.reserve(tris.size()), hi.reserve(tris.size());
  for (size_t n = 0; n < tris.size(); ++n) {
    Vec3 l, h;
    tri_box(tris[n], l, h);
    if (!in_box(l, h)) continue;
    kept.push_back(static_cast<int>(n)), lo.push_back(l), hi.push_back(h);
  }
  if (kept.empty()) return;
  const double cell = typical_extent(lo, hi);
  SpatialHash grid;
  grid.build(cell > 0 ? cell : 1.0, lo, hi);
  // Each kept triangle's normal at x1 and its part of the orientation's error bound, once:
  // the plane side of the edge's ends (orient3d(a, b, c, .), filtered, exact when near zero)
  // rejects most candidates before the line test.
  std::vector<Vec3> normal(kept.size()), abs_normal(kept.size());
  for (size_t k = 0; k < kept.size(); ++k) {
    const Tri& T = tris[kept[k]];
    normal[k] = (P1(T[1]) - P1(T[0])).cross(P1(T[2]) - P1(T[0]));
    abs_normal[k] = orient_abs_normal(P1(T[0]), P1(T[1]), P1(T[2]));
  }
  std::vector<int> seen(kept.size(), -1);
  for (size_t e = 0; e < edges.size(); ++e) {
    const int i = edges[e][0], j = edges[e][1];
    const bool edge_marked = marked(i) || marked(j);
    const Vec3 p = P1(i), q = P1(j);
    const Vec3 elo = p.cwiseMin(q), ehi = p.cwiseMax(q);
    if (!in_box(elo, ehi)) continue;
    grid.query(elo, ehi, [&](int k) {
      if (seen[k] == static_cast<int>(e)) return;
      seen[k] = static_cast<int>(e);
      const int t = kept[k];
      const Tri& T = tris[t];
      if (T[0] == i || T[1] == i || T[2] == i || T[0] == j || T[1] == j || T[2] == j) return;
      if (!edge_marked && !marked(T[0]) && !marked(T[1]) && !marked(T[2])) return;
      if ((elo.array() > hi[k].array()).any() || (ehi.array() < lo[k].array()).any()) return;
      decide(static_cast<int>(e), t, normal[k], abs_normal[k]);
    });
  }
  std::sort(out.begin(), out.end());
}

void self_contact_velocity_change(const VecN<4>& c, const Vec3& n, const VecN<4>& w, const Stencil3<4>& v,
                                  double vn_pre, double mu, double restitution, double share, Stencil3<4>* dv) {
  dv->setZero();
  const double W = (c.array() * c.array() * w.array()).sum();
  if (!(W > 0)) return;
  const Vec3 vr = v * c;
  const double vn = vr.dot(n);
  const Vec3 vt = vr - vn * n;
  const double vn_new = vn_pre < 0 ? std::max(vn, -restitution * vn_pre) : vn;
  const double dvn = std::max(0.0, vn_new - std::min(vn_pre, 0.0));
  const double vtn = vt.norm();
  const Vec3 dt = vtn > 0 ? Vec3(-std::min(1.0, share * mu * dvn / vtn) * vt) : Vec3::Zero();
  const Vec3 D = (vn_new - vn) * n + dt;
  for (int a = 0; a < 4; ++a) dv->col(a) = (w[a] * c[a] / W) * D;
}

}  // namespace weft
