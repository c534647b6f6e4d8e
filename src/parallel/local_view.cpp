#include "parallel/local_view.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace weft {

namespace {

// One pass over what the block [vbegin, vend) touches: its ghosts (vertices of the triangles
// and stencils it leads, and stitch partners) and, with `contact_support`, the support
// (every vertex of a triangle or segment with a vertex in the block) and the triangles with
// a vertex in the block. With `lv`, also the triangles and stencils it leads. A part's
// scene is read through its kept triangles only.
std::vector<int> scan_block(const Scene& scene, int vbegin, int vend, LocalView* lv, ContactSupport* contact_support) {
  auto owned = [&](int v) { return v >= vbegin && v < vend; };
  std::vector<int> ghost, support, support_triangles;
  auto visit = [&](int t) {
    const Tri& tri = scene.triangles[t];
    if (owned(tri[0])) {
      if (lv) lv->triangles.push_back(t);
      if (contact_support) support_triangles.push_back(t);
      for (int v : tri)
        if (!owned(v)) ghost.push_back(v);
    } else if (contact_support && (owned(tri[1]) || owned(tri[2]))) {
      support_triangles.push_back(t);
      for (int v : tri)
        if (!owned(v)) support.push_back(v);
    }
  };
  if (scene.triangle_part) {
    for (int t : scene.kept_triangles) visit(t);
  } else {
    for (size_t t = 0; t < scene.triangles.size(); ++t) visit(static_cast<int>(t));
  }
  if (contact_support) {
    // (A part holds only the primitives with a vertex in its block: those are the ones read.)
    for (size_t k = 0; k < scene.segments.size(); ++k) {
      const Edge& e = scene.segments[k];
      if (owned(e[0]) != owned(e[1])) support.push_back(owned(e[0]) ? e[1] : e[0]);
      if (owned(e[0]) || owned(e[1])) contact_support->segments.push_back(scene.segment_index(k));
    }
    for (size_t k = 0; k < scene.points.size(); ++k)
      if (owned(scene.points[k])) contact_support->points.push_back(scene.point_index(k));
    for (size_t k = 0; k < scene.tets.size(); ++k) {
      const auto& t = scene.tets[k];
      if (owned(t[0]) || owned(t[1]) || owned(t[2]) || owned(t[3])) contact_support->tets.push_back(scene.tet_index(k));
    }
  }
  if (lv) lv->sets.resize(scene.element_sets.size());
  for (size_t s = 0; s < scene.element_sets.size(); ++s) {
    const ElementSet& set = scene.element_sets[s];
    for (int k = 0; k < set.size(); ++k) {
      const int* sv = set.stencil(k);
      if (!owned(sv[0])) continue;
      if (lv) lv->sets[s].element.push_back(k);
      for (int a = 0; a < set.arity; ++a)
        if (!owned(sv[a])) ghost.push_back(sv[a]);
    }
  }
  std::sort(ghost.begin(), ghost.end());
  ghost.erase(std::unique(ghost.begin(), ghost.end()), ghost.end());
  // A stitched vertex's partner comes with it: once the pair is welded the two are one
  // unknown, and a rank that sees one copy must read and write the other (b's derivatives
  // go to a's slot). Both are owned by one rank, so an owned vertex's partner is owned.
  if (!scene.stitches.empty()) {
    PagedArray<int> partner(static_cast<size_t>(scene.num_vertices), -1);  // (the stitched vertices' pages only)
    for (const auto& p : scene.stitches) partner.ref(p[0]) = p[1], partner.ref(p[1]) = p[0];
    const size_t n0 = ghost.size();
    for (size_t k = 0; k < n0; ++k)
      if (partner[ghost[k]] >= 0) ghost.push_back(partner[ghost[k]]);
    std::sort(ghost.begin(), ghost.end());
    ghost.erase(std::unique(ghost.begin(), ghost.end()), ghost.end());
  }
  if (contact_support) {
    support.insert(support.end(), ghost.begin(), ghost.end());
    std::sort(support.begin(), support.end());
    support.erase(std::unique(support.begin(), support.end()), support.end());
    contact_support->vertices = std::move(support);
    contact_support->triangles = std::move(support_triangles);
  }
  return ghost;
}

}  // namespace

ContactSupport contact_support(const Scene& scene, int vbegin, int vend) {
  ContactSupport support;
  scan_block(scene, vbegin, vend, nullptr, &support);
  return support;
}

LocalView make_local_view(const Scene& scene, MPI_Comm comm, ContactSupport* contact_support) {
  LocalView lv;
  lv.comm = comm;
  MPI_Comm_rank(comm, &lv.rank);
  MPI_Comm_size(comm, &lv.ranks);
  lv.vbegin = scene.vertex_range[lv.rank];
  lv.vend = scene.vertex_range[lv.rank + 1];
  // A scene built under a run's communicator holds only its own rank's stencils.
  if (scene.sets_rank >= 0 && scene.sets_rank != lv.rank)
    throw std::logic_error("make_local_view: the scene's element sets are rank " + std::to_string(scene.sets_rank) +
                           "'s, not rank " + std::to_string(lv.rank) + "'s");
  lv.ghosts = scan_block(scene, lv.vbegin, lv.vend, &lv, contact_support);

  // Local ids are the solver ids when the owned block starts at 0 and there are no ghosts
  // (one rank): a list that takes every triangle or stencil is then the scene's own array,
  // borrowed rather than copied.
  const bool identity = lv.vbegin == 0 && lv.ghosts.empty();
  // (Triangles only at one rank: rank 0 of several can lead every triangle and have no
  // ghosts, e.g. a floor beside particles, but its scene then keeps a part of its triangles,
  // freeing the whole array a borrow would point into.)
  if (identity && lv.ranks == 1 && lv.triangles.size() == scene.triangles.size()) {
    lv.triangle_local = BorrowedArray<Tri>::borrow(scene.triangles.whole());
  } else {
    std::vector<Tri> tl;
    tl.reserve(lv.triangles.size());
    for (int t : lv.triangles) {
      const Tri& tri = scene.triangles[t];
      tl.push_back({lv.local_of(tri[0]), lv.local_of(tri[1]), lv.local_of(tri[2])});
    }
    lv.triangle_local = std::move(tl);
  }
  for (size_t s = 0; s < scene.element_sets.size(); ++s) {
    const ElementSet& set = scene.element_sets[s];
    LocalStencils& ls = lv.sets[s];
    if (identity && ls.element.size() == static_cast<size_t>(set.size())) {
      ls.element = std::vector<int>();
      ls.whole = &set;
      continue;
    }
    ls.local.reserve(static_cast<size_t>(set.arity) * ls.element.size());
    for (int k : ls.element)
      for (int a = 0; a < set.arity; ++a) ls.local.push_back(lv.local_of(set.stencil(k)[a]));
    ls.element.shrink_to_fit();  // (appended one by one: no growth slack kept for the run)
  }
  lv.triangles.shrink_to_fit();
  return lv;
}

}  // namespace weft
