// Projective Dynamics for mass-spring systems (paper 002 sec. 13.3; Liu et al. 2013, "Fast
// Simulation of Mass-Spring Systems"; `method: pd`). Each step minimises the same implicit
// Euler energy as mass_spring,
//   g(x) = 1/2 ||x - y||_M^2 + h^2 sum_e 1/2 k_e (|x_e1 - x_e2| - L_e)^2,  y = x + h v + h^2 g,
// over the springs the registry gives under method pd (the mass_spring springs), by
// alternating
//   local:  z_e = L_e (x_e1 - x_e2) / |x_e1 - x_e2|   per spring,
//   global: (M/h^2 + L) x = M/h^2 y + J z            (002 eq. clubsuit),
// from x = y (pins at their scripted place), until ||x^(k+1) - x^k||_inf < pd.tolerance or
// pd.iterations. The matrix M/h^2 + L (one scalar matrix for the three coordinates, MPIAIJ)
// is assembled and Cholesky-factorised (MUMPS) once, in the constructor, and reused by
// every iteration of every step: the pinned (kinematic) vertices are eliminated (identity
// rows; their springs move k x_pin to the right-hand side), and which vertices are pinned
// never changes during a run. Each iteration is block-coordinate descent on (x, z), so g
// never increases within a step. No contact: pd does not evaluate the barrier and gives
// no intersection guarantee (README "Methods").
#pragma once
#include <petscksp.h>

#include <memory>
#include <string>
#include <vector>

#include "core/scene.hpp"
#include "energy/term.hpp"
#include "methods/stepper.hpp"
#include "parallel/local_view.hpp"

namespace weft {

std::unique_ptr<Stepper> make_projective_dynamics_stepper(const Scene& scene, const LocalView& lv);

class ProjectiveDynamicsStepper final : public Stepper {
 public:
  ProjectiveDynamicsStepper(const Scene& scene, const LocalView& lv);
  ~ProjectiveDynamicsStepper() override;
  ProjectiveDynamicsStepper(const ProjectiveDynamicsStepper&) = delete;
  ProjectiveDynamicsStepper& operator=(const ProjectiveDynamicsStepper&) = delete;

  // Statistics: pd_iters, residual (||x^(k+1) - x^k||_inf at exit, m), converged, energy
  // (g at the end of the step, J: the mass_spring Newton energy), assembly_s (local steps
  // and right-hand sides), solve_s (triangular solves), max_strain (largest structural
  // spring stretch |e|/L).
  StepReport step(double t) override;
  Vec positions() const override { return x_; }
  Vec velocities() const override { return v_; }
  double max_strain() override;
  NamedValues start_stats() override;
  std::string describe() const override;
  IterationName iteration_name() const override {
    return {"pd", "local-global iterations", "the local-global iterations"};
  }
  NamedArrays save() const override { return {}; }  // no state beyond x and v
  void load(const NamedArrays&) override {}

  // Tests: g after every iteration of the next steps (recorded while true), and the
  // one-time factorisation's wall time.
  bool record_energies = false;
  std::vector<double> energies;
  double setup_s() const { return setup_s_; }

 private:
  // g(x) at the local positions xl (global, collective).
  double energy(const double* xl) const;

  struct Spring {
    int a, b;           // local vertex ids
    double length, k;
    Vec3 dir0;          // rest direction: the projection of a zero-length spring
  };
  const Scene& scene_;
  const LocalView& lv_;
  double h_;
  std::vector<Spring> springs_;                     // this rank's (each spring on one rank)
  std::vector<std::unique_ptr<EnergyTerm>> terms_;  // the same sets as energies (g, max strain)
  std::vector<char> kinematic_;                     // per local vertex
  std::vector<double> mass_;                        // per owned vertex
  std::vector<double> y_;                           // owned, 3 per vertex: the prediction
  Vec x_ = nullptr, v_ = nullptr, rhs_ = nullptr;   // ghosted, block size 3
  Vec b_[3] = {nullptr, nullptr, nullptr}, s_[3] = {nullptr, nullptr, nullptr};  // per coordinate
  Mat A_ = nullptr;
  KSP ksp_ = nullptr;
  double setup_s_ = 0.0;
};

}  // namespace weft
