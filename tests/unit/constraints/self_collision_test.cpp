// Cloth self-collision candidates (constraints/self_collision.hpp) and the constraint
// registry (constraints/registry.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "constraints/collision.hpp"
#include "constraints/projection.hpp"
#include "constraints/registry.hpp"
#include "constraints/self_collision.hpp"
#include "core/material_point.hpp"

namespace weft {
namespace {

// The triangles of an n x n vertex grid numbered base + i n + j, two per cell.
void append_grid_triangles(int n, int base, std::vector<Tri>& tris) {
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      const int a = base + i * n + j;
      tris.push_back({a, a + n, a + 1});
      tris.push_back({a + 1, a + n, a + n + 1});
    }
}

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
    append_grid_triangles(n, base, tris);
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
// Two vertical triangles ("fins") whose edges cross edge on edge while no vertex comes near
// the other's face: the case vertex-triangle pairs miss. Fin A lies in the plane y = 0 below
// its top edge (-1, 0, 0)-(1, 0, 0); fin B in the plane x = 0 above its bottom edge
// (0, -0.5, z)-(0, 0.5, z), moving down from z = 0.1 to z = -0.005 through A's top edge
// (ending within the search's reach 0.01 of it).
struct Fins {
  std::vector<Tri> tris = {{0, 1, 2}, {3, 4, 5}};
  std::vector<double> x0 = {-1, 0, 0, 1, 0, 0, 0, 0, -1, 0, -0.5, 0.1, 0, 0.5, 0.1, 0, 0, 1.1};
  std::vector<double> x1 = x0;
  Fins() {
    for (int v = 3; v < 6; ++v) x1[3 * v + 2] -= 0.105;
  }
};

TEST(SelfCollision, EdgesCrossingEdgeOnEdgeArePairs) {
  const Fins f;
  const VertexRings rings = vertex_rings(f.tris, 6);
  const std::vector<int> key = {0, 1, 2, 3, 4, 5};
  std::vector<SelfCollisionPair> vt;
  find_self_collision_pairs(f.tris, {0, 1}, {0, 1, 2, 3, 4, 5}, f.x0.data(), f.x1.data(), 0.01, Vec3::Zero(), rings, vt);
  EXPECT_TRUE(vt.empty()) << "no vertex passes through the other fin";
  const std::vector<Edge> edges = self_collision_edges(f.tris, key);
  const std::vector<Edge> want_edges = {{0, 1}, {0, 2}, {1, 2}, {3, 4}, {3, 5}, {4, 5}};
  EXPECT_EQ(edges, want_edges);
  std::vector<SelfCollisionEdgePair> ee;
  find_self_collision_edge_pairs(edges, {0, 1, 2, 3, 4, 5}, f.x0.data(), f.x1.data(), 0.01, rings, ee);
  sort_self_collision_edge_pairs(ee);
  // Only A's top edge {0, 1} against B's bottom edge {3, 4}: the others miss each other's
  // span (their closest points lie outside one of the edges) or stay far.
  ASSERT_EQ(ee.size(), 1u);
  EXPECT_EQ(ee[0].a, 0);
  EXPECT_EQ(ee[0].b, 3);
  // Lines' signed distance at x0: r = a0 - b0 = (-1, 0.5, -0.1), N = x cross y = +z: -0.1,
  // so the side is -1 (A's edge stays below B's).
  EXPECT_EQ(ee[0].side, -1);
  // Found from either edge alone, the same pair and side.
  for (int from : {0, 3}) {
    std::vector<SelfCollisionEdgePair> one;
    find_self_collision_edge_pairs(edges, {from}, f.x0.data(), f.x1.data(), 0.01, rings, one);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].a, 0);
    EXPECT_EQ(one[0].b, 3);
    EXPECT_EQ(one[0].side, -1);
  }
  // Projected with thickness h (both edges free, equal weights), B's edge ends h above A's.
  Stencil3<4> xs, g, dx;
  for (int a = 0; a < 4; ++a) {
    const int v = (a < 2 ? edges[0] : edges[3])[a % 2];
    xs.col(a) = Vec3(f.x1[3 * v], f.x1[3 * v + 1], f.x1[3 * v + 2]);
  }
  const double h = 0.002;
  const double C = edge_edge_collision_constraint(xs, h, -1, &g);
  EXPECT_NEAR(C, -0.005 - h, 1e-15);  // crossed: now 0.005 on the wrong side
  pbd_project<4>(C, g, VecN<4>::Ones(), 1.0, ConstraintSense::Unilateral, &dx);
  xs += dx;
  EXPECT_NEAR(edge_edge_collision_constraint(xs, h, -1, nullptr), 0.0, 1e-12);
  EXPECT_NEAR(xs.col(2)[2] - xs.col(0)[2], h, 1e-12);
  // The sheets stay apart: no pairs when B stops short of A's reach.
  Fins far;
  for (int v = 3; v < 6; ++v) far.x1[3 * v + 2] = far.x0[3 * v + 2] - 0.05;
  std::vector<SelfCollisionEdgePair> none;
  find_self_collision_edge_pairs(edges, {0, 1, 2, 3, 4, 5}, far.x0.data(), far.x1.data(), 0.01, rings, none);
  EXPECT_TRUE(none.empty());
  // Through and beyond the reach (B's edge ends 0.1 below A's): the search looks only at
  // edges within reach at the end, so no pair; the final check has the crossings instead
  // (A's top edge {0, 1} through triangle B, B's bottom edge {3, 4} through triangle A).
  Fins deep;
  for (int v = 3; v < 6; ++v) deep.x1[3 * v + 2] = deep.x0[3 * v + 2] - 0.2;
  find_self_collision_edge_pairs(edges, {0, 1, 2, 3, 4, 5}, deep.x0.data(), deep.x1.data(), 0.01, rings, none);
  EXPECT_TRUE(none.empty());
  std::vector<std::array<int, 2>> crossings;
  find_new_crossings(deep.tris, edges, deep.x0.data(), deep.x1.data(), crossings);
  ASSERT_EQ(crossings.size(), 2u);
  EXPECT_EQ(crossings[0], (std::array<int, 2>{0, 1}));
  EXPECT_EQ(crossings[1], (std::array<int, 2>{3, 0}));
}

