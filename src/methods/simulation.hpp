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
};

struct RunSummary {
  std::string output;
  int frames_written = 0;
  double seconds = 0;
  bool all_converged = true;
};

RunSummary run_simulation(const CaseSpec& spec, const RunOptions& opt, MPI_Comm comm);

}  // namespace weft
