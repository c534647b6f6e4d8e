#include "methods/contact_potential.hpp"

#include <petsclog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"

namespace weft {
namespace {

// Margin beyond the barrier support (in dhat) of the pairs a grown contact pattern takes in.
constexpr double kCouplingSlack = 3.0;

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in ") + what);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ContactPotential::ContactPotential(const Scene& scene, const LocalView& lv, LinearSystem& sys, CollisionSurface surf)
    : scene_(scene), lv_(lv), sys_(sys) {
  std::vector<double> object_friction;
  for (const ObjectParams& op : scene.objects) object_friction.push_back(op.friction);
  // The kinematic flags: pinned and obstacle vertices, from the motion map's runs; on more
  // ranks than one only their pages are committed (issue 20: no byte a vertex on every rank).
  PagedArray<char> kin;
  kin.assign(static_cast<size_t>(scene.num_vertices), 0, lv.ranks == 1);
  scene.vertex_motion.for_each_run([&](int first, int count, int motion) {
    if (motion < 0) return;
    kin.commit_range(static_cast<size_t>(first), static_cast<size_t>(first + count));
    for (int v = first; v < first + count; ++v) kin.ref(static_cast<size_t>(v)) = 1;
  });
  ContactParams cp;
  cp.dhat = scene.spec.dhat;
  cp.eps_v = scene.spec.epsilon_v;
  cp.dt = scene.spec.dt;
  MPI_Comm comm = lv.comm;
  auto sum_over_ranks = [comm](std::uint64_t* counts, int n) {
    MPI_Allreduce(MPI_IN_PLACE, counts, n, MPI_UINT64_T, MPI_SUM, comm);
  };
  model_ = std::make_unique<ContactModel>(std::move(surf), scene.rest, std::move(kin), std::move(object_friction),
                                          lv.vbegin, lv.vend, cp, sum_over_ranks);  // (owned: this rank's block)
  // IPC's stiffness bounds from the average dynamic mass and the scene size.
  const Scene::VertexSummary sum = scene.vertex_summary();
  const double msum = sum.dynamic_mass_sum, mcount = sum.dynamic_count;
  bbox_diagonal_ = (sum.hi - sum.lo).norm();
  kappa_bounds_ = barrier_stiffness_bounds(cp.dhat, model_->max_offset(), mcount > 0 ? msum / mcount : 1.0,
                                           bbox_diagonal_);
  kappa_ = kappa_bounds_.min;
  halo_ = std::make_unique<ContactHalo>(model_->surface_for_halo(), scene.vertex_range, lv.comm, cp.dhat);
  halo_->set_timers(&model_->timers());
  model_->set_active(&halo_->active());
  stage_contact_ = log_stage("weft Contact");
  PetscInt gap = rebuild_gap_;
  PetscBool set = PETSC_FALSE;
  check(PetscOptionsGetInt(nullptr, nullptr, "-weft_contact_rebuild_gap", &gap, &set), "PetscOptionsGetInt");
  if (set) rebuild_gap_ = static_cast<int>(std::max<PetscInt>(1, gap));
}

ContactPotential::~ContactPotential() = default;

void ContactPotential::exchange_halo(Vec x, Vec p) {
  const PetscScalar *xa, *pa = nullptr;
  check(VecGetArrayRead(x, &xa), "VecGetArrayRead");
  if (p) check(VecGetArrayRead(p, &pa), "VecGetArrayRead");
  halo_->exchange(xa, pa, xf_, p ? &pf_ : nullptr);
  if (p) check(VecRestoreArrayRead(p, &pa), "VecRestoreArrayRead");
  check(VecRestoreArrayRead(x, &xa), "VecRestoreArrayRead");
}

// The mean step of the dynamic vertices, used when it halves the summed box extent of all
// vertices (obstacles' boxes grow by |c|). Summed in fixed point (units of dhat / 2^20,
// saturated) so the shift, and with it every candidate set and the CCD bound, is the same
// bit for bit whatever the rank count and the order of the sums.
bool ContactPotential::swept_shift(Vec p, Vec3& c) {
  const double unit = scene_.spec.dhat / 1048576.0;
  auto fix = [&](double v) {
    const double q = std::nearbyint(v / unit);
    return static_cast<long long>(std::max(-1e11, std::min(1e11, q)));
  };
  long long sum[4] = {0, 0, 0, 0};
  const PetscScalar* pa;
  check(VecGetArrayRead(p, &pa), "VecGetArrayRead");
  const int n_owned = lv_.num_owned();
  for (int l = 0; l < n_owned; ++l) {
    if (scene_.kinematic(lv_.vbegin + l)) continue;
    for (int d = 0; d < 3; ++d) sum[d] += fix(pa[3 * l + d]);
    ++sum[3];
  }
  MPI_Allreduce(MPI_IN_PLACE, sum, 4, MPI_LONG_LONG, MPI_SUM, lv_.comm);
  if (sum[3] == 0) {
    check(VecRestoreArrayRead(p, &pa), "VecRestoreArrayRead");
    return false;
  }
  long long ci[3], ext[2] = {0, 0};
  for (int d = 0; d < 3; ++d) ci[d] = sum[d] / sum[3];
  for (int l = 0; l < n_owned; ++l)
    for (int d = 0; d < 3; ++d) {
      const long long q = fix(pa[3 * l + d]);
      ext[0] += std::llabs(q);
      ext[1] += std::llabs(q - ci[d]);
    }
  check(VecRestoreArrayRead(p, &pa), "VecRestoreArrayRead");
  MPI_Allreduce(MPI_IN_PLACE, ext, 2, MPI_LONG_LONG, MPI_SUM, lv_.comm);
  for (int d = 0; d < 3; ++d) c[d] = static_cast<double>(ci[d]) * unit;
  return 2 * ext[1] <= ext[0] && (ci[0] || ci[1] || ci[2]);
}

void ContactPotential::begin_minimise() {
  prev_gap_ = std::numeric_limits<double>::infinity();
  rebuilt_last_ = false;
}

void ContactPotential::begin_iteration() {
  const auto t0 = std::chrono::steady_clock::now();
  PetscLogStagePush(stage_contact_);
  if (!proximity_current_) model_->update_proximity(xf_);
  proximity_current_ = false;  // x moves in this iteration's line search
  {
    ContactScope scope(&model_->timers(), ContactPhase::Couplings);
    std::vector<std::pair<int, int>>& couplings = couplings_;
    model_->active_couplings(xf_, couplings);
    map_couplings(couplings);
    bool rebuilt = false;
    absorbing_ = false;
    if (sys_.pattern_grows(couplings)) {
      // Pairs enter the look-ahead reach one by one as a soft cloth settles (a soft
      // frictional drape grew its pattern in half of its iterations), and each growth
      // costs a new preallocation and symbolic factorisation. So the pattern grows at
      // most once in rebuild_gap_ iterations of a step; in between, the couplings it
      // lacks go onto the diagonal, which keeps the matrix PSD and above the exact Hessian
      // (a descent direction; settled() then refuses a stop until an exact one). The
      // step's first growth is never deferred: its pattern holds no contact yet.
      if (since_rebuild_ < rebuild_gap_ - 1 && !force_rebuild_ && sys_.direct_assembly()) {
        absorbing_ = true;
      } else {
        // Hysteresis: the rebuild is triggered by the look-ahead reach, but grows the
        // pattern to the pairs within kCouplingSlack dhat, so pairs closing in over the
        // next iterations find their blocks there (drape_default: 45 -> 24 rebuilds in
        // 154 iterations, twin drapes at 2 ranks 56 -> 25). Not right after a rebuild:
        // a pattern that grows at every iteration (a settling pile) is rebuilt anyway,
        // and the slack would only add fill.
        if (!rebuilt_last_) {
          model_->active_couplings(xf_, couplings, kCouplingSlack);
          map_couplings(couplings);
        }
        rebuilt = sys_.set_contact_couplings(couplings);
      }
    }
    sys_.set_absorb_missing(absorbing_);
    force_rebuild_ = false;
    rebuilt_last_ = rebuilt;
    since_rebuild_ = rebuilt ? 0 : since_rebuild_ + 1;
    model_->timers().pattern_rebuilds += rebuilt;
    model_->timers().pattern_absorbing += absorbing_;
  }
  PetscLogStagePop();
  seconds += seconds_since(t0);
}

void ContactPotential::map_couplings(std::vector<std::pair<int, int>>& couplings) const {
  if (!welded_partner_) return;
  size_t n = 0;
  for (const auto& [r, c] : couplings) {
    const int mr = row_of(r), mc = row_of(c);
    if (mr != mc) couplings[n++] = {mr, mc};
  }
  couplings.resize(n);
}

void ContactPotential::assemble(LinearSystem& sys, double& acc) {
  // Contact pairs reach vertices anywhere: their gradient goes in by global index, summed
  // at the owner in a fixed order (LinearSystem::flush_rhs).
  ContactSink sink = [&](int nv, const int* ids_in, const double* ge, const double* He) {
    int mapped[4];
    const int* ids = ids_in;
    if (welded_partner_ && nv <= 4) {  // welded stitch copies write their partner's row
      for (int a = 0; a < nv; ++a) mapped[a] = ids_in[a] >= 0 ? row_of(ids_in[a]) : ids_in[a];
      ids = mapped;
    }
    for (int a = 0; a < nv; ++a)
      if (ids[a] >= 0) sys.add_rhs(ids[a], ge + 3 * a);
    sys.add_block(nv, ids, He);
  };
  acc += model_->assemble_barrier(xf_, kappa_, sink);
  if (friction_slots_version_ != sys.pattern_version()) {
    friction_slots_.clear();
    friction_slots_version_ = sys.pattern_version();
  }
  size_t call = 0;
  ContactSink friction_sink = [&](int nv, const int* ids_in, const double* ge, const double* He) {
    int ids[4];
    for (int a = 0; a < nv; ++a)  // welded stitch copies write their partner's row
      ids[a] = welded_partner_ && ids_in[a] >= 0 ? row_of(ids_in[a]) : ids_in[a];
    for (int a = 0; a < nv; ++a)
      if (ids[a] >= 0) sys.add_rhs(ids[a], ge + 3 * a);
    if (call == friction_slots_.size()) friction_slots_.emplace_back();
    FrictionSlots& f = friction_slots_[call++];
    if (f.nv != nv || !std::equal(ids, ids + nv, f.ids)) {
      f.nv = nv;
      std::copy(ids, ids + nv, f.ids);
      sys.locate_blocks(nv, ids, f.slots);
    }
    sys.add_located(nv, ids, f.slots, He);
  };
  acc += model_->assemble_friction(xf_, friction_sink);
}

double ContactPotential::max_step(Vec x, Vec p) {
  const auto t0 = std::chrono::steady_clock::now();
  exchange_halo(x, p);
  Vec3 shift;
  const bool shifted = swept_shift(p, shift);
  model_->update_swept(xf_, pf_, shifted ? &shift : nullptr);
  const double alpha = model_->max_step(xf_, pf_, &ccd_queries);
  seconds += seconds_since(t0);
  return alpha;
}

double ContactPotential::trial_energy(double alpha) {
  // Over the halo's known vertices only (elsewhere xf_ and pf_ are NaN, and so is the
  // trial): O(owned + halo) per line-search trial.
  const Vec3 nan = Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
  if (xf_trial_.size() != xf_.size()) xf_trial_.assign(xf_.size(), nan, xf_.flat_data() != nullptr), trial_filled_.clear();
  const std::vector<int>& known = halo_->known();
  long touched = static_cast<long>(known.size());
  if (trial_filled_ != known) {  // (a new exchange since the last trial)
    for (int v : trial_filled_) {
      xf_trial_.ref(v) = nan;
      touched += !halo_->is_known(v);  // (distinct entries touched)
    }
    trial_filled_ = known;
  }
  for (int v : known) xf_trial_.ref(v) = xf_[v] + alpha * pf_[v];
  ContactTimers& t = model_->timers();
  t.position_entries += touched;
  t.position_entries_max = std::max(t.position_entries_max, touched);
  return model_->barrier_energy(xf_trial_, kappa_) + model_->friction_energy(xf_trial_);
}

// Both buffers now hold values at the same known vertices (trial_filled_), NaN elsewhere.
void ContactPotential::accept(double /*alpha*/) { xf_.swap(xf_trial_); }

void ContactPotential::after_step() {
  // IPC: double kappa while the closest pair keeps closing in below eps_d.
  model_->update_proximity(xf_);
  proximity_current_ = true;  // reused by the next iteration's assembly
  double gap = model_->min_gap(xf_);
  MPI_Allreduce(MPI_IN_PLACE, &gap, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
  kappa_ = update_barrier_stiffness(kappa_, prev_gap_, gap, kappa_bounds_, bbox_diagonal_);
  prev_gap_ = gap;
}

void ContactPotential::begin_step(Vec x_start) {
  x_start_ = x_start;  // (borrowed, not copied: 24 bytes a vertex, issue 20)
  since_rebuild_ = rebuild_gap_;  // (LinearSystem::new_time_step dropped the couplings)
  force_rebuild_ = false;
}

bool ContactPotential::settled() {
  if (absorbing_) force_rebuild_ = true;
  return !absorbing_;
}

void ContactPotential::lag_friction(Vec x) {
  const auto t0 = std::chrono::steady_clock::now();
  exchange_halo(x, nullptr);
  model_->update_proximity(xf_);
  proximity_current_ = true;
  model_->lag_friction(xf_, xf_, kappa_);
  // The friction stencils stay known for the whole lagged solve; their reference is
  // the start of the step, fetched from the owners.
  const std::vector<int> ids = model_->friction_vertices();
  halo_->keep(ids);
  std::vector<Vec3> ref;  // ref[i]: ids[i]'s start-of-step position (no full-length array)
  {
    const PetscScalar* a;
    check(VecGetArrayRead(x_start_, &a), "VecGetArrayRead");
    halo_->fetch_values(a, ids, ref);
    check(VecRestoreArrayRead(x_start_, &a), "VecRestoreArrayRead");
  }
  model_->set_friction_reference(ids, ref);
  seconds += seconds_since(t0);
}

double ContactPotential::move_bound(Vec x, Vec p) {
  exchange_halo(x, p);
  model_->update_swept(xf_, pf_);
  return model_->max_step(xf_, pf_, &ccd_queries);
}

void ContactPotential::advance(double beta) {
  const std::vector<int>& known = halo_->known();  // (NaN elsewhere stays NaN)
  for (int v : known) xf_.ref(v) += beta * pf_[v];
  ContactTimers& t = model_->timers();
  t.position_entries += static_cast<long>(known.size());
  t.position_entries_max = std::max(t.position_entries_max, static_cast<long>(known.size()));
}

void ContactPotential::end_step(double& min_distance, int& pairs) {
  model_->update_proximity(xf_);
  double gap = model_->min_gap(xf_);
  MPI_Allreduce(MPI_IN_PLACE, &gap, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
  min_distance = gap;
  long n = static_cast<long>(model_->num_candidates());
  MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_LONG, MPI_SUM, lv_.comm);
  pairs = static_cast<int>(n);
}

}  // namespace weft
