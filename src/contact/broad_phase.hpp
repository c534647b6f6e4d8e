// Contact broad phase (DESIGN.md, data flow 2b and 2e): the point-triangle, edge-edge,
// point-edge and point-point pairs of a CollisionSurface (which primitives pair up:
// candidates.hpp, kPairRules, after C-IPC Sec. 3) whose axis-aligned boxes come close
// enough to matter.
//
// Candidate definition (what the tests compare against brute force):
//  * a vertex's box is [x, x] (proximity) or [min(x, x+dx), max(x, x+dx)] (swept);
//  * a primitive's box is the union of its vertices' boxes, grown on every side by
//    r = (inflation + xi) / 2, xi the primitive's own offset;
//  * a pair is reported iff the two closed boxes overlap, i.e. in every axis the boxes' gap
//    is <= inflation + (xi_a + xi_b) / 2. Since a box gap never exceeds the distance, every
//    pair with distance < dhat + xi_pair (the barrier's support, C-IPC eq. 12) is reported
//    when inflation = dhat; for CCD, every pair that could come that close along x + t dx.
//  * PT: v never a vertex of t. EE: ea < eb, no shared vertex. PE: v (a rod node or
//    particle) never a vertex of segment e. PP: particles v < w.
//  * a primitive with a non-finite box (a NaN or inf coordinate) is never reported.
//  * kinematic (optional, per vertex id): a pair whose vertices are ALL kinematic is
//    skipped (obstacle-obstacle contact is never evaluated).
//  * filters (optional): point_filter (per vertex id) keeps the PT and PE pairs whose point
//    is owned here and the PP pairs whose v (the smaller) is; edge_filter (per edge index)
//    keeps the EE pairs whose ea is owned here. With filters that partition the points /
//    edges over ranks, every pair is kept by exactly one rank. A filter is a flag array or
//    a vertex range (PrimitiveFilter::vertex_range: a point whose id, an edge whose first
//    vertex lies in it, as a rank's owned block).
//  * output: each pair exactly once, pt sorted by (v, t), ee by (ea, eb), pe by (v, e), pp
//    by (v, w) — deterministic, independent of the internal grid.
//
// Data structure: a hierarchical LOOSE spatial hash (uniform hash grids with cells h, 2h,
// 4h, ...) rather than a BVH, because
//  * cloth is nearly uniform, so with cells ~ the typical (inflated / swept) edge box a
//    query looks at O(1) cells and O(1) entries: build and query are linear, O(n + k) for n
//    primitives and k reported pairs, with no O(n log n) tree build or refit every Newton
//    iteration and no O(log n) descent per query (a 512x512 cloth has ~0.8M edges);
//  * each primitive is stored ONCE, in the cell holding its box centre, at the level for its
//    box size (a level's extents differ by <= 2x; base-level cells are ~1.8x the median
//    edge box); a query widens its box by that level's largest stored half-extent and scans
//    the covered cells. So a pair is met once per query (no duplicates to remove), memory
//    is one entry per primitive, and size variation is cheap: a 40K-triangle obstacle with
//    larger triangles, a ground quad 1000x the cloth's edges or a fast-moving swept box
//    goes up a level or more instead of into millions of fine cells. A pair between two
//    levels is found once, from its finer primitive;
//  * edge-edge (and point-point) is symmetric: an edge scans its own level only over cells
//    at or after its own cell (a pair sharing a cell: from its smaller edge), halving that
//    work.
//  * one generic pair loop serves every rule of kPairRules (an asymmetric rule A x B like
//    PT or PE, a symmetric one like EE or PP); each primitive SET (surface points,
//    triangles, edges, rod nodes and particles, segments, particles) has grids of its own,
//    so a scene without rods or particles does exactly the work it did before they existed.
//  * primitives whose vertices are all kinematic (obstacles) sit in grids of their own and
//    never query them: obstacle-obstacle pairs, which are never reported, cost nothing, so
//    a large obstacle under a small cloth adds only its contacts with the cloth.
// Cells are hashed (splitmix64; one CSR table per level, built by counting sort) so memory
// follows the surface, not the scene's bounding box; entries carry their box, so a scan
// reads contiguous memory. The output is put in order by a counting sort on v / ea.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "contact/candidates.hpp"
#include "contact/surface.hpp"
#include "core/paged_array.hpp"
#include "core/types.hpp"

