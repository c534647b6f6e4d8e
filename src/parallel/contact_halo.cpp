#include "parallel/contact_halo.hpp"

#include <petsclog.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <cmath>
#include <limits>

#include "parallel/even_share.hpp"

namespace weft {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// At most this many run boxes per rank and primitive kind: the all-gather stays small and
// the box-against-box test below stays ~1e6 comparisons per neighbour even at 1M vertices.
constexpr size_t kMaxRunsPerKind = 512;
constexpr size_t kMinRun = 16;

size_t run_length(size_t n) { return std::max(kMinRun, (n + kMaxRunsPerKind - 1) / kMaxRunsPerKind); }

}  // namespace

EdgeShare rank_edge_share(int vbegin, int vend, MPI_Comm comm) {
  EdgeShare share;
  share.vbegin = vbegin, share.vend = vend;
  share.number = [comm](long triangle_edges, long segments) {
    long own[2] = {triangle_edges, segments}, before[2] = {0, 0}, total[2] = {0, 0};
    MPI_Exscan(own, before, 2, MPI_LONG, MPI_SUM, comm);  // (rank 0's stays 0)
    MPI_Allreduce(own, total, 2, MPI_LONG, MPI_SUM, comm);
    EdgeCounts c;
    c.triangle_edges_before = before[0], c.triangle_edges = total[0];
    c.segments_before = before[1], c.segments = total[1];
    return c;
  };
  share.gather = [comm](const std::vector<int>& mine) { return allgather_ints(mine, comm); };
  return share;
}

ContactHalo::ContactHalo(CollisionSurface& surface, std::vector<int> vertex_range, MPI_Comm comm,
                         double inflation)
    : surface_(surface), range_(std::move(vertex_range)), comm_(comm), inflation_(inflation) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  edge_record_ = surface_.edge_rest_length2.empty() ? 4 : 6;
  const int nv = surface_.num_vertices();
  const int lo = range_[rank_], hi = range_[rank_ + 1];
  auto mine = [&](int v) { return v >= lo && v < hi; };
  // One rank never exchanges (its lists are the whole surface, below): no own primitive
  // lists (the exchange's), no support, no marks and no adjacency for the active lists.
  if (ranks_ > 1) {
    // (from the id runs: O(runs + owned), not a pass over every surface vertex)
    auto owned_ids = [&](const IdRuns& ids, std::vector<int>& out) {
      ids.for_each_run([&](int, int count, int first) {
        for (int v = std::max(first, lo); v < std::min(first + count, hi); ++v) out.push_back(v);
      });
    };
    owned_ids(surface_.vertices, own_points_);
    owned_ids(surface_.points, own_particles_);
    std::vector<int> support;
    for (int e : surface_.held_edges) {  // (a share build holds exactly its own)
      const Edge& ed = surface_.edges[e];
      if (!mine(ed[0])) continue;
      own_edges_.push_back(e);
      if (!mine(ed[1])) support.push_back(ed[1]);
    }
    auto own_triangle = [&](int t) {
      const Tri& tri = surface_.triangles[t];
      if (!mine(tri[0])) return;
      own_triangles_.push_back(t);
      for (int v : tri)
        if (!mine(v)) support.push_back(v);
    };
    if (surface_.share) {  // (a share build holds exactly its own)
      for (int t : surface_.held_triangles) own_triangle(t);
    } else {
      for (size_t t = 0; t < surface_.triangles.size(); ++t) own_triangle(static_cast<int>(t));
    }
    std::sort(support.begin(), support.end());
    support.erase(std::unique(support.begin(), support.end()), support.end());
    support_ = std::move(support);
    for (auto* a : {&own_points_, &own_particles_, &own_edges_, &own_triangles_}) a->shrink_to_fit();  // (held)

    mark_.assign(nv, false);
    known_mark_.assign(nv, false);
  }
  if (ranks_ > 1) fixed_ = make_pattern(support_);
  if (ranks_ == 1) {
    // One rank knows every vertex for good: the lists are the whole surface, made once
    // (sized exactly: they are held for the run).
    known_.resize(nv);
    std::iota(known_.begin(), known_.end(), 0);
    active_.points = surface_.vertices.to_vector();
    active_.triangles.resize(surface_.triangles.size());
    std::iota(active_.triangles.begin(), active_.triangles.end(), 0);
    active_.edges.resize(surface_.edges.size());
    std::iota(active_.edges.begin(), active_.edges.end(), 0);
  } else {
    for (int v = lo; v < hi; ++v) known_.push_back(v);
  }
  box_counts_.resize(ranks_);
  box_displs_.resize(ranks_);
}

