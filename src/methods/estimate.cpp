#include "methods/estimate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core/error.hpp"
#include "core/memory_usage.hpp"
#include "io/case_scaling.hpp"
#include "methods/simulation.hpp"

namespace weft {
namespace {

double max_over(MPI_Comm comm, double x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, comm);
  return x;
}

// Value at n of the line through the two trials' (vertices, y); proportional to the larger
// trial when the line would fall with size (timing noise) or the trials have one size.
double extrapolate(const EstimateTrial& a, const EstimateTrial& b, double ya, double yb, double n) {
  if (b.vertices > a.vertices && yb >= ya) return ya + (yb - ya) / double(b.vertices - a.vertices) * (n - a.vertices);
  return yb * n / double(std::max(1LL, b.vertices));
}

}  // namespace

std::string Estimate::describe() const {
  char buf[512];
  const double MB = 1048576.0;
  std::snprintf(buf, sizeof buf,
                "estimate for '%s' at %lld vertices on %d rank%s (%d on this node): peak memory %.0f MB per rank, "
                "%.0f MB on the node of %.0f MB; %.3g s per step (trials of %lld and %lld vertices, %.0f and %.0f MB "
                "growth, %.3g and %.3g s per step)",
                name.c_str(), vertices, ranks, ranks > 1 ? "s" : "", ranks_per_node, memory_per_rank / MB,
                ranks_per_node * memory_per_rank / MB, node_memory / MB, step_seconds,
                trials.empty() ? 0 : trials.front().vertices, trials.empty() ? 0 : trials.back().vertices,
                trials.empty() ? 0 : trials.front().memory_growth / MB, trials.empty() ? 0 : trials.back().memory_growth / MB,
                trials.empty() ? 0 : trials.front().step_seconds, trials.empty() ? 0 : trials.back().step_seconds);
  return buf;
}

Estimate estimate_run(const CaseSpec& spec, const EstimateOptions& opt, MPI_Comm comm) {
  Estimate e;
  e.name = spec.name;
  int rank = 0;
  MPI_Comm_size(comm, &e.ranks);
  MPI_Comm_rank(comm, &rank);
  {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &e.ranks_per_node);
    MPI_Comm_free(&node);
  }
  // The case's size from its meshes alone (rank 0; a mesh is small beside a scene).
  long long n = 0;
  if (rank == 0) n = count_case_vertices(spec);
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
  e.vertices = n;
  long long big = opt.trial_vertices > 0 ? opt.trial_vertices : std::max(2000LL, std::min(n / 4, 20000LL * e.ranks));
  big = std::min(big, n);
  const double f_big = double(big) / double(std::max(1LL, n)), f_small = f_big / 4;

  // One scratch file name for all ranks (the result file is written collectively).
  char path[4096] = {};
  if (rank == 0) {
    const auto p = std::filesystem::temp_directory_path() / ("weft-estimate-" + std::to_string(getpid()) + ".h5");
    std::snprintf(path, sizeof path, "%s", p.c_str());
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, comm);

  auto trial = [&](double f) {
    CaseSpec c = f >= 1.0 ? spec : scaled_case(spec, f);
    RunOptions ro;
    ro.output = path;
    ro.frames = opt.steps;
    ro.progress = false;
    ro.rank_summary = false;
    MPI_Barrier(comm);
    reset_peak_rss();
    const double rss0 = static_cast<double>(current_rss_bytes());
    RunSummary s;
    try {
      s = run_simulation(c, ro, comm);
    } catch (const InputError& err) {
      throw InputError(std::string("estimate: the scaled-down trial run failed: ") + err.what());
    }
    EstimateTrial t;
    t.vertices = s.vertices;
    t.memory_growth = max_over(comm, static_cast<double>(peak_rss_bytes()) - rss0);
    t.step_seconds = s.steps > 0 ? s.step_seconds / s.steps : 0.0;
    return t;
  };
  // A first small run loads what the libraries load lazily (solver packages, HDF5), which
  // a real run holds too: the base is the resident set after it, the trials grow from there.
  trial(f_small);
  MPI_Barrier(comm);
  reset_peak_rss();
  e.base_memory = max_over(comm, static_cast<double>(current_rss_bytes()));
  e.trials.push_back(trial(f_small));
  e.trials.push_back(trial(f_big));
  if (rank == 0) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    std::filesystem::remove(std::filesystem::path(path).replace_extension(".xdmf"), ec);
  }
  const EstimateTrial &a = e.trials[0], &b = e.trials[1];
  e.memory_per_rank = e.base_memory + extrapolate(a, b, a.memory_growth, b.memory_growth, double(n));
  e.step_seconds = extrapolate(a, b, a.step_seconds, b.step_seconds, double(n));
  e.node_memory = opt.node_memory > 0 ? double(opt.node_memory) : double(node_memory_bytes());
  e.fits = e.node_memory <= 0 || e.ranks_per_node * e.memory_per_rank <= e.node_memory;
  return e;
}

}  // namespace weft
