// Cloth self-collision candidates (001 sec. 4.3): vertex-triangle pairs found with a
// spatial hash (Teschner et al. 2003, the paper's [THM*03]) over the triangles' swept boxes,
// each projected as the point-triangle constraint with thickness h of eqs. 12-13
// (constraints/collision.hpp), on the side the vertex came from.
//
// Determinism: which pairs are kept is decided by exact tests on the positions alone (the
// hash only narrows the search), and the output is sorted by (vertex, triangle), so any rank
// given the same positions finds the same pairs in the same order: the PBD stepper's
// results do not depend on the rank count.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "constraints/projection.hpp"
#include "core/types.hpp"

namespace weft {

struct SelfCollisionPair {
  int v;     // the vertex q
  int t;     // triangle index into the caller's list
  int side;  // +1: q stays above (eq. 12), -1: below (eq. 13)
};

// Uniform grid of cubic cells hashed into a table of buckets (Teschner et al.'s scheme,
// stored as CSR): every box is entered in the bucket of each cell it overlaps. A query
// visits the cells of a box and calls f(id) for each id stored in their buckets, with
// repeats (an id in several cells) and false hits (cells sharing a bucket) left to the
// caller's exact test.
class SpatialHash {
 public:
  void build(double cell, const std::vector<Vec3>& lo, const std::vector<Vec3>& hi);
  template <class F>
  void query(const Vec3& lo, const Vec3& hi, F&& f) const {
    const auto a = cell_of(lo), b = cell_of(hi);
    for (std::int64_t i = a[0]; i <= b[0]; ++i)
      for (std::int64_t j = a[1]; j <= b[1]; ++j)
        for (std::int64_t k = a[2]; k <= b[2]; ++k) {
          const std::uint64_t bucket = bucket_of(hash(i, j, k), num_buckets_);
          for (int e = start_[bucket]; e < start_[bucket + 1]; ++e) f(ids_[e]);
        }
  }
  // The same for the ids above `above` only: a bucket holds its ids in ascending order, so
  // its scan stops at the first id <= above (a self-join from the smaller index of every pair
  // scans each pair once, not from both ends).
  template <class F>
  void query_above(const Vec3& lo, const Vec3& hi, int above, F&& f) const {
    const auto a = cell_of(lo), b = cell_of(hi);
    for (std::int64_t i = a[0]; i <= b[0]; ++i)
      for (std::int64_t j = a[1]; j <= b[1]; ++j)
        for (std::int64_t k = a[2]; k <= b[2]; ++k) {
          const std::uint64_t bucket = bucket_of(hash(i, j, k), num_buckets_);
          for (int e = start_[bucket + 1] - 1; e >= start_[bucket] && ids_[e] > above; --e) f(ids_[e]);
        }
  }

 private:
  std::array<std::int64_t, 3> cell_of(const Vec3& p) const;
  static std::uint64_t hash(std::int64_t i, std::int64_t j, std::int64_t k);
  // The key's bucket in [0, n): its high bits scaled (Lemire's multiply-shift), not a
  // remainder, whose 64-bit division per visited cell was a measurable part of the scans.
  static std::uint64_t bucket_of(std::uint64_t key, std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(key) * n) >> 64);
  }
  double inv_cell_ = 1.0;
  std::uint64_t num_buckets_ = 1;
  std::vector<int> start_{0, 0}, ids_;
};

// Two edges (indices into the caller's edge list, a < b) whose closest points came within
// reach of each other, or whose lines' signed distance changed sign, over the substep: the
// crossings vertex-triangle pairs miss (two coarse sheets lying across each other, edge on
// edge). side: the sign of the lines' signed distance at the substep's start
// (edge_edge_collision_constraint).
struct SelfCollisionEdgePair {
  int a, b;
  int side;
};

// Edge neighbours of every vertex (CSR over vertex ids 0 .. num_vertices - 1).
struct VertexRings {
  std::vector<int> start{0}, nbr;
};
VertexRings vertex_rings(const std::vector<Tri>& tris, int num_vertices);

// Appends the pairs (q, t) with q in `verts` and t in `tri_subset` (indices into tris) such
// that q is neither a vertex of t nor an edge neighbour of one (stretch and bending keep
// the one-ring apart; a pair there would fight them on a curved sheet) and, with x0 the positions at the start of the substep and
// x1 the prediction (3 per vertex, indexed by vertex id):
//  - q's swept box x0 -> x1, grown by `reach`, overlaps t's swept box, both boxes taken in
//    the frame that moves by `shift` over the substep (any shift is conservative; the
//    caller passes the same one to every search, e.g. the mean displacement);
//  - q is within `reach` of t's plane at x0 or at x1, or crosses it in between;
//  - q's projection on t's plane at x1 lies in t grown by a quarter of its size
//    (barycentric coordinates >= -0.25), so the neighbours of a flat sheet are no pairs.
// The side is that of q at x0 (eq. 12 when (q - p1) . N >= 0, else eq. 13).
void find_self_collision_pairs(const std::vector<Tri>& tris, const std::vector<int>& tri_subset,
                               const std::vector<int>& verts, const double* x0, const double* x1, double reach,
                               const Vec3& shift, const VertexRings& rings, std::vector<SelfCollisionPair>& out);
