// Collision candidate sets produced by the broad phase (broad_phase.hpp) and consumed by the
// barrier, friction and CCD (DESIGN.md, data flow 2b / 2e). Point-edge and point-point
// contacts are not separate candidates: they are distance types of these two (IPC Sec. 4.2).
#pragma once
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

inline bool operator==(const PointTriangleCandidate& a, const PointTriangleCandidate& b) {
  return a.v == b.v && a.t == b.t;
}
inline bool operator!=(const PointTriangleCandidate& a, const PointTriangleCandidate& b) { return !(a == b); }
inline bool operator<(const PointTriangleCandidate& a, const PointTriangleCandidate& b) {
  return a.v < b.v || (a.v == b.v && a.t < b.t);
}
inline bool operator==(const EdgeEdgeCandidate& a, const EdgeEdgeCandidate& b) {
  return a.ea == b.ea && a.eb == b.eb;
}
inline bool operator!=(const EdgeEdgeCandidate& a, const EdgeEdgeCandidate& b) { return !(a == b); }
inline bool operator<(const EdgeEdgeCandidate& a, const EdgeEdgeCandidate& b) {
  return a.ea < b.ea || (a.ea == b.ea && a.eb < b.eb);
}

// pt sorted by (v, t), ee by (ea, eb), each pair at most once.
struct Candidates {
  std::vector<PointTriangleCandidate> pt;
  std::vector<EdgeEdgeCandidate> ee;
  // Empties both sets, keeping their capacity (the broad phase refills them every Newton
  // iteration).
  void clear() {
    pt.clear();
    ee.clear();
  }
  size_t size() const { return pt.size() + ee.size(); }
};

}  // namespace weft
