// Constraint colouring: valid (no shared dynamic vertex within a colour), deterministic,
// identical under any vertex partition / owner map / vertex renumbering when constraints
// keep their global numbers, and the colour counts of structured grids.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "constraints/colouring.hpp"

namespace weft {
namespace {

// An n x n vertex grid, cells split by a diagonal: its unique edges in mesh order (row-major,
// horizontal, vertical, diagonal per vertex), optionally without the diagonals.
ConstraintStencils grid_edges(int n, bool diagonals) {
  ConstraintStencils s;
  auto id = [n](int i, int j) { return i * n + j; };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (j + 1 < n) s.add({id(i, j), id(i, j + 1)});
      if (i + 1 < n) s.add({id(i, j), id(i + 1, j)});
      if (diagonals && i + 1 < n && j + 1 < n) s.add({id(i, j), id(i + 1, j + 1)});
    }
  return s;
}

// The bending hinges of the same triangulated grid: (edge, wing, wing) for each interior edge.
ConstraintStencils grid_hinges(int n) {
  ConstraintStencils s;
  auto id = [n](int i, int j) { return i * n + j; };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      // horizontal edge (i,j)-(i,j+1): triangles above (i+1,j+1) and below (i-1,j)
      if (j + 1 < n && i > 0 && i + 1 < n) s.add({id(i, j), id(i, j + 1), id(i + 1, j + 1), id(i - 1, j)});
      // vertical edge (i,j)-(i+1,j): wings (i+1,j+1) and (i,j-1)
      if (i + 1 < n && j > 0 && j + 1 < n) s.add({id(i, j), id(i + 1, j), id(i, j - 1), id(i + 1, j + 1)});
      // diagonal (i,j)-(i+1,j+1): wings (i,j+1) and (i+1,j)
      if (i + 1 < n && j + 1 < n) s.add({id(i, j), id(i + 1, j + 1), id(i, j + 1), id(i + 1, j)});
    }
  return s;
}

TEST(Colouring, HandMadePath) {
  // a-b, b-c, c-d, d-e in index order: 0 1 0 1; with b pinned the first two no longer conflict.
  ConstraintStencils s;
  s.add({0, 1});
  s.add({1, 2});
  s.add({2, 3});
  s.add({3, 4});
  std::vector<char> dyn(5, 1);
  EXPECT_EQ(colour_constraints(s, dyn, ColourPriority::Index), (std::vector<int>{0, 1, 0, 1}));
  dyn[1] = 0;
  EXPECT_EQ(colour_constraints(s, dyn, ColourPriority::Index), (std::vector<int>{0, 0, 1, 0}));
  EXPECT_EQ(colour_count(colour_constraints(ConstraintStencils{}, {}, ColourPriority::Hash)), 0);
}

TEST(Colouring, PinnedVerticesDoNotConflict) {
  // A star of 12 edges around a pinned centre: one colour. Unpinned: 12.
  ConstraintStencils s;
  for (int k = 1; k <= 12; ++k) s.add({0, k});
  std::vector<char> dyn(13, 1);
  EXPECT_EQ(colour_count(colour_constraints(s, dyn, ColourPriority::Hash)), 12);
  dyn[0] = 0;
  const std::vector<int> c = colour_constraints(s, dyn, ColourPriority::Hash);
  EXPECT_EQ(colour_count(c), 1);
  EXPECT_TRUE(colouring_is_valid(s, dyn, c));
  // The validity check itself fails on a clash.
  dyn[0] = 1;
  EXPECT_FALSE(colouring_is_valid(s, dyn, c));
}

TEST(Colouring, GridValidDeterministicAndCounts) {
  const int n = 64;
  const std::vector<char> dyn(n * n, 1);
  struct Case {
    const char* name;
    ConstraintStencils s;
    int lower;  // a clique bound: all constraints at one vertex conflict pairwise
    int upper;  // greedy bound: 1 + max conflicts of one constraint
  };
  const std::vector<Case> cases = {{"quad-grid edges", grid_edges(n, false), 4, 7},
                                   {"triangle-grid edges", grid_edges(n, true), 6, 11},
                                   {"triangle-grid hinges", grid_hinges(n), 10, 40}};
  for (const Case& cs : cases) {
    for (ColourPriority p : {ColourPriority::Index, ColourPriority::Hash}) {
      const std::vector<int> c = colour_constraints(cs.s, dyn, p);
      EXPECT_TRUE(colouring_is_valid(cs.s, dyn, c)) << cs.name;
      EXPECT_EQ(c, colour_constraints(cs.s, dyn, p)) << cs.name;
      const int count = colour_count(c);
      EXPECT_GE(count, cs.lower) << cs.name;
      EXPECT_LE(count, cs.upper) << cs.name;
      std::vector<int> owner(cs.s.size(), 0);
      const JonesPlassmannResult jp = jones_plassmann_colouring(cs.s, dyn, p, owner, 1);
      EXPECT_EQ(jp.colour, c);
      std::printf("%s (%dx%d vertices, %d constraints), %s priority: %d colours, %d Jones-Plassmann rounds\n",
                  cs.name, n, n, cs.s.size(), p == ColourPriority::Index ? "index" : "hash", count,
                  jp.rounds);
    }
  }
}

TEST(Colouring, IndependentOfPartitionRankCountAndVertexNumbering) {
  const int n = 24;
  const ConstraintStencils s = grid_edges(n, true);
  std::vector<char> dyn(n * n, 1);
  for (int j = 0; j < n; ++j) dyn[(n - 1) * n + j] = (j % 5 != 0);  // some pins on the top row
  std::mt19937 rng(31);
  for (ColourPriority p : {ColourPriority::Hash, ColourPriority::Index}) {
    const std::vector<int> ref = colour_constraints(s, dyn, p);
    ASSERT_TRUE(colouring_is_valid(s, dyn, ref));
    // Constraints live on the rank owning their first vertex; vertex partitions into
    // 2, 3, 5 and 7 parts by strips, blocks and at random.
    for (int ranks : {1, 2, 3, 5, 7}) {
      std::vector<std::vector<int>> vertex_owner(3, std::vector<int>(n * n));
      std::uniform_int_distribution<int> r(0, ranks - 1);
      for (int v = 0; v < n * n; ++v) {
        vertex_owner[0][v] = (v / n) * ranks / n;                            // strips
        vertex_owner[1][v] = ((v / n) * 2 / n + 2 * ((v % n) * 2 / n)) % ranks;  // blocks
        vertex_owner[2][v] = r(rng);                                         // random
      }
      for (const std::vector<int>& vo : vertex_owner) {
        std::vector<int> owner(s.size());
        for (int c = 0; c < s.size(); ++c) owner[c] = vo[s.vertices[s.offsets[c]]];
        EXPECT_EQ(jones_plassmann_colouring(s, dyn, p, owner, ranks).colour, ref) << ranks;
      }
    }
    // The partitioner renumbers vertices per rank count: same constraints (same global
    // numbers), vertices permuted.
    std::vector<int> perm(n * n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    ConstraintStencils t = s;
    for (int& v : t.vertices) v = perm[v];
    std::vector<char> dyn_t(n * n);
    for (int v = 0; v < n * n; ++v) dyn_t[perm[v]] = dyn[v];
    EXPECT_EQ(colour_constraints(t, dyn_t, p), ref);
  }
}

}  // namespace
}  // namespace weft