// Edges sharing a vertex, or joined by an edge, are never pairs (a sheet's own neighbours),
// and coplanar edges of a flat sheet never face each other (they would cross): a flat 3 x 3
// grid pairs nothing, however small its cells against the reach. The control: the same
// search with no neighbour exclusion (empty rings) pairs edges that meet at a vertex.
TEST(SelfCollision, NeighbourEdgesAreNoPairs) {
  std::vector<Tri> tris;
  std::vector<double> x;
  const int n = 3;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) x.insert(x.end(), {0.01 * i, 0.0, 0.01 * j});
  append_grid_triangles(n, 0, tris);
  std::vector<int> key(n * n);
  for (int v = 0; v < n * n; ++v) key[v] = v;
  const std::vector<Edge> edges = self_collision_edges(tris, key);
  EXPECT_EQ(edges.size(), 16u);
  std::vector<int> all(edges.size());
  for (size_t e = 0; e < all.size(); ++e) all[e] = static_cast<int>(e);
  std::vector<SelfCollisionEdgePair> out;
  find_self_collision_edge_pairs(edges, all, x.data(), x.data(), 0.1, vertex_rings(tris, n * n), out);
  EXPECT_TRUE(out.empty());
  // Two triangles {0, 1, 2}, {1, 3, 2} folded so that their edges {0, 1} and {2, 3} (joined
  // by the edges 1-2 and 1-3) cross 1 mm apart: excluded as neighbours; the control without
  // the rings pairs them.
  const std::vector<Tri> fold = {{0, 1, 2}, {1, 3, 2}};
  const std::vector<double> y = {-1, 0, 0, 1, 0, 0, 0, -1, 0.001, 0, 1, 0.001};
  const std::vector<Edge> fe = self_collision_edges(fold, {0, 1, 2, 3});
  ASSERT_EQ(fe.size(), 5u);
  const std::vector<int> fall = {0, 1, 2, 3, 4};
  std::vector<SelfCollisionEdgePair> got;
  find_self_collision_edge_pairs(fe, fall, y.data(), y.data(), 0.01, vertex_rings(fold, 4), got);
  EXPECT_TRUE(got.empty());
  VertexRings none;
  none.start.assign(5, 0);
  find_self_collision_edge_pairs(fe, fall, y.data(), y.data(), 0.01, none, got);
  sort_self_collision_edge_pairs(got);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(fe[got[0].a], (Edge{0, 1}));
  EXPECT_EQ(fe[got[0].b], (Edge{2, 3}));
}

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