void ContactHalo::set_timers(ContactTimers* t) {
  timers_ = t;
  if (!t) return;
  PetscBool up = PETSC_FALSE;
  if (PetscInitialized(&up) || !up) return;
  static int events[kContactPhases];
  static bool registered = false;
  if (!registered) {
    PetscClassId cid = 0;
    if (PetscClassIdRegister("weft Contact", &cid)) return;
    static const char* const names[kContactPhases] = {
        "ContactHalo", "ContactBroadProx", "ContactBroadSwept", "ContactCouplings", "ContactBarrier",
        "ContactBarrierE", "ContactFricLag", "ContactFriction", "ContactFrictionE", "ContactCCD", "ContactGap"};
    for (int i = 0; i < kContactPhases; ++i)
      if (PetscLogEventRegister(names[i], cid, &events[i])) return;
    registered = true;
  }
  for (int i = 0; i < kContactPhases; ++i) t->event[i] = events[i];
  t->event_begin = [](int e) { (void)PetscLogEventBegin(e, 0, 0, 0, 0); };
  t->event_end = [](int e) { (void)PetscLogEventEnd(e, 0, 0, 0, 0); };
}

int ContactHalo::owner(int v) const {
  return static_cast<int>(std::upper_bound(range_.begin(), range_.end(), v) - range_.begin()) - 1;
}

