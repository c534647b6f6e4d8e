// Command line of weft-verify, as library code so tests can drive it in-process.
//   weft-verify OUT.h5 [--json] [--extents] [--tol-distance T] [--tol-strain T]
// Exit codes: 0 all checks pass, 1 a check failed (or the run failed), 2 bad usage or an
// unreadable input file (one line on stderr naming the file and dataset).
#pragma once
#include <mpi.h>

#include <iosfwd>
#include <string>

#include "verify/checks.hpp"

namespace weft::verify {

struct CliArgs {
  std::string file;
  bool json = false;
  bool help = false;
  bool extents = false;  // also print the last frame's per-object extents and pile height
  Options opt;
};

// Throws InputError naming the bad option or value.
CliArgs parse_args(int argc, const char* const* argv);

std::string usage();

// Parses, verifies (frames split over `comm`), prints on rank 0 of `comm`, returns the exit code.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace weft::verify
