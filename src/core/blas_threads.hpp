// BLAS threads per MPI rank. OpenBLAS (under MUMPS's and CHOLMOD's dense kernels) starts
// one thread per core in every process; with several ranks on a node they then contend for
// the same cores, and the factorisation slows down (drape_default 64^2, 2 ranks on 2 cores:
// Solve 90 ms per Newton iteration with 2 threads per rank against 53 ms with 1).
#pragma once
#include <mpi.h>

namespace weft {

// Unless the user chose (OPENBLAS_NUM_THREADS or OMP_NUM_THREADS set in the environment),
// gives OpenBLAS cores / (ranks on this node) threads in this process, at least 1. Returns
// the count set, or 0 when nothing was changed (the user's setting, or a BLAS other than
// OpenBLAS). Collective on comm.
int limit_blas_threads(MPI_Comm comm);

}  // namespace weft
