#include "methods/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "core/memory_usage.hpp"
#include "io/progress.hpp"
#include "io/result_file.hpp"
#include "io/scene_loader.hpp"
#include "methods/initial_check.hpp"
#include "methods/stepper.hpp"
#include "parallel/local_view.hpp"

namespace weft {
namespace {

// Put a checkpoint's input-order x and v into the stepper's solver-order ghosted Vecs, and
// its named arrays into the stepper.
void load_state(const Checkpoint& c, const Scene& scene, const LocalView& lv, Stepper& stepper,
                const std::string& path) {
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
  try {
    stepper.load(c.arrays);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Per-rank figures for scaling studies, gathered on rank 0 and printed one line per rank
// (RANK r name value ...) plus one RUN line: peak memory, ownership and halo volume, the
// stepper's per-stage seconds summed over the steps (every per-step figure named *_s), the
// setup phases and the output volume and time. bench/scaling parses these lines.
void print_rank_summary(MPI_Comm comm, const NamedValues& mine, const NamedValues& run) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  std::vector<double> v;
  for (const auto& nv : mine) v.push_back(nv.second);
  std::vector<double> all(rank == 0 ? v.size() * ranks : 0);
  MPI_Gather(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, all.data(), static_cast<int>(v.size()), MPI_DOUBLE, 0,
             comm);
  if (rank != 0) return;
  for (int r = 0; r < ranks; ++r) {
    std::printf("RANK %d", r);
    for (size_t i = 0; i < mine.size(); ++i) std::printf(" %s %.10g", mine[i].first.c_str(), all[r * v.size() + i]);
    std::printf("\n");
  }
  std::printf("RUN ranks %d", ranks);
  for (const auto& [name, value] : run) std::printf(" %s %.10g", name.c_str(), value);
  std::printf("\n");
  std::fflush(stdout);
}

double max_over(MPI_Comm comm, double x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, comm);
  return x;
}

}  // namespace

RunSummary run_simulation(const CaseSpec& spec, const RunOptions& opt, MPI_Comm comm) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  const int frames = opt.frames >= 0 ? opt.frames : spec.frames;
  const int every = std::max(1, spec.output_every), cp_every = std::max(1, spec.checkpoint_every);

  // Resident set (VmRSS) and peak (VmHWM) after each setup phase, for the rank summary:
  // where the bytes per vertex go (bench/results/memory.md).
  NamedValues memory_phases;
  auto mark = [&](const char* phase) {
    release_free_heap();
    memory_phases.emplace_back(std::string("rss_") + phase + "_MB", current_rss_bytes() / 1048576.0);
    memory_phases.emplace_back(std::string("hwm_") + phase + "_MB", peak_rss_bytes() / 1048576.0);
  };
  mark("start");
  auto tp = std::chrono::steady_clock::now();
  // On several ranks, a rank keeps the rest positions and masses of its owned, ghost and
  // contact-neighbour vertices only, and the triangles with a vertex in its block (issue 20:
  // what a stepper's setup and steps and the result file read); unless the method reads the
  // whole scene. Rank 0 then builds the scene alone and sends each rank its part
  // (io/scene_parts.hpp), and cuts its own after LocalView.
  const bool keep = ranks > 1 && !method_reads_whole_scene(spec.method);
  SceneOptions scene_options;
  scene_options.partitioner = partitioner_from_options();
  scene_options.comm = comm;
  scene_options.send_parts = keep;
  Scene scene = build_scene(spec, ranks, scene_options);
  const double build_s = since(tp);
  mark("build");
  tp = std::chrono::steady_clock::now();
  LocalView lv;
  {
    ContactSupport support;  // (what the part keeps beyond its block)
    lv = make_local_view(scene, comm, keep ? &support : nullptr);
    if (keep) {
      scene.keep_vertex_part(lv.vbegin, lv.vend, support.vertices);
      scene.keep_triangle_part(std::move(support.triangles));
      scene.keep_primitive_part(std::move(support.segments), std::move(support.points), std::move(support.tets));
    }
  }
  mark("local_view");
  double setup_s = since(tp);
  // The start's check, from the rank's part (methods/initial_check.hpp).
  tp = std::chrono::steady_clock::now();
  if (opt.restart.empty()) check_initial_configuration(scene, comm);
  const double check_s = since(tp);
  mark("check");
  tp = std::chrono::steady_clock::now();
  std::unique_ptr<Stepper> stepper_ptr = make_stepper(scene, lv);
  Stepper& stepper = *stepper_ptr;
  setup_s += since(tp);
  mark("stepper");
  double output_s = 0;  // frames and checkpoints (not /mesh, not OUT.xdmf)