// Near-degenerate edge pairs. Parallel edges (a sheet's rows) have no usable closest points:
// no pair, however close. Edges meeting at an endpoint (a torn crack's two sides start at
// one point: a vertex and its spare) are no pair. Edges whose lines pass through each other
// beside the edges (the orientation flips with no crossing) keep the side they end on.
TEST(SelfCollision, DegenerateEdgePairs) {
  const std::vector<Tri> tris = {{0, 1, 2}, {3, 4, 5}};
  const std::vector<int> key = {0, 1, 2, 3, 4, 5};
  const VertexRings rings = vertex_rings(tris, 6);
  const std::vector<Edge> edges = self_collision_edges(tris, key);
  const std::vector<int> all = {0, 1, 2, 3, 4, 5};
  auto pairs = [&](const std::vector<double>& x0, const std::vector<double>& x1) {
    std::vector<SelfCollisionEdgePair> out;
    find_self_collision_edge_pairs(edges, all, x0.data(), x1.data(), 0.01, rings, out);
    sort_self_collision_edge_pairs(out);
    return out;
  };
  // Parallel: edge {0, 1} along x at z = 0, edge {3, 4} along x at z = 0.001 (1 mm above),
  // overlapping over x in [0, 1]; the third vertices far away (their edges miss).
  const std::vector<double> par = {-1, 0, 0, 1, 0, 0, 0, -1, -1, 0, 0, 0.001, 2, 0, 0.001, 1, 1, 1};
  EXPECT_TRUE(pairs(par, par).empty());
  // The same with edge {3, 4} turned by 10 degrees about z... in the plane z = 0.001: now
  // the lines' closest points lie inside both edges and they are 1 mm apart: one pair,
  // side +1 ({3, 4} above).
  std::vector<double> turned = par;
  turned[9] = 0.5 - std::cos(0.1745), turned[10] = -std::sin(0.1745);
  turned[12] = 0.5 + std::cos(0.1745), turned[13] = std::sin(0.1745);
  const auto one = pairs(turned, turned);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(edges[one[0].a], (Edge{0, 1}));
  EXPECT_EQ(edges[one[0].b], (Edge{3, 4}));
  EXPECT_EQ(one[0].side, -1);  // r = a0 - b0 has z = -0.001; N = e_a x e_b has z > 0
  // Meeting at an endpoint: {3, 4} starts at vertex 1's position (1, 0, 0) and leaves at 60
  // degrees in the plane z = 0: the closest points sit at the edges' ends, no pair.
  const std::vector<double> tip = {-1, 0, 0, 1, 0, 0, 0, -1, -1, 1, 0, 0, 1.5, 0.866, 0, 3, 3, 3};
  EXPECT_TRUE(pairs(tip, tip).empty());
  // Orientation flip beside the edges: {3, 4} passes from below to above the line of
  // {0, 1} while lying off the end of {0, 1} (x in [1.5, 2.5]) at x0, and ends over
  // {0, 1}'s middle 1 mm above it: taken with the side it ends on (+1 ... as computed), not
  // as a crossing.
  std::vector<double> x0 = {-1, 0, 0, 1, 0, 0, 0, -1, -1, 2, -0.5, -0.001, 2, 0.5, -0.001, 5, 5, 5};
  std::vector<double> x1 = {-1, 0, 0, 1, 0, 0, 0, -1, -1, 0, -0.5, 0.001, 0, 0.5, 0.001, 5, 5, 5};
  const auto flip = pairs(x0, x1);
  ASSERT_EQ(flip.size(), 1u);
  Stencil3<4> xs;
  xs << -1, 1, 0, 0,  //
      0, 0, -0.5, 0.5,  //
      0, 0, 0.001, 0.001;
  const int end_side = edge_edge_collision_constraint(xs, 0.0, 1, nullptr) >= 0 ? 1 : -1;
  EXPECT_EQ(flip[0].side, end_side);
  // The same motion over {0, 1}'s middle all along (x = 0 at x0 too): a crossing, side of x0.
  x0[9] = 0, x0[12] = 0;
  const auto cross = pairs(x0, x1);
  ASSERT_EQ(cross.size(), 1u);
  EXPECT_EQ(cross[0].side, -end_side);
}

