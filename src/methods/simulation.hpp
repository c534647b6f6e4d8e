// A whole run: case -> scene -> time steps -> result file, with progress on rank 0.
// Library code: the command line lives in drivers/weft.cpp.
#pragma once
#include <mpi.h>

#include <string>

#include "io/case_spec.hpp"

namespace weft {

struct RunOptions {
  std::string output;    // empty: the case's output.file (or the restart file itself)
  int frames = -1;       // < 0: the case's time.frames
  std::string restart;   // resume from this result file's checkpoint
  bool progress = true;
  // Print the closing per-rank summary (RANK and RUN lines, README "Scaling studies") on
  // rank 0. Independent of `progress`.
  bool rank_summary = false;  // the closing RANK / RUN lines (weft --rank-summary)
};

struct RunSummary {
  std::string output;
  int frames_written = 0;
  double seconds = 0;
  bool all_converged = true;
  std::string solver = "Newton";  // what did not converge, for the warning (Stepper::IterationName)
  long long vertices = 0;        // global vertex count of the scene
  int steps = 0;                 // steps taken by this call
  double step_seconds = 0;       // wall time of those steps (max over ranks)
  double setup_seconds = 0;      // scene build + initial check + local view + stepper (max over ranks)
  long long peak_rss_max = 0;    // VmHWM in bytes, largest over ranks, at the end of the run
};

RunSummary run_simulation(const CaseSpec& spec, const RunOptions& opt, MPI_Comm comm);

}  // namespace weft
