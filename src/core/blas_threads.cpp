#include "core/blas_threads.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
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

namespace {
std::atomic<bool> inline_regions{false};  // GOMP_parallel below: call the region's body directly
}  // namespace

bool serialise_openmp() {
  if (std::getenv("OMP_THREAD_LIMIT") || std::getenv("OMP_MAX_ACTIVE_LEVELS")) return false;
  using SetLevels = void (*)(int);
  auto set = reinterpret_cast<SetLevels>(dlsym(RTLD_DEFAULT, "omp_set_max_active_levels"));
  if (!set) return false;
  set(0);  // no parallel region is active: each runs on the thread that meets it
  inline_regions = true;
  return true;
}

bool openmp_regions_inline() { return inline_regions; }

}  // namespace weft

// libgomp's entry point for `#pragma omp parallel` (GCC's ABI, GOMP_4.0), defined here so
// that it takes precedence over libgomp's for every library of the process (the executable
// is searched first; CMakeLists.txt exports the symbol). Even an inactive region (one
// thread) goes through libgomp's team start and end, whose barrier ends in a futex wake
// system call: CHOLMOD's supernodal factorisation opens one to five regions per supernode,
// ~17,000 per factorisation on the soft drape 64^2 (3,507 supernodes), 16 % of its solve
// time (bench/results/newton_split.md, session 34). Once serialise_openmp() has made every
// region run on its calling thread anyway, the body is called directly: outside a team
// omp_get_num_threads() is 1 and omp_get_thread_num() 0, so a worksharing loop in it runs
// every iteration in order, as in a team of one (the same factor, bit for bit). Otherwise
// (the user bounded OpenMP, or no serialisation was asked for) libgomp's own runs it.
extern "C" __attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void*), void* data,
                                                                    unsigned num_threads, unsigned flags) {
  if (weft::inline_regions.load(std::memory_order_relaxed)) {
    fn(data);
    return;
  }
  using Parallel = void (*)(void (*)(void*), void*, unsigned, unsigned);
  static const Parallel runtime = [] {
    void* f = dlvsym(RTLD_NEXT, "GOMP_parallel", "GOMP_4.0");
    return reinterpret_cast<Parallel>(f ? f : dlsym(RTLD_NEXT, "GOMP_parallel"));
  }();
  if (runtime) runtime(fn, data, num_threads, flags);
  else fn(data);  // (no OpenMP runtime loaded: nothing could have been compiled to call it)
}
