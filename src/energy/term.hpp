// One energy term over one element set (DESIGN.md "The engine"). The stepper holds one term
// per set and calls it once per set (one virtual call); inside, the loops run over
// fixed-size stencils with no virtual call and no allocation.
#pragma once
#include <vector>

#include "energy/element_set.hpp"

namespace weft {

// Where a term puts its derivatives: the gradient straight into the local gradient array
// (kinematic vertices, global id -1, dropped), the Hessian blocks a batch of stencils at a
// time, so the solver behind the sink costs one virtual call per batch, not per stencil.
class AssemblySink {
 public:
  AssemblySink(double* g, const int* global_id) : g_(g), global_id_(global_id) {}
  virtual ~AssemblySink() = default;
  // ge: 3 nv values of a stencil with local vertices l.
  void add_gradient(int nv, const int* l, const double* ge) {
    for (int a = 0; a < nv; ++a)
      if (global_id_[l[a]] >= 0)
        for (int d = 0; d < 3; ++d) g_[3 * l[a] + d] += ge[3 * a + d];
  }
  // Stencils first .. first + count - 1 of the term's LocalStencils (set `set`), nv vertices
  // each: their local vertex ids (nv per stencil) and symmetric 3nv x 3nv Hessians.
  virtual void add_hessians(int set, int first, int count, int nv, const int* local, const double* H) = 0;

 private:
  double* g_;
  const int* global_id_;
};

class EnergyTerm {
 public:
  EnergyTerm(int set_index, const ElementSet& set, const LocalStencils& stencils)
      : set_index_(set_index), set_(set), stencils_(stencils) {}
  virtual ~EnergyTerm() = default;
  EnergyTerm(const EnergyTerm&) = delete;
  EnergyTerm& operator=(const EnergyTerm&) = delete;

  // Adds the local stencils' energies at xl (3 per local vertex) to acc, one stencil (and
  // kernel) at a time. Returns false, acc then meaningless, as soon as a stencil is
  // infeasible: the energy is +inf there.
  virtual bool add_energy(const double* xl, double& acc) const = 0;
  // Adds scale * energy to acc stencil by stencil; scale * gradient and PSD-projected
  // Hessian into the sink.
  virtual void assemble(const double* xl, double scale, double& acc, AssemblySink& sink) = 0;
  // Line-search feasibility (strain limits; tet inversion later): false exactly where
  // add_energy fails.
  virtual bool feasible(const double* /*xl*/) const { return true; }
  // Adaptive stiffness: begin_step at the start of a time step, update after every
  // accepted Newton step.
  virtual void begin_step() {}
  virtual void update_stiffness(const double* /*xl*/) {}
  // Per local stencil adaptive stiffness (checkpointed); null when the term has none.
  virtual std::vector<double>* stiffness() { return nullptr; }
  // Largest principal stretch over the local stencils (statistics); 0 when not a strain.
  virtual double max_strain(const double* /*xl*/) const { return 0.0; }

  int set_index() const { return set_index_; }
  const ElementSet& set() const { return set_; }
  const LocalStencils& stencils() const { return stencils_; }

 protected:
  const int set_index_;
  const ElementSet& set_;
  const LocalStencils& stencils_;
};

}  // namespace weft
