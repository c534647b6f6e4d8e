#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>

#include "core/blas_threads.hpp"

// CHOLMOD's OpenMP regions must run on the calling thread (serialise_openmp): the runtime
// reports no active parallel level allowed, unless the user bounded OpenMP.
TEST(BlasThreads, SerialiseOpenmpLeavesNoActiveLevel) {
  using Get = int (*)();
  auto get = reinterpret_cast<Get>(dlsym(RTLD_DEFAULT, "omp_get_max_active_levels"));
  if (!get) GTEST_SKIP() << "no OpenMP runtime in this process";
  if (std::getenv("OMP_THREAD_LIMIT") || std::getenv("OMP_MAX_ACTIVE_LEVELS")) {
    EXPECT_FALSE(weft::serialise_openmp());
    return;
  }
  EXPECT_TRUE(weft::serialise_openmp());
  EXPECT_EQ(get(), 0);
}

extern "C" void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);

namespace {
struct RegionProbe {
  int level = -1;   // omp_get_level() inside the region: 0 = not in any libgomp team
  int calls = 0;
  int (*get_level)() = nullptr;
};
void probe_body(void* p) {
  auto* r = static_cast<RegionProbe*>(p);
  r->level = r->get_level();
  ++r->calls;
}
}  // namespace

// Once serialised, a parallel region (what `#pragma omp parallel` compiles to, as CHOLMOD's
// are) is a direct call of its body: no libgomp team (level 0), so no team barrier and its
// futex system call per region. With OpenMP bounded by the user, libgomp runs it (level 1).
TEST(BlasThreads, SerialisedRegionsAreDirectCalls) {
  using Get = int (*)();
  RegionProbe r;
  r.get_level = reinterpret_cast<Get>(dlsym(RTLD_DEFAULT, "omp_get_level"));
  if (!r.get_level) GTEST_SKIP() << "no OpenMP runtime in this process";
  const bool serial = weft::serialise_openmp();
  EXPECT_EQ(serial, weft::openmp_regions_inline());
  GOMP_parallel(probe_body, &r, 1, 0);  // (one thread: the probe is not thread-safe)
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.level, serial ? 0 : 1);
}
