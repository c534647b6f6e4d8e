// bench-elements: element throughput of the cloth energy kernels, and the assembly rate
// inside the C-IPC stepper.
//
//   bench-elements [--res N] [--repeat R] [--steps S] [--case CASE.yaml] [-o OUT.md] [PETSc options]
//
// Defaults: a 256 x 256 jittered grid (1 m square, 130050 triangles, 194566 hinges), 5
// repeats, 2 stepper steps of cases/hang_two_corners.yaml at the same resolution,
// bench/results/elements.md (run from the repository root, one MPI rank).
//
// Part 1, kernels: the grid is deformed (up to 3% stretch along x, a 1 cm out-of-plane wave
// and a small random displacement, scaled back until every sigma_1 < 1.054) so that the strain-limit barrier is active in most triangles
// (1 < sigma_1 < 1.06) and every hinge is bent. Each kernel runs over every element with
// gradient and PSD-projected Hessian (the Newton path: project = true; for hinges that is
// the Gauss-Newton Hessian the stepper uses), and energy-only (the line-search path).
// The rate is elements per second of thread CPU time (= per core), the best of the repeats;
// the best wall-clock rate is shown beside it (the machine is shared).
//
// Part 2, assembly: the same split as CipcStepper::assemble at one rank, on the
// case's scene: kernels + PETSc insertion (LinearSystem::add_block) + MatAssembly, timed
// separately, and the stepper's own assembly_s over real Newton iterations.
#include <petscsys.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "energy/hinge_bending.hpp"
#include "energy/membrane_neo_hookean.hpp"
#include "energy/membrane_stvk.hpp"
#include "energy/strain_limit.hpp"
#include "energy/tri_rest.hpp"
#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"
#include "mesh/generators.hpp"
#include "mesh/topology.hpp"
#include "methods/cipc.hpp"
#include "parallel/local_view.hpp"
#include "solver/linear_system.hpp"
#include "core/blas_threads.hpp"

using namespace weft;