// The edge pairs of the grouped hash search are those of a brute force: every two edges,
// alone in a list of two (the first asking), through the same exact tests. A jittered
// 16 x 16 sheet folded over itself (the two halves within the reach, criss-crossing) and
// moving: many pairs, found from every edge and from a part of them (as a rank with some
// edges asks: a pair of two asking edges is the smaller's, else the asking one's).
TEST(SelfCollision, EdgePairsAreTheBruteForcePairs) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int n = 16;
  const double h = 1.0 / (n - 1);
  std::vector<double> x0, x1;
  std::vector<Tri> tris;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      // Folded at x = 0.5: the right half lies back over the left, 2 mm higher.
      const double s = i * h, fx = s <= 0.5 ? s : 1.0 - s, fy = s <= 0.5 ? 0.0 : 0.002;
      const Vec3 p(fx + 0.3 * h * u(rng), fy + 0.002 * u(rng), j * h + 0.3 * h * u(rng));
      const Vec3 m(0.1 * h * u(rng), 0.003 * u(rng), 0.1 * h * u(rng));
      x1.insert(x1.end(), {p[0], p[1], p[2]});
      x0.insert(x0.end(), {p[0] - m[0], p[1] - m[1], p[2] - m[2]});
    }
  append_grid_triangles(n, 0, tris);
  std::vector<int> key(n * n);
  for (int v = 0; v < n * n; ++v) key[v] = v;
  const std::vector<Edge> edges = self_collision_edges(tris, key);
  const VertexRings rings = vertex_rings(tris, n * n);
  const int ne = static_cast<int>(edges.size());
  const double reach = 0.004;
  // Brute force: the pair (a, b) asked by a.
  auto alone = [&](int a, int b, std::vector<SelfCollisionEdgePair>& out) {
    std::vector<SelfCollisionEdgePair> one;
    find_self_collision_edge_pairs({edges[a], edges[b]}, {0}, x0.data(), x1.data(), reach, rings, one);
    for (const SelfCollisionEdgePair& p : one) out.push_back({std::min(a, b), std::max(a, b), p.side});
  };
  auto same = [](const std::vector<SelfCollisionEdgePair>& got, const std::vector<SelfCollisionEdgePair>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].a, want[k].a);
      EXPECT_EQ(got[k].b, want[k].b);
      EXPECT_EQ(got[k].side, want[k].side);
    }
  };
  std::vector<int> all(ne);
  for (int e = 0; e < ne; ++e) all[e] = e;
  std::vector<SelfCollisionEdgePair> got, want;
  find_self_collision_edge_pairs(edges, all, x0.data(), x1.data(), reach, rings, got);
  sort_self_collision_edge_pairs(got);
  for (int a = 0; a < ne; ++a)
    for (int b = a + 1; b < ne; ++b) alone(a, b, want);
  sort_self_collision_edge_pairs(want);
  EXPECT_GT(want.size(), 500u);
  same(got, want);
  // Every third edge asking, in a shuffled order.
  std::vector<int> part;
  std::vector<char> asks(ne, 0);
  for (int e = 0; e < ne; e += 3) part.push_back(e), asks[e] = 1;
  std::shuffle(part.begin(), part.end(), rng);
  got.clear(), want.clear();
  find_self_collision_edge_pairs(edges, part, x0.data(), x1.data(), reach, rings, got);
  sort_self_collision_edge_pairs(got);
  for (int a : part)
    for (int b = 0; b < ne; ++b)
      if (b != a && !(asks[b] && b < a)) alone(a, b, want);
  sort_self_collision_edge_pairs(want);
  EXPECT_GT(want.size(), 200u);
  same(got, want);
}

