// Hierarchical PBD levels (constraints/hierarchy.hpp, 003 sec. 4.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "constraints/hierarchy.hpp"

namespace weft {
namespace {

// A triangulated n x n grid: its edges and rest positions.
void grid(int n, std::vector<Edge>& edges, std::vector<Vec3>& X) {
  X.clear(), edges.clear();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) X.push_back(Vec3(i, 0, j));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int a = i * n + j;
      if (j + 1 < n) edges.push_back({a, a + 1});
      if (i + 1 < n) edges.push_back({a, a + n});
      if (i + 1 < n && j + 1 < n) edges.push_back({a, a + n + 1});
    }
}

TEST(Hierarchy, LevelsAreNestedIndependentSetsWithTwoParents) {
  std::vector<Edge> edges;
  std::vector<Vec3> X;
  grid(17, edges, X);
  std::vector<int> key(X.size());
  std::iota(key.begin(), key.end(), 0);
  const std::vector<HierarchyLevel> H = build_hierarchy(edges, X, key, 4);
  ASSERT_EQ(H.size(), 3u);
  std::set<int> prev;
  for (size_t v = 0; v < X.size(); ++v) prev.insert(static_cast<int>(v));
  std::vector<Edge> prev_edges = edges;
  for (const HierarchyLevel& L : H) {
    const std::set<int> cur(L.particles.begin(), L.particles.end());
    EXPECT_LT(cur.size(), prev.size());
    for (int p : cur) EXPECT_TRUE(prev.count(p)) << "a coarse particle of the finer level";
    for (const Edge& e : prev_edges) EXPECT_FALSE(cur.count(e[0]) && cur.count(e[1])) << "independent set";
    // Every particle left out is a child with at least two parents, weights summing to 1.
    EXPECT_EQ(L.children.size() + cur.size(), prev.size());
    for (size_t c = 0; c < L.children.size(); ++c) {
      EXPECT_FALSE(cur.count(L.children[c]));
      EXPECT_GE(L.parent_start[c + 1] - L.parent_start[c], 2);
      double w = 0;
      for (int k = L.parent_start[c]; k < L.parent_start[c + 1]; ++k) {
        EXPECT_TRUE(cur.count(L.parents[k]));
        w += L.weights[k];
      }
      EXPECT_NEAR(w, 1.0, 1e-14);
    }
    for (size_t k = 0; k < L.edges.size(); ++k) {
      EXPECT_TRUE(cur.count(L.edges[k][0]) && cur.count(L.edges[k][1]));
      EXPECT_DOUBLE_EQ(L.rest[k], (X[L.edges[k][0]] - X[L.edges[k][1]]).norm());
    }
    prev = cur, prev_edges = L.edges;
  }
}

// The hierarchy depends on the keys, not on the vertex numbering (a partitioner renumbers
// vertices per rank count): renumbered vertices with the same keys give the same levels.
TEST(Hierarchy, IndependentOfVertexNumbering) {
  std::vector<Edge> edges;
  std::vector<Vec3> X;
  grid(12, edges, X);
  const int n = static_cast<int>(X.size());
  std::vector<int> key(n), perm(n);
  std::iota(key.begin(), key.end(), 0);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(5));  // old id v -> new id perm[v]
  std::vector<Edge> e2;
  std::vector<Vec3> X2(n);
  std::vector<int> key2(n);
  for (const Edge& e : edges) e2.push_back({perm[e[1]], perm[e[0]]});
  std::reverse(e2.begin(), e2.end());
  for (int v = 0; v < n; ++v) X2[perm[v]] = X[v], key2[perm[v]] = key[v];
  const auto A = build_hierarchy(edges, X, key, 3), B = build_hierarchy(e2, X2, key2, 3);
  ASSERT_EQ(A.size(), B.size());
  for (size_t l = 0; l < A.size(); ++l) {
    ASSERT_EQ(A[l].particles.size(), B[l].particles.size());
    for (size_t k = 0; k < A[l].particles.size(); ++k) EXPECT_EQ(perm[A[l].particles[k]], B[l].particles[k]);
    ASSERT_EQ(A[l].edges.size(), B[l].edges.size());
    for (size_t k = 0; k < A[l].edges.size(); ++k) {
      EXPECT_EQ(perm[A[l].edges[k][0]], B[l].edges[k][0]);
      EXPECT_EQ(perm[A[l].edges[k][1]], B[l].edges[k][1]);
    }
    ASSERT_EQ(A[l].parents.size(), B[l].parents.size());
    for (size_t k = 0; k < A[l].parents.size(); ++k) {
      EXPECT_EQ(perm[A[l].parents[k]], B[l].parents[k]);
      EXPECT_EQ(A[l].weights[k], B[l].weights[k]);
    }
  }
}

}  // namespace
}  // namespace weft