ContactHalo::Pattern ContactHalo::make_pattern(std::vector<int> ids) const {
  Pattern pat;
  const int lo = range_[rank_], hi = range_[rank_ + 1];
  ids.erase(std::remove_if(ids.begin(), ids.end(), [&](int v) { return v >= lo && v < hi; }), ids.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  pat.recv_counts.assign(ranks_, 0);
  for (int v : ids) ++pat.recv_counts[owner(v)];  // ascending ids are grouped by owner
  pat.recv_displs.assign(ranks_, 0);
  for (int r = 1; r < ranks_; ++r) pat.recv_displs[r] = pat.recv_displs[r - 1] + pat.recv_counts[r - 1];
  pat.recv_ids = std::move(ids);
  pat.send_counts.assign(ranks_, 0);
  MPI_Alltoall(pat.recv_counts.data(), 1, MPI_INT, pat.send_counts.data(), 1, MPI_INT, comm_);
  pat.send_displs.assign(ranks_, 0);
  for (int r = 1; r < ranks_; ++r) pat.send_displs[r] = pat.send_displs[r - 1] + pat.send_counts[r - 1];
  pat.send_local.resize(pat.send_displs[ranks_ - 1] + pat.send_counts[ranks_ - 1]);
  MPI_Alltoallv(pat.recv_ids.data(), pat.recv_counts.data(), pat.recv_displs.data(), MPI_INT, pat.send_local.data(),
                pat.send_counts.data(), pat.send_displs.data(), MPI_INT, comm_);
  return pat;
}

void ContactHalo::run_pattern(const Pattern& pat, const double* x_owned, const double* p_owned,
                              PagedArray<Vec3>& xf, PagedArray<Vec3>* pf) {
  const int k = p_owned ? 6 : 3;  // doubles per vertex
  const int lo = range_[rank_];
  std::vector<double> sendbuf(k * pat.send_local.size()), recvbuf(k * pat.recv_ids.size());
  for (size_t i = 0; i < pat.send_local.size(); ++i) {
    const int l = pat.send_local[i] - lo;
    for (int d = 0; d < 3; ++d) {
      sendbuf[k * i + d] = x_owned[3 * l + d];
      if (p_owned) sendbuf[k * i + 3 + d] = p_owned[3 * l + d];
    }
  }
  std::vector<int> sc(ranks_), sd(ranks_), rc(ranks_), rd(ranks_);
  for (int r = 0; r < ranks_; ++r) {
    sc[r] = k * pat.send_counts[r], sd[r] = k * pat.send_displs[r];
    rc[r] = k * pat.recv_counts[r], rd[r] = k * pat.recv_displs[r];
  }
  MPI_Alltoallv(sendbuf.data(), sc.data(), sd.data(), MPI_DOUBLE, recvbuf.data(), rc.data(), rd.data(), MPI_DOUBLE,
                comm_);
  for (size_t i = 0; i < pat.recv_ids.size(); ++i) {
    const int v = pat.recv_ids[i];
    xf.ref(v) = Vec3(recvbuf[k * i], recvbuf[k * i + 1], recvbuf[k * i + 2]);
    if (pf) pf->ref(v) = Vec3(recvbuf[k * i + 3], recvbuf[k * i + 4], recvbuf[k * i + 5]);
  }
}

void ContactHalo::reset(PagedArray<Vec3>& xf, PagedArray<Vec3>* pf) {
  const size_t nv = surface_.num_vertices();
  const Vec3 nan(kNaN, kNaN, kNaN);
  if (xf.size() != nv) xf.assign(nv, nan, ranks_ == 1);  // (one rank writes every entry)
  if (pf && pf->size() != nv) pf->assign(nv, nan, ranks_ == 1);
  stats_.reset = static_cast<long>(received_x_.size() + (pf ? received_p_.size() : 0));
  // Only the entries a previous exchange filled can be stale: clear those (O(halo), not O(N)).
  for (int v : received_x_) xf.ref(v) = nan;
  last_reset_.swap(received_x_);  // (kept to count the entries touched, update_known)
  received_x_.clear();
  if (pf) {
    for (int v : received_p_) pf->ref(v) = nan;
    received_p_.clear();
  }
}

ContactHalo::Box ContactHalo::vertex_box(int v, const PagedArray<Vec3>& xf, const PagedArray<Vec3>* pf) const {
  Box b;
  for (int d = 0; d < 3; ++d) {
    const double a = xf[v][d], e = pf ? a + (*pf)[v][d] : a;
    b.lo[d] = std::min(a, e);
    b.hi[d] = std::max(a, e);
  }
  return b;
}

namespace {

inline void unite(double* lo, double* hi, const double* blo, const double* bhi) {
  for (int d = 0; d < 3; ++d) {
    lo[d] = std::min(lo[d], blo[d]);
    hi[d] = std::max(hi[d], bhi[d]);
  }
}

inline bool overlap(const double* alo, const double* ahi, const double* blo, const double* bhi) {
  return alo[0] <= bhi[0] && blo[0] <= ahi[0] && alo[1] <= bhi[1] && blo[1] <= ahi[1] && alo[2] <= bhi[2] &&
         blo[2] <= ahi[2];
}

}  // namespace

void ContactHalo::exchange(const double* x_owned, const double* p_owned, PagedArray<Vec3>& xf,
                           PagedArray<Vec3>* pf) {
  ContactScope scope(timers_, ContactPhase::Halo);
  const int lo = range_[rank_], hi = range_[rank_ + 1];
  stats_ = Stats{};
  reset(xf, p_owned ? pf : nullptr);
  if (!p_owned) pf = nullptr;
  for (int v = lo; v < hi; ++v) {
    const int l = v - lo;
    xf.ref(v) = Vec3(x_owned[3 * l], x_owned[3 * l + 1], x_owned[3 * l + 2]);
    if (pf) pf->ref(v) = Vec3(p_owned[3 * l], p_owned[3 * l + 1], p_owned[3 * l + 2]);
  }
  if (timers_ && ranks_ == 1) {  // (more ranks: counted once the halo is in, below)
    const long touched = stats_.reset + (hi - lo);
    timers_->position_entries += touched;
    timers_->position_entries_max = std::max(timers_->position_entries_max, touched);
  }
  if (ranks_ == 1) return;

  // A. fixed: the rest of this rank's own edges and triangles, and the kept stencils.
  run_pattern(fixed_, x_owned, p_owned, xf, pf);
  received_x_ = fixed_.recv_ids;
  if (pf) received_p_ = fixed_.recv_ids;
  stats_.fixed_received = static_cast<long>(fixed_.recv_ids.size());

  // B. run boxes of own points and own edges, grown as the broad phase grows them, plus a
  // margin so that rounding in either box test can only add pairs.
  const double inf = std::numeric_limits<double>::infinity();
  my_boxes_.clear();
  auto grown = [&](const int* v, int n, double xi) {
    Box b = vertex_box(v[0], xf, pf);
    for (int i = 1; i < n; ++i) {
      const Box c = vertex_box(v[i], xf, pf);
      unite(b.lo, b.hi, c.lo, c.hi);
    }
    const double r = 0.5 * (inflation_ + xi);
    for (int d = 0; d < 3; ++d) {
      const double m = r + 1e-9 * (1.0 + std::max(std::abs(b.lo[d]), std::abs(b.hi[d])));
      b.lo[d] -= m;
      b.hi[d] += m;
    }
    return b;
  };
  auto add_runs = [&](size_t n, auto&& box_of) {
    const size_t len = run_length(n);
    for (size_t s = 0; s < n; s += len) {
      Box run{{inf, inf, inf}, {-inf, -inf, -inf}};
      for (size_t i = s; i < std::min(n, s + len); ++i) {
        const Box b = box_of(i);
        unite(run.lo, run.hi, b.lo, b.hi);
      }
      if (run.lo[0] <= run.hi[0]) my_boxes_.push_back(run);
    }
  };
  add_runs(own_points_.size(), [&](size_t i) {
    const int v = own_points_[i];
    return grown(&v, 1, surface_.point_offset(v));
  });
  add_runs(own_edges_.size(), [&](size_t i) {
    const int e = own_edges_[i];
    return grown(surface_.edges[e].data(), 2, surface_.edge_offset(e));
  });
  int nb = static_cast<int>(my_boxes_.size()) * 6;
  MPI_Allgather(&nb, 1, MPI_INT, box_counts_.data(), 1, MPI_INT, comm_);
  box_displs_[0] = 0;
  for (int r = 1; r < ranks_; ++r) box_displs_[r] = box_displs_[r - 1] + box_counts_[r - 1];
  all_boxes_.resize((box_displs_[ranks_ - 1] + box_counts_[ranks_ - 1]) / 6);
  MPI_Allgatherv(my_boxes_.data(), nb, MPI_DOUBLE, all_boxes_.data(), box_counts_.data(), box_displs_.data(),
                 MPI_DOUBLE, comm_);
  stats_.boxes = static_cast<long>(all_boxes_.size());

  // C. own triangles, edges and particles (grown by the same rule, no margin needed on this side)
  // against each other rank's boxes, run by run: a run box first, then its primitives
  // against the few boxes that run box meets.
  struct Prim {
    const int* v;
    int n;
    double xi;
    // Sent by id with its vertices (kTriangle / kEdge); kParticle goes by its vertex alone.
    int kind, id;
  };
  std::vector<Prim> prims;
  prims.reserve(own_triangles_.size() + own_edges_.size() + own_particles_.size());
  for (int t : own_triangles_)
    prims.push_back({surface_.triangles[t].data(), 3, surface_.triangle_offset(t), kTriangle, t});
  for (int e : own_edges_) prims.push_back({surface_.edges[e].data(), 2, surface_.edge_offset(e), kEdge, e});
  for (const int& v : own_particles_) prims.push_back({&v, 1, surface_.point_offset(v), kParticle, v});
  std::vector<Box> pbox(prims.size());
  for (size_t i = 0; i < prims.size(); ++i) pbox[i] = grown(prims[i].v, prims[i].n, prims[i].xi);
  const size_t len = run_length(prims.size());

  std::vector<std::vector<int>> send_ids(ranks_);
  std::vector<std::vector<int>> send_prims(ranks_);  // (kind, id) of each primitive sent
  std::vector<const Box*> near;
  for (int r = 0; r < ranks_; ++r) {
    if (r == rank_) continue;
    const Box* rb = all_boxes_.data() + box_displs_[r] / 6;
    const int nrb = box_counts_[r] / 6;
    for (size_t s = 0; s < prims.size(); s += len) {
      const size_t end = std::min(prims.size(), s + len);
      Box run{{inf, inf, inf}, {-inf, -inf, -inf}};
      for (size_t i = s; i < end; ++i) unite(run.lo, run.hi, pbox[i].lo, pbox[i].hi);
      near.clear();
      for (int j = 0; j < nrb; ++j)
        if (overlap(run.lo, run.hi, rb[j].lo, rb[j].hi)) near.push_back(rb + j);
      if (near.empty()) continue;
      for (size_t i = s; i < end; ++i) {
        bool hit = false;
        for (const Box* b : near)
          if (overlap(pbox[i].lo, pbox[i].hi, b->lo, b->hi)) {
            hit = true;
            break;
          }
        if (!hit) continue;
        if (prims[i].kind != kParticle) {  // (a particle is listed as a known vertex: no id needed)
          send_prims[r].push_back(prims[i].kind);
          send_prims[r].push_back(prims[i].id);
          if (prims[i].kind == kTriangle) send_prims[r].insert(send_prims[r].end(), prims[i].v, prims[i].v + 3);
          if (prims[i].kind == kEdge) {
            send_prims[r].insert(send_prims[r].end(), prims[i].v, prims[i].v + 2);
            if (edge_record_ == 6) {  // (a share's squared rest length, as two ints)
              int bits[2];
              std::memcpy(bits, &surface_.edge_rest_length2[prims[i].id], sizeof bits);
              send_prims[r].insert(send_prims[r].end(), bits, bits + 2);
            }
          }
        }
        for (int a = 0; a < prims[i].n; ++a) {
          const int v = prims[i].v[a];
          if (mark_[v]) continue;
          mark_[v] = 1;
          send_ids[r].push_back(v);
        }
      }
    }
    for (int v : send_ids[r]) mark_[v] = 0;
    std::sort(send_ids[r].begin(), send_ids[r].end());
  }
  const int k = pf ? 6 : 3;
  std::vector<int> sc(ranks_, 0), sd(ranks_, 0), rc(ranks_, 0), rd(ranks_, 0);
  for (int r = 0; r < ranks_; ++r) sc[r] = static_cast<int>(send_ids[r].size());
  MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, comm_);
  for (int r = 1; r < ranks_; ++r) sd[r] = sd[r - 1] + sc[r - 1], rd[r] = rd[r - 1] + rc[r - 1];
  const int ns = sd[ranks_ - 1] + sc[ranks_ - 1], nr = rd[ranks_ - 1] + rc[ranks_ - 1];
  std::vector<int> sids(ns), rids(nr);
  std::vector<double> sval(static_cast<size_t>(k) * ns), rval(static_cast<size_t>(k) * nr);
  for (int r = 0, i = 0; r < ranks_; ++r)
    for (int v : send_ids[r]) {
      sids[i] = v;
      for (int d = 0; d < 3; ++d) {
        sval[k * i + d] = xf[v][d];
        if (pf) sval[k * i + 3 + d] = (*pf)[v][d];
      }
      ++i;
    }
  MPI_Alltoallv(sids.data(), sc.data(), sd.data(), MPI_INT, rids.data(), rc.data(), rd.data(), MPI_INT, comm_);
  for (int r = 0; r < ranks_; ++r) sc[r] *= k, sd[r] *= k, rc[r] *= k, rd[r] *= k;
  MPI_Alltoallv(sval.data(), sc.data(), sd.data(), MPI_DOUBLE, rval.data(), rc.data(), rd.data(), MPI_DOUBLE, comm_);
  for (int i = 0; i < nr; ++i) {
    const int v = rids[i];
    if (v >= lo && v < hi) continue;  // own vertex of a remote primitive: already exact here
    xf.ref(v) = Vec3(rval[k * i], rval[k * i + 1], rval[k * i + 2]);
    if (pf) pf->ref(v) = Vec3(rval[k * i + 3], rval[k * i + 4], rval[k * i + 5]);
    received_x_.push_back(v);
    if (pf) received_p_.push_back(v);
  }
  // The primitives themselves, as (kind, id) records followed by their vertices (an edge's,
  // on a share, then by its squared rest length, for the edge-edge mollifier):
  // with the own ones, what this rank's broad phase pairs (update_known, which also writes
  // a received edge into the surface's edges).
  std::vector<int> psc(ranks_), psd(ranks_, 0), prc(ranks_), prd(ranks_, 0);
  for (int r = 0; r < ranks_; ++r) psc[r] = static_cast<int>(send_prims[r].size());
  MPI_Alltoall(psc.data(), 1, MPI_INT, prc.data(), 1, MPI_INT, comm_);
  for (int r = 1; r < ranks_; ++r) psd[r] = psd[r - 1] + psc[r - 1], prd[r] = prd[r - 1] + prc[r - 1];
  std::vector<int> sprims(psd[ranks_ - 1] + psc[ranks_ - 1]);
  for (int r = 0; r < ranks_; ++r) std::copy(send_prims[r].begin(), send_prims[r].end(), sprims.begin() + psd[r]);
  received_prims_.resize(prd[ranks_ - 1] + prc[ranks_ - 1]);
  MPI_Alltoallv(sprims.data(), psc.data(), psd.data(), MPI_INT, received_prims_.data(), prc.data(), prd.data(),
                MPI_INT, comm_);
  stats_.box_received = nr;
  update_known();
  if (timers_) {
    timers_->halo_vertices += stats_.fixed_received + stats_.box_received;
    // distinct entries: the known ones and those reset that are no longer known
    long touched = static_cast<long>(known_.size());
    for (int v : last_reset_) touched += !known_mark_[v];
    timers_->position_entries += touched - (hi - lo);
    timers_->position_entries_max = std::max(timers_->position_entries_max, touched);
  }
}

