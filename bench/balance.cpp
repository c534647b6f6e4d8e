// bench-balance: load balance per rank of the METIS partition weights (issue 19 point 4),
// for ONE configuration (case, ranks, weights):
//
//   mpirun -n K bench-balance --case CASE.yaml [--weights work|count] [--repeat R]
//                             [--warmup W] [--frames F] [--set key=value]... [PETSc options]
//
// The scene is built as weft builds it, with the chosen METIS vertex weights
// (io/scene_loader.hpp PartitionWeights: `work`, the default, or the old `count`). Per rank:
//  * owned dynamic vertices and the static work estimate (3x3 blocks assembled: arity^2 per
//    local stencil, plus the owned rows' blocks);
//  * the MEASURED elastic work: the thread CPU time of R assemblies (gradient + projected
//    Hessian) of every local energy term at the state after the warm-up steps, the blocks
//    copied into one value array as the COO insertion does, best of 3 -- purely local, no
//    communication, so the ranks' times compare directly;
//  * then W untimed and F timed real time steps (CipcStepper): per rank the elastic assembly
//    wall time inside Newton (assembly_s minus the contact barrier and friction assembly) and
//    the contact phases' thread CPU time, and the step wall time (slowest rank).
// Imbalance = max over ranks / mean over ranks. One line "RESULT {...}" (JSON) at the end.
#include <petscsys.h>
#include <petscvec.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "contact/contact_timers.hpp"
#include "core/blas_threads.hpp"
#include "core/error.hpp"
#include "energy/registry.hpp"
#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"
#include "methods/cipc.hpp"
#include "parallel/local_view.hpp"

using namespace weft;

namespace {

double thread_cpu() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Copies every Hessian block into one value array, in assembly order, as the linear
// system's COO insertion does (solver/linear_system.hpp add_block): kernels + insertion,
// the local part of an elastic assembly, without the collective matrix assembly.
class CopySink final : public AssemblySink {
 public:
  CopySink(double* g, const int* gid, size_t values) : AssemblySink(g, gid), values_(values) {}
  void rewind() { at_ = 0; }
  void add_hessians(int, int, int count, int nv, const int* local, const double* H) override {
    const size_t n = static_cast<size_t>(count) * 9 * nv * nv;
    std::copy(H, H + n, values_.begin() + at_);
    at_ += n;
    sum_ += local[0];
  }
  double sum_ = 0;

 private:
  std::vector<double> values_;
  size_t at_ = 0;
};

// Every rank's value, gathered on all.
std::vector<double> gather(double v, MPI_Comm comm) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  std::vector<double> all(n);
  MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm);
  return all;
}

double imbalance(const std::vector<double>& v) {
  double mx = 0, sum = 0;
  for (double x : v) mx = std::max(mx, x), sum += x;
  return sum > 0 ? mx / (sum / v.size()) : 1.0;
}

std::string list(const std::vector<double>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "]";
  return os.str();
}

