// Contact halo (DESIGN.md, "Distributed model"; data flow 2a): gives each rank the
// positions (and, for CCD, the step) of every vertex its own contact pairs can touch, and
// no others, so the broad phase, barrier, friction and CCD run on a rank's share of the
// pairs without an all-gather of the whole surface.
//
// Who owns what (the same rules as ContactModel's pair ownership, candidates.hpp):
//  * a point is owned by the owner of its vertex; an edge {a, b} (a < b) by the owner of a
//    (segments included); a triangle by the owner of its first vertex. A rank's pairs are
//    the PT and PE pairs of its points, the EE pairs whose first edge it owns and the PP
//    pairs whose smaller particle it owns, so only TRIANGLES, EDGES (PT / EE / PE partners)
//    and PARTICLES (PP partners) are ever needed as a partner from another rank.
//
// One exchange, for positions x (proximity) or x swept to x + p (CCD):
//  A. fixed part: every rank receives the vertices of its own edges and triangles that
//     other ranks own (static), plus "kept" vertices it asked for (the stencils of its
//     lagged friction pairs, which must stay known for the whole lagged solve);
//  B. each rank cuts its own points and edges into runs of consecutive ids and sends the
//     runs' boxes, grown like the broad phase grows them (by (inflation + xi) / 2), to all
//     ranks (MPI_Allgatherv of a few thousand boxes at most);
//  C. each rank sends every one of its own triangles, edges and particles whose grown box
//     overlaps a box of rank r to r (ids and coordinates, MPI_Alltoallv; an edge with its
//     vertex ids, which a rank's share of the surface does not hold for others' edges).
// Why this is complete: the broad phase reports a pair iff the two grown boxes overlap.
// If rank r owns the point / first edge / smaller particle of a reported pair, that
// primitive's grown box lies in one of r's run boxes (particles and rod nodes are points),
// so the partner's grown box overlaps that run box and the partner's owner sent it in C. Boxes are compared with a small extra margin, so rounding
// can only send more, never less.
//
// The result is an array by solver id with every vertex this rank may need and NaN everywhere
// else; the broad phase never pairs a primitive with a non-finite box, so a rank's candidate
// set is exactly the set it would get from all positions. Positions travel as bits, so pair
// sets, energies and steps do not depend on the rank count.
//
// O(local): the array is paged (core/paged_array.hpp): the rank holds the pages its owned
// block and the received vertices fall in, every other entry reads NaN. An exchange
// resets only the entries the previous one filled, and lists what it filled (known(): the
// owned block and the received vertices) and the primitives the broad phase may pair
// (active(): the known surface vertices, and the rank's own edges and triangles and those
// sent to it in C, by id beside their vertices; a particle is listed as a known vertex),
// so the broad phase, CCD, line-search updates and every other per-iteration pass run
// over those lists: O(owned + halo), never O(surface); finding them needs no table of the
// primitives on a vertex.
#pragma once
#include <mpi.h>

#include <vector>

#include "contact/broad_phase.hpp"
#include "contact/contact_timers.hpp"
#include "contact/surface.hpp"
#include "core/paged_array.hpp"
#include "core/types.hpp"

namespace weft {

// A rank's share of the collision surface's edges (EdgeShare) for the block [vbegin, vend)
// of `comm`'s rank: its edges numbered over the ranks as a whole build numbers them (an
// MPI_Exscan of each rank's counts, an MPI_Allreduce of the totals), its blocks' vertex data
// gathered (an MPI_Allgatherv); collective in the build.
EdgeShare rank_edge_share(int vbegin, int vend, MPI_Comm comm);

class ContactHalo {
 public:
  struct Stats {
    long fixed_received = 0;   // vertices received in part A (last exchange)
    long box_received = 0;     // vertices received in part C (last exchange)
    long boxes = 0;            // run boxes all ranks published (last exchange)
    long reset = 0;            // entries of the previous exchange reset to NaN (last exchange)
  };

  // vertex_range: rank r owns solver ids [vertex_range[r], vertex_range[r+1]).
  // inflation: the broad phase's (dhat). Collective.
  // The surface may be a rank's share (EdgeShare): each exchange writes the edges other
  // ranks send into surface.edges, so every listed edge reads its vertices.
  ContactHalo(CollisionSurface& surface, std::vector<int> vertex_range, MPI_Comm comm, double inflation);

  // Collective. x_owned / p_owned: this rank's owned block, 3 doubles per vertex
  // (p_owned may be null: proximity exchange at x). Fills xf (and pf when p_owned is given)
  // to the surface's vertex count: owned vertices, the fixed halo, and the vertices of
  // other ranks' primitives within reach; NaN elsewhere.
  void exchange(const double* x_owned, const double* p_owned, PagedArray<Vec3>& xf, PagedArray<Vec3>* pf);

