// Tearing splits (constraints/tearing.hpp): a 2 x 2-quad patch (3 x 3 vertices, 8 triangles)
// whose bottom row is pulled down until its vertical edges are twice their rest length.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "constraints/tearing.hpp"

namespace weft {
namespace {

// Vertex (i, j) = i + 3 j at (i, j, 0); quad (i, j) = triangles (a, a+1, a+4), (a, a+4, a+3).
// Unit density: each triangle (area 1/2) gives 1/6 to each corner. `spares` spare vertices
// 9.. sit at vertex 0.
TearMesh patch(int spares, std::vector<Vec3>& x) {
  TearMesh m;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 2; ++i) {
      const int a = i + 3 * j;
      m.triangles.push_back({a, a + 1, a + 4});
      m.triangles.push_back({a, a + 4, a + 3});
    }
  m.triangle_object.assign(m.triangles.size(), 0);
  m.tearable = {1};
  const int n = 9 + spares;
  m.mass.assign(n, 0.0);
  m.rest.assign(n, Vec3::Zero());
  for (int v = 0; v < 9; ++v) m.rest[v] = Vec3(v % 3, v / 3, 0);
  for (const Tri& t : m.triangles)
    for (int v : t) m.mass[v] += 0.5 / 3.0;
  m.fixed.assign(n, 0);
  for (int v = 0; v < n; ++v) m.key.push_back(v);
  m.spares = {{}};
  for (int k = 0; k < spares; ++k) m.spares[0].push_back(9 + k);
  m.used = {0};
  x = m.rest;
  return m;
}

double total_mass(const TearMesh& m) {
  double s = 0;
  for (double v : m.mass) s += v;
  return s;
}

std::vector<int> incident(const TearMesh& m, int v) {
  std::vector<int> out;
  for (size_t t = 0; t < m.triangles.size(); ++t)
    for (int c : m.triangles[t])
      if (c == v) out.push_back(static_cast<int>(t));
  return out;
}

// Connected components of the triangles through shared vertices.
int components(const TearMesh& m) {
  const int T = static_cast<int>(m.triangles.size());
  std::vector<int> comp(T, -1);
  int k = 0;
  for (int s = 0; s < T; ++s) {
    if (comp[s] >= 0) continue;
    std::vector<int> stack = {s};
    comp[s] = k;
    while (!stack.empty()) {
      const int t = stack.back();
      stack.pop_back();
      for (int u = 0; u < T; ++u)
        if (comp[u] < 0)
          for (int a : m.triangles[t])
            for (int b : m.triangles[u])
              if (a == b && comp[u] < 0) comp[u] = k, stack.push_back(u);
    }
    ++k;
  }
  return k;
}

TEST(Tearing, NothingSplitsUnderTheThreshold) {
  std::vector<Vec3> x;
  TearMesh m = patch(9, x);
  for (int i = 0; i < 3; ++i) x[i].y() = -0.4;  // vertical edges 1.4 x their rest length
  const std::vector<Tri> before = m.triangles;
  bool exhausted = false;
  EXPECT_TRUE(tear_pass(m, x, 1.5, &exhausted).empty());
  EXPECT_FALSE(exhausted);
  EXPECT_EQ(m.used[0], 0);
  EXPECT_EQ(m.triangles, before);
  EXPECT_NEAR(total_mass(m), 8 * 0.5, 1e-15);
}

TEST(Tearing, PulledRowTearsOffAcrossTheStretch) {
  std::vector<Vec3> x;
  TearMesh m = patch(9, x);
  for (int i = 0; i < 3; ++i) x[i].y() = -1.0;  // vertical edges of row 0: ratio 2; its diagonals sqrt(5/2)
  const double m_before = total_mass(m);
  bool exhausted = false;
  // Passes until nothing splits (the positions stay: the passes of successive substeps).
  // Most stretched first (the three vertical edges, ties by key): each splits its upper end
  // (more triangles), whose triangles above the horizontal plane through it go to a spare.
  // Pass 1: (0, 3) splits 3; (1, 4) touches 3's triangles (locked for this pass); (2, 5)
  // splits 5. Pass 2: (1, 4) splits 4. The diagonals find an empty far side at both ends.
  std::vector<TearSplit> s = tear_pass(m, x, 1.5, &exhausted);
  ASSERT_EQ(s.size(), 2u);
  for (int pass = 0; pass < 3; ++pass) {
    const std::vector<TearSplit> more = tear_pass(m, x, 1.5, &exhausted);
    s.insert(s.end(), more.begin(), more.end());
  }
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].vertex, 3);
  EXPECT_EQ(s[0].spare, 9);
  EXPECT_EQ(s[1].vertex, 5);
  EXPECT_EQ(s[1].spare, 10);
  EXPECT_EQ(s[2].vertex, 4);
  EXPECT_EQ(s[2].spare, 11);
  EXPECT_FALSE(exhausted);
  EXPECT_EQ(m.used[0], 3);
  // The split vertices keep the triangles of row 0's quads, the spares those of row 1's.
  EXPECT_EQ(incident(m, 3), (std::vector<int>{1}));
  EXPECT_EQ(incident(m, 9), (std::vector<int>{4, 5}));
  EXPECT_EQ(incident(m, 4), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(incident(m, 11), (std::vector<int>{4, 6, 7}));
  EXPECT_EQ(incident(m, 5), (std::vector<int>{2, 3}));
  EXPECT_EQ(incident(m, 10), (std::vector<int>{6}));
  EXPECT_EQ(m.triangles[4], (Tri{9, 11, 7}));
  EXPECT_EQ(m.triangles[5], (Tri{9, 7, 6}));
  EXPECT_EQ(m.triangles[6], (Tri{11, 10, 8}));
  EXPECT_EQ(m.triangles[7], (Tri{11, 8, 7}));
  EXPECT_EQ(components(m), 2);  // torn off: rows 0-1 and the spares with row 2
  // Spares: the vertex's position and rest position; masses shared by the lumped rule and
  // conserved.
  for (const TearSplit& t : s) {
    EXPECT_EQ(x[t.spare], x[t.vertex]);
    EXPECT_EQ(m.rest[t.spare], m.rest[t.vertex]);
  }
  EXPECT_NEAR(m.mass[3], 1.0 / 6, 1e-15);   // one triangle left of three
  EXPECT_NEAR(m.mass[9], 2.0 / 6, 1e-15);
  EXPECT_NEAR(m.mass[5], 2.0 / 6, 1e-15);   // two of three
  EXPECT_NEAR(m.mass[10], 1.0 / 6, 1e-15);
  EXPECT_NEAR(m.mass[4], 3.0 / 6, 1e-15);   // three of six
  EXPECT_NEAR(m.mass[11], 3.0 / 6, 1e-15);
  EXPECT_NEAR(total_mass(m), m_before, 1e-15);
  // The same input gives the same splits (every rank runs this pass on the same data).
  std::vector<Vec3> x2;
  TearMesh m2 = patch(9, x2);
  for (int i = 0; i < 3; ++i) x2[i].y() = -1.0;
  for (int pass = 0; pass < 4; ++pass) tear_pass(m2, x2, 1.5, nullptr);
  EXPECT_EQ(m2.triangles, m.triangles);
  EXPECT_EQ(m2.mass, m.mass);
}