// The final check's exact predicate and search, hand-made: a unit triangle in z = 0.
TEST(SelfCollision, SegmentTriangleCrossings) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  EXPECT_TRUE(segment_crosses_triangle(Vec3(0.2, 0.2, -1), Vec3(0.2, 0.2, 1), a, b, c));
  EXPECT_FALSE(segment_crosses_triangle(Vec3(0.6, 0.6, -1), Vec3(0.6, 0.6, 1), a, b, c));  // beside
  EXPECT_FALSE(segment_crosses_triangle(Vec3(0.2, 0.2, 0.1), Vec3(0.2, 0.2, 1), a, b, c));  // above
  // Touching counts: through the edge ab's midpoint, through vertex a, ending on the face.
  EXPECT_TRUE(segment_crosses_triangle(Vec3(0.5, 0, -1), Vec3(0.5, 0, 1), a, b, c));
  EXPECT_TRUE(segment_crosses_triangle(Vec3(0, 0, -1), Vec3(0, 0, 1), a, b, c));
  EXPECT_TRUE(segment_crosses_triangle(Vec3(0.2, 0.2, 0), Vec3(0.2, 0.2, 1), a, b, c));
  // In the plane: not tested.
  EXPECT_FALSE(segment_crosses_triangle(Vec3(-1, 0.2, 0), Vec3(2, 0.2, 0), a, b, c));
  // The search: triangle {0, 1, 2} as above, a second triangle {3, 4, 5} whose edge {3, 4}
  // is vertical at (0.2, 0.2) and moves from above the first (z in [0.5, 1.5]) to through
  // it (z in [-0.5, 0.5]): the second triangle (in the plane x = 0.2, corners (y, z) =
  // (0.2, -0.5), (0.2, 0.5), (1.2, 0)) then also holds the point (0.2, 0.8, 0) of the first's
  // edge {1, 2}: exactly the pairs (edge {1, 2}, triangle 1) and (edge {3, 4}, triangle 0)
  // are new, in edge order; with x0 = x1 nothing is new (already so at the start: a torn
  // crack's touching sides).
  const std::vector<Tri> tris = {{0, 1, 2}, {3, 4, 5}};
  const std::vector<Edge> edges = self_collision_edges(tris, {0, 1, 2, 3, 4, 5});
  std::vector<double> x0 = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 0.5, 0.2, 0.2, 1.5, 0.2, 1.2, 1.0};
  std::vector<double> x1 = x0;
  for (int v = 3; v < 6; ++v) x1[3 * v + 2] -= 1.0;
  std::vector<std::array<int, 2>> out;
  find_new_crossings(tris, edges, x0.data(), x1.data(), out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(edges[out[0][0]], (Edge{1, 2}));
  EXPECT_EQ(out[0][1], 1);
  EXPECT_EQ(edges[out[1][0]], (Edge{3, 4}));
  EXPECT_EQ(out[1][1], 0);
  find_new_crossings(tris, edges, x1.data(), x1.data(), out);
  EXPECT_TRUE(out.empty());
}

