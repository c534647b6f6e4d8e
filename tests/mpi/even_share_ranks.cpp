// gather_even_share at 1, 2 and 3 ranks (ctest runs this binary under each): a distributed
// array (entry g held by rank g mod 3 of the first ranks, or by a rank chosen so shares
// cross rank boundaries) arrives in even shares whose union is the whole array in order.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "parallel/even_share.hpp"

using namespace weft;

namespace {
void check_layout(long long whole, int (*holder)(long long g, int ranks)) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<int> index;
  std::vector<double> values;
  for (long long g = 0; g < whole; ++g)
    if (holder(g, ranks) == rank) index.push_back(static_cast<int>(g)), values.push_back(1.5 * g + 0.25);
  long long begin = -1;
  const std::vector<double> share = gather_even_share(index, values, whole, MPI_COMM_WORLD, &begin);
  const auto [lo, hi] = even_share(whole, rank, ranks);
  EXPECT_EQ(begin, lo);
  ASSERT_EQ(static_cast<long long>(share.size()), hi - lo);
  for (long long i = 0; i < hi - lo; ++i) EXPECT_EQ(share[i], 1.5 * (lo + i) + 0.25) << "entry " << lo + i;
  long long total = static_cast<long long>(share.size()), sum = 0;
  MPI_Allreduce(&total, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(sum, whole);
}
}  // namespace

TEST(EvenShare, SharesCoverTheArrayInOrder) {
  for (int ranks = 1; ranks <= 4; ++ranks) {
    long long next = 0;
    for (int r = 0; r < ranks; ++r) {
      const auto [lo, hi] = even_share(10, r, ranks);
      EXPECT_EQ(lo, next);
      EXPECT_LE(hi - lo, 10 / ranks + 1);
      next = hi;
    }
    EXPECT_EQ(next, 10);
  }
}

TEST(EvenShare, InterleavedHolders) {
  check_layout(1001, [](long long g, int ranks) { return static_cast<int>(g % ranks); });
}

TEST(EvenShare, BlockHoldersReversed) {
  // Rank r holds the r-th block from the end: every share comes from another rank.
  check_layout(97, [](long long g, int ranks) { return ranks - 1 - static_cast<int>(g * ranks / 97); });
}

TEST(EvenShare, EmptyArrayAndIdleRanks) {
  check_layout(0, [](long long, int) { return 0; });
  check_layout(2, [](long long, int) { return 0; });  // at 3 ranks one share is empty
}

TEST(EvenShare, RejectsUnsortedIndices) {
  long long begin = 0;
  EXPECT_THROW(gather_even_share({2, 1}, {0.0, 0.0}, 5, MPI_COMM_SELF, &begin), std::invalid_argument);
  EXPECT_THROW(gather_even_share({7}, {0.0}, 5, MPI_COMM_SELF, &begin), std::invalid_argument);
}