const char* kUsage =
    "usage: mpirun -n K bench-balance --case CASE.yaml [--weights work|count] [--repeat R] [--warmup W] "
    "[--frames F] [--set key=value]...";

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::string case_path, weights = "work";
  std::vector<std::string> overrides;
  int repeat = 20, warmup = 0, frames = 2;
  std::vector<char*> petsc_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        if (rank == 0) std::fprintf(stderr, "bench-balance: %s needs a value\n%s\n", a.c_str(), kUsage);
        MPI_Finalize();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--case") case_path = value();
    else if (a == "--weights") weights = value();
    else if (a == "--repeat") repeat = std::stoi(value());
    else if (a == "--warmup") warmup = std::stoi(value());
    else if (a == "--frames") frames = std::stoi(value());
    else if (a == "--set") overrides.push_back(value());
    else petsc_argv.push_back(argv[i]);
  }
  if (case_path.empty() || (weights != "work" && weights != "count")) {
    if (rank == 0) std::fprintf(stderr, "%s\n", kUsage);
    MPI_Finalize();
    return 2;
  }
  int pargc = static_cast<int>(petsc_argv.size());
  petsc_argv.push_back(nullptr);
  char** pargv = petsc_argv.data();
  PetscInitialize(&pargc, &pargv, nullptr, nullptr);
  limit_blas_threads(MPI_COMM_WORLD);
  int code = 0;
  try {
    const CaseSpec spec = load_case(case_path, overrides);
    SceneOptions so;
    so.weights = weights == "work" ? PartitionWeights::work : PartitionWeights::count;
    const Scene scene = build_scene(spec, ranks, so);
    const LocalView lv = make_local_view(scene, MPI_COMM_WORLD);

    // Static figures.
    double dyn = 0, est = 0;
    for (int v = lv.vbegin; v < lv.vend; ++v) dyn += !scene.kinematic(v);
    for (size_t s = 0; s < scene.element_sets.size(); ++s)
      est += double(lv.sets[s].size()) * scene.element_sets[s].arity * scene.element_sets[s].arity;

    // Warm-up steps first: the local measurement then runs at the deformed state they reach
    // (bent cloth, loaded tets ...), where kernels do their real work.
    auto stepper = std::make_unique<CipcStepper>(scene, lv);
    for (int s = 0; s < warmup; ++s) stepper->step(s * spec.dt);

    // Measured local elastic work.
    std::vector<double> xl(3 * lv.num_local()), g(3 * lv.num_local(), 0.0);
    std::vector<int> gid(lv.num_local());
    {
      Vec x = stepper->positions(), loc;
      VecGhostUpdateBegin(x, INSERT_VALUES, SCATTER_FORWARD);
      VecGhostUpdateEnd(x, INSERT_VALUES, SCATTER_FORWARD);
      VecGhostGetLocalForm(x, &loc);
      const PetscScalar* a;
      VecGetArrayRead(loc, &a);
      std::copy(a, a + 3 * lv.num_local(), xl.begin());
      VecRestoreArrayRead(loc, &a);
      VecGhostRestoreLocalForm(x, &loc);
    }
    for (int l = 0; l < lv.num_local(); ++l) gid[l] = scene.kinematic(lv.global_of_local(l)) ? -1 : lv.global_of_local(l);
    std::vector<std::unique_ptr<EnergyTerm>> terms;
    for (size_t s = 0; s < scene.element_sets.size(); ++s)
      terms.push_back(scene.element_sets[s].term->make(scene, int(s), lv.sets[s]));
    size_t values = 0;
    for (size_t s = 0; s < scene.element_sets.size(); ++s)
      values += size_t(lv.sets[s].size()) * 9 * scene.element_sets[s].arity * scene.element_sets[s].arity;
    CopySink sink(g.data(), gid.data(), values);
    double best = 1e300;
    for (int trial = 0; trial < 3; ++trial) {
      const double c0 = thread_cpu();
      double acc = 0;
      for (int r = 0; r < repeat; ++r) {
        sink.rewind();
        for (auto& t : terms) t->assemble(xl.data(), 1.0, acc, sink);
      }
      best = std::min(best, (thread_cpu() - c0) / repeat);
      if (acc == 12345.678) std::printf("%g\n", sink.sum_);  // never: keeps the loop alive
    }
    if (std::getenv("WEFT_BALANCE_PER_TERM")) {  // per-term cost per stencil, this rank
      for (auto& t : terms) {
        if (t->stencils().size() == 0) continue;
        double tb = 1e300;
        for (int trial = 0; trial < 3; ++trial) {
          const double c0 = thread_cpu();
          double acc = 0;
          for (int r = 0; r < repeat; ++r) sink.rewind(), t->assemble(xl.data(), 1.0, acc, sink);
          tb = std::min(tb, (thread_cpu() - c0) / repeat);
        }
        std::printf("rank %d term %s: %d stencils, %.3f us per stencil\n", rank, t->set().term->name,
                    t->stencils().size(), 1e6 * tb / t->stencils().size());
      }
    }
    const std::vector<double> dyn_all = gather(dyn, lv.comm), est_all = gather(est, lv.comm),
                              asm_all = gather(best * 1e3, lv.comm);

    // Real steps.
    double elastic = 0, contact_cpu = 0, wall_max = 0;
    int newton = 0;
    for (int s = 0; s < frames; ++s) {
      const ContactTimers before = stepper->contact_timers() ? *stepper->contact_timers() : ContactTimers{};
      MPI_Barrier(lv.comm);
      const double t0 = now();
      stepper->step((warmup + s) * spec.dt);
      double wall = now() - t0, wmax = 0;
      MPI_Allreduce(&wall, &wmax, 1, MPI_DOUBLE, MPI_MAX, lv.comm);
      wall_max += wmax;
      const StepStats& st = stepper->last_stats();
      newton += st.newton_iters;
      double barrier = 0;
      if (stepper->contact_timers()) {
        const ContactTimers d = stepper->contact_timers()->since(before);
        barrier = d.wall[int(ContactPhase::Barrier)] + d.wall[int(ContactPhase::Friction)];
        contact_cpu += d.total_cpu();
      }
      elastic += st.assembly_s - barrier;
    }
    const std::vector<double> el_all = gather(elastic * 1e3 / std::max(1, newton), lv.comm),
                              ct_all = gather(contact_cpu * 1e3 / std::max(1, newton), lv.comm);
    if (rank == 0) {
      std::printf("%s, %d ranks, weights %s: %d vertices\n", spec.name.c_str(), ranks, weights.c_str(),
                  scene.num_vertices);
      std::printf("  dynamic vertices per rank %s (imbalance %.3f)\n", list(dyn_all).c_str(), imbalance(dyn_all));
      std::printf("  blocks per rank %s (imbalance %.3f)\n", list(est_all).c_str(), imbalance(est_all));
      std::printf("  elastic assembly ms per rank (measured, local) %s (imbalance %.3f)\n", list(asm_all).c_str(),
                  imbalance(asm_all));
      std::printf("  in %d steps (%d Newton its, after %d warm-up): elastic ms/it per rank %s (imbalance %.3f), "
                  "contact cpu ms/it per rank %s (imbalance %.3f), wall %.3f s/step\n",
                  frames, newton, warmup, list(el_all).c_str(), imbalance(el_all), list(ct_all).c_str(),
                  imbalance(ct_all), wall_max / std::max(1, frames));
      std::printf("RESULT {\"case\":\"%s\",\"ranks\":%d,\"weights\":\"%s\",\"dynamic\":%s,\"blocks\":%s,"
                  "\"assembly_ms\":%s,\"step_elastic_ms_per_it\":%s,\"step_contact_cpu_ms_per_it\":%s,"
                  "\"newton_iters\":%d,\"wall_s_per_step\":%g}\n",
                  spec.name.c_str(), ranks, weights.c_str(), list(dyn_all).c_str(), list(est_all).c_str(),
                  list(asm_all).c_str(), list(el_all).c_str(), list(ct_all).c_str(), newton,
                  wall_max / std::max(1, frames));
    }
  } catch (const InputError& e) {
    if (rank == 0) std::fprintf(stderr, "bench-balance: %s\n", e.what());
    code = 2;
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "bench-balance: %s\n", e.what());
    code = 1;
  }
  PetscFinalize();
  MPI_Finalize();
  return code;
}
