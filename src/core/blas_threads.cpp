#include "core/blas_threads.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace weft {

int limit_blas_threads(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 1;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  serialise_openmp();
  if (std::getenv("OPENBLAS_NUM_THREADS") || std::getenv("OMP_NUM_THREADS")) return 0;
  // Looked up at run time: the BLAS behind libblas.so.3 is the system's choice, and only
  // OpenBLAS has this entry point.
  using SetThreads = void (*)(int);
  auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!set) return 0;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int n = std::max(1, cores / std::max(1, on_node));
  set(n);
  return n;
}

bool serialise_openmp() {
  if (std::getenv("OMP_THREAD_LIMIT") || std::getenv("OMP_MAX_ACTIVE_LEVELS")) return false;
  using SetLevels = void (*)(int);
  auto set = reinterpret_cast<SetLevels>(dlsym(RTLD_DEFAULT, "omp_set_max_active_levels"));
  if (!set) return false;
  set(0);  // no parallel region is active: each runs on the thread that meets it
  return true;
}

}  // namespace weft
