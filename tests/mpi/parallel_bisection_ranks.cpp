// Recursive coordinate bisection over points shared out between the ranks
// (partition/parallel_bisection.hpp) at 1, 2 and 3 ranks: exactly the serial
// partition_coordinates's parts of the whole set, whichever rank holds which point, for
// random clouds, lattices full of equal coordinates, zero and integer weights, no weight
// at all, more parts than points, and a rank holding nothing.
#include <gtest/gtest.h>
#include <mpi.h>

#include <random>
#include <vector>

#include "partition/coordinate_bisection.hpp"
#include "partition/parallel_bisection.hpp"

namespace {

using weft::Vec3;

struct Cloud {
  std::vector<Vec3> points;
  std::vector<double> weights;
};

// Every rank takes the points `owner` gives it, runs the parallel bisection, and the
// answers are gathered back into whole-set order.
std::vector<int> parallel_parts(const Cloud& c, int parts, bool weighted, int (*owner)(int index, int ranks)) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<Vec3> p;
  std::vector<long long> index;
  std::vector<double> w;
  for (int i = 0; i < static_cast<int>(c.points.size()); ++i)
    if (owner(i, ranks) == rank) p.push_back(c.points[i]), index.push_back(i), w.push_back(c.weights[i]);
  const std::vector<int> mine = weft::partition_coordinates_parallel(p, index, parts, weighted ? &w : nullptr,
                                                                     MPI_COMM_WORLD);
  EXPECT_EQ(mine.size(), p.size());
  std::vector<int> whole(c.points.size(), -1);
  for (size_t k = 0; k < index.size(); ++k) whole[index[k]] = mine[k];
  MPI_Allreduce(MPI_IN_PLACE, whole.data(), static_cast<int>(whole.size()), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return whole;
}

int scattered(int i, int ranks) { return static_cast<int>((static_cast<unsigned>(i) * 2654435761u >> 7) % ranks); }
int in_blocks(int i, int ranks) { return (i / 7) % ranks; }
int all_on_last(int, int ranks) { return ranks - 1; }  // (the other ranks hold nothing)

void expect_serial_parts(const Cloud& c, const char* what) {
  for (int parts : {1, 2, 3, 4, 5, 7})
    for (bool weighted : {false, true})
      for (auto owner : {&scattered, &in_blocks, &all_on_last}) {
        const std::vector<int> want = weft::partition_coordinates(c.points, parts, weighted ? &c.weights : nullptr);
        EXPECT_EQ(parallel_parts(c, parts, weighted, owner), want)
            << what << ", " << parts << " parts" << (weighted ? ", weighted" : "");
      }
}

TEST(ParallelBisection, RandomCloudGivesTheSerialParts) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Cloud c;
  for (int i = 0; i < 500; ++i) {
    c.points.emplace_back(2.0 * u(rng), u(rng), 0.5 * u(rng));
    c.weights.push_back(static_cast<double>(rng() % 4));  // 0 (kinematic) to 3
  }
  expect_serial_parts(c, "random cloud");
}

TEST(ParallelBisection, EqualCoordinatesAreOrderedByIndex) {
  // A lattice: every coordinate is shared by many points, so every cut falls among equal
  // coordinates and is decided by the index; -0 and +0 are one coordinate.
  Cloud c;
  for (int k = 0; k < 5; ++k)
    for (int j = 0; j < 6; ++j)
      for (int i = 0; i < 4; ++i) {
        c.points.emplace_back(i == 0 && (j + k) % 2 ? -0.0 : 1.0 * i, 0.2 * j, 0.25 * k);
        c.weights.push_back((i + j + k) % 3 == 0 ? 0.0 : 1.0);
      }
  expect_serial_parts(c, "lattice");
  // Every point at one place: index order alone.
  Cloud same;
  for (int i = 0; i < 40; ++i) same.points.emplace_back(1.0, -2.0, 3.0), same.weights.push_back(1.0);
  expect_serial_parts(same, "one place");
}

TEST(ParallelBisection, ZeroWeightsFewPointsAndEmptyRanks) {
  Cloud zero;  // no weight anywhere: cut by count
  for (int i = 0; i < 31; ++i) zero.points.emplace_back(0.1 * ((i * 7) % 31), 0.0, 0.0), zero.weights.push_back(0.0);
  expect_serial_parts(zero, "all weights zero");
  Cloud few;  // fewer points than parts
  for (int i = 0; i < 3; ++i) few.points.emplace_back(i, 0.0, -i), few.weights.push_back(1.0);
  expect_serial_parts(few, "three points");
  Cloud none;
  expect_serial_parts(none, "no point");
}

}  // namespace
