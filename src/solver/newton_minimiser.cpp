#include "solver/newton_minimiser.hpp"

#include <petsclog.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "core/error.hpp"
#include "solver/ghosted_array.hpp"

namespace weft {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kArmijo = 1.0e-4;
constexpr int kMaxHalvings = 40;
constexpr double kEnergyNoise = 1.0e-12;  // relative rounding noise of a global energy sum

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in ") + what);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double thread_cpu() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int log_stage(const char* name) {
  static std::map<std::string, int> stages;
  auto it = stages.find(name);
  if (it != stages.end()) return it->second;
  PetscLogStage s = 0;
  PetscLogStageRegister(name, &s);
  stages[name] = s;
  return s;
}

void NodeSink::add_hessians(int set, int first, int count, int nv, const int* local, const double* H) {
  constexpr int kIds = 16 * 8;  // a term's batch (kBatch 16) of stencils of up to 8 vertices
  int ids[kIds];
  const int n2 = 9 * nv * nv;
  // symmetric: column-major == row-major
  for (int done = 0; done < count;) {
    const int m = std::min(count - done, kIds / nv);
    for (int i = 0; i < m * nv; ++i) ids[i] = global_id_[local[nv * done + i]];
    sys_.add_blocks(slots_[set], static_cast<size_t>(first + done), m, nv, ids, H + static_cast<size_t>(n2) * done);
    done += m;
  }
}

void MappedNodeSink::add_hessians(int /*set*/, int /*first*/, int count, int nv, const int* local, const double* H) {
  int nodes[NodeMap::kMaxStencilNodes], ids[NodeMap::kMaxStencilNodes];
  double Hn[9 * NodeMap::kMaxStencilNodes * NodeMap::kMaxStencilNodes];
  const int n2 = 9 * nv * nv;
  for (int i = 0; i < count; ++i) {
    const int nn = map_.pull_back(nv, local + nv * i, nullptr, H + static_cast<size_t>(n2) * i, nodes, nullptr, Hn);
    for (int a = 0; a < nn; ++a) ids[a] = global_id_[nodes[a]];
    sys_.add_block(nn, ids, Hn);
  }
}

NewtonMinimiser::NewtonMinimiser(const LocalView& lv, LinearSystem& sys, Vec x, const std::vector<int>& global_id,
                                 const Options& opt)
    : lv_(lv), sys_(sys), x_(x), global_id_(global_id), opt_(opt) {
  check(VecDuplicate(x_, &p_), "VecDuplicate");
  check(VecDuplicate(x_, &g_), "VecDuplicate");
  sys_.set_solve_only(true);  // the Hessian is only solved with (its upper part suffices there)
  stage_assembly_ = log_stage("weft Assembly");
  stage_solve_ = log_stage("weft Solve");
  stage_line_search_ = log_stage("weft LineSearch");
  PetscBool mon = PETSC_FALSE;
  check(PetscOptionsHasName(nullptr, nullptr, "-weft_newton_monitor", &mon), "PetscOptionsHasName");
  monitor_ = mon;
}

NewtonMinimiser::~NewtonMinimiser() {
  VecDestroy(&p_);
  VecDestroy(&g_);
}

void NewtonMinimiser::add_group(double scale, std::vector<LocalTerm*> terms) {
  for (const LocalTerm* t : terms)
    if (t->max_set_index() >= static_cast<int>(slots_.size())) slots_.resize(t->max_set_index() + 1);
  groups_.push_back({scale, std::move(terms)});
}

void NewtonMinimiser::add_global(GlobalTerm* term) { globals_.push_back(term); }

double NewtonMinimiser::local_energy(const double* xl) const {
  // Per group: the sum of its terms, then scaled (inertia + h^2 * elastic for a time step).
  double total = 0.0;
  for (const Group& gr : groups_) {
    double acc = 0.0;
    for (const LocalTerm* t : gr.terms)
      if (!t->add_energy(xl, acc)) return kInf;  // infeasible (past a strain limit ...)
    total += gr.scale * acc;
  }
  return total;
}

double NewtonMinimiser::global_energy(const double* xl, double alpha) const {
  double local = local_energy(xl), global = 0.0;
  if (!globals_.empty() && std::isfinite(local)) {
    double acc = 0.0;
    for (GlobalTerm* t : globals_) acc += t->trial_energy(alpha);
    local += acc;
  }
  // Any rank's +inf makes the global energy +inf.
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
  return global;
}

