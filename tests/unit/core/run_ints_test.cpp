// RunInts: every element reads back as pushed or converted, in the run form and in the
// plain form it falls back to when runs would take more memory; runs are what they save.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "core/run_ints.hpp"

using weft::RunInts;

namespace {

template <class R>
void expect_reads(const R& r, const std::vector<int>& want) {
  ASSERT_EQ(r.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(r[static_cast<int>(i)], want[i]) << "at " << i;
  EXPECT_EQ(r.to_vector(), want);
  EXPECT_TRUE(r == want);
}

}  // namespace

TEST(RunInts, PushedValuesReadBackAsRuns) {
  const std::vector<int> want = {-1, -1, 0, 0, 0, 2, 2, -1, 0, 0, 0, 0};
  RunInts r;
  for (int v : want) r.push_back(v);
  r.compact();
  expect_reads(r, want);
  EXPECT_EQ(r.runs(), 5u);  // -1 | 0 | 2 | -1 | 0
  // The three-object case of a rank block: runs, not elements.
  RunInts big;
  for (int rank = 0; rank < 4; ++rank)
    for (int o = 0; o < 3; ++o)
      for (int k = 0; k < 1000; ++k) big.push_back(o);
  big.compact();
  EXPECT_EQ(big.size(), 12000u);
  EXPECT_EQ(big.runs(), 12u);
  EXPECT_EQ(big[0], 0);
  EXPECT_EQ(big[999], 0);
  EXPECT_EQ(big[1000], 1);
  EXPECT_EQ(big[2999], 2);
  EXPECT_EQ(big[3000], 0);
  EXPECT_EQ(big[11999], 2);
}

TEST(RunInts, InterleavedValuesStayPlain) {
  std::mt19937 rng(7);
  std::vector<int> want(1000);
  for (int& v : want) v = static_cast<int>(rng() % 3) - 1;  // runs of ~1.5: more than half the elements
  const RunInts r = want;
  EXPECT_EQ(r.runs(), 0u);  // plain
  expect_reads(r, want);
  // A push on the plain form goes back to runs and keeps every element.
  RunInts s = r;
  s.push_back(5);
  want.push_back(5);
  expect_reads(s, want);
  EXPECT_GT(s.runs(), 0u);
}

TEST(RunInts, ConversionsAssignAndEmpty) {
  const RunInts e;
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.size(), 0u);
  EXPECT_TRUE(e == std::vector<int>{});
  const RunInts l = {3, 3, 4};
  expect_reads(l, {3, 3, 4});
  RunInts a = l;
  a.assign(5, -1);
  expect_reads(a, {-1, -1, -1, -1, -1});
  EXPECT_EQ(a.runs(), 1u);
  a.assign(0, 2);
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(RunInts({1, 2}) == RunInts(std::vector<int>{1, 2}));
  EXPECT_FALSE(RunInts({1, 2}) == RunInts({1, 1}));
}

TEST(IdRuns, ConsecutiveValuesAreOneRun) {
  // A 3-rank solver -> input map: each block ascending input ids, in runs of consecutive ids.
  const std::vector<int> input_of_solver = {0, 1, 2, 6, 7, 3, 4, 5, 8, 9, 10, 11};
  const weft::IdRuns r = input_of_solver;
  expect_reads(r, input_of_solver);
  EXPECT_EQ(r.runs(), 4u);  // 0-2 | 6-7 | 3-5 | 8-11
  std::vector<int> identity(5000);
  for (int i = 0; i < 5000; ++i) identity[i] = i;
  const weft::IdRuns id = identity;
  EXPECT_EQ(id.runs(), 1u);
  expect_reads(id, identity);
  // A run of equal values is not consecutive: one run per element, so kept plain.
  const weft::IdRuns flat = std::vector<int>(6, 3);
  EXPECT_EQ(flat.runs(), 0u);
  expect_reads(flat, std::vector<int>(6, 3));
  weft::IdRuns pushed;
  for (int v : input_of_solver) pushed.push_back(v);
  expect_reads(pushed, input_of_solver);
}

TEST(IdRuns, CursorReadsAsIndexingDoes) {
  // Runs of consecutive ids and a plain fallback; reads ascending (a scan), jumping ahead
  // (a galloping search) and going back.
  std::vector<int> runs, plain;
  for (int b = 0; b < 50; ++b)
    for (int k = 0; k < 7 + b % 5; ++k) runs.push_back(1000 * b + k);
  for (int i = 0; i < 200; ++i) plain.push_back((i * 37) % 101);
  for (const std::vector<int>* want : {&runs, &plain}) {
    const weft::IdRuns r = *want;
    weft::IdRuns::Cursor c(r);
    const int n = static_cast<int>(want->size());
    for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], (*want)[i]) << i;
    for (int i = 0; i < n; i += 13) ASSERT_EQ(c[i], (*want)[i]) << i;
    for (int i = n - 1; i >= 0; i -= 5) ASSERT_EQ(c[i], (*want)[i]) << i;
  }
}

TEST(IdRuns, AppendedRunsAndMembershipOfAscendingIds) {
  // An ascending id list (a collision surface's rod nodes and particles) built from runs
  // (as gathered from ranks' blocks), read back run by run, and its membership test against
  // the plain list: ids inside, at both ends of, between and beyond the runs; the plain
  // fallback answers the same.
  weft::IdRuns r;
  r.append(3, 10);  // 10 11 12
  r.append(0, 99);  // (nothing)
  r.append(2, 13);  // continues: 13 14
  r.append(1, 20);  // 20
  r.append(4, 40);  // 40..43
  const std::vector<int> want = {10, 11, 12, 13, 14, 20, 40, 41, 42, 43};
  expect_reads(r, want);
  EXPECT_EQ(r.runs(), 3u);
  std::vector<std::array<int, 3>> seen;
  r.for_each_run([&](int first, int count, int value) { seen.push_back({first, count, value}); });
  EXPECT_EQ(seen, (std::vector<std::array<int, 3>>{{0, 5, 10}, {5, 1, 20}, {6, 4, 40}}));
  std::vector<int> scattered;  // more runs than half its size: kept plain
  for (int i = 0; i < 40; ++i) scattered.push_back(3 * i + (i % 2));
  weft::IdRuns plain = scattered;
  EXPECT_EQ(plain.runs(), 0u);
  const std::vector<int>* lists[] = {&want, &scattered};
  for (const std::vector<int>* list : lists) {
    const weft::IdRuns& ids = list == &want ? r : plain;
    for (int x = -2; x < 130; ++x)
      EXPECT_EQ(ids.contains(x), std::binary_search(list->begin(), list->end(), x)) << x;
  }
  EXPECT_FALSE(weft::IdRuns().contains(0));
}
