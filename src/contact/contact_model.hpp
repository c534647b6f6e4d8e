// The contact terms of the incremental potential over one rank's share of the collision
// pairs (C-IPC sections 5.1-5.4): the thickness-offset barrier kappa * b(d^2 - xi^2,
// 2 xi dhat + dhat^2) (eq. 12), lagged smoothed friction (IPC), and the ACCD step bound.
// PETSc-free: element blocks go to a sink with global vertex ids; the caller assembles
// and reduces. Positions are full (every vertex, solver order); each pair is owned by the
// rank that owns its point (PT, PE), its first edge's first vertex (EE) or its smaller
// point (PP), so summing over ranks counts every pair exactly once. The four pair kinds
// (candidates.hpp) run through one generic body per operation (contact_model.cpp,
// PairTraits): distance type and squared distance, offset barrier, lagged friction, ACCD.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "ccd/accd.hpp"
#include "contact/broad_phase.hpp"
#include "contact/candidates.hpp"
#include "contact/contact_timers.hpp"
#include "contact/surface.hpp"

namespace weft {

struct ContactParams {
  double dhat = 1e-3;      // activation distance beyond the offset
  double eps_v = 1e-3;     // friction smoothing velocity (m/s)
  double dt = 0.04;
  AccdParams accd;         // s = 0.1: stop at 10% of the remaining gap (C-IPC section 5.4)
  // The swept queries' skin set (update_swept) is rebuilt once it holds more than
  // skin_shrink times the pairs of the last swept set and more than skin_shrink x
  // skin_shrink_min pairs (a tuning knob, not a case-file key; see contact_model.cpp).
  double skin_shrink = 8.0;
  size_t skin_shrink_min = 1024;
};

// One element block: nv vertices (global solver ids, -1 = fixed kinematic: rows/cols dropped),
// gradient (3 nv) and Hessian (3 nv x 3 nv, column-major, symmetric).
using ContactSink = std::function<void(int nv, const int* ids, const double* g, const double* H)>;

class ContactModel {
 public:
  struct Box {  // an axis-aligned box (the broad phase's, see contact_model.cpp)
    double lo[3], hi[3];
  };
  // `rest` (every vertex's rest position) is read by reference: on a whole surface it must
  // outlive the model; a share reads it only here, for its held edges' rest lengths.
  ContactModel(CollisionSurface surface, VertexSpan<Vec3> rest, PagedArray<char> kinematic,
               std::vector<double> object_friction, std::vector<char> point_owned, std::vector<char> edge_owned,
               const ContactParams& params);
  // Sums n counts over the ranks in place (the caller's MPI_Allreduce).
  using SumOverRanks = std::function<void(std::uint64_t* counts, int n)>;
  // The same with the owned points and edges those whose (first) vertex lies in
  // [owned_begin, owned_end), a rank's block: no flag arrays the length of the surface. A
  // surface that is a rank's share of the edges (EdgeShare) needs sum_over_ranks (the
  // whole surface's median edge length, below).
  ContactModel(CollisionSurface surface, VertexSpan<Vec3> rest, PagedArray<char> kinematic,
               std::vector<double> object_friction, int owned_begin, int owned_end, const ContactParams& params,
               const SumOverRanks& sum_over_ranks = SumOverRanks());

  // Kinematic vertices that are unknowns of this step's solve (an obstacle held to its
  // script by an augmented Lagrangian instead of exactly): their gradient and Hessian
  // entries are emitted with their ids. The broad phase still skips pairs whose vertices
  // are all kinematic, free or not: scripted bodies do not collide with each other.
  // `free`: their vertex ids, ascending (empty = none).
  void set_free_kinematic(std::vector<int> free);

  // The primitives this rank's positions know (the contact halo's active lists, updated by
  // every exchange; not owned): every per-iteration pass (broad phases, the skin and
  // proximity filters, box and position bookkeeping) then runs over them, O(owned + halo),
  // and positions outside them are never read. Null (the default) = the whole surface.
  void set_active(const ActivePrimitives* active);

