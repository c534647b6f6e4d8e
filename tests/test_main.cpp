// One main for every GoogleTest binary: MPI and PETSc are initialised once, so serial
// unit tests and the 1/2/3-rank MPI tests share the same start-up and tear-down.
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscsys.h>
#include "core/blas_threads.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  PetscInitialize(&argc, &argv, nullptr, nullptr);
  weft::limit_blas_threads(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Only rank 0 prints, so a 3-rank run reads like a 1-rank one.
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int rc = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  PetscFinalize();
  return any;
}
