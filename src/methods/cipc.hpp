// C-IPC time stepper (DESIGN.md "One C-IPC time step"): each step minimises the
// incremental potential
//   E(x) = 1/2 ||x - x_hat||_M^2 + h^2 (Psi_membrane + Psi_bending + Psi_SL)   (paper eq. 1, 6)
// by projected Newton on the distributed PETSc system, with a line search that halves
// until no triangle exceeds its strain limit (paper section 4.3) and the energy decreases
// (Armijo). Contact barrier and friction join this potential in the contact layer.
#pragma once
#include <petscvec.h>

#include <memory>
#include <vector>

#include "contact/contact_model.hpp"
#include "contact/adaptive_kappa.hpp"
#include "core/scene.hpp"
#include "energy/term.hpp"
#include "parallel/contact_halo.hpp"
#include "parallel/local_view.hpp"
#include "solver/linear_system.hpp"

namespace weft {

struct StepStats {
  int newton_iters = 0;
  int ksp_iters = 0;
  double min_alpha = 1.0;       // smallest accepted line-search step this time step
  double max_strain = 0.0;      // largest singular value over limited triangles, end of step
  double final_residual = 0.0;  // ||p||_inf / h at exit
  double energy = 0.0;
  bool converged = false;
  long ccd_queries = 0;
  double min_distance = 0.0;    // smallest d - xi over contact pairs at the end of the step
  int contact_pairs = 0;        // candidates within dhat at the end of the step (global)
  double kappa = 0.0;           // contact barrier stiffness
  double kinematic_lag = 0.0;   // largest distance a pin/obstacle trails its script, end of step
  int al_vertices = 0;          // obstacle vertices held by the augmented Lagrangian (global)
  int al_updates = 0;           // AL multiplier / stiffness updates this step
  double al_kappa = 0.0;        // AL stiffness at the end of the step (0: no AL this step)
  double contact_s = 0.0;       // broad phase + barrier + friction + CCD time
  double assembly_s = 0, solve_s = 0, line_search_s = 0;
};

class CipcStepper {
 public:
  CipcStepper(const Scene& scene, const LocalView& lv);
  ~CipcStepper();
  CipcStepper(const CipcStepper&) = delete;
  CipcStepper& operator=(const CipcStepper&) = delete;

  // Advance from time t to t + dt.
  StepStats step(double t);

  // State access (solver order, owned block; PETSc global Vecs with ghosts).
  Vec positions() const { return x_; }
  Vec velocities() const { return v_; }
  // Strain-limit stiffness (adaptive, section 4.1) per LocalView triangle (the checkpoint's
  // layout; spec.kappa_s where no term keeps one).
  std::vector<double> kappa_s() const;
  void set_kappa_s(const std::vector<double>& per_triangle);
  const LinearSystem& linear_system() const { return *sys_; }
  double max_strain();  // global, at the current x
  // Contact barrier stiffness (adaptive, IPC); part of the checkpoint.
  double contact_kappa() const { return kappa_; }
  void set_contact_kappa(double k) { kappa_ = k; }
  // Contact phase timers and counters (contact/contact_timers.hpp); null without contact.
  const ContactTimers* contact_timers() const { return contact_ ? &contact_->timers() : nullptr; }

 private:
  // Incremental potential at the local (owned + ghost) coordinates xl. Local part only;
  // +inf when a triangle reaches its strain limit.
  double local_energy(const double* xl) const;
  // + contact barrier and friction at the full positions xf (this rank's pairs).
  double global_energy(const double* xl, const std::vector<Vec3>& xf) const;
  // Contact halo exchange (data flow 2a): xf_ (and pf_ from p when given) with every vertex
  // this rank's contact pairs can reach; NaN elsewhere.
  void exchange_halo(Vec x, Vec p);
  // The common translation of the search direction p_ for the swept broad phase
  // (ContactModel::update_swept); false when it would not shrink the boxes.
  bool swept_shift(Vec3& c);
  int newton(StepStats& st);
  // Energy + gradient (into g_, ghost-summed) + projected Hessian (into sys_).
  double assemble(const double* xl);
  // Pins and obstacles to their script at t_next as far as CCD and strain limits allow;
  // obstacle vertices left behind by more than al_tolerance() become AL unknowns.
  void move_kinematic(double t_next, std::vector<double>& xl, StepStats& st);
  // Moves the local vertices flagged in `mask` from xl towards `target` by the largest
  // feasible common fraction (ACCD bound, then halved while a strain limit is broken).
  void move_toward(const std::vector<double>& target, const std::vector<char>& mask, std::vector<double>& xl,
                   StepStats& st);
  void clear_al();
  double al_tolerance() const { return 0.1 * scene_.spec.dhat; }
  // Newton, then AL outer updates until the AL vertices are within al_tolerance().
  int solve_with_al(StepStats& st);
  void update_kappa(const double* xl);

  const Scene& scene_;
  const LocalView& lv_;
  double h_;
  std::unique_ptr<LinearSystem> sys_;
  Vec x_ = nullptr, v_ = nullptr, p_ = nullptr, g_ = nullptr, rhs_ = nullptr;
  std::vector<double> x_hat_;        // owned, 3 per vertex
  std::vector<double> x_prev_;       // local, start of step
  std::vector<double> trial_;        // local, line-search trial point
  std::vector<int> global_id_;       // local -> global solver id, -1 when kinematic
  std::vector<std::unique_ptr<EnergyTerm>> terms_;  // one per scene element set
  std::vector<int> triangle_pos_;    // scene triangle -> its LocalView::triangles index, -1 elsewhere
  std::unique_ptr<ContactModel> contact_;
  KappaBounds kappa_bounds_;
  double kappa_ = 0.0, bbox_diagonal_ = 1.0;
  bool proximity_current_ = false;  // contact_'s proximity set was built at xf_
  std::unique_ptr<ContactHalo> halo_;
  Vec x_start_ = nullptr;            // positions at the start of the step (friction reference)
  std::vector<Vec3> xf_, pf_, xf_trial_;
  // Augmented-Lagrangian kinematic boundary conditions (IPC, Li et al. 2020, section 4.3;
  // rigid IPC section 4.4): per step, for obstacle vertices the CCD-limited move left
  // behind, E_A = kappa_A/2 m ||x - x_target||^2 - sqrt(m) lambda^T (x - x_target).
  std::vector<double> kin_target_;   // local, 3 per vertex: scripted place at t + h (kinematic only)
  std::vector<char> al_free_;        // per vertex (solver order, all ranks): AL unknown this step
  std::vector<int> al_owned_;        // owned local indices of AL vertices
  std::vector<double> al_lambda_;    // 3 per al_owned_ entry
  double kappa_al_ = 0.0, al_mass_ = 1.0, al_sq0_ = 0.0;
  int al_count_ = 0;                 // global number of AL vertices this step
  int stage_contact_ = 0;
  int stage_assembly_ = 0, stage_solve_ = 0, stage_line_search_ = 0;
  std::vector<LinearSystem::SlotCache> slots_;  // per set: matrix positions of its blocks
  bool rebuilt_last_ = false;  // the previous Newton iteration grew the contact pattern
};

}  // namespace weft