  RunSummary summary;
  double mesh_s = 0;  // creating the file and writing /mesh
  int first_step = 1;
  std::unique_ptr<ResultFile> out;
  if (!opt.restart.empty()) {
    Checkpoint c = read_checkpoint(opt.restart, scene, lv, stepper.load_entries());
    load_state(c, scene, lv, stepper, opt.restart);
    summary.output = opt.output.empty() ? opt.restart : opt.output;
    if (std::filesystem::absolute(summary.output) != std::filesystem::absolute(opt.restart)) {
      if (rank == 0) {
        const auto dir = std::filesystem::path(summary.output).parent_path();
        if (!dir.empty()) std::filesystem::create_directories(dir);
        std::filesystem::copy_file(opt.restart, summary.output, std::filesystem::copy_options::overwrite_existing);
      }
      MPI_Barrier(comm);
    }
    out = std::make_unique<ResultFile>(summary.output, scene, lv, c.frame / every + 1);
    first_step = c.frame + 1;
    if (rank == 0 && opt.progress)
      std::printf("weft: resuming '%s' after step %d (t = %g s) into %s\n", spec.name.c_str(), c.frame, c.time,
                  summary.output.c_str());
  } else {
    summary.output = opt.output.empty() ? spec.output_file : opt.output;
    tp = std::chrono::steady_clock::now();
    out = std::make_unique<ResultFile>(summary.output, scene, lv);
    mesh_s = since(tp);
    mark("mesh");
    NamedValues stats0 = stepper.start_stats();
    stats0.emplace_back("wall_s", 0.0);
    tp = std::chrono::steady_clock::now();
    out->write_frame(0.0, stepper.positions(), stepper.velocities(), stats0, stepper.triangles());
    out->write_checkpoint(0, 0.0, stepper.positions(), stepper.velocities(), stepper.save());
    output_s += since(tp);
    mark("frame0");
    if (rank == 0 && opt.progress) {
      // Every primitive kind the scene holds, so a rod, particle or volume scene is not
      // announced as "0 triangles".
      std::string extra;
      auto add = [&](size_t count, const char* what) {
        if (count > 0) extra += ", " + std::to_string(count) + " " + what;
      };
      add(scene.num_segments(), "segments");
      add(scene.num_points(), "particles");
      add(scene.num_tets(), "tets");
      std::printf("weft: '%s' on %d rank%s: %d vertices, %zu triangles, %zu hinges%s, %d steps of %g s, %s\n",
                  spec.name.c_str(), ranks, ranks > 1 ? "s" : "", scene.num_vertices, scene.triangles.size(),
                  static_cast<size_t>(scene.count_stencils("hinge_bending")), extra.c_str(), frames, spec.dt,
                  stepper.describe().c_str());
    }
  }