// The crossing test is exact (core/exact_orient.hpp): near-degenerate hand-made cases on a
// tilted triangle (plane z - z0 = (x - x0) + (y - y0), normal (-1, -1, 1): up is +), placed
// off the origin with dyadic offsets so that the cases stay exact in double.
TEST(SelfCollision, SegmentTriangleNearDegenerate) {
  const Vec3 o(3.125, -0.75, 12.5);
  const Vec3 a = o, b = o + Vec3(1, 0, 1), c = o + Vec3(0, 1, 1);
  auto up = [](double x) { return std::nextafter(x, 1e300); };
  auto down = [](double x) { return std::nextafter(x, -1e300); };
  // An edge in the triangle's plane, across it: coplanar, not a crossing.
  EXPECT_FALSE(segment_crosses_triangle(o + Vec3(-0.5, 0.25, -0.25), o + Vec3(1.5, 0.25, 1.75), a, b, c));
  // An edge in the plane ending on the triangle's edge bc (x + y = 1): not a crossing.
  EXPECT_FALSE(segment_crosses_triangle(o + Vec3(1, 1, 2), o + Vec3(0.5, 0.5, 1), a, b, c));
  // Vertical edges through the point (0.5, 0.5) of edge bc: touching counts; one ulp of y
  // inside the triangle crosses, one ulp outside does not (double evaluation cannot tell).
  const Vec3 m = o + Vec3(0.5, 0.5, 0);
  EXPECT_TRUE(segment_crosses_triangle(m - Vec3(0, 0, 1), m + Vec3(0, 0, 3), a, b, c));
  Vec3 in = m, out = m;
  in.y() = down(m.y()), out.y() = up(m.y());
  EXPECT_TRUE(segment_crosses_triangle(in - Vec3(0, 0, 1), in + Vec3(0, 0, 3), a, b, c));
  EXPECT_FALSE(segment_crosses_triangle(out - Vec3(0, 0, 1), out + Vec3(0, 0, 3), a, b, c));
  // Crossing by 1e-12 inside / missing by 1e-12 outside the edge bc.
  EXPECT_TRUE(segment_crosses_triangle(m - Vec3(0, 1e-12, 1), m + Vec3(0, -1e-12, 3), a, b, c));
  EXPECT_FALSE(segment_crosses_triangle(m - Vec3(0, -1e-12, 1), m + Vec3(0, 1e-12, 3), a, b, c));
  // An edge ending on the face (touching counts), one ulp above it (apart), one ulp below
  // (crossing), and an edge whose both ends lie one ulp above and below the plane far
  // outside the triangle (the plane test passes, the line test rejects).
  const Vec3 f = o + Vec3(0.25, 0.25, 0.5), lift(0, 0, 1);
  EXPECT_TRUE(segment_crosses_triangle(f, f + lift, a, b, c));
  EXPECT_FALSE(segment_crosses_triangle(Vec3(f.x(), f.y(), up(f.z())), f + lift, a, b, c));
  EXPECT_TRUE(segment_crosses_triangle(Vec3(f.x(), f.y(), down(f.z())), f + lift, a, b, c));
  const Vec3 g = o + Vec3(2, 2, 4), h = o + Vec3(3, 2, 5);
  EXPECT_FALSE(segment_crosses_triangle(Vec3(g.x(), g.y(), up(g.z())), Vec3(h.x(), h.y(), down(h.z())), a, b, c));
}

// A flat sheet turned and moved (every position rounded: nearly, not exactly, coplanar)
// has no crossings; plain double evaluation of the same tests finds some (the false
// crossings that once sent a flat sheet's vertices back at the first substep).
TEST(SelfCollision, RoundedFlatSheetHasNoCrossings) {
  const int n = 20;
  std::vector<double> x0, x1;
  std::vector<Tri> tris;
  const double s = std::sin(0.7), co = std::cos(0.7), s2 = std::sin(0.3), c2 = std::cos(0.3);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double x = 0.1 * i, z = 0.1 * j;
      x0.insert(x0.end(), {x, 0.0, z});
      // Rotate about z by 0.7 then about x by 0.3, move by an inexact offset.
      const double rx = co * x, ry = s * x;
      x1.insert(x1.end(), {rx + 0.3, c2 * ry - s2 * z + 1.1, s2 * ry + c2 * z - 0.7});
    }
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      const int v = i * n + j;
      tris.push_back({v, v + n, v + 1}), tris.push_back({v + 1, v + n, v + n + 1});
    }
  std::vector<int> key(n * n);
  for (int v = 0; v < n * n; ++v) key[v] = v;
  const std::vector<Edge> edges = self_collision_edges(tris, key);
  std::vector<std::array<int, 2>> out;
  find_new_crossings(tris, edges, x0.data(), x1.data(), out);
  EXPECT_TRUE(out.empty()) << out.size();
  // The same decisions in plain double arithmetic, over every pair sharing no vertex.
  auto P = [&](int v) { return Vec3(x1[3 * v], x1[3 * v + 1], x1[3 * v + 2]); };
  auto orient = [](const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
    return (b - a).cross(c - a).dot(d - a);
  };
  int naive = 0;
  for (const Edge& e : edges)
    for (const Tri& t : tris) {
      if (std::find(t.begin(), t.end(), e[0]) != t.end() || std::find(t.begin(), t.end(), e[1]) != t.end()) continue;
      const Vec3 p = P(e[0]), q = P(e[1]), a = P(t[0]), b = P(t[1]), c = P(t[2]);
      const double op = orient(a, b, c, p), oq = orient(a, b, c, q);
      if ((op > 0 && oq > 0) || (op < 0 && oq < 0) || (op == 0 && oq == 0)) continue;
      const double u = orient(p, q, a, b), v = orient(p, q, b, c), w = orient(p, q, c, a);
      naive += (u >= 0 && v >= 0 && w >= 0) || (u <= 0 && v <= 0 && w <= 0);
    }
  EXPECT_GT(naive, 0);
}