namespace weft {

// A pair-owner filter (above): per-id flags, or a vertex range [lo, hi) that keeps the
// points in it and the edges whose first vertex is in it: a rank's owned block needs no
// flag array the length of the whole surface (5 bytes a cloth vertex on every rank, issue
// 20). A flag array's pointer converts (null = no filter).
struct PrimitiveFilter {
  PrimitiveFilter() = default;
  PrimitiveFilter(const std::vector<char>* f) : flags(f) {}  // NOLINT(google-explicit-constructor)
  static PrimitiveFilter vertex_range(int lo, int hi) {
    PrimitiveFilter f;
    f.ranged = true, f.lo = lo, f.hi = hi;
    return f;
  }
  // Primitive `id` whose first vertex is `v` (a point: its own id) kept?
  bool keeps(int id, int v) const { return flags ? (*flags)[id] != 0 : !ranged || (v >= lo && v < hi); }
  const std::vector<char>* flags = nullptr;
  bool ranged = false;
  int lo = 0, hi = 0;
};

// Per vertex id, whether the vertex is kinematic: a flag array (tests and tools), or a
// PagedArray holding only the pages of kinematic vertices (a run's: not a byte a vertex on
// every rank, issue 20; the others read 0). A pointer to either converts (null = none).
struct KinematicFlags {
  KinematicFlags() = default;
  KinematicFlags(std::nullptr_t) {}                                                  // NOLINT
  KinematicFlags(const std::vector<char>* f) : set(f != nullptr) {                 // NOLINT
    if (f) flags = *f;
  }
  KinematicFlags(const PagedArray<char>* f) : set(f != nullptr) {                  // NOLINT
    if (f) flags = *f;
  }
  explicit operator bool() const { return set; }
  bool operator[](size_t v) const { return flags[v] != 0; }
  size_t size() const { return flags.size(); }
  VertexSpan<char> flags;
  bool set = false;
};

// A swept query's pair predicate (BroadPhase::find_swept): a pair of the candidate
// definition for which keep(ctx, kind, a, b) is false is not reported; a, b are its ids as
// the candidate lists hold them ((v, t), (ea, eb) with ea < eb, (v, e), (v, w) with v < w).
// Lets the caller drop, before they take memory, pairs it can show no consumer of that
// query needs (contact_model.cpp: pairs apart by more than their motion). Empty: all kept.
struct PairPredicate {
  bool (*keep)(const void* ctx, PairKind kind, int a, int b) = nullptr;
  const void* ctx = nullptr;
};

// The primitives a query may pair, each list ascending (a rank's contact halo, DESIGN.md
// "Distributed model"): every primitive outside the lists is treated as one with a
// non-finite box, so a query reports exactly the pairs it reports on positions that are
// NaN outside the listed vertices, while its loops run over the lists only (O(owned +
// halo), never O(surface)), and its arrays (boxes, levels, flags) are indexed by position
// in these lists, so their length is the rank's, not the surface's. points: surface vertex
// ids; edges: edge indices (triangle edges and segments); triangles: triangle indices.
// Every vertex of a listed edge or triangle must be a listed point. `version` must change
// whenever the lists do: an update_swept after a change takes up, as moved, every listed
// primitive its build did not list (a primitive can be listed anew with none of its
// vertices new or moved: the halo lists the partners other ranks sent; and a moved
// vertex's primitives are found among the listed ones only).
struct ActivePrimitives {
  std::vector<int> points, edges, triangles;
  long version = 0;
};

class BroadPhase {
 public:
  struct Stats {
    double cell_size = 0.0;     // cell size of the base level (where uniform cloth sits)
    int levels_used = 0;        // distinct occupied levels (triangle + edge grids)
    size_t grid_entries = 0;    // entries stored (one per primitive in a grid)
    size_t cross_level_pairs = 0;  // pairs between primitives stored at different levels
    size_t boxed = 0;           // points, edges and triangles boxed (the work: the active
                                // lists' sizes, or the whole surface without them)
  };

