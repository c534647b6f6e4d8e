// bench-output: what the ParaView-ready output costs (README "Output"), file size and
// write time per frame, with and without the per-frame fields (velocities, strain_ratio),
// back to back in one run, plus the time to write OUT.xdmf at the end.
//
//   mpirun -n K bench-output [--case CASE.yaml] [--res N] [--frames F] [--repeat R] [-o OUT.md]
//
// Defaults: cases/drape_default.yaml with its cloth at 256 x 256 (65K vertices), 20 frames
// each, 3 repeats alternating the layouts (the machine is shared: report ratios), results in
// bench/results/output.md. The frames written are the initial state, so no simulation runs:
// only ResultFile::write_frame and finish are timed.
#include <mpi.h>
#include <petscsys.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/blas_threads.hpp"
#include "core/error.hpp"
#include "io/case_loader.hpp"
#include "io/result_file.hpp"
#include "io/scene_loader.hpp"
#include "methods/cipc.hpp"
#include "parallel/local_view.hpp"

using namespace weft;
namespace fs = std::filesystem;

namespace {

struct Sample {
  double frame_s = 1e30, finish_s = 1e30;  // best over repeats
  double bytes_per_frame = 0, bytes_mesh = 0;
};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// One file of `frames` frames with the given fields: seconds per frame, finish, sizes.
void write_one(Scene& scene, const LocalView& lv, CipcStepper& stepper, const std::vector<std::string>& fields,
               int frames, const std::string& path, Sample& s, MPI_Comm comm) {
  const CaseSpec& spec = scene.spec;
  scene.spec.output_fields = fields;  // what ResultFile reads: the only thing varied
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  ResultFile out(path, scene, lv);
  MPI_Barrier(comm);
  const double size0 = rank == 0 ? double(fs::file_size(path)) : 0.0;
  double t0 = now();
  for (int f = 0; f < frames; ++f)
    out.write_frame(f * spec.dt, stepper.positions(), stepper.velocities(), {{"newton_iters", 1.0 * f}, {"wall_s", 0.0}});
  MPI_Barrier(comm);
  double t1 = now();
  out.finish();
  MPI_Barrier(comm);
  double t2 = now();
  s.frame_s = std::min(s.frame_s, (t1 - t0) / frames);
  s.finish_s = std::min(s.finish_s, t2 - t1);
  if (rank == 0) {
    s.bytes_mesh = size0;
    s.bytes_per_frame = (double(fs::file_size(path)) - size0) / frames;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  PetscInitialize(&argc, &argv, nullptr, nullptr);
  limit_blas_threads(MPI_COMM_WORLD);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::string case_file = "cases/drape_default.yaml", out_md = "bench/results/output.md";
  int res = 256, frames = 20, repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--case") case_file = argv[i + 1];
    else if (a == "--res") res = std::atoi(argv[i + 1]);
    else if (a == "--frames") frames = std::atoi(argv[i + 1]);
    else if (a == "--repeat") repeat = std::atoi(argv[i + 1]);
    else if (a == "-o") out_md = argv[i + 1];
  }
  int code = 0;
  try {
    const std::string r = std::to_string(res);
    CaseSpec spec = load_case(case_file, {"objects.0.mesh.resolution=[" + r + ", " + r + "]"});
    const std::string dir = (fs::temp_directory_path() / "weft_bench_output").string();
    if (rank == 0) fs::create_directories(dir);
    struct Layout {
      const char* name;
      std::vector<std::string> fields;
      Sample s;
    };
    std::vector<Layout> layouts = {{"positions only (output.fields: [])", {}, {}},
                                   {"+ velocities", {"velocities"}, {}},
                                   {"+ velocities + strain_ratio (default)", {"velocities", "strain_ratio"}, {}}};
    Scene scene = build_scene(spec, ranks);
    LocalView lv = make_local_view(scene, MPI_COMM_WORLD);
    CipcStepper stepper(scene, lv);
    for (int k = 0; k < repeat; ++k)
      for (Layout& l : layouts) write_one(scene, lv, stepper, l.fields, frames, dir + "/out.h5", l.s, MPI_COMM_WORLD);
    if (rank == 0) {
      char date[32];
      const std::time_t t = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&t));
      std::string md;
      char line[512];
      std::snprintf(line, sizeof line,
                    "# Output cost: file size and write time per frame\n\n"
                    "`mpirun -n %d build/bin/bench-output --case %s --res %d --frames %d --repeat %d`, %s, %d rank%s "
                    "(2-core VM, shared: best of %d, layouts alternated).\n"
                    "Scene: %d vertices, %zu triangles, %zu objects. Frames are the initial state (no stepping).\n\n"
                    "| layout | bytes per frame | x positions only | write ms per frame | x positions only | finish (OUT.xdmf) ms |\n"
                    "|---|---:|---:|---:|---:|---:|\n",
                    ranks, case_file.c_str(), res, frames, repeat, date, ranks, ranks > 1 ? "s" : "", repeat,
                    scene.num_vertices, scene.triangles.size(), scene.objects.size());
      md += line;
      const Sample& b = layouts[0].s;
      for (const Layout& l : layouts) {
        std::snprintf(line, sizeof line, "| %s | %.0f | %.2f | %.2f | %.2f | %.1f |\n", l.name, l.s.bytes_per_frame,
                      l.s.bytes_per_frame / b.bytes_per_frame, 1e3 * l.s.frame_s, l.s.frame_s / b.frame_s,
                      1e3 * l.s.finish_s);
        md += line;
      }
      std::snprintf(line, sizeof line,
                    "\nFile before the first frame (/mesh, /view): %.0f bytes. OUT.xdmf is text written once at the end "
                    "(per frame and object: geometry, fields, the per-frame figures as field data).\n",
                    layouts[2].s.bytes_mesh);
      md += line;
      std::fputs(md.c_str(), stdout);
      std::ofstream(out_md, std::ios::app) << md << "\n";
    }
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "bench-output: error: %s\n", e.what());
    code = 2;
  }
  PetscFinalize();
  MPI_Finalize();
  return code;
}
