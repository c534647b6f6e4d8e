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
// OpenBLAS). Collective on comm. Also calls serialise_openmp().
int limit_blas_threads(MPI_Comm comm);

// CHOLMOD's supernodal factorisation (SuiteSparse 5, built with OpenMP) runs its scatter
// and zeroing loops with a hard-coded num_threads(4), which OMP_NUM_THREADS does not bound:
// four threads per rank that mostly spin-wait between the short loops (soft drape 64^2, one
// rank: 20 % of the process's CPU time in libgomp and futex waits, bench/results/
// newton_split.md). These loops only move data, so one thread gives the same factor bit for
// bit. Unless the user bounds OpenMP (OMP_THREAD_LIMIT or OMP_MAX_ACTIVE_LEVELS set),
// makes every OpenMP parallel region of the process run on its calling thread
// (omp_set_max_active_levels(0), looked up at run time: nothing happens without an OpenMP
// runtime). Returns whether it did.
bool serialise_openmp();

// Whether OpenMP parallel regions now run as a direct call of their body (after
// serialise_openmp(); see GOMP_parallel in blas_threads.cpp).
bool openmp_regions_inline();

}  // namespace weft