// Sorts by (key[v], t) and drops repeats (the caller may append several searches first);
// key: a vertex numbering independent of the rank count (the input order).
void sort_self_collision_pairs(std::vector<SelfCollisionPair>& pairs, const std::vector<int>& key);

// The edges of `tris`, each once, ordered by their endpoints' keys (key: a vertex numbering
// independent of the rank count), so that edge indices, and the pairs' order, are the same
// at every rank count. Each edge is stored with the smaller key first.
std::vector<Edge> self_collision_edges(const std::vector<Tri>& tris, const std::vector<int>& key);

// Appends the pairs (a, b), a in `edge_subset`, b any edge of `edges`, that share no vertex
// and no edge neighbour (the sheet's stretch and bending keep those apart), with x0 / x1 /
// reach as for find_self_collision_pairs:
//  - the boxes at x1, a's grown by reach, overlap (a crossing that ends farther apart is
//    left to find_new_crossings);
//  - the lines' closest points at x1 lie inside both edges (parameters in [0.001, 0.999]:
//    near an end the vertex-triangle pairs act);
//  - the lines' signed distance is within reach at x0 or at x1, or changed sign between.
// Each pair is stored once, smaller index first; sort_self_collision_edge_pairs orders them.
void find_self_collision_edge_pairs(const std::vector<Edge>& edges, const std::vector<int>& edge_subset,
                                    const double* x0, const double* x1, double reach, const VertexRings& rings,
                                    std::vector<SelfCollisionEdgePair>& out);
void sort_self_collision_edge_pairs(std::vector<SelfCollisionEdgePair>& pairs);

// Whether the closest points of the lines through (a0, a1) and (b0, b1) lie within both
// edges, parameters in [-tol, 1 + tol] (false for parallel edges).
bool edges_face_each_other(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, double tol);

// Whether the segment pq meets the closed triangle abc (touching counts, as weft-verify's
// intersection check); a segment lying in the triangle's plane is not tested (false).
bool segment_crosses_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c);

// The final check of a substep: the (edge, triangle) pairs, sharing no vertex, whose segment
// meets the triangle at x1 but did not at x0 (the crossings the constraints let through),
// ordered by edge then triangle (a pure function of the positions: the same on every rank).
// An edge end and a triangle corner that are one material point at x1 (a torn crack: a vertex
// and a spare of it at one position, core/material_point.hpp with `root`, per vertex, from
// tear_roots; null: no tearing) make no crossing at x1, and their touching at x0 does not
// excuse a crossing at x1. only (per vertex, optional): just the pairs with a marked vertex
// (the ones a change of the marked vertices' positions can have made). patches (optional,
// built on tris and edges): without `only`, the candidates come from its flat-patch culling
// instead of a hash (the same pairs found).
class PatchHierarchy;
void find_new_crossings(const std::vector<Tri>& tris, const std::vector<Edge>& edges, const double* x0,
                        const double* x1, std::vector<std::array<int, 2>>& out,
                        const std::vector<char>* only = nullptr, PatchHierarchy* patches = nullptr,
                        const std::vector<int>* root = nullptr);

// Cloth-cloth friction and restitution in the velocity update (001 sec. 3.4, applied to a
// self-collision pair as to an obstacle contact): the pair's contact points are weighted sums
// of its four vertices, so the relative velocity is vr = sum_a c_a v_a with
// c = (1, -b1, -b2, -b3) (vertex q against the triangle point of barycentric weights b) or
// c = (1 - s, s, -(1 - t), -t) (the edges' closest points), sum_a c_a = 0; n is the unit
// normal from the second primitive towards the first. With vn = vr . n and vt = vr - vn n:
// restitution, when the prediction approached (vn_pre < 0): vn' = max(vn, -e vn_pre); the
// normal change dvn = max(0, vn' - min(vn_pre, 0)) bounds the tangential one (Coulomb):
// vt' = vt max(0, 1 - share mu dvn / |vt|), share in (0, 1] the pair's part of the normal
// response when its vertices are in several contacts (the caller's split). The change
// D = (vn' - vn) n + vt' - vt is made by one impulse along D: dv_a = w_a c_a D / W,
// W = sum_b w_b c_b^2, so the relative velocity changes by exactly D and
// sum_a m_a dv_a = D sum_a c_a / W = 0 (momentum conserved; w: inverse masses, 0 for a pinned
// vertex, which does not move).
void self_contact_velocity_change(const VecN<4>& c, const Vec3& n, const VecN<4>& w, const Stencil3<4>& v,
                                  double vn_pre, double mu, double restitution, double share, Stencil3<4>* dv);

// Barycentric coordinates of y's projection on the plane of (a, b, c) all >= -tol (false for
// a degenerate triangle).
bool projects_into_triangle(const Vec3& y, const Vec3& a, const Vec3& b, const Vec3& c, double tol);

// The same coordinates clamped to >= 0 and summing to 1 (the triangle point nearest the
// projection's weights, near enough for a point over the triangle); a degenerate triangle
// gives (1/3, 1/3, 1/3).
Vec3 barycentric_weights(const Vec3& y, const Vec3& a, const Vec3& b, const Vec3& c);

}  // namespace weft
