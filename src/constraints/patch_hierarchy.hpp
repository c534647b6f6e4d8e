// Self-intersection culling by flat patches (Volino and Magnenat-Thalmann's normal-cone
// test with its contour condition): a hierarchy of the cloth's triangles by topology, built
// once per mesh (and again after a tear), whose nodes are patches of the surface. At given
// positions a patch is flat when it is a topological disk, consistently oriented, all its
// triangle normals lie within 90 degrees of one axis (a normal cone of half-angle < 90
// degrees), and its boundary projected on the plane normal to that axis is a simple closed
// curve. Then the projection is one-to-one on the patch (every triangle projects with
// positive orientation, so the number of preimages of a point is the winding number of the
// projected boundary around it, at most 1 for a simple curve): the patch is the graph of a
// height field, and no edge of it meets a triangle of it that shares no vertex with the edge.
// So the edge-triangle pairs inside a flat patch need no test.
//
// Determinism: the hierarchy is built from the rest positions and the triangles' and edges'
// indices (ties by index), and the culling decides from the positions alone; the pairs
// offered are a superset of the crossings, so callers that test them exactly and sort the
// result get the same answer as from any other broad phase.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/paged_array.hpp"
#include "core/types.hpp"

namespace weft {

class PatchHierarchy {
 public:
  // tris: the triangles (vertex ids, consistently oriented where the sheet is orientable);
  // edges: every edge of tris, each once; rest: positions (3 per vertex) to split by.
  void build(const std::vector<Tri>& tris, const std::vector<Edge>& edges, VertexSpan<Vec3> rest);
  bool empty() const { return nodes_.empty(); }

  // Calls f(e, t) for every edge e and triangle t (indices into build's lists) that share no
  // vertex, whose boxes at x (3 per vertex) overlap and that do not lie in one flat patch.
  // Each pair at most once. only (per vertex, optional): x differs from the previous call's
  // positions at marked vertices alone, and just the pairs in patches with a marked vertex are
  // wanted (a superset of the pairs with a marked vertex; the caller filters): only those
  // primitives are refitted and visited.
  template <class F>
  void for_each_candidate(const double* x, F&& f, const std::vector<char>* only = nullptr);

  // Patches found flat in the last for_each_candidate (statistics, tests).
  long flat_patches() const { return flat_count_; }

 private:
  static constexpr int kLeafTriangles = 16;  // at most this many triangles in a leaf
  static_assert(kLeafTriangles <= 32, "leaf_touch_ holds a leaf's triangles in 32 bits");
  struct Node {
    int left = -1, right = -1;
    int tb = 0, te = 0;  // triangles tri_order_[tb, te)
    int eb = 0, ee = 0;  // edges edge_order_[eb, ee)
    int bb = 0, be = 0;  // boundary edges boundary_[bb, be) (when disk)
    bool disk = false;   // connected, manifold, consistently oriented, Euler characteristic 1
  };
  int build_node(int tb, int te, const std::vector<Vec3>& centroid);
  void classify(int n);
  void refit(const double* x, const std::vector<char>* only);
  bool flat(int n, const double* x) const;
  template <class F>
  void self(int n, const double* x, F& f);
  template <class F>
  void pair(int a, int b, const double* x, F& f);
  template <class F>
  void leaf_pair(int a, int b, F& f) const;
  bool overlap(int a, int b) const {
    return !((lo_[a].array() > hi_[b].array()).any() || (hi_[a].array() < lo_[b].array()).any());
  }