// Cloth-cloth friction and restitution in the velocity update, by hand: a vertex q (mass 1)
// sliding at 2 m/s along x over a triangle point with weights (1/2, 1/4, 1/4) (masses 1, 2, 4:
// inverse 1, 1/2, 1/4), normal +y, having approached at 1 m/s (vn_pre = -1) and now at rest
// along y. W = 1 + 1/4 * 1 + 1/16 * 1/2 + 1/16 * 1/4 = 1.296875.
TEST(SelfCollision, ContactVelocityChange) {
  const VecN<4> c(1, -0.5, -0.25, -0.25), w(1, 1, 0.5, 0.25);
  const Vec3 n(0, 1, 0);
  Stencil3<4> v = Stencil3<4>::Zero(), dv;
  v.col(0) = Vec3(2, 0, 0);
  const double W = 1.296875;
  // mu 0, e 0: nothing changes (no normal change: vn = 0 >= -e vn_pre = 0).
  self_contact_velocity_change(c, n, w, v, -1.0, 0.0, 0.0, 1.0, &dv);
  EXPECT_EQ(dv.cwiseAbs().maxCoeff(), 0.0);
  // mu 0.5: the normal change from the prediction is dvn = 0 - (-1) = 1, so the relative
  // tangential speed drops by mu dvn = 0.5: D = (-0.5, 0, 0), dv_a = w_a c_a D / W.
  self_contact_velocity_change(c, n, w, v, -1.0, 0.5, 0.0, 1.0, &dv);
  for (int a = 0; a < 4; ++a) EXPECT_NEAR((dv.col(a) - w[a] * c[a] / W * Vec3(-0.5, 0, 0)).norm(), 0.0, 1e-15);
  EXPECT_NEAR(((v + dv) * c)[0], 1.5, 1e-15);
  // Half the budget (share 1/2): -0.25.
  self_contact_velocity_change(c, n, w, v, -1.0, 0.5, 0.0, 0.5, &dv);
  EXPECT_NEAR(((v + dv) * c)[0], 1.75, 1e-15);
  // mu 3: the budget 3 exceeds the 2 m/s slide: the relative motion stops, no reversal.
  self_contact_velocity_change(c, n, w, v, -1.0, 3.0, 0.0, 1.0, &dv);
  EXPECT_NEAR(((v + dv) * c).norm(), 0.0, 1e-15);
  // Restitution 0.5: the relative normal velocity becomes 0.5 (away), dvn = 1.5.
  self_contact_velocity_change(c, n, w, v, -1.0, 0.5, 0.5, 1.0, &dv);
  EXPECT_NEAR((((v + dv) * c) - Vec3(2 - 0.75, 0.5, 0)).norm(), 0.0, 1e-15);
  // Separating in the prediction (vn_pre > 0): no normal response, no friction.
  self_contact_velocity_change(c, n, w, v, 0.3, 0.5, 0.5, 1.0, &dv);
  EXPECT_EQ(dv.cwiseAbs().maxCoeff(), 0.0);
  // A pinned triangle (w = 0 there): only q changes, by the whole D.
  self_contact_velocity_change(c, n, VecN<4>(1, 0, 0, 0), v, -1.0, 0.5, 0.0, 1.0, &dv);
  EXPECT_NEAR((dv.col(0) - Vec3(-0.5, 0, 0)).norm(), 0.0, 1e-15);
  EXPECT_EQ(dv.rightCols<3>().cwiseAbs().maxCoeff(), 0.0);
}

