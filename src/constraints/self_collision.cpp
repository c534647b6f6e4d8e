#include "constraints/self_collision.hpp"

#include <algorithm>
#include <Eigen/Geometry>
#include <cmath>

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
        for (std::int64_t k = a[2]; k <= b[2]; ++k) f(hash(i, j, k) % nb);
  };
  for (size_t n = 0; n < lo.size(); ++n) each_cell(n, [&](std::uint64_t b) { ++start_[b + 1]; });
  for (size_t b = 0; b < nb; ++b) start_[b + 1] += start_[b];
  ids_.resize(start_[nb]);
  std::vector<int> fill(start_.begin(), start_.end() - 1);
  for (size_t n = 0; n < lo.size(); ++n) each_cell(n, [&](std::uint64_t b) { ids_[fill[b]++] = static_cast<int>(n); });
}

std::array<std::int64_t, 3> SpatialHash::cell_of(const Vec3& p) const {
  return {static_cast<std::int64_t>(std::floor(p[0] * inv_cell_)),
          static_cast<std::int64_t>(std::floor(p[1] * inv_cell_)),
          static_cast<std::int64_t>(std::floor(p[2] * inv_cell_))};
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

bool projects_into_triangle(const Vec3& y, const Vec3& a, const Vec3& b, const Vec3& c, double tol) {
  const Vec3 e0 = b - a, e1 = c - a, d = y - a;
  const double d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1), d20 = d.dot(e0), d21 = d.dot(e1);
  const double den = d00 * d11 - d01 * d01;
  if (!(den > 0)) return false;
  const double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
  return v >= -tol && w >= -tol && 1 - v - w >= -tol;
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
  double extent = 0.0;
  for (size_t n = 0; n < tri_subset.size(); ++n) {
    const Tri& t = tris[tri_subset[n]];
    lo[n] = hi[n] = P0(t[0]);
    for (int a = 0; a < 3; ++a)
      for (const Vec3& p : {Vec3(P0(t[a])), S1(t[a])}) lo[n] = lo[n].cwiseMin(p), hi[n] = hi[n].cwiseMax(p);
    extent += (hi[n] - lo[n]).maxCoeff();
  }
  // Cells about the size of a (swept) triangle (001 sec. 4.3 assumes triangles of similar
  // size).
  const double cell = extent / tri_subset.size() + reach;
  SpatialHash grid;
  grid.build(cell > 0 ? cell : 1.0, lo, hi);
  // Each triangle's plane at x0 and x1 (a corner, the normal N and |N|), once per call
  // rather than once per candidate vertex: the same expressions, so the same values.
  struct Planes {
    Vec3 a0, N0, a1, N1;
    double n0, n1;
  };
  std::vector<Planes> planes(tri_subset.size());
  for (size_t n = 0; n < tri_subset.size(); ++n) {
    const Tri& t = tris[tri_subset[n]];
    Planes& P = planes[n];
    P.a0 = P0(t[0]), P.N0 = (Vec3(P0(t[1])) - P.a0).cross(Vec3(P0(t[2])) - P.a0);
    P.a1 = P1(t[0]), P.N1 = (Vec3(P1(t[1])) - P.a1).cross(Vec3(P1(t[2])) - P.a1);
    P.n0 = P.N0.norm(), P.n1 = P.N1.norm();
  }
  std::vector<int> seen(tri_subset.size(), -1), ring_of(rings.start.size() - 1, -1);
  for (int q : verts) {
    ring_of[q] = q;
    for (int e = rings.start[q]; e < rings.start[q + 1]; ++e) ring_of[rings.nbr[e]] = q;
    const Vec3 q0 = P0(q), q1 = P1(q), s1 = S1(q);
    const Vec3 qlo = q0.cwiseMin(s1).array() - reach, qhi = q0.cwiseMax(s1).array() + reach;
    grid.query(qlo, qhi, [&](int n) {
      // The box test first: it reads only this candidate's box (the hash's false hits and
      // the cells' far triangles are most candidates).
      if ((qlo.array() > hi[n].array()).any() || (qhi.array() < lo[n].array()).any()) return;
      if (seen[n] == q) return;
      seen[n] = q;
      const Tri& t = tris[tri_subset[n]];
      if (ring_of[t[0]] == q || ring_of[t[1]] == q || ring_of[t[2]] == q) return;
      const Planes& P = planes[n];
      if (!(P.n0 > 0) || !(P.n1 > 0)) return;
      const double d0 = (q0 - P.a0).dot(P.N0) / P.n0, d1 = (q1 - P.a1).dot(P.N1) / P.n1;
      const bool near = std::abs(d0) < reach || std::abs(d1) < reach || (d0 < 0) != (d1 < 0);
      if (!near || !projects_into_triangle(q1, P.a1, P1(t[1]), P1(t[2]), 0.25)) return;
      out.push_back({q, tri_subset[n], d0 >= 0 ? 1 : -1});
    });
  }
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