double NewtonMinimiser::assemble(const double* xl) {
  sys_.begin_assembly();
  double energy = 0.0;
  {
    LocalArray ga(g_);
    double* g = ga.data();
    const int n_local = lv_.num_local();
    // Zero the ghost slots too (VecSet only touches owned entries): they are summed
    // into their owners below.
    std::fill(g, g + 3 * n_local, 0.0);
    if (!map_) {
      NodeSink sink(g, global_id_.data(), sys_, slots_);
      for (const Group& gr : groups_)
        for (LocalTerm* t : gr.terms) t->assemble(xl, gr.scale, energy, sink);
    } else {
      // Vertex-level derivatives pulled back to the nodes (J^T g per vertex, J^T H J per
      // stencil); rows of fixed nodes stay zero.
      g_vertex_.assign(3 * n_local, 0.0);
      const std::vector<int> keep(n_local, 0);
      MappedNodeSink sink(g_vertex_.data(), keep.data(), g, global_id_.data(), *map_, sys_, slots_);
      for (const Group& gr : groups_)
        for (LocalTerm* t : gr.terms) t->assemble(xl, gr.scale, energy, sink);
      map_->pull_back_gradient(g_vertex_.data(), g);
      for (int l = 0; l < n_local; ++l)
        if (global_id_[l] < 0) g[3 * l] = g[3 * l + 1] = g[3 * l + 2] = 0.0;
    }
  }
  if (ties_ && !ties_->empty()) {
    LocalArray ga(g_);
    double* g = ga.data();
    for (const auto& [copy, node] : *ties_)
      for (int d = 0; d < 3; ++d) g[3 * node + d] += g[3 * copy + d], g[3 * copy + d] = 0.0;
  }
  // Ghost rows belong to their owners: sum them there.
  check(VecGhostUpdateBegin(g_, ADD_VALUES, SCATTER_REVERSE), "VecGhostUpdateBegin");
  check(VecGhostUpdateEnd(g_, ADD_VALUES, SCATTER_REVERSE), "VecGhostUpdateEnd");
  if (!globals_.empty()) {
    // Their gradients went in by global row, summed at the owner in a fixed order
    // (LinearSystem::flush_rhs).
    sys_.begin_rhs(g_);
    for (GlobalTerm* t : globals_) t->assemble(sys_, energy);
    sys_.flush_rhs(g_);
  }
  sys_.end_assembly();
  double global = 0.0;
  MPI_Allreduce(&energy, &global, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
  return global;
}

double NewtonMinimiser::rms_step(const double* pl) const {
  double acc[2] = {0.0, 0.0};  // sum |p_node|^2, free node count
  for (int l = 0; l < lv_.num_owned(); ++l) {
    if (global_id_[l] < 0) continue;
    const double* p = pl + 3 * l;
    acc[0] += p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    acc[1] += 1.0;
  }
  MPI_Allreduce(MPI_IN_PLACE, acc, 2, MPI_DOUBLE, MPI_SUM, lv_.comm);
  return acc[1] > 0 ? std::sqrt(acc[0] / acc[1]) : 0.0;
}

int NewtonMinimiser::minimise(NewtonStats& st) {
  const int n_local = lv_.num_local();
  const double tol = opt_.tol, scale = opt_.residual_scale;
  for (GlobalTerm* t : globals_) t->begin_minimise();
  int below = 0;  // kRms: consecutive iterations with the RMS below tol
  int it = 0;
  for (; it < opt_.max_iters; ++it) {
    for (GlobalTerm* t : globals_) t->begin_iteration();
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu();
    PetscLogStagePush(stage_assembly_);
    double E0;
    {
      LocalArray xa(x_);
      E0 = assemble(xa.data());
    }
    // g becomes the right-hand side -g in place (its owned part is a Vec of the matrix's
    // layout; no separate rhs Vec: 24 bytes a vertex, issue 20). Negation is exact, so g.p
    // is -(rhs.p) bit for bit below.
    check(VecScale(g_, -1.0), "VecScale");
    PetscLogStagePop();
    st.assembly_s += seconds_since(t0);
    st.assembly_cpu += thread_cpu() - c0;

    t0 = std::chrono::steady_clock::now();
    c0 = thread_cpu();
    PetscLogStagePush(stage_solve_);
    const int ksp_its = sys_.solve(g_, p_);
    st.ksp_iters += ksp_its;
    PetscLogStagePop();
    st.solve_s += seconds_since(t0);
    st.solve_cpu += thread_cpu() - c0;

    t0 = std::chrono::steady_clock::now();
    c0 = thread_cpu();
    PetscLogStagePush(stage_line_search_);
    check(VecGhostUpdateBegin(p_, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateBegin");
    check(VecGhostUpdateEnd(p_, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateEnd");
    if (ties_ && !ties_->empty()) {
      LocalArray pa(p_);
      for (const auto& [copy, node] : *ties_)
        for (int d = 0; d < 3; ++d) pa.data()[3 * copy + d] = pa.data()[3 * node + d];
    }
    double pinf = 0.0, gp = 0.0;
    check(VecNorm(p_, NORM_INFINITY, &pinf), "VecNorm");
    check(VecDot(g_, p_, &gp), "VecDot");  // (-g).p
    gp = -gp;
    st.residual = pinf / scale;
    st.energy = E0;
    bool settled = true, small = false;
    {
      LocalArray pa(p_);
      for (const Group& gr : groups_)
        for (const LocalTerm* t : gr.terms) settled = t->settled(pa.data()) && settled;  // every rank calls every term
      if (opt_.norm == Norm::kRms) {
        st.residual = rms_step(pa.data()) / scale;
        below = st.residual < tol ? below + 1 : 0;
        small = below >= kRmsHold;
      } else {
        small = pinf / scale < tol;
      }
    }
    if (small && settled)
      for (GlobalTerm* t : globals_) settled = t->settled() && settled;  // every rank asks every term
    if (monitor_) {
      // The node of the largest |p_node| (global row; on several ranks the lowest rank's
      // largest), for finding what holds a step open.
      LocalArray pa(p_), xa(x_);
      struct {
        double v;
        int row;
      } big{-1.0, -1};
      for (int l = 0; l < lv_.num_owned(); ++l) {
        const double* q = pa.data() + 3 * l;
        const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (global_id_[l] >= 0 && n > big.v) big = {n, global_id_[l]};
      }
      MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_DOUBLE_INT, MPI_MAXLOC, lv_.comm);
      PetscPrintf(lv_.comm, "  newton %3d E %.12e |p|inf/h %.3e rms/h %.3e |p_node|max/h %.3e at row %d ksp %d settled %d\n",
                  it, E0, pinf / scale, rms_step(pa.data()) / scale, big.v / scale, big.row, ksp_its, settled ? 1 : 0);
    }
    if (small && settled) {
      st.converged = true;
      PetscLogStagePop();
      st.line_search_s += seconds_since(t0);
      st.line_search_cpu += thread_cpu() - c0;
      break;
    }
    // alpha starts at the global terms' bound (ACCD for contact, C-IPC section 5.4), the
    // global minimum over ranks.
    double alpha = 1.0;
    if (!globals_.empty()) {
      for (GlobalTerm* t : globals_) alpha = std::min(alpha, t->max_step(x_, p_));
      MPI_Allreduce(MPI_IN_PLACE, &alpha, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
    }
    const double alpha_bound = alpha;
    // Then halve until the energy is finite (every stencil feasible, e.g. inside its
    // strain limit, C-IPC section 4.3) and decreases enough (Armijo).
    bool accepted = false;
    {
      // The trial point lives in g's local form: g is not read again before the next
      // assembly overwrites it (a separate array: 24 bytes a vertex, issue 20).
      LocalArray xa(x_), pa(p_), ta(g_);
      double* trial = ta.data();
      for (int k = 0; k < kMaxHalvings; ++k, alpha *= 0.5) {
        for (int i = 0; i < 3 * n_local; ++i) trial[i] = xa.data()[i] + alpha * pa.data()[i];
        const double E1 = global_energy(trial, alpha);
        // Near the minimiser the predicted decrease falls below the rounding noise of the
        // summed energy; a feasible full step that does not raise E beyond that noise is
        // then taken rather than halved away.
        const bool at_noise_floor = k == 0 && -gp <= kEnergyNoise * std::abs(E0) &&
                                    E1 <= E0 + kEnergyNoise * std::abs(E0);
        if (std::isfinite(E1) && (E1 <= E0 + kArmijo * alpha * gp || at_noise_floor)) {
          accepted = true;
          break;
        }
      }
      if (accepted) {
        std::copy(trial, trial + 3 * n_local, xa.data());
        for (GlobalTerm* t : globals_) t->accept(alpha);
        for (const Group& gr : groups_)
          for (LocalTerm* t : gr.terms) t->accepted(xa.data());
      }
    }
    PetscLogStagePop();
    st.line_search_s += seconds_since(t0);
    st.line_search_cpu += thread_cpu() - c0;
    if (monitor_) PetscPrintf(lv_.comm, "      alpha %.3e of bound %.3e%s\n", accepted ? alpha : 0.0, alpha_bound, accepted ? "" : " (no descent)");
    if (!accepted) {
      // No descent left at double precision: the step ends here. With kRms a hold in
      // progress already met the tolerance: a step of rounding size fails Armijo on the
      // energy's rounding noise (seen at 2 ranks on drape_default), not a failure.
      if (opt_.norm == Norm::kRms && below > 0 && settled) st.converged = true;
      break;
    }
    st.min_alpha = std::min(st.min_alpha, alpha);
    for (GlobalTerm* t : globals_) t->after_step();
  }
  return std::min(it + 1, opt_.max_iters);
}

}  // namespace weft