  // Pairs within dhat (+ offsets) at x: the set the gradient and Hessian are built on.
  // When every vertex known at x lies inside its box of the last update_swept (and, after
  // a far query, whose swept set lacks pairs that only points off its segment could bring
  // close, x lies on that segment x0 + t dx: a Newton iterate, the usual case), the set is the swept set filtered by the boxes at x: the same pairs, in
  // the same order, as a new broad phase, at a fraction of its cost (each box at x lies
  // inside the swept box, and the filter repeats the broad phase's own box test).
  // Otherwise the broad phase runs.
  void update_proximity(const VertexSpan<Vec3>& x);
  // Pairs whose boxes swept over [x, x + dx] come within dhat: the set every line-search
  // trial and the CCD bound use, so no pair can enter the barrier's support unseen. On a
  // query whose steps exceed 10 dhat and 2 edge lengths, less (while most tested pairs
  // drop: kDropShare) the pairs none of those needs (contact_model.cpp,
  // swept_pair_needed: ACCD clears them over the whole step and an axis keeps their sides
  // beyond the support all along it), dropped as they are found: a large step's set is
  // millions of such pairs.
  // Served from a superset kept across calls (a Verlet list): the broad phase runs on
  // vertex boxes grown by a skin (2 dhat + the vertex's own step) and later queries whose
  // every vertex box lies inside its skin box only filter that set with the broad phase's
  // own box test, which gives the same pairs in the same order. A vertex box outside its
  // skin box (or a vertex the skin set did not know) rebuilds it; a query with steps over
  // 10 dhat (or a skin wider than half an edge) runs the plain broad phase, in the frame
  // that moves by `shift` t when one is given: every pairwise distance along x + t dx is
  // unchanged when all vertices also move by -t shift, so the same pairs can come close,
  // and a cloth falling as a whole has boxes as long as its step's variation instead of
  // its step. The caller decides the shift (the same on every rank, so the candidate sets
  // and the CCD bound do not depend on the rank count).
  void update_swept(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, const Vec3* shift = nullptr);

  // kappa * sum of barriers over the current set; +inf if a pair is at or inside its offset.
  double barrier_energy(const VertexSpan<Vec3>& x, double kappa) const;
  // Adds barrier gradient/PSD Hessian blocks of active pairs; returns the barrier energy.
  double assemble_barrier(const VertexSpan<Vec3>& x, double kappa, const ContactSink& sink) const;
  // Global-id vertex couplings (row, col), row != col, both dynamic, of every pair that
  // can emit a Hessian block at x (within the barrier's support, plus a look-ahead margin of
  // dhat) and of every friction pair: the off-diagonal matrix pattern the contact blocks
  // may fill. Sorted, unique. reach: the margin beyond the support in units of dhat
  // (negative: the default look-ahead, kCouplingReach in contact_model.cpp).
  void active_couplings(const VertexSpan<Vec3>& x, std::vector<std::pair<int, int>>& out,
                        double reach = -1.0) const;
  // Smallest d - xi over the current set (+inf if empty).
  double min_gap(const VertexSpan<Vec3>& x) const;
  // Largest t in (0, 1] such that x + t dx stays clear (ACCD over the swept set).
  double max_step(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, long* queries) const;

  // Lagged friction (IPC): freeze normal forces, tangent operators and the reference
  // positions x_ref (start of step) from the proximity set at x_lag.
  void lag_friction(const VertexSpan<Vec3>& x_lag, const VertexSpan<Vec3>& x_ref, double kappa);
  // The vertices of the lagged friction stencils, ascending: they must stay known to this
  // rank until the next lag_friction (the contact halo keeps them).
  std::vector<int> friction_vertices() const;
  // Replaces x_ref (only the friction vertices are read): a rank that did not know every
  // start-of-step position at lag time fetches them and sets them here.
  void set_friction_reference(const VertexSpan<Vec3>& x_ref);
  // The same from the friction vertices' values alone: values[i] is ids[i]'s (ids ascending,
  // as friction_vertices() gives them).
  void set_friction_reference(const std::vector<int>& ids, const std::vector<Vec3>& values);
  double friction_energy(const VertexSpan<Vec3>& x) const;
  double assemble_friction(const VertexSpan<Vec3>& x, const ContactSink& sink) const;

