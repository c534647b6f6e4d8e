// C-IPC time stepper (DESIGN.md "One C-IPC time step"): each step minimises the
// incremental potential
//   E(x) = 1/2 ||x - x_hat||_M^2 + h^2 (Psi_membrane + Psi_bending + Psi_SL) + B(x) + D(x) + E_A(x)
// (paper eq. 1, 6) with the projected Newton minimiser (solver/newton_minimiser.hpp), built
// from terms: inertia, the scene's elastic EnergyTerms, the contact potential (barrier +
// lagged friction, methods/contact_potential.hpp) and the augmented Lagrangian of obstacles
// left behind by their scripted move (methods/kinematic_al.hpp). The stepper itself does
// the prediction, the kinematic moves, the friction lags and the AL outer loop.
//
// It is the implicit-Euler incremental-potential stepper of every Newton method: its
// elastic terms are whatever the registry gives the scene's objects under the case's
// method (energy/registry.hpp), so method mass_spring is this stepper over the spring terms
// (methods/mass_spring.cpp), with the same barrier, friction and kinematic handling.
#pragma once
#include <algorithm>
#include <petscvec.h>

#include <memory>
#include <string>
#include <vector>

#include "core/scene.hpp"
#include "energy/term.hpp"
#include "methods/contact_potential.hpp"
#include "methods/kinematic_al.hpp"
#include "methods/stitching.hpp"
#include "methods/stepper.hpp"
#include "parallel/local_view.hpp"
#include "solver/inertia_term.hpp"
#include "solver/linear_system.hpp"
#include "solver/newton_minimiser.hpp"

namespace weft {

// One step's statistics; the minimiser's (NewtonStats: ksp_iters, min_alpha, residual =
// ||p||_inf / h at exit, energy, converged, assembly_s, solve_s, line_search_s) over every
// solve of the step, plus the stepper's own.
struct StepStats : NewtonStats {
  int newton_iters = 0;
  double max_strain = 0.0;      // largest singular value over limited triangles, end of step
  long ccd_queries = 0;
  double min_distance = 0.0;    // smallest d - xi over contact pairs at the end of the step
  int contact_pairs = 0;        // candidates within dhat at the end of the step (global)
  double kappa = 0.0;           // contact barrier stiffness
  double kinematic_lag = 0.0;   // largest distance a pin/obstacle trails its script, end of step
  int al_vertices = 0;          // obstacle vertices held by the augmented Lagrangian (global)
  int al_updates = 0;           // AL multiplier / stiffness updates this step
  double al_kappa = 0.0;        // AL stiffness at the end of the step (0: no AL this step)
  double contact_s = 0.0;       // broad phase + friction lag + CCD time (not barrier assembly)
  int welded = 0;               // stitch pairs welded so far (global; with stitches)
  double stitch_gap = 0.0;      // largest distance of a pair not yet welded, end of step
};

class CipcStepper final : public Stepper {
 public:
  // method: the name describe() gives (cipc, mass_spring).
  CipcStepper(const Scene& scene, const LocalView& lv, std::string method = "cipc");
  ~CipcStepper() override;
  CipcStepper(const CipcStepper&) = delete;
  CipcStepper& operator=(const CipcStepper&) = delete;

  // Stepper: statistics named as in /frames/stats (stats_names()), checkpoint arrays
  // "stiffness.<term>" (each adaptive-stiffness term's values in the global stencil order
  // of its element set) and "contact_kappa" (with contact).
  StepReport step(double t) override;
  Vec positions() const override { return x_; }
  Vec velocities() const override { return v_; }
  double max_strain() override;  // global, at the current x
  NamedValues start_stats() override;
  NamedValues rank_totals() const override;
  std::string describe() const override;
  NamedArrays save() const override;
  void load(const NamedArrays& arrays) override;
  std::vector<std::pair<std::string, std::vector<int>>> load_entries() const override;

  // The last step's statistics as a struct (benches).
  const StepStats& last_stats() const { return last_; }
  const LinearSystem& linear_system() const { return *sys_; }
  // Contact barrier stiffness (adaptive, IPC); part of the checkpoint.
  double contact_kappa() const { return contact_ ? contact_->kappa() : 0.0; }
  // Contact phase timers and counters (contact/contact_timers.hpp); null without contact.
  const ContactTimers* contact_timers() const { return contact_ ? &contact_->timers() : nullptr; }

 private:
  // Pins and obstacles to their script at t_next as far as CCD and strain limits allow;
  // obstacle vertices left behind by more than al_tolerance() become AL unknowns.
  void move_kinematic(double t_next, std::vector<double>& xl, StepStats& st);
  // Moves the kinematic vertices kin_local_[i] with use[i] from xl towards kin_target_ by
  // the largest feasible common fraction (ACCD bound, then halved while a strain limit is broken).
  void move_toward(const std::vector<char>& use, std::vector<double>& xl);
  void clear_al();
  double al_tolerance() const { return 0.1 * scene_.spec.dhat; }
  // Newton, then AL outer updates until the AL vertices are within al_tolerance().
  int solve_with_al(StepStats& st);
  StepStats run_step(double t);

  const Scene& scene_;
  const LocalView& lv_;
  const std::string method_;
  double h_;
  StepStats last_;
  std::unique_ptr<LinearSystem> sys_;
  Vec x_ = nullptr, v_ = nullptr;    // positions; velocities (during a step: x at its start)
  std::vector<double> x_hat_;        // owned, 3 per vertex
  std::vector<int> global_id_;       // local -> global solver id, -1 when kinematic
  std::vector<std::unique_ptr<EnergyTerm>> terms_;  // one per scene element set
  std::vector<std::unique_ptr<EnergyTermPart>> elastic_;
  std::unique_ptr<InertiaTerm> inertia_;
  std::vector<double> owned_mass_;  // the inertia's masses on more ranks than one (else the scene's)
  std::unique_ptr<ContactPotential> contact_;
  // Augmented-Lagrangian kinematic boundary conditions (IPC, Li et al. 2020, section 4.3;
  // rigid IPC section 4.4): per step, for obstacle vertices the CCD-limited move left
  // behind, E_A = kappa_A/2 m ||x - x_target||^2 - sqrt(m) lambda^T (x - x_target).
  std::vector<int> kin_local_;       // local ids of the kinematic vertices, ascending (owned first)
  std::vector<double> kin_target_;   // 3 per kin_local_ entry: its scripted place at t + h
  // The AL unknowns of this step (vertex ids, ascending, every rank's): a list, not a flag
  // per vertex of the scene on every rank.
  std::vector<int> al_free_;
  bool al_free(int v) const { return std::binary_search(al_free_.begin(), al_free_.end(), v); }
  double al_mass_ = 1.0, al_sq0_ = 0.0;
  std::unique_ptr<KinematicAl> al_;
  std::unique_ptr<NewtonMinimiser> newton_;
  std::unique_ptr<Stitching> stitching_;  // with stitches: springs, welds, ties
  void apply_ties();                      // unknown rows of welded copies (global_id_, system, contact)
};

}  // namespace weft