TEST(Tearing, PinnedVertexNeverSplits) {
  std::vector<Vec3> x;
  TearMesh m = patch(9, x);
  for (int i = 0; i < 3; ++i) x[i].y() = -1.0;
  m.fixed[3] = m.fixed[4] = m.fixed[5] = 1;  // the row above the stretched edges is pinned
  const std::vector<Tri> before = m.triangles;
  // The lower ends have every triangle on the near side (nothing lies below them): no split.
  EXPECT_TRUE(tear_pass(m, x, 1.5, nullptr).empty());
  EXPECT_EQ(m.triangles, before);
}

TEST(Tearing, PoolRunsOut) {
  std::vector<Vec3> x;
  TearMesh m = patch(1, x);
  for (int i = 0; i < 3; ++i) x[i].y() = -1.0;
  bool exhausted = false;
  const std::vector<TearSplit> s = tear_pass(m, x, 1.5, &exhausted);
  EXPECT_EQ(s.size(), 1u);
  EXPECT_TRUE(exhausted);
  EXPECT_EQ(m.used[0], 1);
}

TEST(Tearing, EmptySideIsRefused) {
  std::vector<Vec3> x;
  TearMesh m = patch(9, x);
  // Corner 0 has two triangles, both on the +x +y side: a plane with normal -x leaves the far
  // side empty.
  TearSplit s;
  EXPECT_FALSE(tear_split_vertex(m, x, 0, Vec3(-1, 0, 0), &s));
  EXPECT_EQ(m.used[0], 0);
  // The centre vertex split by the plane x = 1 (normal +x): three triangles each side, each
  // one fan; the spare takes the right-hand ones.
  ASSERT_TRUE(tear_split_vertex(m, x, 4, Vec3(1, 0, 0), &s));
  EXPECT_EQ(s.vertex, 4);
  EXPECT_EQ(incident(m, 4).size(), 3u);
  EXPECT_EQ(incident(m, s.spare).size(), 3u);
  for (int t : incident(m, s.spare)) {
    const Tri& tr = m.triangles[t];
    EXPECT_GT((x[tr[0]] + x[tr[1]] + x[tr[2]]).x() / 3.0, 1.0);
  }
}

}  // namespace
}  // namespace weft
