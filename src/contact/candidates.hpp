// Collision candidate sets produced by the broad phase (broad_phase.hpp) and consumed by the
// barrier, friction and CCD (DESIGN.md, data flow 2b / 2e).
//
// Which primitives pair up (C-IPC Sec. 3: "the barrier includes all point-triangle and
// edge-edge pairs from all surfaces (volumes and shells), rods and particles; point-edge
// pairs from all rod nodes and particles to rod segments; and point-point pairs between all
// particles"), over the sets of a CollisionSurface (surface.hpp):
//   PT: every surface point (CollisionSurface::vertices: triangle, segment and isolated
//       vertices) x every triangle;
//   EE: every edge x every edge (triangle edges and segments);
//   PE: every rod node or particle (codim_vertices) x every segment;
//   PP: every particle (points) x every particle.
// Point-edge and point-point contacts of surfaces are distance types of PT / EE (IPC Sec.
// 4.2); the PE / PP sets add the contacts that codimensional primitives have no triangle or
// second edge for (a particle against a rod, two particles). kPairRules is that table; the
// broad phase runs one generic pair loop over it.
#pragma once
#include <cstddef>
#include <type_traits>
#include <vector>

namespace weft {

// Point v (a vertex id) against triangle t (an index into CollisionSurface::triangles);
// v is never a vertex of t.
struct PointTriangleCandidate {
  int v;
  int t;
};

// Edges ea < eb (indices into CollisionSurface::edges) sharing no vertex.
struct EdgeEdgeCandidate {
  int ea, eb;
};

// Point v (a rod node or particle) against segment e (an index into
// CollisionSurface::edges, e >= num_triangle_edges); v is never a vertex of e.
struct PointEdgeCandidate {
  int v;
  int e;
};

// Particles v < w (vertex ids of CollisionSurface::points).
struct PointPointCandidate {
  int v, w;
};

#define WEFT_PAIR_COMPARE(T, A, B)                                                                        \
  inline bool operator==(const T& x, const T& y) { return x.A == y.A && x.B == y.B; }                    \
  inline bool operator!=(const T& x, const T& y) { return !(x == y); }                                   \
  inline bool operator<(const T& x, const T& y) { return x.A < y.A || (x.A == y.A && x.B < y.B); }
WEFT_PAIR_COMPARE(PointTriangleCandidate, v, t)
WEFT_PAIR_COMPARE(EdgeEdgeCandidate, ea, eb)
WEFT_PAIR_COMPARE(PointEdgeCandidate, v, e)
WEFT_PAIR_COMPARE(PointPointCandidate, v, w)
#undef WEFT_PAIR_COMPARE

// The primitive sets of a CollisionSurface a pair rule draws from, and the rules.
enum class PrimitiveSet { SurfacePoints, Triangles, Edges, CodimPoints, Segments, Particles };
enum class PairKind { PT = 0, EE = 1, PE = 2, PP = 3 };
inline constexpr int kPairKinds = 4;
struct PairRule {
  PairKind kind;
  PrimitiveSet a, b;  // a == b: a symmetric rule (pairs a < b, each once)
};
inline constexpr PairRule kPairRules[kPairKinds] = {
    {PairKind::PT, PrimitiveSet::SurfacePoints, PrimitiveSet::Triangles},
    {PairKind::EE, PrimitiveSet::Edges, PrimitiveSet::Edges},
    {PairKind::PE, PrimitiveSet::CodimPoints, PrimitiveSet::Segments},
    {PairKind::PP, PrimitiveSet::Particles, PrimitiveSet::Particles},
};

// pt sorted by (v, t), ee by (ea, eb), pe by (v, e), pp by (v, w), each pair at most once.
struct Candidates {
  std::vector<PointTriangleCandidate> pt;
  std::vector<EdgeEdgeCandidate> ee;
  std::vector<PointEdgeCandidate> pe;
  std::vector<PointPointCandidate> pp;
  // Empties every set, keeping their capacity (the broad phase refills them every Newton
  // iteration).
  void clear() {
    pt.clear();
    ee.clear();
    pe.clear();
    pp.clear();
  }
  size_t size() const { return pt.size() + ee.size() + pe.size() + pp.size(); }
  // The set of a kind, for code generic over kinds: get<PairKind::PE>() is pe.
  template <PairKind K>
  auto& get() {
    if constexpr (K == PairKind::PT) return pt;
    else if constexpr (K == PairKind::EE) return ee;
    else if constexpr (K == PairKind::PE) return pe;
    else return pp;
  }
  template <PairKind K>
  const auto& get() const {
    return const_cast<Candidates*>(this)->get<K>();
  }
};

// Calls f(std::integral_constant<PairKind, K>{}) for every kind, in the order of kPairRules
// (PT, EE, PE, PP: the order every per-kind sequence of the contact layer follows).
template <class F>
inline void for_each_pair_kind(F&& f) {
  f(std::integral_constant<PairKind, PairKind::PT>{});
  f(std::integral_constant<PairKind, PairKind::EE>{});
  f(std::integral_constant<PairKind, PairKind::PE>{});
  f(std::integral_constant<PairKind, PairKind::PP>{});
}

}  // namespace weft
