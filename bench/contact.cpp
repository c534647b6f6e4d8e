// bench-contact: where a C-IPC time step with contact spends its time, for ONE
// configuration (case, resolution, ranks). bench/contact.py runs the matrix (drape and
// stack, 1 and 2 ranks, weak scaling) and writes bench/results/contact.{md,json,png}.
//
//   mpirun -n K bench-contact [--case CASE.yaml] [--res N] [--restart WARM.h5] [--warmup W]
//                             [--frames F] [--set key=value]... [--json] [PETSc options]
//
// The scene is built with the same library calls as weft (build_scene, make_local_view,
// CipcStepper). --restart loads the last checkpoint of a weft result file of the same case
// (and the same --res / --set), so the measured steps start from a state in contact without
// re-running the fall; --warmup takes W more untimed steps. Then F steps are timed.
//
// Per step, from StepStats and the contact layer's ContactTimers (contact/contact_timers.hpp):
//  * wall time, this thread's CPU time (max and mean over ranks), Newton and KSP iterations;
//  * every contact phase (halo, proximity / swept broad phase, coupling pattern, barrier
//    assembly, barrier energy in line-search trials, friction lag / assembly / energy, CCD,
//    gap): wall time (mean and max over ranks) and thread CPU time (sum and max over ranks);
//  * the rest of the step: linear solve (StepStats::solve_s), elastic assembly (assembly_s
//    minus the barrier and friction assembly inside it) and "other" (wall minus all of these:
//    elastic energies of line-search trials, vector updates, the kinematic move, waits);
//    each the mean over ranks, so contact + solve + elastic + other = the step's wall time;
//  * work counters summed over ranks (candidates, pairs, CCD queries, halo vertices ...).
// --json prints one line "RESULT {...}" for scripts; otherwise a readable summary.
#include <petscsys.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "contact/contact_timers.hpp"
#include "core/error.hpp"
#include "io/case_loader.hpp"
#include "io/result_file.hpp"
#include "io/scene_loader.hpp"
#include "methods/cipc.hpp"
#include "parallel/local_view.hpp"
#include "core/blas_threads.hpp"

using namespace weft;