void ContactHalo::update_known() {
  const int lo = range_[rank_], hi = range_[rank_ + 1];
  for (int v : known_) known_mark_[v] = 0;
  std::vector<int> extra;
  for (int v : received_x_)
    if (!known_mark_[v]) known_mark_[v] = 1, extra.push_back(v);
  std::sort(extra.begin(), extra.end());
  known_.clear();
  const auto split = std::lower_bound(extra.begin(), extra.end(), lo);
  known_.insert(known_.end(), extra.begin(), split);
  for (int v = lo; v < hi; ++v) known_.push_back(v), known_mark_[v] = 1;
  known_.insert(known_.end(), split, extra.end());
  // The primitives this rank's broad phase pairs, each list ascending. Points: every known
  // surface vertex (the vertices of every listed edge and triangle among them, as the broad
  // phase requires: the skin sets track their moves). Edges and triangles: its own (their
  // other vertices arrive in part A) and those other ranks sent in part C. One whose
  // vertices are all known but that nobody sent (they came with other primitives) is left
  // out: every pair this rank keeps has an own side (its point, first edge or smaller
  // particle) whose grown box lies in this rank's run boxes, so its partner was sent (the
  // header's completeness argument); leaving out the rest drops only pairs the ownership
  // filters drop, and the kept pairs keep their order (the broad phase sorts by list
  // position; the lists ascend by id). O(known + own + received): no table of the
  // primitives on a vertex. The lists are made aside and the version moves only when they
  // differ (what caches pairs across exchanges looks for primitives listed anew then).
  ActivePrimitives& next = next_active_;
  next.points.clear();
  RunInts::Cursor object(surface_.vertex_object);  // (known_ ascends: O(1) reads within a run)
  for (int v : known_)
    if (object[v] >= 0) next.points.push_back(v);
  next.triangles = own_triangles_;
  next.edges = own_edges_;
  const size_t nt = next.triangles.size(), ne = next.edges.size();
  // A received edge or triangle is also written into the surface: a rank's share holds only
  // its own until then; the entry is the same whoever sends it, and stays for later reads.
  for (size_t i = 0; i < received_prims_.size(); i += received_prims_[i] == kEdge ? edge_record_ : 5) {
    const int* r = &received_prims_[i];
    if (r[0] == kEdge) {
      surface_.edges.ref(r[1]) = {r[2], r[3]};
      if (edge_record_ == 6) std::memcpy(&surface_.edge_rest_length2.ref(r[1]), r + 4, sizeof(double));
    } else if (surface_.share) {  // (a whole build's triangles are all there, and borrowed)
      surface_.triangles.ref(r[1]) = {r[2], r[3], r[4]};
    }
    (r[0] == kTriangle ? next.triangles : next.edges).push_back(r[1]);
  }
  // (Own lists ascend; the received ones follow, sorted, then merged in.)
  auto merge = [](std::vector<int>& a, size_t own) {
    std::sort(a.begin() + static_cast<std::ptrdiff_t>(own), a.end());
    std::inplace_merge(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(own), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  };
  merge(next.triangles, nt);
  merge(next.edges, ne);
  if (next.points != active_.points || next.triangles != active_.triangles || next.edges != active_.edges) {
    std::swap(active_.points, next.points);
    std::swap(active_.triangles, next.triangles);
    std::swap(active_.edges, next.edges);
    ++active_.version;
  }
}

void ContactHalo::keep(const std::vector<int>& ids) {
  ContactScope scope(timers_, ContactPhase::Halo);
  kept_ = ids;
  if (ranks_ == 1) return;
  std::vector<int> all = support_;
  all.insert(all.end(), kept_.begin(), kept_.end());
  fixed_ = make_pattern(std::move(all));
}

void ContactHalo::fetch(const double* owned, const std::vector<int>& ids, PagedArray<Vec3>& out) {
  ContactScope scope(timers_, ContactPhase::Halo);
  const Vec3 nan(kNaN, kNaN, kNaN);
  out.assign(surface_.num_vertices(), nan);
  const int lo = range_[rank_], hi = range_[rank_ + 1];
  for (int v : ids)
    if (v >= lo && v < hi) out.ref(v) = Vec3(owned[3 * (v - lo)], owned[3 * (v - lo) + 1], owned[3 * (v - lo) + 2]);
  if (ranks_ == 1) return;
  const Pattern pat = make_pattern(ids);
  run_pattern(pat, owned, nullptr, out, nullptr);
}

void ContactHalo::fetch_values(const double* owned, const std::vector<int>& ids, std::vector<Vec3>& values) {
  ContactScope scope(timers_, ContactPhase::Halo);
  const int lo = range_[rank_], hi = range_[rank_ + 1];
  values.resize(ids.size());
  Pattern pat;
  std::vector<double> got;
  if (ranks_ > 1) {
    pat = make_pattern(ids);  // recv_ids: the non-owned ids, ascending
    std::vector<int> sc(ranks_), sd(ranks_), rc(ranks_), rd(ranks_);
    std::vector<double> sendbuf(3 * pat.send_local.size());
    for (size_t i = 0; i < pat.send_local.size(); ++i)
      for (int d = 0; d < 3; ++d) sendbuf[3 * i + d] = owned[3 * (pat.send_local[i] - lo) + d];
    for (int r = 0; r < ranks_; ++r) {
      sc[r] = 3 * pat.send_counts[r], sd[r] = 3 * pat.send_displs[r];
      rc[r] = 3 * pat.recv_counts[r], rd[r] = 3 * pat.recv_displs[r];
    }
    got.resize(3 * pat.recv_ids.size());
    MPI_Alltoallv(sendbuf.data(), sc.data(), sd.data(), MPI_DOUBLE, got.data(), rc.data(), rd.data(), MPI_DOUBLE,
                  comm_);
  }
  size_t j = 0;  // ids and recv_ids ascending: one merge
  for (size_t i = 0; i < ids.size(); ++i) {
    const int v = ids[i];
    if (v >= lo && v < hi) {
      values[i] = Vec3(owned[3 * (v - lo)], owned[3 * (v - lo) + 1], owned[3 * (v - lo) + 2]);
      continue;
    }
    while (j < pat.recv_ids.size() && pat.recv_ids[j] < v) ++j;
    values[i] = Vec3(got[3 * j], got[3 * j + 1], got[3 * j + 2]);
  }
}

}  // namespace weft