  BroadPhase();
  ~BroadPhase();
  // Copies start with empty scratch (buffers are not state).
  BroadPhase(const BroadPhase&);
  BroadPhase& operator=(const BroadPhase&);
  BroadPhase(BroadPhase&&) noexcept;
  BroadPhase& operator=(BroadPhase&&) noexcept;

  // Pairs whose boxes at x come within `inflation` (+ pair offset); see above.
  // x holds every vertex (x.size() == surface.num_vertices()); filters / kinematic may be
  // null (= all / none). Throws std::invalid_argument on size mismatches or inflation < 0.
  void find_proximity(const CollisionSurface& surface, const VertexSpan<Vec3>& x, double inflation,
                      PrimitiveFilter point_filter, PrimitiveFilter edge_filter,
                      KinematicFlags kinematic, Candidates& out);

  // Same with each vertex's box swept from x to x + dx (dx = alpha p already applied): the
  // CCD candidate set. A pair that meets mid-step is found even if it is apart at both ends.
  // With a predicate (see PairPredicate) only the pairs it keeps are reported, and no
  // update_swept may follow (that needs the whole set).
  void find_swept(const CollisionSurface& surface, const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx,
                  double inflation, PrimitiveFilter point_filter, PrimitiveFilter edge_filter,
                  KinematicFlags kinematic, Candidates& out, PairPredicate keep = {});

  // Incremental update of this object's last find_swept: the vertices in `moved` take the
  // boxes of x / dx (every other vertex must have the box of that call, or of an update
  // since, which is what makes the stored grids reusable). `added` receives, sorted and
  // once each, every pair of the candidate definition above at the new boxes that has a
  // primitive incident to a moved vertex (pairs already reported before may be among
  // them; the caller merges). Surface, inflation, filters and kinematic flags must be
  // those of the find_swept call. The primitives moved since that call ("stale": their
  // grid entries are out of date) are skipped in the stored grids and found instead in
  // small grids of their own rebuilt per update, so an update costs O(stale + moved
  // primitives + pairs found). Returns false, changing nothing, when there is no
  // find_swept to update (a find_proximity ran since) or when more than max(256, 1/8 of
  // the primitives) would be stale — then call find_swept. A moved vertex (or one of its
  // primitives) that call's active lists did not hold, because the caller's lists grew
  // since, is taken like any other: appended after the listed ones. Used for the skin sets of
  // landing cloth, where a Newton step leaves a few vertices outside the boxes the set was
  // built with (drape_default: 1-300 of 6.7K).
  bool update_swept(const CollisionSurface& surface, const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx,
                    double inflation, PrimitiveFilter point_filter, PrimitiveFilter edge_filter,
                    KinematicFlags kinematic, const std::vector<int>& moved, Candidates& added);

  const Stats& last_stats() const { return stats_; }
  // Bytes this object holds (its arrays' capacities): with active lists, O(listed
  // primitives) after any query or update, never O(surface) (update_swept's vertex ->
  // primitive adjacency is of the build's listed primitives, made by its first update after
  // a build; the vertex -> point slot map is paged).
  size_t memory_bytes() const;

  // Later queries (and updates) consider only these primitives (see ActivePrimitives; the
  // object must outlive its use, its contents may change between queries); null = all.
  void set_active(const ActivePrimitives* active) { active_ = active; }

 private:
  struct Impl;
  void run(const CollisionSurface& surface, const VertexSpan<Vec3>& x, const VertexSpan<Vec3>* dx,
           double inflation, PrimitiveFilter point_filter, PrimitiveFilter edge_filter,
           KinematicFlags kinematic, Candidates& out, PairPredicate keep = {});
  std::unique_ptr<Impl> impl_;
  Stats stats_;
  const ActivePrimitives* active_ = nullptr;
};

}  // namespace weft