  const Stepper::IterationName its = stepper.iteration_name();
  Progress progress(opt.progress ? rank : -1, first_step, frames, its.column, its.words);
  summary.solver = its.solver;
  NamedValues stage_sums;  // this rank's per-step figures named *_s, summed over the steps
  double step_s = 0;
  long long newton_iters = 0;  // the steppers' iterations (Newton, PD, PBD) over the steps
  for (int s = first_step; s <= frames; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    const double t = (s - 1) * spec.dt;  // t = s dt exactly, never an accumulated sum
    StepReport st = stepper.step(t);
    const double wall = since(t0);
    step_s += wall;
    newton_iters += st.iterations;
    for (const auto& [name, value] : st.stats) {
      if (name.size() < 3 || name.compare(name.size() - 2, 2, "_s") != 0) continue;
      bool found = false;
      for (auto& nv : stage_sums)
        if (nv.first == name) nv.second += value, found = true;
      if (!found) stage_sums.emplace_back(name, value);
    }
    summary.all_converged = summary.all_converged && st.converged;
    tp = std::chrono::steady_clock::now();
    if (s % every == 0) {
      st.stats.emplace_back("wall_s", wall);
      out->write_frame(s * spec.dt, stepper.positions(), stepper.velocities(), st.stats, stepper.triangles());
    }
    if (s % cp_every == 0 || s == frames)
      out->write_checkpoint(s, s * spec.dt, stepper.positions(), stepper.velocities(), stepper.save());
    output_s += since(tp);
    progress.frame_done(s, st.iterations, st.max_strain, wall, st.converged ? "" : "(not converged)");
  }
  tp = std::chrono::steady_clock::now();
  out->finish();
  const double finish_s = since(tp);
  summary.frames_written = out->frames();
  summary.seconds = progress.elapsed();
  summary.vertices = scene.num_vertices;
  summary.steps = std::max(0, frames - first_step + 1);
  summary.step_seconds = max_over(comm, step_s);
  summary.setup_seconds = max_over(comm, build_s + check_s + setup_s);
  progress.summary(summary.output, summary.frames_written);

  const double peak = static_cast<double>(peak_rss_bytes());
  summary.peak_rss_max = static_cast<long long>(max_over(comm, peak));
  if (opt.rank_summary) {
    NamedValues mine = {{"peak_rss_MB", peak / 1048576.0},
                        {"owned_vertices", double(lv.num_owned())},
                        {"ghost_vertices", double(lv.num_local() - lv.num_owned())},
                        {"scene_vertex_kB", double(scene.rest.memory_bytes() + scene.mass.memory_bytes()) / 1024.0},
                        {"scene_triangles_kB", double(scene.triangles.memory_bytes()) / 1024.0},
                        {"scene_primitives_kB", double(scene.primitive_bytes()) / 1024.0},
                        {"steps", double(summary.steps)},
                        {"step_s", step_s}};
    for (const auto& nv : stepper.rank_totals()) mine.push_back(nv);
    for (const auto& nv : stage_sums) mine.push_back(nv);
    mine.insert(mine.end(), {{"build_s", build_s}, {"check_s", check_s}, {"setup_s", setup_s}});
    mine.insert(mine.end(), memory_phases.begin(), memory_phases.end());
    const double out_s = max_over(comm, output_s);
    const double mb = double(out->bytes_written()) / 1048576.0;
    const NamedValues run = {{"vertices", double(scene.num_vertices)},
                             {"steps", double(summary.steps)},
                             {"iterations", double(newton_iters)},
                             {"frames_written", double(summary.frames_written)},
                             {"step_s", summary.step_seconds},
                             {"build_s", max_over(comm, build_s)},
                             {"check_s", max_over(comm, check_s)},
                             {"setup_s", max_over(comm, setup_s)},
                             {"mesh_write_s", max_over(comm, mesh_s)},
                             {"output_s", out_s},
                             {"output_MB", mb},
                             {"output_MBps", out_s > 0 ? mb / out_s : 0.0},
                             {"finish_s", max_over(comm, finish_s)},
                             {"peak_rss_max_MB", summary.peak_rss_max / 1048576.0}};
    print_rank_summary(comm, mine, run);
  }
  return summary;
}

}  // namespace weft
