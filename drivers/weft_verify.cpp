// weft-verify OUT.h5 [--json] [--tol-distance T] [--tol-strain T]: independent checks of a
// result file (DESIGN.md "weft-verify"). All logic lives in src/verify.
#include <mpi.h>

#include <iostream>

#include "verify/cli.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rc = weft::verify::run_cli(argc, argv, std::cout, std::cerr, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