  size_t num_candidates() const { return proximity_.size(); }
  const Candidates& proximity_set() const { return proximity_; }
  const Candidates& swept_set() const { return swept_; }
  // The swept set's superset (tests): the skin set, with the pairs its updates added since
  // the last rebuild or fold folded in.
  const Candidates& skin_set() {
    fold_skin_delta();
    return skin_;
  }
  size_t num_friction_pairs() const { return friction_.size(); }
  const CollisionSurface& surface() const { return surface_; }
  // The contact halo writes the edges other ranks send it into a share's edges.
  CollisionSurface& surface_for_halo() { return surface_; }
  double max_offset() const { return max_offset_; }
  // Bytes held by the per-vertex (and per-primitive) arrays indexed by surface id: paged
  // (core/paged_array.hpp), so O(the pages this rank's owned block and halo touched).
  size_t vertex_array_bytes() const;
  // Per-phase time and work counters since construction (contact_timers.hpp). The contact
  // halo and the stepper add their phases here too.
  ContactTimers& timers() const { return timers_; }

 private:
  // lb (by position in c) and u (by vertex), or both null: lower bounds of the pairs'
  // distances and of how far each vertex has moved since they were taken (barrier_energy).
  double energy_over(const Candidates& c, const VertexSpan<Vec3>& x, double kappa, const double* lb,
                     const VertexSpan<double>* u) const;
  bool all_kinematic(const int* v, int n) const;
  // sink() on the dynamic vertices among the first nv <= N of an N-vertex block (g, H
  // column-major 3N x 3N): the rows, columns and gradient entries of kinematic vertices
  // (and of vertices past nv, a padded friction stencil) are dropped here rather than by
  // the sink (the same values reach the matrix, far cheaper to insert for a pair with an
  // obstacle: one 3 x 3 block instead of sixteen).
  template <int N>
  void emit_dynamic(const int* v, int nv, const double* g, const double* H, const ContactSink& sink) const;
  // update_proximity's fast path (see there); false when x is not covered by the last
  // swept boxes.
  bool proximity_from_swept(const VertexSpan<Vec3>& x);
  // Distance type and squared distance (by that type) of every proximity pair at x (pt
  // pairs, then ee, pe, pp): min_gap, active_couplings and assemble_barrier see the same x in turn
  // (the accepted iterate), so they classify each pair once. Recomputed when the proximity
  // set or any position changed since.
  struct PairDistance {
    int type;
    double d2;
  };
  const std::vector<PairDistance>& proximity_distances(const VertexSpan<Vec3>& x) const;

