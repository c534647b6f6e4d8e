// The contact part of an incremental potential (C-IPC): offset barrier with adaptive
// stiffness kappa (IPC sec. 4.3) + lagged friction, over the collision surface of every
// scene primitive, with its contact halo (DESIGN.md "Distributed model") and the ACCD bound
// on the line search. A GlobalTerm of the Newton minimiser; steppers that use contact
// (cipc now, rigid IPC later) build one.
#pragma once
#include <petscvec.h>

#include <memory>
#include <vector>

#include "contact/adaptive_kappa.hpp"
#include "contact/contact_model.hpp"
#include "core/scene.hpp"
#include "parallel/contact_halo.hpp"
#include "parallel/local_view.hpp"
#include "solver/newton_minimiser.hpp"

namespace weft {

class ContactPotential final : public GlobalTerm {
 public:
  // Over `surface` (build_collision_surface of the scene's primitives).
  ContactPotential(const Scene& scene, const LocalView& lv, LinearSystem& sys, CollisionSurface surface);
  ~ContactPotential() override;

  // GlobalTerm
  void begin_minimise() override;
  void begin_iteration() override;  // proximity set, couplings -> matrix pattern
  void assemble(LinearSystem& sys, double& acc) override;
  double max_step(Vec x, Vec p) override;  // halo over [x, x + p], swept set, ACCD
  double trial_energy(double alpha) override;
  void accept(double alpha) override;
  void after_step() override;  // adaptive kappa
  bool settled() override;     // false after an iteration that absorbed missing couplings

  // The time step: start (friction reference: x_start, a ghosted Vec of the step's start
  // positions that the caller keeps unchanged until the step ends; borrowed), then per
  // friction lag: positions through the halo, proximity set, lagged normal forces and tangents.
  void begin_step(Vec x_start);
  void lag_friction(Vec x);
  // Kinematic moves: the ACCD bound (this rank's) of the step p from x (no shifted frame)
  // and, once a fraction beta is taken, the gathered positions advanced with it.
  double move_bound(Vec x, Vec p);
  void advance(double beta);
  // End of step: the gap (d - xi) of the closest pair and the pair count (global).
  void end_step(double& min_distance, int& pairs);

  void set_free_kinematic(std::vector<int> free) { model_->set_free_kinematic(std::move(free)); }
  // Welded stitches: partner[v] is the global row of a welded copy v's unknown (its
  // partner's), -1 for a vertex that is its own row; null = every vertex its own row. Not
  // owned (Stitching::welded_partner).
  void set_rows(const PagedArray<int>* partner) { welded_partner_ = partner; }
  double kappa() const { return kappa_; }
  void set_kappa(double k) { kappa_ = k; }
  const ContactTimers& timers() const { return model_->timers(); }
  // Points + edges + triangles of the whole collision surface (yardstick of the per-rank
  // work counters, tests/e2e/local_loops.sh).
  long surface_primitives() const {
    const CollisionSurface& s = model_->surface();
    return static_cast<long>(s.vertices.size() + s.edges.size() + s.triangles.size());
  }
  // Bytes of the per-vertex arrays by solver id (positions, steps, trial positions and the
  // contact model's): the pages this rank's owned block and halo touched.
  size_t vertex_array_bytes() const {
    return model_->vertex_array_bytes() + xf_.memory_bytes() + pf_.memory_bytes() + xf_trial_.memory_bytes();
  }
  // Bytes of the collision surface's edge table: a rank's share (its own edges and those
  // the halo received) on more ranks than one, every edge on one.
  size_t surface_edge_bytes() const { return model_->surface().edges.memory_bytes(); }
  // Counters since the last reset: ACCD queries and seconds spent in the contact phases
  // outside assembly and energy evaluations.
  long ccd_queries = 0;
  double seconds = 0.0;

 private:
  void exchange_halo(Vec x, Vec p);
  const PagedArray<int>* welded_partner_ = nullptr;
  int row_of(int v) const {
    const int a = (*welded_partner_)[static_cast<size_t>(v)];
    return a >= 0 ? a : v;
  }
  void map_couplings(std::vector<std::pair<int, int>>& couplings) const;
  bool swept_shift(Vec p, Vec3& c);

  const Scene& scene_;
  const LocalView& lv_;
  LinearSystem& sys_;
  std::unique_ptr<ContactModel> model_;
  std::unique_ptr<ContactHalo> halo_;
  KappaBounds kappa_bounds_;
  double kappa_ = 0.0, bbox_diagonal_ = 1.0, prev_gap_ = 0.0;
  bool proximity_current_ = false;  // model_'s proximity set was built at xf_
  bool rebuilt_last_ = false;       // the previous Newton iteration grew the contact pattern
  // Pattern rebuild policy (begin_iteration): at most one rebuild in rebuild_gap_
  // iterations of a time step; between them, couplings the pattern lacks are absorbed on
  // the diagonal (LinearSystem::set_absorb_missing). All collective decisions.
  int rebuild_gap_ = 5;             // -weft_contact_rebuild_gap (1: rebuild whenever it grows)
  int since_rebuild_ = 0;           // iterations since this step's last rebuild
  bool absorbing_ = false;          // this iteration's matrix absorbed missing couplings
  bool force_rebuild_ = false;      // a stop was refused on such a matrix: rebuild next
  Vec x_start_ = nullptr;           // the step's start positions (friction reference), borrowed
  PagedArray<Vec3> xf_, pf_, xf_trial_;  // by solver id: the owned block and the halo hold pages (core/paged_array.hpp)
  // The entries of xf_trial_ that hold values (the rest NaN, like xf_ outside the halo's
  // known vertices): a trial resets these and writes the known ones, O(owned + halo).
  std::vector<int> trial_filled_;
  std::vector<std::pair<int, int>> couplings_;  // begin_iteration's coupling list (kept: no allocation per iteration)
  // The friction pairs' sink calls of the last assembly, in call order: their rows and the
  // matrix positions of their blocks (LinearSystem::locate_blocks), reused by the next
  // assembly's call of the same index while its rows and the pattern are the same (the
  // friction stencils stay through a lagged solve), instead of searched for again.
  struct FrictionSlots {
    int nv = 0;
    int ids[4];
    int slots[16];
  };
  std::vector<FrictionSlots> friction_slots_;
  long friction_slots_version_ = -1;
  int stage_contact_ = 0;
};

}  // namespace weft
