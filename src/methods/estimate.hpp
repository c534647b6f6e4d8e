// Size estimate before a large run (issue 20, `weft --estimate`): short runs of scaled-down
// copies of the case (io/case_scaling.hpp) on the same ranks measure peak memory and time
// per step at two sizes; a line through them predicts both at the case's own size. The
// caller decides whether to start (library code: no command line, no exit).
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "io/case_spec.hpp"

namespace weft {

struct EstimateOptions {
  int steps = 3;                 // steps per trial run
  long long trial_vertices = 0;  // vertices of the larger trial; 0: min(N / 4, 20000 per rank), >= 2000
  long long node_memory = 0;     // bytes a node offers; 0: its MemTotal
};

struct EstimateTrial {
  long long vertices = 0;
  double memory_growth = 0;  // bytes: VmHWM during the trial minus the resident set before it (max over ranks)
  double step_seconds = 0;   // wall seconds per step (max over ranks)
};

struct Estimate {
  std::string name;
  long long vertices = 0;        // the case's vertex count
  int ranks = 1, ranks_per_node = 1;
  double base_memory = 0;        // bytes resident per rank before any scene (libraries, MPI, PETSc)
  double memory_per_rank = 0;    // predicted peak (VmHWM) per rank, bytes
  double step_seconds = 0;       // predicted wall seconds per step
  double node_memory = 0;        // bytes available on a node (MemTotal or the override)
  bool fits = true;              // ranks_per_node x memory_per_rank <= node_memory
  std::vector<EstimateTrial> trials;
  std::string describe() const;  // one line with every figure
};

// Collective; runs the trials (their result files in the temporary folder, removed after).
// InputError when a scaled-down copy cannot be built (e.g. a pin box empty at the coarse size).
Estimate estimate_run(const CaseSpec& spec, const EstimateOptions& opt, MPI_Comm comm);

}  // namespace weft
