// Projected Newton minimisation of an incremental potential on the distributed PETSc system
// (DESIGN.md "One C-IPC time step", 2a-2g), reusable by every stepper that minimises one:
// cipc now, mass_spring and rigid IPC later, each building its potential from terms.
//
//   E(y) = sum over groups G of  s_G * sum_{t in G} E_t(y)      (local terms, this rank's stencils)
//        + sum over global terms E_c(y)                          (e.g. a contact barrier)
//
// Each iteration: global terms prepare (matrix pattern), assemble the gradient and the
// PSD-projected Hessian, solve H p = -g, stop when ||p||_inf / residual_scale < tol (and
// every term agrees, LocalTerm::settled), else step from alpha = min(1, every global term's
// bound along p) (e.g. ACCD), halving until the energy is finite (feasibility: strain
// limits, inversion) and Armijo holds; then the terms' adaptive updates.
//
// The minimiser knows terms only through these interfaces: no shells, contact, friction or
// boundary conditions by name. Unknowns are nodes (solver/node_map.hpp); today node = vertex.
#pragma once
#include <petscvec.h>

#include <array>
#include <vector>

#include "energy/term.hpp"
#include "parallel/local_view.hpp"
#include "solver/linear_system.hpp"
#include "solver/node_map.hpp"

namespace weft {

// Where local terms put derivatives: the vertex-level AssemblySink (EnergyTerm's) plus
// node-level entries. Identity node map: gradients straight into the node gradient, Hessian
// batches straight into the LinearSystem at cached slots (no copy, no per-block test).
class NodeSink : public AssemblySink {
 public:
  // g: the local gradient (3 per local node); global_id: local node -> global row, -1 fixed.
  NodeSink(double* g, const int* global_id, LinearSystem& sys, std::vector<LinearSystem::SlotCache>& slots)
      : NodeSink(g, global_id, g, global_id, sys, slots) {}
  void add_hessians(int set, int first, int count, int nv, const int* local, const double* H) override;
  // Node-level entries (inertia, AL springs): node gradient (3 values) and its diagonal block.
  void add_node_gradient(int node, const double* g3) {
    if (global_id_[node] >= 0)
      for (int d = 0; d < 3; ++d) g_[3 * node + d] += g3[d];
  }
  void add_node_block(int node, const double* H9) { sys_.add_diagonal_block(global_id_[node], H9); }

 protected:
  // Vertex-level gradients into g_vertices (entries of vertices whose vertex_id is -1
  // dropped), node-level ones into g_nodes.
  NodeSink(double* g_vertices, const int* vertex_id, double* g_nodes, const int* node_global_id, LinearSystem& sys,
           std::vector<LinearSystem::SlotCache>& slots)
      : AssemblySink(g_vertices, vertex_id), g_(g_nodes), global_id_(node_global_id), sys_(sys), slots_(slots) {}
  double* g_;
  const int* global_id_;
  LinearSystem& sys_;
  std::vector<LinearSystem::SlotCache>& slots_;
};

// Non-identity node map: vertex gradients go to a vertex array (pulled back after the
// terms, NewtonMinimiser::assemble), Hessian blocks are pulled back per stencil (J^T H J).
class MappedNodeSink final : public NodeSink {
 public:
  // vertex_id: per local vertex >= 0 when any node it reaches is an unknown.
  MappedNodeSink(double* g_vertices, const int* vertex_id, double* g_nodes, const int* node_global_id,
                 const NodeMap& map, LinearSystem& sys, std::vector<LinearSystem::SlotCache>& slots)
      : NodeSink(g_vertices, vertex_id, g_nodes, node_global_id, sys, slots), map_(map) {}
  void add_hessians(int set, int first, int count, int nv, const int* local, const double* H) override;

