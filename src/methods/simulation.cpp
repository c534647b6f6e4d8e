#include "methods/simulation.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "io/progress.hpp"
#include "io/result_file.hpp"
#include "io/scene_loader.hpp"
#include "methods/stepper.hpp"
#include "parallel/local_view.hpp"
#include "verify/checks.hpp"

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
    for (int l = 0; l < lv.num_local(); ++l) {
      const int input = scene.input_of_solver[lv.global_of_local(l)];
      for (int d = 0; d < 3; ++d) a[3 * l + d] = (*src)[3 * input + d];
    }
    VecRestoreArray(local, &a);
    VecGhostRestoreLocalForm(vec, &local);
  }
  try {
    stepper.load(c.arrays);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
}

// The start must be intersection-free and every pair at least its offset apart: the
// barrier method can only keep a state feasible, not repair one. Checked with the same
// independent predicates weft-verify uses.
void check_initial_configuration(const Scene& scene) {
  verify::ResultMesh mesh;
  mesh.rest = scene.rest;
  mesh.triangles = scene.triangles;
  for (size_t t = 0; t < scene.triangles.size(); ++t) {
    mesh.triangle_offset.push_back(scene.objects[scene.triangle_object[t]].offset);
    mesh.strain_limit.push_back(0.0);
  }
  mesh.segments = scene.segments;
  for (int o : scene.segment_object) mesh.segment_offset.push_back(scene.objects[o].offset);
  mesh.points = scene.points;
  mesh.stitches = scene.stitches;  // a seam may start closed: its pairs are one vertex
  for (int o : scene.point_object) mesh.point_offset.push_back(scene.objects[o].offset);
  verify::FrameChecker checker(mesh, verify::Options{});
  verify::Stats st;
  checker.check(0, scene.rest, st);
  auto describe = [&](const verify::PairRef& p) {
    auto one = [&](int kind, long i) {
      const std::vector<int>& of = kind == verify::kSegment ? scene.segment_object
                                   : kind == verify::kPoint ? scene.point_object : scene.triangle_object;
      return std::string(verify::kind_name(kind)) + " " + std::to_string(i) + " of '" + scene.objects[of[i]].name + "'";
    };
    return one(p.kind_a, p.a) + " and " + one(p.kind_b, p.b);
  };
  if (st.intersections > 0)
    throw InputError(scene.spec.path + ": the initial configuration intersects itself (" +
                     std::to_string(st.intersections) + " pairs, e.g. " + describe(st.intersection_pair) + ")");
  if (st.distance_violations > 0)
    throw InputError(scene.spec.path + ": at t = 0, " + describe(st.distance_pair) +
                     " are closer than their thickness offset");
}

}  // namespace

RunSummary run_simulation(const CaseSpec& spec, const RunOptions& opt, MPI_Comm comm) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  const int frames = opt.frames >= 0 ? opt.frames : spec.frames;
  const int every = std::max(1, spec.output_every), cp_every = std::max(1, spec.checkpoint_every);

  Scene scene = build_scene(spec, ranks);
  if (opt.restart.empty()) check_initial_configuration(scene);
  LocalView lv = make_local_view(scene, comm);
  std::unique_ptr<Stepper> stepper_ptr = make_stepper(scene, lv);
  Stepper& stepper = *stepper_ptr;

  RunSummary summary;
  int first_step = 1;
  std::unique_ptr<ResultFile> out;
  if (!opt.restart.empty()) {
    Checkpoint c = read_checkpoint(opt.restart, scene, comm);
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
    out = std::make_unique<ResultFile>(summary.output, scene, lv);
    NamedValues stats0 = stepper.start_stats();
    stats0.emplace_back("wall_s", 0.0);
    out->write_frame(0.0, stepper.positions(), stepper.velocities(), stats0);
    out->write_checkpoint(0, 0.0, stepper.positions(), stepper.velocities(), stepper.save());
    if (rank == 0 && opt.progress)
      std::printf("weft: '%s' on %d rank%s: %d vertices, %zu triangles, %zu hinges, %d steps of %g s, %s\n",
                  spec.name.c_str(), ranks, ranks > 1 ? "s" : "", scene.num_vertices, scene.triangles.size(),
                  static_cast<size_t>(scene.count_stencils("hinge_bending")), frames, spec.dt, stepper.describe().c_str());
  }

  Progress progress(opt.progress ? rank : -1, first_step, frames);
  for (int s = first_step; s <= frames; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    const double t = (s - 1) * spec.dt;  // t = s dt exactly, never an accumulated sum
    StepReport st = stepper.step(t);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    summary.all_converged = summary.all_converged && st.converged;
    if (s % every == 0) {
      st.stats.emplace_back("wall_s", wall);
      out->write_frame(s * spec.dt, stepper.positions(), stepper.velocities(), st.stats);
    }
    if (s % cp_every == 0 || s == frames)
      out->write_checkpoint(s, s * spec.dt, stepper.positions(), stepper.velocities(), stepper.save());
    progress.frame_done(s, st.iterations, st.max_strain, wall, st.converged ? "" : "(not converged)");
  }
  out->finish();
  summary.frames_written = out->frames();
  summary.seconds = progress.elapsed();
  progress.summary(summary.output, summary.frames_written);
  return summary;
}

}  // namespace weft