  struct FrictionPair {
    int nv;                          // 4 (PT, EE), 3 (PE) or 2 (PP)
    int ids[4];
    Eigen::Matrix<double, 12, 2> T;  // tangent operator, padded to 12 rows (zero past 3 nv)
    double mu_lambda;
    Vec3 ref[4];                     // the stencil's reference positions (start of step)
  };
  // The active lists, or the whole surface's (built on first use: a run on several ranks,
  // which always gives active lists, never holds them).
  const ActivePrimitives& act() const {
    if (active_) return *active_;
    if (!all_built_) {
      all_.points = surface_.vertices.to_vector();
      all_.triangles.resize(surface_.triangles.size());
      for (size_t t = 0; t < surface_.triangles.size(); ++t) all_.triangles[t] = static_cast<int>(t);
      all_.edges.resize(surface_.edges.size());
      for (size_t e = 0; e < surface_.edges.size(); ++e) all_.edges[e] = static_cast<int>(e);
      all_built_ = true;
    }
    return all_;
  }
  // Dropping the swept pairs no consumer of a query needs (update_swept): x, dx of the
  // query, ACCD's parameters at t_max = 1 and the rounding margin (see swept_pair_needed),
  // and the pairs tested and dropped so far (the test stops where it does not pay).
  struct SweptDrop {
    const ContactModel* model;
    const VertexSpan<Vec3>* x;
    const VertexSpan<Vec3>* dx;
    AccdParams ap;
    double tol;
    mutable long tested = 0, dropped = 0;
    mutable bool on = true;
  };
  template <PairKind K>
  bool swept_pair_needed(const SweptDrop& d, int a, int b) const;
  template <PairKind K>
  bool swept_pair_kept(const SweptDrop& d, int a, int b) const;
  static bool keep_swept_pair(const void* ctx, PairKind kind, int a, int b);
  // Whether every vertex finite at x lies within swept_seg_eps_ of x0 + t dx for one t in
  // [0, 1] (the last swept query's segment): where a set without the dropped pairs serves.
  bool on_swept_segment(const VertexSpan<Vec3>& x) const;
  // swept_x_ / swept_dx_ := x / dx at the active points (NaN where the previous store wrote).
  void store_swept(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx);
  void count_broad(const BroadPhase& bp);
  double median_dynamic_edge_length(const SumOverRanks& sum) const;