  // Collective. Vertices to receive in every later exchange (replaces the previous set).
  void keep(const std::vector<int>& ids);

  // Collective, one-off: values of `ids` (any vertices) from a vector given by its owned
  // blocks; out is resized to the vertex count, NaN where not asked for.
  void fetch(const double* owned, const std::vector<int>& ids, PagedArray<Vec3>& out);

  // Collective, one-off: the values of `ids` (ascending, unique; any vertices) from a vector
  // given by its owned blocks, in the order of ids (3 per id): no full-length array.
  void fetch_values(const double* owned, const std::vector<int>& ids, std::vector<Vec3>& values);

  const Stats& stats() const { return stats_; }
  // The vertices the last exchange set (owned block + received), ascending; before any
  // exchange, the owned block.
  const std::vector<int>& known() const { return known_; }
  bool is_known(int v) const { return ranks_ == 1 || known_mark_[v]; }
  // The primitives this rank's broad phase pairs (each list ascending): every known
  // surface vertex as a point; its own edges and triangles and those other ranks sent in
  // the last exchange (their vertices are all known). An edge or triangle whose vertices
  // are known but that nobody sent is not listed: no pair this rank keeps needs it.
  const ActivePrimitives& active() const { return active_; }

  // Exchanges, keep and fetch are timed into `t` (ContactPhase::Halo; received vertices
  // counted in halo_vertices); null stops timing. Also registers PETSc log events for every
  // contact phase (once per process, when PETSc is initialised) and hooks them into `t`,
  // so -log_view lists them (class "weft Contact").
  void set_timers(ContactTimers* t);

 private:
  struct Box {
    double lo[3], hi[3];
  };
  int owner(int v) const;
  // Request/serve pattern for a set of vertex ids owned elsewhere (part A, fetch).
  struct Pattern {
    std::vector<int> recv_ids;                     // grouped by owner rank
    std::vector<int> recv_counts, recv_displs;     // per rank, in vertices
    std::vector<int> send_local;                   // owned ids to send, grouped by rank
    std::vector<int> send_counts, send_displs;
  };
  Pattern make_pattern(std::vector<int> ids) const;
  void run_pattern(const Pattern& pat, const double* x_owned, const double* p_owned, PagedArray<Vec3>& xf,
                   PagedArray<Vec3>* pf);
  void reset(PagedArray<Vec3>& xf, PagedArray<Vec3>* pf);
  // known_ and active_ from the owned block, received_x_ and received_prims_ (whose edges
  // it writes into the surface).
  void update_known();
  Box vertex_box(int v, const PagedArray<Vec3>& xf, const PagedArray<Vec3>* pf) const;

  CollisionSurface& surface_;
  std::vector<int> range_;
  MPI_Comm comm_;
  int rank_ = 0, ranks_ = 1;
  double inflation_ = 0.0;
  std::vector<int> own_points_, own_edges_, own_triangles_;  // this rank's primitives
  std::vector<int> own_particles_;  // this rank's isolated points (PP partners)
  std::vector<int> support_;   // non-owned vertices of own edges / triangles (part A)
  std::vector<int> kept_;      // friction stencils
  Pattern fixed_;
  // Non-owned ids the last exchange filled in xf / pf (cleared at the next exchange).
  std::vector<int> received_x_, received_p_;
  std::vector<int> last_reset_;  // the entries the last exchange reset
  // Per vertex, one bit each (whole-length on every rank: 2 bytes a vertex as chars).
  std::vector<bool> mark_;        // scratch
  std::vector<bool> known_mark_;  // in known_
  std::vector<int> known_;
  ActivePrimitives active_;
  ActivePrimitives next_active_;  // scratch: the lists update_known makes, kept when unchanged
  // The triangles and edges the last exchange's part C brought, as (kind, id) records, an
  // edge's followed by its two vertices.
  enum : int { kTriangle = 0, kEdge = 1, kParticle = 2 };
  std::vector<int> received_prims_;
  // Ints of an edge's record: (kind, id, a, b), and on a share whose model keeps the edges'
  // rest lengths (CollisionSurface::edge_rest_length2) that double's two halves.
  int edge_record_ = 4;
  std::vector<Box> my_boxes_, all_boxes_;
  std::vector<int> box_counts_, box_displs_;
  Stats stats_;
  ContactTimers* timers_ = nullptr;
};

}  // namespace weft
