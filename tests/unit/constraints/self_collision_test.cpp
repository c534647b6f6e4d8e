// Cloth self-collision candidates (constraints/self_collision.hpp) and the constraint
// registry (constraints/registry.hpp).
#include <gtest/gtest.h>

#include <random>

#include "constraints/registry.hpp"
#include "constraints/self_collision.hpp"

namespace weft {
namespace {

// The same pairs as a search without the hash: every (vertex, triangle) through the exact
// tests, and in the same order.
TEST(SelfCollision, HashFindsTheBruteForcePairs) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  // Two jittered 12 x 12 sheets 4 mm apart, the upper one moving down through the lower.
  const int n = 12;
  std::vector<double> x0, x1;
  std::vector<Tri> tris;
  for (int s = 0; s < 2; ++s) {
    const int base = s * n * n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const double y = s * 0.004 + 0.001 * u(rng);
        x0.insert(x0.end(), {i / (n - 1.0) + 0.01 * u(rng), y, j / (n - 1.0) + 0.01 * u(rng)});
        x1.insert(x1.end(), {x0[x0.size() - 3], y - s * 0.01, x0[x0.size() - 1]});
      }
    for (int i = 0; i + 1 < n; ++i)
      for (int j = 0; j + 1 < n; ++j) {
        const int a = base + i * n + j;
        tris.push_back({a, a + n, a + 1});
        tris.push_back({a + 1, a + n, a + n + 1});
      }
  }
  std::vector<int> all_tris(tris.size()), verts(2 * n * n);
  for (size_t t = 0; t < tris.size(); ++t) all_tris[t] = static_cast<int>(t);
  for (int v = 0; v < 2 * n * n; ++v) verts[v] = v;
  const double reach = 0.003;
  const VertexRings rings = vertex_rings(tris, 2 * n * n);
  std::vector<SelfCollisionPair> got;
  find_self_collision_pairs(tris, all_tris, verts, x0.data(), x1.data(), reach, Vec3::Zero(), rings, got);
  std::vector<int> key(verts.size());
  for (size_t v = 0; v < key.size(); ++v) key[v] = static_cast<int>(key.size() - 1 - v);  // any bijection
  sort_self_collision_pairs(got, key);
  // Brute force: one triangle at a time through the same function.
  std::vector<SelfCollisionPair> want;
  for (size_t t = 0; t < tris.size(); ++t)
    find_self_collision_pairs(tris, {static_cast<int>(t)}, verts, x0.data(), x1.data(), reach, Vec3::Zero(), rings, want);
  sort_self_collision_pairs(want, key);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_GT(got.size(), 100u);  // the upper sheet's vertices cross the lower one
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].v, want[k].v);
    EXPECT_EQ(got[k].t, want[k].t);
    EXPECT_EQ(got[k].side, want[k].side);
  }
  // Sides: the upper sheet's vertices came from above the lower one's triangles (whose
  // normal (x_n - x_0) x (x_1 - x_0) points down: -y), the lower's from below the upper's.
  for (const SelfCollisionPair& p : got) {
    const bool upper_vertex = p.v >= n * n, upper_tri = tris[p.t][0] >= n * n;
    EXPECT_NE(upper_vertex, upper_tri) << "a flat sheet's own neighbours are no pairs";
    EXPECT_EQ(p.side, upper_vertex ? -1 : 1);
  }
  // Sorted by key, then triangle.
  for (size_t k = 1; k < got.size(); ++k)
    EXPECT_TRUE(key[got[k - 1].v] < key[got[k].v] || (got[k - 1].v == got[k].v && got[k - 1].t < got[k].t));
}

TEST(SelfCollision, FarSheetsAreNoPairs) {
  std::vector<double> x = {0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2, 0.5, 0.2};
  std::vector<SelfCollisionPair> out;
  find_self_collision_pairs({{0, 2, 1}}, {0}, {3}, x.data(), x.data(), 0.01, Vec3::Zero(), vertex_rings({{0, 2, 1}}, 4), out);
  EXPECT_TRUE(out.empty());
  x[10] = 0.005;  // within reach, over the triangle
  find_self_collision_pairs({{0, 2, 1}}, {0}, {3}, x.data(), x.data(), 0.01, Vec3::Zero(), vertex_rings({{0, 2, 1}}, 4), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].side, 1);  // (x2 - x0) x (x1 - x0) = +y
  x[9] = 1.5;                 // beside it
  out.clear();
  find_self_collision_pairs({{0, 2, 1}}, {0}, {3}, x.data(), x.data(), 0.01, Vec3::Zero(), vertex_rings({{0, 2, 1}}, 4), out);
  EXPECT_TRUE(out.empty());
}

// Kinds dispatch through the registry: shells and rods get constraints under pbd and xpbd,
// particles none (but are served), volumes and rigid bodies nothing (the stepper refuses
// them), and no method outside the position-based family is served.
TEST(ConstraintRegistry, ServesKindsPerMethod) {
  for (const char* m : {"pbd", "xpbd"}) {
    EXPECT_FALSE(constraints_for(ObjectKind::Shell, m).empty());
    EXPECT_FALSE(constraints_for(ObjectKind::Rod, m).empty());
    EXPECT_FALSE(constraints_for(ObjectKind::Particles, m).empty());
    EXPECT_TRUE(constraints_for(ObjectKind::Volume, m).empty());
    EXPECT_TRUE(constraints_for(ObjectKind::Rigid, m).empty());
  }
  EXPECT_TRUE(constraints_for(ObjectKind::Shell, "cipc").empty());
  EXPECT_TRUE(constraints_for(ObjectKind::Shell, "pbd2").empty());
}

}  // namespace
}  // namespace weft