 private:
  const NodeMap& map_;
};

// A part of the potential evaluated over this rank's own stencils at the local (owned +
// ghost) coordinates xl, 3 per local node.
class LocalTerm {
 public:
  virtual ~LocalTerm() = default;
  // acc += energy; false (acc then meaningless) where infeasible: the energy is +inf.
  virtual bool add_energy(const double* xl, double& acc) const = 0;
  // acc += scale * energy, scale * gradient and projected Hessian into the sink.
  virtual void assemble(const double* xl, double scale, double& acc, NodeSink& sink) = 0;
  // After every accepted step (adaptive stiffness).
  virtual void accepted(const double* /*xl*/) {}
  // Convergence veto at the Newton direction pl (local, 3 per node); collective: every
  // rank calls it whenever the minimiser tests convergence.
  virtual bool settled(const double* /*pl*/) const { return true; }
  // The largest AssemblySink set index the term hands add_hessians (slot caches), -1: none.
  virtual int max_set_index() const { return -1; }
};

// An EnergyTerm (energy/term.hpp) as a local term.
class EnergyTermPart final : public LocalTerm {
 public:
  explicit EnergyTermPart(EnergyTerm& t) : t_(t) {}
  bool add_energy(const double* xl, double& acc) const override { return t_.add_energy(xl, acc); }
  void assemble(const double* xl, double scale, double& acc, NodeSink& sink) override {
    t_.assemble(xl, scale, acc, sink);
  }
  void accepted(const double* xl) override { t_.update_stiffness(xl); }
  int max_set_index() const override { return t_.set_index(); }

 private:
  EnergyTerm& t_;
};

// A part of the potential that reaches beyond this rank's stencils (contact): evaluated at
// positions the term gathers itself, gradient and Hessian added by global row to the
// LinearSystem, and a bound on the line search along p.
class GlobalTerm {
 public:
  virtual ~GlobalTerm() = default;
  // At the start of each minimise() call.
  virtual void begin_minimise() {}
  // Before each assembly, at the current x: e.g. grow the matrix pattern. Collective.
  virtual void begin_iteration() {}
  // acc += this rank's energy at the current x; gradient via sys.add_rhs, Hessian via
  // sys.add_block (global rows).
  virtual void assemble(LinearSystem& sys, double& acc) = 0;
  // Largest fraction in (0, 1] of p that x + alpha p may go (this rank's view; the
  // minimiser takes the global minimum). x and p: the ghosted position and step Vecs.
  // Collective.
  virtual double max_step(Vec x, Vec p) = 0;
  // This rank's energy at x + alpha p (after max_step for this p).
  virtual double trial_energy(double alpha) = 0;
  // x + alpha p is the new x.
  virtual void accept(double alpha) = 0;
  // After the accepted step (adaptive stiffness). Collective.
  virtual void after_step() {}
  // Asked when the step is small enough to stop and every local term is settled: false
  // vetoes the stop (e.g. this iteration's Hessian was approximated; the term then makes
  // the next one exact). Collective: the answer must be the same on every rank.
  virtual bool settled() { return true; }
};

// The PETSc log stage of this name (-log_view), registered on first use only: PETSc refuses
// a second stage of the same name, and a process may build several steppers.
int log_stage(const char* name);

// Per-solve statistics, accumulated over calls as noted.
struct NewtonStats {
  int ksp_iters = 0;            // summed
  double min_alpha = 1.0;       // smallest accepted step (min over calls)
  double residual = 0.0;        // ||p||_inf (kMax) or the RMS (kRms) / residual_scale at the last test
  double energy = 0.0;          // E at the last assembly (global)
  bool converged = false;       // set by a converged call (callers reset it)
  double assembly_s = 0, solve_s = 0, line_search_s = 0;  // summed
  // The same phases in CPU seconds of the calling thread (summed): on a shared machine the
  // wall times above grow with the load, these much less (bench/contact.cpp).
  double assembly_cpu = 0, solve_cpu = 0, line_search_cpu = 0;
};

class NewtonMinimiser {
 public:
  // kMax: stop when ||p||_inf / residual_scale < tol. kRms: stop when the RMS over the
  // free nodes (global_id >= 0, owned, summed over ranks) of |p_node| / residual_scale is
  // below tol in kRmsHold consecutive iterations (C-IPC's rule; the steps in between are
  // taken). Both also wait for every local term's `settled`.
  enum class Norm { kMax, kRms };
  static constexpr int kRmsHold = 3;
  struct Options {
    double tol = 1e-2;            // on the residual (see Norm)
    double residual_scale = 1.0;  // e.g. the time step: the residual is a velocity
    int max_iters = 200;
    Norm norm = Norm::kMax;
  };
  // x: the ghosted position Vec (3 per local node), moved in place. global_id: per local
  // node its global row, -1 for fixed nodes (read at every assembly: it may change between
  // calls). sys: the linear system whose pattern covers the terms' stencils.
  NewtonMinimiser(const LocalView& lv, LinearSystem& sys, Vec x, const std::vector<int>& global_id,
                  const Options& opt);
  ~NewtonMinimiser();
  NewtonMinimiser(const NewtonMinimiser&) = delete;
  NewtonMinimiser& operator=(const NewtonMinimiser&) = delete;