// Momentum (sum m_a dv_a) is conserved for random pairs, weights summing to zero (vertex-
// triangle and edge-edge forms), random masses, velocities, normals, coefficients.
TEST(SelfCollision, ContactVelocityChangeConservesMomentum) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1), pos(0.1, 2);
  for (int k = 0; k < 200; ++k) {
    VecN<4> c, w;
    const double b0 = pos(rng), b1 = pos(rng), b2 = pos(rng), sa = 0.5 + 0.5 * u(rng), tb = 0.5 + 0.5 * u(rng);
    if (k % 2) c << 1, -b0 / (b0 + b1 + b2), -b1 / (b0 + b1 + b2), -b2 / (b0 + b1 + b2);
    else c << 1 - sa, sa, -(1 - tb), -tb;
    for (int a = 0; a < 4; ++a) w[a] = 1.0 / pos(rng);
    Stencil3<4> v, dv;
    for (int a = 0; a < 4; ++a) v.col(a) = Vec3(u(rng), u(rng), u(rng));
    const Vec3 n = Vec3(u(rng), u(rng), u(rng)).normalized();
    self_contact_velocity_change(c, n, w, v, -std::abs(u(rng)), pos(rng), 0.5 * (1 + u(rng)), 1.0, &dv);
    Vec3 p = Vec3::Zero();
    for (int a = 0; a < 4; ++a) p += dv.col(a) / w[a];
    EXPECT_LT(p.norm(), 1e-14 * (1 + dv.norm()));
    EXPECT_GT(dv.norm(), 0.0);
  }
}


// The crack rule in the final check (core/material_point.hpp, shared with weft-verify):
// triangle {0, 1, 2} in z = 0; triangle {3, 4, 5} was {3, 4, 2} before vertex 2 split, so 5
// is 2's spare. It comes down from z >= 2 until 5 sits exactly on 2 and its edge {3, 5}
// touches the first triangle at that corner only: one material point, no crossing. Without
// the roots (or with 5 of another root) the touching is a new crossing (the rule's earlier
// form, any two vertices at one position, let it pass too); and the spare pushed
// through the face, off 2's position, is one whatever the roots.
TEST(SelfCollision, CrackRuleOneMaterialPoint) {
  const std::vector<Tri> original = {{0, 1, 2}, {3, 4, 2}}, tris = {{0, 1, 2}, {3, 4, 5}};
  const std::vector<Edge> edges = self_collision_edges(tris, {0, 1, 2, 3, 4, 5});
  const std::vector<int> root = tear_roots(original, tris, 6);
  EXPECT_EQ(root, (std::vector<int>{0, 1, 2, 3, 4, 2}));
  const std::vector<double> x1 = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1.5, 1, 3, 3, 3, 0, 1, 0};
  std::vector<double> x0 = x1;
  for (int v = 3; v < 6; ++v) x0[3 * v + 2] += 2.0;
  std::vector<std::array<int, 2>> out;
  find_new_crossings(tris, edges, x0.data(), x1.data(), out, nullptr, nullptr, &root);
  EXPECT_TRUE(out.empty());
  // Without the rule: the edges {3, 5}, {4, 5} touch the first triangle at 2, and its edges
  // {0, 2}, {1, 2} the second at 5.
  find_new_crossings(tris, edges, x0.data(), x1.data(), out);
  EXPECT_EQ(out.size(), 4u);
  const std::vector<int> other = {0, 1, 2, 3, 4, 5};
  find_new_crossings(tris, edges, x0.data(), x1.data(), out, nullptr, nullptr, &other);
  EXPECT_EQ(out.size(), 4u);
  // Through the face at (0.2, 0.2): a crossing with the roots too.
  std::vector<double> through = x1;
  through[3 * 5] = 0.2, through[3 * 5 + 1] = 0.2, through[3 * 5 + 2] = -0.5;
  through[3 * 3] = 0.2, through[3 * 3 + 1] = 0.2, through[3 * 3 + 2] = 0.5;
  find_new_crossings(tris, edges, x0.data(), through.data(), out, nullptr, nullptr, &root);
  EXPECT_TRUE(std::any_of(out.begin(), out.end(), [&](const std::array<int, 2>& c) {
    return edges[c[0]] == Edge{3, 5} && c[1] == 0;
  }));
}

}  // namespace
}  // namespace weft