namespace {

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Timing {
  double cpu = 1e300, wall = 1e300;
};

// Best (minimum) CPU and wall time of `repeat` runs of f.
Timing best_of(int repeat, const std::function<void()>& f) {
  Timing t;
  for (int r = 0; r < repeat; ++r) {
    const double c0 = cpu_now(), w0 = wall_now();
    f();
    t.cpu = std::min(t.cpu, cpu_now() - c0);
    t.wall = std::min(t.wall, wall_now() - w0);
  }
  return t;
}

template <int N>
VecN<3 * N> gather(const std::vector<Vec3>& x, const int* v) {
  VecN<3 * N> out;
  for (int a = 0; a < N; ++a) out.template segment<3>(3 * a) = x[v[a]];
  return out;
}

volatile double g_sink = 0.0;  // keeps the kernels' results alive

struct Row {
  std::string kernel, mode;
  long elements;
  Timing t;
};

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int res = 256, repeat = 5, steps = 2;
  std::string case_path = "cases/hang_two_corners.yaml", out_path = "bench/results/elements.md";
  std::string command = "bench-elements";
  std::vector<char*> petsc_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    command += " " + a;
    auto value = [&]() {
      if (i + 1 >= argc) {
        std::cerr << "bench-elements: " << a << " needs a value\n";
        std::exit(2);
      }
      command += std::string(" ") + argv[i + 1];
      return std::string(argv[++i]);
    };
    if (a == "--res") res = std::stoi(value());
    else if (a == "--repeat") repeat = std::max(1, std::stoi(value()));
    else if (a == "--steps") steps = std::max(0, std::stoi(value()));
    else if (a == "--case") case_path = value();
    else if (a == "-o") out_path = value();
    else if (a.size() > 1 && a[0] == '-' && a[1] != '-') {
      petsc_argv.push_back(argv[i]);
      if (i + 1 < argc && argv[i + 1][0] != '-') petsc_argv.push_back(argv[++i]), command += std::string(" ") + argv[i];
    } else {
      std::cerr << "usage: bench-elements [--res N] [--repeat R] [--steps S] [--case CASE.yaml] [-o OUT.md] [PETSc options]\n";
      return 2;
    }
  }
  int pargc = static_cast<int>(petsc_argv.size());
  petsc_argv.push_back(nullptr);
  char** pargv = petsc_argv.data();
  PetscInitialize(&pargc, &pargv, nullptr, nullptr);
  weft::limit_blas_threads(MPI_COMM_WORLD);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 1) {
    std::cerr << "bench-elements: run on one rank (it measures per-core throughput)\n";
    PetscFinalize();
    MPI_Finalize();
    return 2;
  }
  std::ostringstream md;
  try {
    // ---------------------------------------------------------------- Part 1: kernels
    const double E = 8.0e5, nu = 0.243, thick = 3.18e-4, s_max = 1.06;
    const MembraneParams mp{E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu)), thick};
    const TriMesh mesh = make_grid(1.0, 1.0, res, res, 0.3, 1);
    const MeshTopology topo = build_topology(mesh);
    const int nv = static_cast<int>(mesh.vertices.size());
    const double kb = bending_stiffness(E, nu, thick);
    std::vector<TriRest> tri_rest;
    for (const Tri& t : mesh.triangles)
      tri_rest.push_back(make_tri_rest(mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]));
    std::vector<HingeRest> hinge_rest;
    for (const auto& h : topo.hinges)
      hinge_rest.push_back(make_hinge_rest(mesh.vertices[h[0]], mesh.vertices[h[1]], mesh.vertices[h[2]],
                                           mesh.vertices[h[3]], kb));
    // Deformed state: x = X + a * d(X), d = 3% stretch along x + a 1 cm wave + a random
    // displacement of 1% of the spacing; a is reduced from 1 until no triangle reaches
    // the limit (such triangles would return +inf early and flatter the rate).
    const double spacing = 1.0 / (res - 1);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    std::vector<Vec3> disp(nv), x(nv);
    for (int v = 0; v < nv; ++v) {
      const Vec3& X = mesh.vertices[v];
      disp[v] = Vec3(0.03 * X.x(), 0.01 * std::sin(4 * M_PI * X.x()) * std::cos(4 * M_PI * X.z()), 0.0) +
                0.01 * spacing * Vec3(U(rng), U(rng), U(rng));
    }
    long sl_active = 0, sl_over = 0;
    double sigma_max = 0, amp = 1.0;
    for (int attempt = 0; attempt < 30; ++attempt, amp *= 0.9) {
      for (int v = 0; v < nv; ++v) x[v] = mesh.vertices[v] + amp * disp[v];
      sl_active = sl_over = 0;
      sigma_max = 0;
      for (size_t t = 0; t < mesh.triangles.size(); ++t) {
        const double s = max_singular_value(gather<3>(x, mesh.triangles[t].data()), tri_rest[t]);
        sigma_max = std::max(sigma_max, s);
        if (s >= s_max) ++sl_over;
        else if (s > 1.0) ++sl_active;
      }
      if (sigma_max < 1.0 + 0.9 * (s_max - 1.0)) break;
    }
    const long ntri = static_cast<long>(mesh.triangles.size()), nhinge = static_cast<long>(topo.hinges.size());
    if (sl_over > 0) throw RuntimeFailure("deformed state exceeds the strain limit in " + std::to_string(sl_over) + " triangles");

    std::vector<Row> rows;
    auto tri_loop = [&](auto kernel, bool with_derivs) {
      return [&, kernel, with_derivs]() {
        Vec9 g;
        Mat9 H;
        double acc = 0;
        for (long t = 0; t < ntri; ++t) {
          const Vec9 xe = gather<3>(x, mesh.triangles[t].data());
          if (with_derivs) {
            acc += kernel(xe, tri_rest[t], &g, &H, true);
            acc += H(0, 0) + g(0);
          } else {
            acc += kernel(xe, tri_rest[t], nullptr, nullptr, false);
          }
        }
        g_sink = g_sink + acc;
      };
    };
    auto nh = [&](const Vec9& xe, const TriRest& r, Vec9* g, Mat9* H, bool p) { return membrane_neo_hookean(xe, r, mp, g, H, p); };
    auto stvk = [&](const Vec9& xe, const TriRest& r, Vec9* g, Mat9* H, bool p) { return membrane_stvk(xe, r, mp, g, H, p); };
    auto sl = [&](const Vec9& xe, const TriRest& r, Vec9* g, Mat9* H, bool p) {
      return strain_limit(xe, r, StrainLimitParams{s_max, 1.0, 1.0e3, r.area * thick}, g, H, p);
    };
    auto hinge_loop = [&](bool with_derivs) {
      return [&, with_derivs]() {
        Vec12 g;
        Mat12 H;
        double acc = 0;
        for (long k = 0; k < nhinge; ++k) {
          const Vec12 xe = gather<4>(x, topo.hinges[k].data());
          if (with_derivs) {
            acc += hinge_bending(xe, hinge_rest[k], &g, &H, true);
            acc += H(0, 0) + g(0);
          } else {
            acc += hinge_bending(xe, hinge_rest[k], nullptr, nullptr, false);
          }
        }
        g_sink = g_sink + acc;
      };
    };
    rows.push_back({"membrane neo-Hookean", "E + g + projected H", ntri, best_of(repeat, tri_loop(nh, true))});
    rows.push_back({"membrane StVK", "E + g + projected H", ntri, best_of(repeat, tri_loop(stvk, true))});
    rows.push_back({"hinge bending", "E + g + Gauss-Newton H (PSD)", nhinge, best_of(repeat, hinge_loop(true))});
    rows.push_back({"strain limit", "E + g + projected H", ntri, best_of(repeat, tri_loop(sl, true))});
    rows.push_back({"membrane neo-Hookean", "E only", ntri, best_of(repeat, tri_loop(nh, false))});
    rows.push_back({"membrane StVK", "E only", ntri, best_of(repeat, tri_loop(stvk, false))});
    rows.push_back({"hinge bending", "E only", nhinge, best_of(repeat, hinge_loop(false))});
    rows.push_back({"strain limit", "E only", ntri, best_of(repeat, tri_loop(sl, false))});
    // What the stepper evaluates per Newton iteration: membrane (NH) + strain limit per
    // triangle, bending per hinge.
    const Timing& t_nh = rows[0].t;
    const Timing& t_hb = rows[2].t;
    const Timing& t_sl = rows[3].t;
    const double mb_rate = (ntri + nhinge) / (t_nh.cpu + t_hb.cpu);
    const double all_rate = (ntri + nhinge) / (t_nh.cpu + t_hb.cpu + t_sl.cpu);

    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    md << "# Element throughput: membrane, bending, strain limit (and assembly in the stepper)\n\n"
       << "- command: `" << command << "` (from the repository root; build: `cmake --build build-bench --target bench-elements`)\n"
       << "- date: " << date << ", cores (nproc): " << sysconf(_SC_NPROCESSORS_ONLN)
       << "; the machine is shared with other engineers' builds and runs, so every figure is the best of "
       << repeat << " repeats\n"
       << "- mesh: " << res << " x " << res << " jittered grid (jitter 0.3), " << nv << " vertices, " << ntri
       << " triangles, " << nhinge << " hinges; cotton-like material (E = 8e5 Pa, nu = 0.243, thickness 3.18e-4 m)\n"
       << "- deformed state: x = X + a d(X), d = 3% stretch along x + 1 cm wave (4 pi x, 4 pi z) + random displacement of "
       << "1% of the spacing, a = " << fmt("%.3f", amp) << " (reduced until every sigma_1 < 1 + 0.9 (s - 1)); "
       << "strain limit s = 1.06 active (1 < sigma_1 < s) in " << sl_active << " of " << ntri
       << " triangles (" << fmt("%.1f", 100.0 * sl_active / ntri) << "%), max sigma_1 = " << fmt("%.4f", sigma_max)
       << "\n"
       << "- rate = elements / thread CPU time of the kernel loop (gather + kernel, one core); wall-clock rate beside it\n\n"
       << "| kernel | mode | elements | us/element | elements/s per core (CPU) | elements/s (wall) |\n"
       << "|---|---|---:|---:|---:|---:|\n";
    for (const Row& r : rows)
      md << "| " << r.kernel << " | " << r.mode << " | " << r.elements << " | " << fmt("%.3f", 1e6 * r.t.cpu / r.elements)
         << " | " << fmt("%.0f", r.elements / r.t.cpu) << " | " << fmt("%.0f", r.elements / r.t.wall) << " |\n";
    md << "\nCombined, per Newton iteration of a cloth (every triangle and hinge, E + g + H):\n\n"
       << "- membrane (neo-Hookean) + bending: " << ntri + nhinge << " elements in " << fmt("%.3f", t_nh.cpu + t_hb.cpu)
       << " s CPU = **" << fmt("%.0f", mb_rate) << " elements/s per core** (target >= 250000: "
       << (mb_rate >= 250000 ? "met" : "NOT met") << ")\n"
       << "- membrane + bending + strain limit: " << fmt("%.0f", all_rate) << " elements/s per core\n";
    std::printf("kernels: membrane+bending %.0f elements/s per core, with strain limit %.0f\n", mb_rate, all_rate);

    // --------------------------------------------------------------- Part 2: assembly
    const std::string r = std::to_string(res);
    CaseSpec spec = load_case(case_path, {"objects.0.mesh.resolution=[" + r + "," + r + "]"});
    Scene scene = build_scene(spec, 1);
    LocalView lv = make_local_view(scene, MPI_COMM_WORLD);
    // The bending set: the one of 4-vertex stencils (hinges).
    const ElementSet* hset = nullptr;
    const LocalStencils* hloc = nullptr;
    for (size_t s = 0; s < scene.element_sets.size(); ++s)
      if (scene.element_sets[s].arity == 4) hset = &scene.element_sets[s], hloc = &lv.sets[s];
    const long s_tri = static_cast<long>(lv.triangles.size()), s_hinge = hloc ? hloc->size() : 0;
    const long s_elems = s_tri + s_hinge;
    const ObjectParams& op = scene.objects[0];
    // Stretched to half the strain limit (so the barrier is active but finite everywhere).
    const double stretch = op.strain_limit > 0 ? 0.5 * (op.strain_limit - 1.0) : 0.03;
    std::vector<Vec3> xs(scene.num_vertices);
    for (int v = 0; v < scene.num_vertices; ++v) {
      const Vec3& X = scene.rest[v];
      xs[v] = Vec3((1 + stretch) * X.x(), X.y() + 0.001 * std::sin(4 * M_PI * X.x()) * std::cos(4 * M_PI * X.z()), X.z());
    }
    const MembraneParams smp{op.mu, op.lambda, op.thickness};
    std::vector<int> gid(scene.num_vertices);
    for (int v = 0; v < scene.num_vertices; ++v) gid[v] = scene.kinematic(v) ? -1 : v;
    {
      LinearSystem sys(scene, lv, spec.linear);
      Mat9 H9 = Mat9::Identity();
      Mat12 H12 = Mat12::Identity();
      const Mat3 I3 = Mat3::Identity();
      int ids[4];
      // (a) kernels as the stepper calls them (NH/StVK + strain limit per triangle, bending per hinge)
      auto kernels = [&]() {
        Vec9 g, gs;
        Mat9 H, Hs;
        Vec12 g12;
        Mat12 Hh;
        double acc = 0;
        for (long k = 0; k < s_tri; ++k) {
          const Tri& t = scene.triangles[lv.triangles[k]];
          const Vec9 xe = gather<3>(xs, t.data());
          const TriRest tr = scene.triangle_rest(lv.triangles[k]);
          acc += op.stvk ? membrane_stvk(xe, tr, smp, &g, &H, true) : membrane_neo_hookean(xe, tr, smp, &g, &H, true);
          if (op.strain_limit > 0)
            acc += strain_limit(xe, tr, StrainLimitParams{op.strain_limit, op.strain_threshold, 1e3, tr.area * op.thickness},
                                &gs, &Hs, true);
          acc += H(0, 0) + Hs(0, 0);
        }
        for (long k = 0; k < s_hinge; ++k) {
          const int e = hloc->element_at(k);
          const Vec12 xe = gather<4>(xs, hset->stencil(e));
          acc += hinge_bending(xe, hset->rest<HingeRest>()[e], &g12, &Hh, true) + Hh(0, 0);
        }
        g_sink = g_sink + acc;
      };
      // (b) PETSc insertion of every element block (values fixed; cost does not depend on them)
      auto insertion = [&]() {
        sys.begin_assembly();
        for (int v = 0; v < scene.num_vertices; ++v)
          if (gid[v] >= 0) sys.add_block(1, &v, I3.data());
        for (long k = 0; k < s_tri; ++k) {
          const Tri& t = scene.triangles[lv.triangles[k]];
          for (int a = 0; a < 3; ++a) ids[a] = gid[t[a]];
          sys.add_block(3, ids, H9.data());
        }
        for (long k = 0; k < s_hinge; ++k) {
          const int* h = hset->stencil(hloc->element_at(k));
          for (int a = 0; a < 4; ++a) ids[a] = gid[h[a]];
          sys.add_block(4, ids, H12.data());
        }
      };
      const int rep2 = std::max(2, repeat / 2 + 1);
      const Timing tk = best_of(rep2, kernels);
      Timing ti, tf;
      for (int k = 0; k < rep2; ++k) {
        double c0 = cpu_now(), w0 = wall_now();
        insertion();
        ti.cpu = std::min(ti.cpu, cpu_now() - c0);
        ti.wall = std::min(ti.wall, wall_now() - w0);
        c0 = cpu_now(), w0 = wall_now();
        sys.end_assembly();
        tf.cpu = std::min(tf.cpu, cpu_now() - c0);
        tf.wall = std::min(tf.wall, wall_now() - w0);
      }
      const double per = tk.cpu + ti.cpu + tf.cpu;
      md << "\n## Assembly inside the stepper (one rank)\n\n"
         << "Scene: `" << case_path << "` at " << res << " x " << res << " (" << scene.num_vertices << " vertices, "
         << s_tri << " triangles, " << s_hinge << " hinges; membrane " << (op.stvk ? "StVK" : "neo-Hookean")
         << ", strain limit " << op.strain_limit << "), matrix MPIAIJ block size 3, preallocated.\n\n"
         << "Split of one assembly (best of " << rep2 << ", thread CPU time):\n\n"
         << "| part | s | share | elements/s |\n|---|---:|---:|---:|\n"
         << "| kernels (membrane + strain limit + bending, E + g + H) | " << fmt("%.4f", tk.cpu) << " | "
         << fmt("%.0f%%", 100 * tk.cpu / per) << " | " << fmt("%.0f", s_elems / tk.cpu) << " |\n"
         << "| matrix insertion (LinearSystem::add_block per element, straight into the AIJ arrays) | " << fmt("%.4f", ti.cpu) << " | "
         << fmt("%.0f%%", 100 * ti.cpu / per) << " | " << fmt("%.0f", s_elems / ti.cpu) << " |\n"
         << "| MatAssemblyBegin/End (+ kinematic rows) | " << fmt("%.5f", tf.cpu) << " | " << fmt("%.0f%%", 100 * tf.cpu / per)
         << " | |\n"
         << "| sum | " << fmt("%.4f", per) << " | 100% | " << fmt("%.0f", s_elems / per) << " |\n";
    }
    // (c) the stepper itself over real Newton iterations
    if (steps > 0) {
      CipcStepper stepper(scene, lv);
      long iters = 0;
      double asm_s = 0, total = 0, best_rate = 0;
      md << "\nStepper (`CipcStepper::step`, linear solver " << stepper.linear_system().describe() << "), "
         << steps << " steps from the initial state:\n\n"
         << "| step | Newton its | assembly s | elements / assembly_s per iteration |\n|---:|---:|---:|---:|\n";
      for (int s = 0; s < steps; ++s) {
        stepper.step(s * scene.spec.dt);
        const StepStats& st = stepper.last_stats();
        iters += st.newton_iters;
        asm_s += st.assembly_s;
        const double rate = s_elems * st.newton_iters / st.assembly_s;
        best_rate = std::max(best_rate, rate);
        total += st.assembly_s + st.solve_s + st.line_search_s;
        md << "| " << s + 1 << " | " << st.newton_iters << " | " << fmt("%.3f", st.assembly_s) << " | " << fmt("%.0f", rate)
           << " |\n";
      }
      md << "\nOverall: " << iters << " Newton iterations, assembly " << fmt("%.3f", asm_s) << " s of " << fmt("%.3f", total)
         << " s, **" << fmt("%.0f", s_elems * iters / asm_s)
         << " elements/s** (triangles + hinges per iteration / wall assembly_s; best step "
         << fmt("%.0f", best_rate) << "). assembly_s also covers the inertia blocks, the gradient ghost "
         << "reduction and MatZeroEntries.\n";
      std::printf("stepper: %ld iterations, %.0f elements/s in assembly\n", iters, s_elems * iters / asm_s);
    }
    std::ofstream f(out_path);
    if (!f) throw InputError("cannot write " + out_path);
    f << md.str();
    std::printf("wrote %s\n", out_path.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench-elements: %s\n", e.what());
    PetscFinalize();
    MPI_Finalize();
    return 1;
  }
  PetscFinalize();
  MPI_Finalize();
  return 0;
}
