// Recursive coordinate bisection (partition/coordinate_bisection.hpp): exact parts for
// hand-made point sets, balance, compactness and determinism.
#include <gtest/gtest.h>

#include <random>

#include "partition/coordinate_bisection.hpp"

using namespace weft;

TEST(CoordinateBisection, CutsTheLongestAxisAtTheMedian) {
  // Ten points on a line along z (the longest axis), shuffled: 2 parts = the lower five
  // and the upper five.
  std::vector<Vec3> p;
  for (int i : {7, 2, 9, 0, 4, 1, 8, 3, 6, 5}) p.push_back(Vec3(0.01 * (i % 2), 0, i));
  const std::vector<int> part = partition_coordinates(p, 2);
  for (size_t k = 0; k < p.size(); ++k) EXPECT_EQ(part[k], p[k].z() < 5 ? 0 : 1) << "z = " << p[k].z();
  // Three parts of a 3 x 1 x 1 row of 9 points: thirds (1 part, then 2 for the rest).
  std::vector<Vec3> q;
  for (int i = 0; i < 9; ++i) q.push_back(Vec3(i, 0, 0));
  EXPECT_EQ(partition_coordinates(q, 3), (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2}));
}

TEST(CoordinateBisection, BlockInFourIsFourCompactQuadrants) {
  std::vector<Vec3> p;
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 6; ++k) p.push_back(Vec3(i, 0.5, k));
  const std::vector<int> part = partition_coordinates(p, 4);
  std::vector<int> size(4, 0);
  for (size_t n = 0; n < p.size(); ++n) {
    ++size[part[n]];
    // x is cut first (8 > 6), then each half along z.
    const int want = (p[n].x() < 4 ? 0 : 2) + (p[n].z() < 3 ? 0 : 1);
    EXPECT_EQ(part[n], want) << p[n].transpose();
  }
  EXPECT_EQ(size, (std::vector<int>{12, 12, 12, 12}));
}

TEST(CoordinateBisection, WeightsBalanceAndZeroWeightsFollowTheirCoordinate) {
  // Weight 3 on the first two points of a row of 8 unit-spaced points: total 12, half 6.
  std::vector<Vec3> p;
  std::vector<double> w;
  for (int i = 0; i < 8; ++i) p.push_back(Vec3(i, 0, 0)), w.push_back(i < 2 ? 3.0 : 1.0);
  EXPECT_EQ(partition_coordinates(p, 2, &w), (std::vector<int>{0, 0, 1, 1, 1, 1, 1, 1}));
  w.assign(8, 0.0);
  w[7] = 1.0, w[0] = 1.0;
  const std::vector<int> part = partition_coordinates(p, 2, &w);
  EXPECT_EQ(part.front(), 0);
  EXPECT_EQ(part.back(), 1);
}

TEST(CoordinateBisection, BalancedDeterministicAndNoEmptyPart) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Vec3> p(1001);
  for (Vec3& x : p) x = Vec3(u(rng), 3 * u(rng), u(rng));
  for (int parts : {1, 2, 3, 5, 7, 16}) {
    const std::vector<int> a = partition_coordinates(p, parts), b = partition_coordinates(p, parts);
    EXPECT_EQ(a, b);
    std::vector<int> size(parts, 0);
    for (int x : a) ++size[x];
    const int lo = *std::min_element(size.begin(), size.end()), hi = *std::max_element(size.begin(), size.end());
    EXPECT_GE(lo, int(p.size()) / parts - parts) << parts;
    EXPECT_LE(hi, int(p.size()) / parts + parts) << parts;
  }
  // Fewer points than parts: each point its own part, the rest empty.
  const std::vector<int> few = partition_coordinates({Vec3(0, 0, 0), Vec3(1, 0, 0)}, 4);
  EXPECT_NE(few[0], few[1]);
}