namespace {

const char* kUsage =
    "usage: mpirun -n K bench-contact [--case CASE.yaml] [--res N] [--restart WARM.h5] [--warmup W] [--frames F] "
    "[--set key=value]... [--json] [PETSc options]";

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

// Checkpoint (input order) -> the stepper's solver-order ghosted Vecs, as weft --restart does.
void load_state(const Checkpoint& c, const Scene& scene, const LocalView& lv, CipcStepper& stepper) {
  for (auto [vec, src] : {std::pair<Vec, const std::vector<double>*>{stepper.positions(), &c.x},
                          {stepper.velocities(), &c.v}}) {
    Vec local;
    PetscScalar* a;
    VecGhostGetLocalForm(vec, &local);
    VecGetArray(local, &a);
    for (int l = 0; l < 3 * lv.num_local(); ++l) a[l] = (*src)[l];  // (rows in LocalView order)
    VecRestoreArray(local, &a);
    VecGhostRestoreLocalForm(vec, &local);
  }
  stepper.load(c.arrays);
}

double cpu_self() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Reduced {
  double sum = 0, max = 0;
};

Reduced reduce(double v) {
  Reduced r;
  MPI_Allreduce(&v, &r.sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &r.max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return r;
}

long reduce_sum(long v) {
  long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::string case_path = "cases/drape_default.yaml", restart;
  std::vector<std::string> overrides;
  int frames = 3, warmup = 0, res = 0;
  bool json = false;
  std::vector<char*> petsc_argv{argv[0]};
  std::string petsc_opts;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        if (rank == 0) std::fprintf(stderr, "bench-contact: %s needs a value\n%s\n", a.c_str(), kUsage);
        MPI_Finalize();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--case") case_path = value();
    else if (a == "--res") res = std::atoi(value().c_str());
    else if (a == "--frames") frames = std::atoi(value().c_str());
    else if (a == "--warmup") warmup = std::atoi(value().c_str());
    else if (a == "--restart") restart = value();
    else if (a == "--set") overrides.push_back(value());
    else if (a == "--json") json = true;
    else if (a.size() > 1 && a[0] == '-' && a[1] != '-') {
      petsc_argv.push_back(argv[i]);
      petsc_opts += (petsc_opts.empty() ? "" : " ") + a;
      if (i + 1 < argc && argv[i + 1][0] != '-') {
        petsc_argv.push_back(argv[++i]);
        petsc_opts += std::string(" ") + argv[i];
      }
    } else {
      if (rank == 0) std::fprintf(stderr, "bench-contact: unexpected argument '%s'\n%s\n", a.c_str(), kUsage);
      MPI_Finalize();
      return 2;
    }
  }
  if (res > 0)
    overrides.insert(overrides.begin(),
                     "objects.0.mesh.resolution=[" + std::to_string(res) + "," + std::to_string(res) + "]");
  int pargc = static_cast<int>(petsc_argv.size());
  petsc_argv.push_back(nullptr);
  char** pargv = petsc_argv.data();
  PetscInitialize(&pargc, &pargv, nullptr, nullptr);
  weft::limit_blas_threads(MPI_COMM_WORLD);
  int code = 0;
  try {
    const double t_setup = now();
    CaseSpec spec = load_case(case_path, overrides);
    Scene scene = build_scene(spec, ranks);
    LocalView lv = make_local_view(scene, MPI_COMM_WORLD);
    auto stepper = std::make_unique<CipcStepper>(scene, lv);
    int first = 0;  // steps already taken (time = first * dt)
    if (!restart.empty()) {
      const Checkpoint c = read_checkpoint(restart, scene, lv);
      load_state(c, scene, lv, *stepper);
      first = c.frame;
    }
    if (!stepper->contact_timers()) throw InputError(case_path + ": contact is disabled; nothing to measure");
    int dynamic = 0;
    for (int v = 0; v < scene.num_vertices; ++v) dynamic += !scene.kinematic(v);
    const double setup_s = now() - t_setup;
    if (rank == 0 && !json)
      std::printf("%s: %d vertices (%d dynamic, %.0f per rank), %zu triangles, %d rank(s), from step %d, setup %.2f s\n",
                  spec.name.c_str(), scene.num_vertices, dynamic, double(dynamic) / ranks, scene.triangles.size(),
                  ranks, first, setup_s);
    for (int s = 0; s < warmup; ++s, ++first) {
      stepper->step(first * spec.dt);
      const StepStats& st = stepper->last_stats();
      if (rank == 0 && !json)
        std::printf("warm-up step %d: newton %d, %d contact pairs\n", first + 1, st.newton_iters, st.contact_pairs);
    }

    std::ostringstream steps;
    long newton_total = 0;
    double wall_total = 0, contact_total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double cpu0 = cpu_self(), wall0 = now();
    for (int s = 0; s < frames; ++s) {
      const ContactTimers before = *stepper->contact_timers();
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = now(), c0 = thread_cpu_seconds(), p0 = cpu_self();
      stepper->step((first + s) * spec.dt);
      const StepStats& st = stepper->last_stats();
      // cpu: this (the stepping) thread; process_cpu: all threads of the process, with the
      // helper threads of the libraries (OpenMP, BLAS) and their spin-waits.
      const double wall = now() - t0, cpu = thread_cpu_seconds() - c0, process_cpu = cpu_self() - p0;
      const ContactTimers d = stepper->contact_timers()->since(before);
      const double elastic = st.assembly_s - d.wall[int(ContactPhase::Barrier)] - d.wall[int(ContactPhase::Friction)];
      const double contact = d.total_wall();
      const double other = wall - contact - st.solve_s - elastic;
      const Reduced r_wall = reduce(wall), r_solve = reduce(st.solve_s), r_elastic = reduce(elastic),
                    r_contact = reduce(contact), r_other = reduce(other), r_contact_cpu = reduce(d.total_cpu()),
                    r_cpu = reduce(cpu), r_process_cpu = reduce(process_cpu);
      // The Newton phases in thread CPU seconds (the load-independent split): assembly
      // (elastic + barrier + friction), of it the elastic part, the factorisation + solve,
      // the line search (CCD, trial energies).
      const double el_cpu = st.assembly_cpu - d.cpu[int(ContactPhase::Barrier)] - d.cpu[int(ContactPhase::Friction)];
      const Reduced r_asm_cpu = reduce(st.assembly_cpu), r_el_cpu = reduce(el_cpu), r_solve_cpu = reduce(st.solve_cpu),
                    r_ls_cpu = reduce(st.line_search_cpu);
      std::ostringstream ph;
      for (int p = 0; p < kContactPhases; ++p) {
        const Reduced w = reduce(d.wall[p]), c = reduce(d.cpu[p]);
        ph << (p ? "," : "") << json_str(contact_phase_name(ContactPhase(p))) << ":{\"wall_mean\":" << w.sum / ranks
           << ",\"wall_max\":" << w.max << ",\"cpu_sum\":" << c.sum << ",\"cpu_max\":" << c.max
           << ",\"calls\":" << d.calls[p] << "}";
      }
      const long counters[] = {d.pattern_rebuilds, d.pattern_absorbing, d.broad_primitives, d.proximity_candidates, d.proximity_filtered,
                               d.swept_rebuilds,   d.swept_updates,    d.swept_shrinks,    d.swept_candidates, d.couplings,        d.barrier_pairs,        d.barrier_active,
                               d.energy_pairs,     d.friction_pairs,   d.ccd_queries,          d.halo_vertices};
      const char* counter_names[] = {"pattern_rebuilds", "pattern_absorbing", "broad_primitives", "proximity_candidates",
                                     "proximity_filtered", "swept_rebuilds", "swept_updates", "swept_shrinks", "swept_candidates", "couplings", "barrier_pairs",
                                     "barrier_active", "energy_pairs", "friction_pairs", "ccd_queries",
                                     "halo_vertices"};
      std::ostringstream ct;
      for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); ++k) {
        // pattern_rebuilds and pattern_absorbing are collective decisions: the same on every rank.
        const long v = k < 2 ? counters[k] : reduce_sum(counters[k]);
        ct << (k ? "," : "") << json_str(counter_names[k]) << ":" << v;
      }
      newton_total += st.newton_iters;
      wall_total += r_wall.max;
      contact_total += r_contact.sum / ranks;
      if (rank == 0 && !json)
        std::printf("step %d: newton %d, ksp %d, %d contact pairs, wall %.3f s: contact %.3f s (%.1f%%), solve %.3f, "
                    "elastic assembly %.3f, other %.3f\n",
                    first + s + 1, st.newton_iters, st.ksp_iters, st.contact_pairs, r_wall.max, r_contact.sum / ranks,
                    100 * r_contact.sum / ranks / std::max(1e-30, r_wall.sum / ranks), r_solve.sum / ranks,
                    r_elastic.sum / ranks, r_other.sum / ranks);
      steps << (s ? "," : "") << "{\"step\":" << first + s + 1 << ",\"newton_iters\":" << st.newton_iters
            << ",\"ksp_iters\":" << st.ksp_iters << ",\"converged\":" << (st.converged ? "true" : "false")
            << ",\"contact_pairs\":" << st.contact_pairs << ",\"wall_max\":" << r_wall.max
            << ",\"wall_mean\":" << r_wall.sum / ranks << ",\"cpu_max\":" << r_cpu.max
            << ",\"cpu_mean\":" << r_cpu.sum / ranks << ",\"process_cpu_max\":" << r_process_cpu.max
            << ",\"solve_mean\":" << r_solve.sum / ranks
            << ",\"elastic_mean\":" << r_elastic.sum / ranks << ",\"contact_mean\":" << r_contact.sum / ranks
            << ",\"contact_max\":" << r_contact.max << ",\"contact_cpu_sum\":" << r_contact_cpu.sum
            << ",\"other_mean\":" << r_other.sum / ranks << ",\"assembly_cpu_max\":" << r_asm_cpu.max
            << ",\"elastic_cpu_max\":" << r_el_cpu.max << ",\"solve_cpu_max\":" << r_solve_cpu.max
            << ",\"line_search_cpu_max\":" << r_ls_cpu.max << ",\"phases\":{" << ph.str() << "},\"counters\":{"
            << ct.str() << "}}";
    }
    double cpu_share = (cpu_self() - cpu0) / std::max(1e-9, now() - wall0), cpu_share_min = 0;
    MPI_Reduce(&cpu_share, &cpu_share_min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    const std::string solver = stepper->linear_system().describe();
    if (rank == 0) {
      if (json) {
        std::printf("RESULT {\"case\":%s,\"vertices\":%d,\"dynamic_vertices\":%d,\"triangles\":%zu,\"ranks\":%d,"
                    "\"solver\":%s,\"petsc_options\":%s,\"first_step\":%d,\"frames\":%d,\"setup_s\":%.6g,"
                    "\"cpu_share\":%.3f,\"steps\":[%s]}\n",
                    json_str(spec.name).c_str(), scene.num_vertices, dynamic, scene.triangles.size(), ranks,
                    json_str(solver).c_str(), json_str(petsc_opts).c_str(), first, frames, setup_s, cpu_share_min,
                    steps.str().c_str());
      } else {
        std::printf("%s on %d rank(s), %s: %ld Newton iterations, %.4f s/iteration, contact %.1f%% of the time; "
                    "CPU share %.2f\n",
                    spec.name.c_str(), ranks, solver.c_str(), newton_total, wall_total / std::max(1L, newton_total),
                    100 * contact_total / std::max(1e-30, wall_total), cpu_share_min);
      }
      std::fflush(stdout);
    }
    stepper.reset();
  } catch (const InputError& e) {
    if (rank == 0) std::fprintf(stderr, "bench-contact: error: %s\n", e.what());
    code = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-contact: failed: %s\n", e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  PetscFinalize();
  MPI_Finalize();
  return code;
}