  CollisionSurface surface_;
  // The edge-edge mollifier threshold is 1e-3 |ea|^2 |eb|^2 at rest. A whole surface
  // computes it per pair from the rest positions (the scene's, which outlive the model; not
  // stored per edge: 24 bytes a cloth vertex); a share reads its edges' from the surface's
  // table (filled at construction for the held edges, by the halo for received ones: the
  // same bits), so the model keeps no rest positions after its construction.
  VertexSpan<Vec3> rest_;
  double rest_length2(int e) const {
    if (surface_.share) return surface_.edge_rest_length2[e];
    const Edge& g = surface_.edges[e];
    return (rest_[g[1]] - rest_[g[0]]).squaredNorm();
  }
  // Per vertex id (a run's: only the kinematic vertices' pages committed).
  PagedArray<char> kinematic_;
  // This step's free kinematic vertices, ascending (set_free_kinematic; few, usually none).
  std::vector<int> free_kinematic_;
  // Kinematic and not free this step: ids -1 (no per-vertex array: 1 byte a vertex on
  // every rank).
  bool fixed(int v) const {
    return kinematic_[v] && (free_kinematic_.empty() ||
                             !std::binary_search(free_kinematic_.begin(), free_kinematic_.end(), v));
  }
  std::vector<double> object_friction_;
  std::vector<char> point_owned_, edge_owned_;  // (empty with an owned range)
  bool owned_range_ = false;
  // The per-vertex arrays below (PagedArray) as one flat block each: one rank (or flag
  // arrays, tests), which writes every entry; else paged, O(pages owned block and halo touch).
  bool dense_arrays_ = true;
  int owned_begin_ = 0, owned_end_ = 0;
  PrimitiveFilter point_filter() const {
    return owned_range_ ? PrimitiveFilter::vertex_range(owned_begin_, owned_end_) : PrimitiveFilter(&point_owned_);
  }
  PrimitiveFilter edge_filter() const {
    return owned_range_ ? PrimitiveFilter::vertex_range(owned_begin_, owned_end_) : PrimitiveFilter(&edge_owned_);
  }
  ContactParams params_;
  double max_offset_ = 0;
  mutable BroadPhase broad_phase_;
  Candidates proximity_, swept_;
  PagedArray<Vec3> swept_x_, swept_dx_;  // the last swept query's boxes [x, x + dx] (dx shifted)
  bool swept_stored_ = false;
  bool swept_shifted_ = false;  // swept_dx_ is dx - c for a common translation c (update_swept)
  double swept_margin_ = 0.0;   // the extra inflation that shifted set was built with
  Vec3 swept_shift_ = Vec3::Zero();  // ... and its translation c
  // The swept set lacks the pairs apart by more than their motion over the step (a far
  // query, update_swept): proximity_from_swept then serves only points within
  // swept_seg_eps_ of the query's segment.
  bool swept_dropped_ = false;
  double swept_seg_eps_ = 0.0;
  Candidates skin_;                          // the swept set's superset (update_swept) ...
  Candidates skin_delta_;                    // ... and the pairs updates added since (sorted, none in
                                             // skin_): kept apart until large (fold_skin_delta)
  BroadPhase skin_phase_;                    // the broad phase of skin_, kept for its updates
  std::vector<int> skin_moved_;              // scratch: vertices outside their skin boxes
  Candidates skin_added_, skin_merge_;       // scratch: pairs an update adds; merge buffer
  Candidates swept_scratch_;                 // scratch: the skin filter's output before the copy
  PagedArray<Vec3> skin_x_, skin_dx_, skin_lo_, skin_hi_;  // its query and vertex boxes
  std::vector<int> skin_moved_slot_;         // scratch: their positions in the active points
  std::vector<Vec3> vlo_, vhi_;              // scratch: this query's vertex boxes (by active point)
  std::vector<Box> query_pbox_, query_tbox_, query_ebox_;  // scratch: ... and primitive boxes (by
                                                           // position in the active lists)
  PagedArray<int> query_slot_[3];          // scratch: surface index -> that position (-1 outside)
  bool skin_valid_ = false;
  long skin_lists_version_ = 0;            // the active lists' version the skin set was built / updated on
  void fold_skin_delta();
  size_t swept_last_ = 0;                    // the last query's swept set size (skin shrink)
  double skin_max_growth_ = std::numeric_limits<double>::infinity();  // see kSkinMaxGrowthPerEdge
  mutable std::vector<PairDistance> prox_dist_;          // proximity_distances' cache ...
  mutable std::vector<Vec3> prox_dist_x_;                 // ... and the positions it is for
  mutable bool prox_dist_valid_ = false;
  mutable std::vector<int> couple_count_;                 // active_couplings scratch
  mutable std::vector<std::pair<int, int>> couple_tmp_;
  mutable PagedArray<char> col_seen_;                    // ... a mark per vertex (0 outside a pass)
  std::vector<FrictionPair> friction_;
  const ActivePrimitives* active_ = nullptr;
  mutable ActivePrimitives all_;             // the whole surface (no active lists given) ...
  mutable bool all_built_ = false;           // ... once act() has needed it
  // The entries the last pass wrote in the per-vertex scratch arrays, reset to NaN / empty
  // by the next one (so passes cost O(active), not O(surface)).
  std::vector<int> swept_filled_, skin_filled_;
  PagedArray<char> skin_mark_;
  mutable std::vector<int> prox_vertices_;   // proximity_distances' cache: the stencil vertices
  mutable PagedArray<char> vmark_;         // scratch per vertex
  mutable PagedArray<int> vslot_;          // scratch per vertex (-1 outside a pass)
  // max_step's per-pair distance bounds at its x (in swept-set order) and that x (at the
  // active points), for the line search's barrier energy; invalid after update_swept.
  mutable std::vector<double> ccd_bound_;
  mutable PagedArray<Vec3> ccd_x_;
  mutable bool ccd_bound_valid_ = false;
  mutable Candidates ccd_pairs_;             // the swept set of the last max_step (its bounds' pairs)
  mutable std::vector<double> ccd_prev_bound_;  // max_step scratch: the last query's bounds
  mutable PagedArray<double> ccd_move_;    // max_step scratch: |x - ccd_x_| per vertex ...
  mutable PagedArray<double> ccd_step_;    // ... and |dx|
  mutable std::vector<char> ccd_exact_, ccd_prev_exact_;  // whether a bound came from a kernel
  mutable bool ccd_have_prev_ = false;       // ccd_pairs_ / ccd_bound_ / ccd_x_ hold a query
  mutable PagedArray<double> trial_move_;  // barrier_energy scratch: |x - ccd_x_| per vertex
  mutable ContactTimers timers_;
};

}  // namespace weft
