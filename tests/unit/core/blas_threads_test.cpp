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
