#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "mesh/generators.hpp"
#include "mesh/topology.hpp"
#include "mesh_test_util.hpp"

using namespace weft;

namespace {

bool has_oriented(const TriMesh& m, int a, int b, int c) {
  for (const Tri& f : m.triangles)
    for (int k = 0; k < 3; ++k)
      if (f[k] == a && f[(k + 1) % 3] == b && f[(k + 2) % 3] == c) return true;
  return false;
}

void check_consistency(const TriMesh& m, const MeshTopology& topo) {
  // Edges unique, a < b, sorted.
  for (size_t e = 0; e < topo.edges.size(); ++e) {
    EXPECT_LT(topo.edges[e][0], topo.edges[e][1]);
    if (e) {
      EXPECT_LT(topo.edges[e - 1], topo.edges[e]);
    }
  }
  ASSERT_EQ(topo.edge_triangles.size(), topo.edges.size());
  ASSERT_EQ(topo.hinge_edge.size(), topo.hinges.size());
  // 2E = 3T + B
  EXPECT_EQ(2 * topo.edges.size(), 3 * m.triangles.size() + topo.boundary_edges.size());
  EXPECT_EQ(topo.hinges.size() + topo.boundary_edges.size(), topo.edges.size());
  for (size_t h = 0; h < topo.hinges.size(); ++h) {
    const auto& hv = topo.hinges[h];
    EXPECT_LT(hv[0], hv[1]);
    EXPECT_EQ((Edge{hv[0], hv[1]}), topo.edges[topo.hinge_edge[h]]);
    EXPECT_TRUE(has_oriented(m, hv[0], hv[1], hv[2])) << "hinge " << h;
    EXPECT_TRUE(has_oriented(m, hv[1], hv[0], hv[3])) << "hinge " << h;
    if (h) {
      EXPECT_LT(topo.hinge_edge[h - 1], topo.hinge_edge[h]);
    }
  }
  std::set<int> bv;
  for (int e : topo.boundary_edges) {
    bv.insert(topo.edges[e][0]);
    bv.insert(topo.edges[e][1]);
    EXPECT_EQ(topo.edge_triangles[e][1], -1);
  }
  EXPECT_EQ(std::vector<int>(bv.begin(), bv.end()), topo.boundary_vertices);
}

}  // namespace

TEST(Topology, GridCounts) {
  const int nx = 7, nz = 5;
  TriMesh m = make_grid(1, 1, nx, nz);
  MeshTopology topo = build_topology(m);
  const size_t T = 2 * (nx - 1) * (nz - 1), B = 2 * (nx - 1) + 2 * (nz - 1);
  EXPECT_EQ(topo.edges.size(), size_t((nx - 1) * nz + nx * (nz - 1) + (nx - 1) * (nz - 1)));
  EXPECT_EQ(topo.edges.size(), (3 * T + B) / 2);
  EXPECT_EQ(topo.boundary_edges.size(), B);
  EXPECT_EQ(topo.hinges.size(), topo.edges.size() - B);
  EXPECT_EQ(topo.boundary_vertices.size(), size_t(2 * nx + 2 * nz - 4));
  check_consistency(m, topo);
}

TEST(Topology, JitteredGridAndClosedSurfaces) {
  TriMesh g = make_grid(1, 2, 12, 9, 0.35, 4);
  check_consistency(g, build_topology(g));
  TriMesh s = make_sphere(1, 2);
  MeshTopology ts = build_topology(s);
  EXPECT_TRUE(ts.boundary_vertices.empty());
  EXPECT_EQ(ts.hinges.size(), 3 * s.triangles.size() / 2);
  check_consistency(s, ts);
  TriMesh c = make_cylinder(1, 1, 9, 3, false);
  check_consistency(c, build_topology(c));
}

TEST(Topology, DeterministicAndTwoTriangleHinge) {
  TriMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0)};
  m.triangles = {{1, 3, 2}, {0, 1, 2}};
  MeshTopology t = build_topology(m);
  ASSERT_EQ(t.hinges.size(), 1u);
  // Edge (1, 2): triangle (1, 2, 0) is the cyclic rotation of (0, 1, 2); (2, 1, 3) of (1, 3, 2).
  EXPECT_EQ(t.hinges[0], (std::array<int, 4>{1, 2, 0, 3}));
  EXPECT_EQ(t.edge_triangles[t.hinge_edge[0]], (std::array<int, 2>{1, 0}));
  EXPECT_EQ(t.edges.size(), 5u);
  MeshTopology again = build_topology(m);
  EXPECT_EQ(again.edges, t.edges);
  EXPECT_EQ(again.hinges, t.hinges);
}

TEST(Topology, RefusesNonManifold) {
  TriMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0), Vec3(0, 0, 1)};
  m.triangles = {{0, 1, 2}, {1, 3, 2}, {1, 2, 4}};
  EXPECT_INPUT_ERROR(build_topology(m), "non-manifold edge (1, 2)");
}