  std::vector<Tri> tris_;
  std::vector<Edge> edges_;
  std::vector<Node> nodes_;
  std::vector<int> tri_order_, edge_order_;
  std::vector<int> tri_pos_, edge_pos_;  // per triangle / edge: its position in tri_order_ / edge_order_ (-1: none)
  std::vector<Edge> boundary_;
  // Per evaluation: triangle boxes and normals (unnormalised) and edge boxes, in tri_order_'s
  // and edge_order_'s order (as the leaves read them); per node the
  // box, the normal cone (unit axis, half-angle; half >= pi/2: none).
  std::vector<Vec3> tlo_, thi_, elo_, ehi_, normal_;
  std::vector<Vec3> lo_, hi_, axis_, nsum_;
  std::vector<double> half_;
  std::vector<char> active_;  // per node: holds a primitive to visit in this call
  // Per vertex (CSR): its triangles and edges; per triangle: its leaf. A call with `only`
  // refits the primitives of the marked vertices alone (a few dozen per final-check round,
  // not a pass over every primitive).
  std::vector<int> vtri_start_, vtri_, vedge_start_, vedge_, leaf_of_tri_;
  // Per edge position i in edge_order_: bit j set when its leaf's triangle tri_order_[tb + j]
  // shares a vertex with it (a leaf against itself skips those before their box test).
  std::vector<std::uint32_t> leaf_touch_;
  long flat_count_ = 0;
};

template <class F>
void PatchHierarchy::for_each_candidate(const double* x, F&& f, const std::vector<char>* only) {
  flat_count_ = 0;
  if (nodes_.empty()) return;
  refit(x, only);
  self(0, x, f);
}

template <class F>
void PatchHierarchy::self(int n, const double* x, F& f) {
  const Node& N = nodes_[n];
  if (!active_[n]) return;
  if (flat(n, x)) {
    ++flat_count_;
    return;
  }
  if (N.left < 0) {
    leaf_pair(n, n, f);
    return;
  }
  self(N.left, x, f);
  self(N.right, x, f);
  pair(N.left, N.right, x, f);
}

template <class F>
void PatchHierarchy::pair(int a, int b, const double* x, F& f) {
  if ((!active_[a] && !active_[b]) || !overlap(a, b)) return;
  const Node &A = nodes_[a], &B = nodes_[b];
  if (A.left < 0 && B.left < 0) {
    leaf_pair(a, b, f);
    leaf_pair(b, a, f);
    return;
  }
  // Descend the larger (a leaf never).
  if (B.left < 0 || (A.left >= 0 && A.te - A.tb >= B.te - B.tb)) {
    pair(A.left, b, x, f);
    pair(A.right, b, x, f);
  } else {
    pair(a, B.left, x, f);
    pair(a, B.right, x, f);
  }
}

// The edges of leaf a against the triangles of leaf b (a == b: within one leaf); an edge
// outside the box of b's triangles meets none of them. Two leaves: first b's triangles whose
// box meets a's (every edge of a lies in a's box, so the others meet none of its edges;
// neighbouring leaves overlap at their seam only), copied with their boxes so the edge loop
// reads them in order, and an edge is tested against the box of those alone. The pairs are
// the same, in the same order.
template <class F>
void PatchHierarchy::leaf_pair(int a, int b, F& f) const {
  const Node &A = nodes_[a], &B = nodes_[b];
  struct Cand {
    Vec3 lo, hi;
    int t;
  };
  Cand cand[kLeafTriangles];
  int nc = 0;
  Vec3 clo, chi;  // the box of the kept triangles
  for (int j = B.tb; j < B.te; ++j) {
    if (a != b && ((lo_[a].array() > thi_[j].array()).any() || (hi_[a].array() < tlo_[j].array()).any())) continue;
    cand[nc] = {tlo_[j], thi_[j], tri_order_[j]};
    clo = nc == 0 ? tlo_[j] : Vec3(clo.cwiseMin(tlo_[j])), chi = nc == 0 ? thi_[j] : Vec3(chi.cwiseMax(thi_[j]));
    ++nc;
  }
  if (nc == 0) return;
  if (a == b) {
    // Within one leaf (every triangle a candidate, cand[j] its triangle tb + j): the triangles
    // sharing a vertex with the edge (about half of them) are skipped by the topology mask
    // before their box test. The same pairs, in the same order.
    const std::uint32_t all = nc == 32 ? ~0u : (1u << nc) - 1;
    for (int i = A.eb; i < A.ee; ++i) {
      const Vec3 &el = elo_[i], &eh = ehi_[i];
      if ((el.array() > chi.array()).any() || (eh.array() < clo.array()).any()) continue;
      std::uint32_t hit = 0;  // as below: the box tests into a mask, no branch per triangle
      for (int j = 0; j < nc; ++j) {
        const Cand& c = cand[j];
        const bool out = (el[0] > c.hi[0]) | (el[1] > c.hi[1]) | (el[2] > c.hi[2]) | (eh[0] < c.lo[0]) |
                         (eh[1] < c.lo[1]) | (eh[2] < c.lo[2]);
        hit |= static_cast<std::uint32_t>(!out) << j;
      }
      for (std::uint32_t m = hit & all & ~leaf_touch_[i]; m != 0; m &= m - 1) f(edge_order_[i], cand[__builtin_ctz(m)].t);
    }
    return;
  }
  for (int i = A.eb; i < A.ee; ++i) {
    const int e = edge_order_[i];
    const Edge& E = edges_[e];
    const Vec3 &el = elo_[i], &eh = ehi_[i];
    if ((el.array() > chi.array()).any() || (eh.array() < clo.array()).any()) continue;
    // The candidates' box tests into a bit mask without a branch per candidate (their
    // outcomes at a seam are unpredictable), then the overlapping ones in order.
    std::uint32_t hit = 0;
    for (int j = 0; j < nc; ++j) {
      const Cand& c = cand[j];
      const bool out = (el[0] > c.hi[0]) | (el[1] > c.hi[1]) | (el[2] > c.hi[2]) | (eh[0] < c.lo[0]) |
                       (eh[1] < c.lo[1]) | (eh[2] < c.lo[2]);
      hit |= static_cast<std::uint32_t>(!out) << j;
    }
    for (; hit != 0; hit &= hit - 1) {
      const Cand& c = cand[__builtin_ctz(hit)];
      const Tri& T = tris_[c.t];
      if (T[0] == E[0] || T[1] == E[0] || T[2] == E[0] || T[0] == E[1] || T[1] == E[1] || T[2] == E[1]) continue;
      f(e, c.t);
    }
  }
}

}  // namespace weft