  // A group of local terms sharing a scale (energy: group sum, then times the scale).
  void add_group(double scale, std::vector<LocalTerm*> terms);
  void add_global(GlobalTerm* term);
  // Vertices -> nodes (default: identity). Not owned.
  void set_node_map(const NodeMap* map) { map_ = map && !map->identity() ? map : nullptr; }
  // Tied vertices (welded stitches, methods/stitching.hpp): local pairs (copy, node) where
  // the copy's position IS the node vertex's, so the two are one unknown. The caller sets
  // global_id[copy] = global_id[node] (its blocks land in the node's rows) and makes the
  // copy's own row the identity (LinearSystem::set_tied); the minimiser moves the copy's
  // gradient onto the node before summing ghosts, and gives the copy the node's step, so
  // x[copy] == x[node] bit for bit in every iterate. Not owned; read at every iteration.
  void set_ties(const std::vector<std::array<int, 2>>* ties) { ties_ = ties; }

  // Newton iterations from the current x; returns the iterations used.
  int minimise(NewtonStats& st);

  // This rank's local-term energy at xl (+inf where infeasible).
  double local_energy(const double* xl) const;
  // The global energy at xl with the global terms at x + alpha p. Collective.
  double global_energy(const double* xl, double alpha) const;
  // Energy (global), gradient into g and projected Hessian into sys at xl. Collective.
  double assemble(const double* xl);
  // The RMS over the free owned nodes, summed over ranks, of |p_node| (local form pl). Collective.
  double rms_step(const double* pl) const;
  // A ghosted Vec of x's layout that nothing reads between minimise() calls (the gradient's,
  // rewritten at every assembly): a caller's scratch outside minimise(), e.g. a kinematic
  // move as a step (its values, ghosts included, are whatever the last use left).
  Vec scratch() const { return g_; }

 private:
  struct Group {
    double scale;
    std::vector<LocalTerm*> terms;
  };
  const LocalView& lv_;
  LinearSystem& sys_;
  Vec x_;
  const std::vector<int>& global_id_;
  Options opt_;
  std::vector<Group> groups_;
  std::vector<GlobalTerm*> globals_;
  const NodeMap* map_ = nullptr;
  const std::vector<std::array<int, 2>>* ties_ = nullptr;
  // p: the Newton step. g: the gradient, then in place the right-hand side -g of the
  // solve, then the line search's trial points (scratch() between minimise calls).
  Vec p_ = nullptr, g_ = nullptr;
  std::vector<double> g_vertex_;    // non-identity map: the vertex gradient before pull-back
  std::vector<LinearSystem::SlotCache> slots_;  // per set: matrix positions of its blocks
  int stage_assembly_ = 0, stage_solve_ = 0, stage_line_search_ = 0;
  bool monitor_ = false;  // -weft_newton_monitor: one line per iteration on rank 0
};

}  // namespace weft
