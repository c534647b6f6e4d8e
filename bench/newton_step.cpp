// bench-newton_step: time per Newton iteration of the C-IPC stepper, split into assembly,
// linear solve and line search, for ONE configuration (case, resolution, ranks, PETSc
// solver options). bench/newton_step.py runs the whole matrix (sizes x ranks x solvers)
// and writes the table and plot.
//
//   mpirun -n K bench-newton_step [--case CASE.yaml] [--res N] [--frames F] [--set key=value]...
//                                 [--json] [PETSc options]
//
// Defaults: cases/hang_two_corners.yaml (1 m cloth held at two corners, strain limit 1.01),
// its own resolution, 3 frames (time steps) from the initial state. The same library calls
// as the weft executable (build_scene, make_local_view, CipcStepper::step) without the
// result file and the initial intersection check, so only the time steps are timed.
// Per step it prints Newton/KSP iterations and the stepper's own wall-clock split
// (StepStats: assembly_s, solve_s, line_search_s), then a summary; --json prints the
// summary as one JSON line "RESULT {...}" for scripts. Runtime failures exit 1.
#include <petscsys.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"
#include "methods/cipc.hpp"
#include "parallel/local_view.hpp"
#include "core/blas_threads.hpp"

using namespace weft;

namespace {

const char* kUsage =
    "usage: mpirun -n K bench-newton_step [--case CASE.yaml] [--res N] [--frames F] [--set key=value]... [--json] "
    "[PETSc options]";

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::string case_path = "cases/hang_two_corners.yaml";
  std::vector<std::string> overrides;
  int frames = 3, res = 0;
  bool json = false;
  std::vector<char*> petsc_argv{argv[0]};
  std::string petsc_opts;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        if (rank == 0) std::fprintf(stderr, "bench-newton_step: %s needs a value\n%s\n", a.c_str(), kUsage);
        MPI_Finalize();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--case") case_path = value();
    else if (a == "--res") res = std::atoi(value().c_str());
    else if (a == "--frames") frames = std::atoi(value().c_str());
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
      if (rank == 0) std::fprintf(stderr, "bench-newton_step: unexpected argument '%s'\n%s\n", a.c_str(), kUsage);
      MPI_Finalize();
      return 2;
    }
  }
  if (res > 0) overrides.insert(overrides.begin(), "objects.0.mesh.resolution=[" + std::to_string(res) + "," + std::to_string(res) + "]");
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
    const double setup_s = now() - t_setup;
    if (rank == 0 && !json)
      std::printf("%s: %d vertices, %zu triangles, %zu hinges, %d rank(s), setup %.2f s\n", spec.name.c_str(),
                  scene.num_vertices, scene.triangles.size(), static_cast<size_t>(scene.count_stencils("hinge_bending")), ranks, setup_s);
    long newton = 0, ksp = 0;
    double asm_s = 0, solve_s = 0, ls_s = 0, wall_s = 0, max_strain = 0;
    bool converged = true;
    std::ostringstream steps_json;
    // CPU time this rank got during the steps, against their wall time: on a shared machine
    // a share well below 1 means other jobs took the core (or the rank waited in MPI).
    auto cpu_s = []() {
      struct rusage u;
      getrusage(RUSAGE_SELF, &u);
      return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
    };
    MPI_Barrier(MPI_COMM_WORLD);
    const double cpu0 = cpu_s(), wall0 = now();
    for (int s = 0; s < frames; ++s) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = now();
      stepper->step(s * spec.dt);
      const StepStats& st = stepper->last_stats();
      const double wall = now() - t0;
      // Each rank times its own share; the slowest rank sets the pace.
      double loc[4] = {st.assembly_s, st.solve_s, st.line_search_s, wall}, mx[4];
      MPI_Allreduce(loc, mx, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      newton += st.newton_iters;
      ksp += st.ksp_iters;
      asm_s += mx[0], solve_s += mx[1], ls_s += mx[2], wall_s += mx[3];
      max_strain = st.max_strain;
      converged = converged && st.converged;
      if (rank == 0 && !json)
        std::printf("step %d: newton %d, ksp %d, assembly %.3f s, solve %.3f s, line search %.3f s, wall %.3f s, "
                    "max strain %.5f%s\n",
                    s + 1, st.newton_iters, st.ksp_iters, mx[0], mx[1], mx[2], mx[3], st.max_strain,
                    st.converged ? "" : " (not converged)");
      steps_json << (s ? "," : "") << "{\"newton_iters\":" << st.newton_iters << ",\"ksp_iters\":" << st.ksp_iters
                 << ",\"assembly_s\":" << mx[0] << ",\"solve_s\":" << mx[1] << ",\"line_search_s\":" << mx[2]
                 << ",\"wall_s\":" << mx[3] << ",\"max_strain\":" << st.max_strain
                 << ",\"converged\":" << (st.converged ? "true" : "false") << "}";
    }
    double cpu_share = (cpu_s() - cpu0) / (now() - wall0), cpu_share_min = 0;
    MPI_Reduce(&cpu_share, &cpu_share_min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rss = ru.ru_maxrss / 1024.0, rss_sum = 0;  // MiB
    MPI_Reduce(&rss, &rss_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    const std::string solver = stepper->linear_system().describe();
    const int fallbacks = stepper->linear_system().fallbacks();
    const long factorizations = stepper->linear_system().factorizations();
    if (rank == 0) {
      const double total = asm_s + solve_s + ls_s;
      if (json) {
        std::printf("RESULT {\"case\":%s,\"vertices\":%d,\"triangles\":%zu,\"hinges\":%zu,\"ranks\":%d,\"solver\":%s,"
                    "\"petsc_options\":%s,\"frames\":%d,\"setup_s\":%.6g,\"newton_iters\":%ld,\"ksp_iters\":%ld,"
                    "\"assembly_s\":%.6g,\"solve_s\":%.6g,\"line_search_s\":%.6g,\"wall_s\":%.6g,\"max_strain\":%.8g,"
                    "\"converged\":%s,\"fallbacks\":%d,\"factorizations\":%ld,\"peak_rss_mib\":%.1f,\"cpu_share\":%.3f,\"steps\":[%s]}\n",
                    json_str(spec.name).c_str(), scene.num_vertices, scene.triangles.size(), static_cast<size_t>(scene.count_stencils("hinge_bending")), ranks,
                    json_str(solver).c_str(), json_str(petsc_opts).c_str(), frames, setup_s, newton, ksp, asm_s, solve_s,
                    ls_s, wall_s, max_strain, converged ? "true" : "false", fallbacks, factorizations, rss_sum, cpu_share_min,
                    steps_json.str().c_str());
      } else {
        std::printf("%s on %d rank(s): %ld Newton iterations (%ld KSP), %.4f s/iteration: assembly %.1f%%, solve "
                    "%.1f%%, line search %.1f%%; non-solve %.1f%%; %ld factorisations; %d Cholesky fallbacks; peak RSS %.0f MiB; CPU share %.2f\n",
                    solver.c_str(), ranks, newton, ksp, total / std::max(1L, newton), 100 * asm_s / total,
                    100 * solve_s / total, 100 * ls_s / total, 100 * (asm_s + ls_s) / total, factorizations, fallbacks, rss_sum, cpu_share_min);
      }
      std::fflush(stdout);
    }
    stepper.reset();
  } catch (const InputError& e) {
    if (rank == 0) std::fprintf(stderr, "bench-newton_step: error: %s\n", e.what());
    code = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-newton_step: failed: %s\n", e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  PetscFinalize();
  MPI_Finalize();
  return code;
}
