// Per-phase time and work counters of the contact layer (bench/contact, -log_view).
//
// ContactModel owns one ContactTimers and accumulates into it; the contact halo and the
// stepper add their phases (halo exchange, coupling pattern) through a ContactScope on the
// same object. Everything accumulates from construction on; a caller that wants one step's
// figures copies the struct before the step and subtracts (ContactTimers::since).
//
// Each phase records wall time (steady_clock) and this thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID): on a shared machine the CPU time is what the phase cost, the
// wall time what it took. Scopes are entered a few times per Newton iteration, never per
// pair, so the clock reads cost nothing measurable.
//
// Optional event hooks let a layer above (the contact halo registers PETSc log events)
// bracket every phase, so `-log_view` lists them; the contact layer itself stays PETSc-free.
#pragma once
#include <time.h>

#include <chrono>

namespace weft {

enum class ContactPhase : int {
  Halo,            // contact halo exchanges (positions, swept steps, friction stencils)
  ProximityBroad,  // broad phase at x: candidates within dhat + offset
  SweptBroad,      // broad phase over [x, x + p]: the CCD / line-search candidate set
  Couplings,       // Hessian coupling pattern (active_couplings + matrix re-preallocation)
  Barrier,         // barrier gradient + PSD Hessian over the proximity set (incl. insertion)
  BarrierEnergy,   // barrier energy over the swept set (every line-search trial)
  FrictionLag,     // lagged normal forces and tangent operators
  Friction,        // friction gradient + PSD Hessian (incl. insertion)
  FrictionEnergy,  // friction energy (every line-search trial)
  Ccd,             // ACCD narrow phase: the line search's step bound
  Gap,             // smallest gap over the proximity set (kappa update, statistics)
  Count
};
constexpr int kContactPhases = static_cast<int>(ContactPhase::Count);

inline const char* contact_phase_name(ContactPhase p) {
  static const char* const names[kContactPhases] = {
      "halo",       "proximity_broad", "swept_broad", "couplings", "barrier", "barrier_energy",
      "friction_lag", "friction",      "friction_energy", "ccd",  "gap"};
  return names[static_cast<int>(p)];
}

struct ContactTimers {
  double wall[kContactPhases] = {};  // seconds
  double cpu[kContactPhases] = {};   // thread CPU seconds
  long calls[kContactPhases] = {};
  // Work counters (summed over calls).
  long broad_primitives = 0;     // points + edges + triangles boxed by the broad phase
  long proximity_candidates = 0; // pairs reported by proximity broad phases
  long proximity_filtered = 0;   // proximity sets filtered from the swept set (no broad phase)
  long swept_candidates = 0;     // pairs reported by swept broad phases
  long swept_rebuilds = 0;       // swept queries that ran the broad phase (the rest filtered)
  long swept_updates = 0;        // ... that updated the skin set for a few moved vertices instead
  long swept_shrinks = 0;        // skin rebuilds because the skin set had outgrown the swept set
  long couplings = 0;            // (row, col) vertex couplings produced
  long pattern_rebuilds = 0;     // matrix re-preallocations
  long pattern_absorbing = 0;    // iterations whose couplings outgrew the pattern, absorbed
  long barrier_pairs = 0;        // pairs evaluated with derivatives
  long barrier_active = 0;       // ... of which inside the barrier's support
  long energy_pairs = 0;         // pairs evaluated energy-only (line search)
  long friction_pairs = 0;       // friction pairs assembled or evaluated
  long ccd_queries = 0;          // ACCD queries
  long halo_vertices = 0;        // vertices received from other ranks
  // Locality (issue 20): the work of the per-iteration passes, which must follow the
  // rank's share (owned + halo), never the whole surface.
  long broad_runs = 0;           // broad-phase builds (proximity, swept and skin)
  long broad_primitives_max = 0; // most primitives one build boxed
  long position_entries = 0;     // position entries touched by halo exchanges (resets and
                                 // fills), line-search trials and kinematic advances
  long position_entries_max = 0; // ... the most in one such pass
  // Optional hooks around every phase (PETSc log events), with the phase's event id.
  void (*event_begin)(int) = nullptr;
  void (*event_end)(int) = nullptr;
  int event[kContactPhases] = {};

  double total_wall() const {
    double s = 0;
    for (double w : wall) s += w;
    return s;
  }
  double total_cpu() const {
    double s = 0;
    for (double c : cpu) s += c;
    return s;
  }
  // This object minus an earlier copy of it (figures of the interval between the two).
  ContactTimers since(const ContactTimers& before) const {
    ContactTimers d = *this;
    for (int i = 0; i < kContactPhases; ++i) {
      d.wall[i] -= before.wall[i];
      d.cpu[i] -= before.cpu[i];
      d.calls[i] -= before.calls[i];
    }
    d.broad_primitives -= before.broad_primitives;
    d.proximity_candidates -= before.proximity_candidates;
    d.proximity_filtered -= before.proximity_filtered;
    d.swept_candidates -= before.swept_candidates;
    d.swept_rebuilds -= before.swept_rebuilds;
    d.swept_updates -= before.swept_updates;
    d.swept_shrinks -= before.swept_shrinks;
    d.couplings -= before.couplings;
    d.pattern_rebuilds -= before.pattern_rebuilds;
    d.pattern_absorbing -= before.pattern_absorbing;
    d.barrier_pairs -= before.barrier_pairs;
    d.barrier_active -= before.barrier_active;
    d.energy_pairs -= before.energy_pairs;
    d.friction_pairs -= before.friction_pairs;
    d.ccd_queries -= before.ccd_queries;
    d.halo_vertices -= before.halo_vertices;
    d.broad_runs -= before.broad_runs;
    d.position_entries -= before.position_entries;
    // (the maxima stay maxima since construction)
    return d;
  }
};

inline double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// Times one phase into `t` (nullptr: does nothing). Scopes of the same object must not
// nest (each phase's time would be counted twice).
class ContactScope {
 public:
  ContactScope(ContactTimers* t, ContactPhase p) : t_(t), p_(static_cast<int>(p)) {
    if (!t_) return;
    if (t_->event_begin) t_->event_begin(t_->event[p_]);
    w0_ = std::chrono::steady_clock::now();
    c0_ = thread_cpu_seconds();
  }
  ~ContactScope() {
    if (!t_) return;
    t_->cpu[p_] += thread_cpu_seconds() - c0_;
    t_->wall[p_] += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0_).count();
    ++t_->calls[p_];
    if (t_->event_end) t_->event_end(t_->event[p_]);
  }
  ContactScope(const ContactScope&) = delete;
  ContactScope& operator=(const ContactScope&) = delete;

 private:
  ContactTimers* t_;
  int p_;
  std::chrono::steady_clock::time_point w0_;
  double c0_ = 0;
};

}  // namespace weft
