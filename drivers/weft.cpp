// weft CASE.yaml [-o OUT.h5] [--frames N] [--set key.path=value]... [--restart OUT.h5]
//      [--estimate | --estimate-only] [--node-memory SIZE] [--rank-summary] [PETSc options]
// Thin: parse the command line, hand everything else to the library.
#include <petscsys.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/case_loader.hpp"
#include "methods/simulation.hpp"
#include "core/blas_threads.hpp"
#include "core/memory_usage.hpp"
#include "methods/estimate.hpp"

namespace {

const char* kUsage =
    "usage: weft CASE.yaml [-o OUT.h5] [--frames N] [--set key.path=value]... [--restart OUT.h5]\n"
    "            [--estimate | --estimate-only] [--node-memory SIZE] [--rank-summary] [PETSc options]";

// --help: the usage line, then one line per option (the case-file keys are in README.md).
const char* kHelp =
    "  Runs the case and writes OUT.h5 (open OUT.xdmf beside it in ParaView); run under\n"
    "  mpirun -n R for R ranks. Exit 0 = done, 2 = bad input (one line naming file and key).\n"
    "  -o, --output OUT.h5    result file (default: the case's output.file)\n"
    "  --frames N             stop after N steps instead of the case's time.frames (0: build,\n"
    "                         check and write frame 0 only)\n"
    "  --set key.path=value   override one case-file key, e.g. --set solver.newton_tol=1e-3,\n"
    "                         --set 'objects.0.mesh.resolution=[128,128]' (repeatable)\n"
    "  --restart OUT.h5       continue a run from the last checkpoint in OUT.h5 (into -o, or\n"
    "                         into OUT.h5 itself when -o is not given)\n"
    "  --estimate             predict memory per rank and time per step from a short run of a\n"
    "                         scaled-down copy, refuse to start when a rank would not fit\n"
    "  --estimate-only        print the estimate and stop\n"
    "  --node-memory SIZE     memory of one node for --estimate, e.g. 64G (default: this one's)\n"
    "  --rank-summary         per-rank lines (memory, ownership, halo, stage seconds) at the end\n"
    "  -h, --help             this text\n"
    "  PETSc options          any single-dash option goes to PETSc: -ksp_type, -pc_type,\n"
    "                         -ksp_monitor, -log_view, ... (README.md, \"Executables\")";

struct Args {
  std::string case_file;
  std::vector<std::string> overrides;
  weft::RunOptions run;
  bool estimate = false, estimate_only = false;
  weft::EstimateOptions est;
  std::vector<char*> petsc_argv;
};

// "24G", "512M", "1.5e9": bytes, with an optional binary K/M/G/T suffix.
long long parse_size(const std::string& v) {
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  std::string suf = end ? end : "";
  double mult = 1;
  if (suf == "K" || suf == "k") mult = 1024.0;
  else if (suf == "M") mult = 1048576.0;
  else if (suf == "G") mult = 1073741824.0;
  else if (suf == "T") mult = 1099511627776.0;
  else if (!suf.empty()) x = -1;
  if (end == v.c_str() || !(x > 0))
    throw weft::InputError("--node-memory: expected a size > 0 in bytes with an optional K, M, G or T suffix, got '" + v + "'");
  return static_cast<long long>(x * mult);
}

// weft's own options are recognised here; any other single-dash option (and the value
// after it) belongs to PETSc. An unknown double-dash option is an input error.
Args parse(int argc, char** argv) {
  Args a;
  a.petsc_argv.push_back(argv[0]);
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw weft::InputError(std::string("option ") + argv[i] + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "-o" || s == "--output") {
      a.run.output = value(i);
    } else if (s == "--frames") {
      const std::string v = value(i);
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n < 0) throw weft::InputError("--frames: expected a non-negative integer, got '" + v + "'");
      a.run.frames = static_cast<int>(n);
    } else if (s == "--set") {
      a.overrides.push_back(value(i));
    } else if (s == "--restart") {
      a.run.restart = value(i);
    } else if (s == "--rank-summary") {
      a.run.rank_summary = true;
    } else if (s == "--estimate") {
      a.estimate = true;
    } else if (s == "--estimate-only") {
      a.estimate = a.estimate_only = true;
    } else if (s == "--node-memory") {
      a.est.node_memory = parse_size(value(i));
    } else if (s == "-h" || s == "--help") {
      std::printf("%s\n%s\n", kUsage, kHelp);
      std::exit(0);
    } else if (s.rfind("--", 0) == 0) {
      throw weft::InputError("unknown option '" + s + "'");
    } else if (s.size() > 1 && s[0] == '-') {
      a.petsc_argv.push_back(argv[i]);
      if (i + 1 < argc && argv[i + 1][0] != '-') a.petsc_argv.push_back(argv[++i]);
    } else if (a.case_file.empty()) {
      a.case_file = s;
    } else {
      throw weft::InputError("unexpected argument '" + s + "' (one case file only)");
    }
  }
  if (a.case_file.empty()) throw weft::InputError("no case file given");
  if (a.est.node_memory > 0 && !a.estimate) throw weft::InputError("--node-memory needs --estimate or --estimate-only");
  if (a.estimate && !a.run.restart.empty()) throw weft::InputError("--estimate does not combine with --restart");
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  Args args;
  try {
    args = parse(argc, argv);
  } catch (const weft::InputError& e) {
    if (rank == 0) std::fprintf(stderr, "weft: error: %s\n%s\n", e.what(), kUsage);
    MPI_Finalize();
    return 2;
  }
  int pargc = static_cast<int>(args.petsc_argv.size());
  args.petsc_argv.push_back(nullptr);
  char** pargv = args.petsc_argv.data();
  PetscInitialize(&pargc, &pargv, nullptr, nullptr);
  weft::limit_blas_threads(MPI_COMM_WORLD);
  try {
    weft::CaseSpec spec = weft::load_case(args.case_file, args.overrides);
    if (args.estimate) {
      const weft::Estimate e = weft::estimate_run(spec, args.est, MPI_COMM_WORLD);
      if (!e.fits) throw weft::InputError(spec.path + ": refusing to start, not enough memory: " + e.describe());
      if (rank == 0) std::printf("weft: %s\n", e.describe().c_str());
      std::fflush(stdout);
      if (args.estimate_only) {
        PetscFinalize();
        MPI_Finalize();
        return 0;
      }
      weft::reset_peak_rss();  // the run's VmHWM is its own, not the trials'
    }
    weft::RunSummary s = weft::run_simulation(spec, args.run, MPI_COMM_WORLD);
    if (!s.all_converged && rank == 0)
      std::fprintf(stderr, "weft: warning: some steps ended before %s converged (see /frames/stats/converged)\n",
                   s.solver.c_str());
  } catch (const weft::InputError& e) {
    if (rank == 0) std::fprintf(stderr, "weft: error: %s\n", e.what());
    code = 2;
  } catch (const std::exception& e) {
    // A runtime failure on one rank may leave the others waiting in a collective.
    std::fprintf(stderr, "weft: failed: %s\n", e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  PetscFinalize();
  MPI_Finalize();
  return code;
}
