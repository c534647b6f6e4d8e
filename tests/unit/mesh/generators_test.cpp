#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh/topology.hpp"
#include "mesh/validate.hpp"
#include "mesh_test_util.hpp"

using namespace weft;

namespace {

constexpr double kPi = 3.14159265358979323846;

void expect_normals_along(const TriMesh& m, const Vec3& up) {
  for (int t = 0; t < static_cast<int>(m.triangles.size()); ++t)
    ASSERT_GT(triangle_normal(m, t).normalized().dot(up), 0.999) << "triangle " << t;
}

void expect_outward(const TriMesh& m) {
  for (int t = 0; t < static_cast<int>(m.triangles.size()); ++t) {
    const Tri& f = m.triangles[t];
    Vec3 c = (m.vertices[f[0]] + m.vertices[f[1]] + m.vertices[f[2]]) / 3.0;
    ASSERT_GT(triangle_normal(m, t).dot(c), 0.0) << "triangle " << t;
  }
  EXPECT_GT(signed_volume(m), 0.0);
}

int euler(const TriMesh& m) {
  return static_cast<int>(m.vertices.size()) - static_cast<int>(build_topology(m).edges.size()) +
         static_cast<int>(m.triangles.size());
}

}  // namespace

TEST(Grid, CountsPositionsAndNormals) {
  TriMesh m = make_grid(2.0, 1.0, 5, 4);
  ASSERT_EQ(m.vertices.size(), 20u);
  ASSERT_EQ(m.triangles.size(), 24u);
  EXPECT_NO_THROW(validate_mesh(m, "grid"));
  expect_normals_along(m, Vec3(0, 1, 0));
  EXPECT_NEAR(total_area(m), 2.0, 1e-12);
  // vertex (i, j) = j * nx + i
  EXPECT_TRUE(m.vertices[0].isApprox(Vec3(-1.0, 0, -0.5)));
  EXPECT_TRUE(m.vertices[4].isApprox(Vec3(1.0, 0, -0.5)));
  EXPECT_TRUE(m.vertices[19].isApprox(Vec3(1.0, 0, 0.5)));
  EXPECT_NEAR(m.vertices[6].x(), -0.5, 1e-15);
  EXPECT_NEAR(m.vertices[6].z(), -0.5 + 1.0 / 3.0, 1e-15);
  for (const Vec3& v : m.vertices) EXPECT_EQ(v.y(), 0.0);
  EXPECT_EQ(euler(m), 1);
}

TEST(Grid, JitterMovesOnlyInteriorVerticesWithinBound) {
  const int nx = 17, nz = 13;
  const double sx = 1.0, sz = 0.8, jitter = 0.4;
  TriMesh reg = make_grid(sx, sz, nx, nz, 0.0, 7);
  TriMesh m = make_grid(sx, sz, nx, nz, jitter, 7);
  ASSERT_EQ(m.vertices.size(), reg.vertices.size());
  ASSERT_EQ(m.triangles.size(), reg.triangles.size());
  const double dx = sx / (nx - 1), dz = sz / (nz - 1);
  int moved = 0;
  for (int j = 0; j < nz; ++j)
    for (int i = 0; i < nx; ++i) {
      int v = j * nx + i;
      Vec3 d = m.vertices[v] - reg.vertices[v];
      bool boundary = i == 0 || j == 0 || i == nx - 1 || j == nz - 1;
      if (boundary) {
        EXPECT_EQ(d.norm(), 0.0) << "boundary vertex " << v;
      } else {
        EXPECT_LE(std::abs(d.x()), jitter * dx + 1e-15);
        EXPECT_LE(std::abs(d.z()), jitter * dz + 1e-15);
        EXPECT_EQ(d.y(), 0.0);
        if (d.norm() > 0.05 * dx) ++moved;
      }
    }
  EXPECT_GT(moved, (nx - 2) * (nz - 2) / 2);  // most interior vertices really move
  expect_normals_along(m, Vec3(0, 1, 0));
  EXPECT_NEAR(total_area(m), sx * sz, 1e-12);  // still tiles the rectangle
  for (int t = 0; t < static_cast<int>(m.triangles.size()); ++t)
    EXPECT_GE(triangle_area(m, t), 0.125 * dx * dz * (1 - 1e-12));
  EXPECT_NO_THROW(validate_mesh(m, "jittered grid"));
  // Diagonals alternate: both diagonal directions are present.
  std::set<std::pair<int, int>> diag;
  for (const Tri& f : m.triangles)
    for (int k = 0; k < 3; ++k) {
      int a = f[k], b = f[(k + 1) % 3];
      int di = std::abs(a % nx - b % nx), dj = std::abs(a / nx - b / nx);
      if (di == 1 && dj == 1) diag.insert({(a % nx - b % nx) * (a / nx - b / nx) > 0 ? 1 : -1, 0});
    }
  EXPECT_EQ(diag.size(), 2u);
}

TEST(Grid, JitterIsDeterministicInSeed) {
  TriMesh a = make_grid(1, 1, 20, 20, 0.3, 5), b = make_grid(1, 1, 20, 20, 0.3, 5), c = make_grid(1, 1, 20, 20, 0.3, 6);
  EXPECT_EQ(a.vertices, b.vertices);
  EXPECT_EQ(a.triangles, b.triangles);
  EXPECT_NE(a.vertices, c.vertices);
}

TEST(Grid, BadArguments) {
  EXPECT_INPUT_ERROR(make_grid(1, 1, 1, 4), "nx");
  EXPECT_INPUT_ERROR(make_grid(1, 1, 4, 0), "nz");
  EXPECT_INPUT_ERROR(make_grid(-1, 1, 4, 4), "size_x");
  EXPECT_INPUT_ERROR(make_grid(1, 1, 4, 4, 0.5), "jitter");
  EXPECT_INPUT_ERROR(make_grid(1, 1, 4, 4, -0.1), "jitter");
}

TEST(Disk, CountsAreaAndNormals) {
  TriMesh m = make_disk(0.5, 3, 18);  // rings of 6, 12, 18 vertices
  ASSERT_EQ(m.vertices.size(), 37u);
  ASSERT_EQ(m.triangles.size(), 54u);
  EXPECT_NO_THROW(validate_mesh(m, "disk"));
  expect_normals_along(m, Vec3(0, 1, 0));
  const double polygon = 0.5 * 18 * 0.25 * std::sin(2 * kPi / 18);
  EXPECT_NEAR(total_area(m), polygon, 1e-12);
  MeshTopology topo = build_topology(m);
  EXPECT_EQ(topo.boundary_vertices.size(), 18u);
  EXPECT_EQ(euler(m), 1);
  for (int v : topo.boundary_vertices) EXPECT_NEAR(m.vertices[v].norm(), 0.5, 1e-14);
}

TEST(Disk, UnevenRingsStillValid) {
  for (int rings : {1, 2, 5, 7, 12})
    for (int segments : {3, 5, 9, 16, 33, 80}) {
      TriMesh m;
      try {
        m = make_disk(1.0, rings, segments);
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("segments must be >="), std::string::npos);
        EXPECT_GT(rings, 1);
        continue;
      }
      EXPECT_NO_THROW(validate_mesh(m, "disk")) << rings << " " << segments;
      expect_normals_along(m, Vec3(0, 1, 0));
      // All triangles face +y and sum to the rim polygon's area: nothing folds or overlaps.
      EXPECT_NEAR(total_area(m), 0.5 * segments * std::sin(2 * kPi / segments), 1e-12);
      EXPECT_EQ(build_topology(m).boundary_vertices.size(), static_cast<size_t>(segments));
      EXPECT_EQ(euler(m), 1);
    }
  EXPECT_NO_THROW(make_disk(1.0, 16, 96));
  EXPECT_INPUT_ERROR(make_disk(1.0, 5, 5), "disk: segments must be >= 7 for 5 rings");
  EXPECT_INPUT_ERROR(make_disk(1.0, 0, 8), "rings");
  EXPECT_INPUT_ERROR(make_disk(1.0, 2, 2), "segments");
}

TEST(Sphere, CountsOrientationAndAreaConvergence) {
  double prev_err = 1e9;
  for (int s = 0; s <= 5; ++s) {
    TriMesh m = make_sphere(0.3, s);
    const size_t f = size_t(1) << (2 * s);
    ASSERT_EQ(m.vertices.size(), 10 * f + 2);
    ASSERT_EQ(m.triangles.size(), 20 * f);
    EXPECT_NO_THROW(validate_mesh(m, "sphere"));
    expect_outward(m);
    for (const Vec3& v : m.vertices) EXPECT_NEAR(v.norm(), 0.3, 1e-14);
    EXPECT_EQ(euler(m), 2);
    EXPECT_TRUE(build_topology(m).boundary_vertices.empty());
    const double err = std::abs(total_area(m) - 4 * kPi * 0.09) / (4 * kPi * 0.09);
    EXPECT_LT(err, prev_err);
    prev_err = err;
  }
  EXPECT_LT(prev_err, 2e-3);
  EXPECT_INPUT_ERROR(make_sphere(0.0, 2), "radius");
  EXPECT_INPUT_ERROR(make_sphere(1.0, 9), "subdivisions");
}

TEST(Box, TwelveTriangles) {
  TriMesh m = make_box(Vec3(1, 2, 3));
  ASSERT_EQ(m.vertices.size(), 8u);
  ASSERT_EQ(m.triangles.size(), 12u);
  EXPECT_NO_THROW(validate_mesh(m, "box"));
  expect_outward(m);
  EXPECT_NEAR(signed_volume(m), 6.0, 1e-12);
  EXPECT_NEAR(total_area(m), 2 * (2 + 6 + 3), 1e-12);
  Vec3 lo, hi;
  bounding_box(m, lo, hi);
  EXPECT_TRUE(lo.isApprox(Vec3(-0.5, -1, -1.5)));
  EXPECT_TRUE(hi.isApprox(Vec3(0.5, 1, 1.5)));
  EXPECT_EQ(euler(m), 2);
}

TEST(Box, ResolutionFollowsLongestEdge) {
  TriMesh m = make_box(Vec3(2, 1, 1), 4);  // 4 x 3 x 3 lattice points
  EXPECT_EQ(m.vertices.size(), 4u * 3 * 3 - 2 * 1 * 1);
  EXPECT_EQ(m.triangles.size(), 4u * (3 * 2 + 2 * 2 + 3 * 2));
  EXPECT_NO_THROW(validate_mesh(m, "box"));
  expect_outward(m);
  EXPECT_NEAR(signed_volume(m), 2.0, 1e-12);
  EXPECT_EQ(euler(m), 2);
  EXPECT_INPUT_ERROR(make_box(Vec3(1, 1, 1), 1), "resolution");
  EXPECT_INPUT_ERROR(make_box(Vec3(1, 0, 1), 2), "size y");
}

TEST(Cylinder, ClosedAndOpen) {
  const int s = 24, r = 5;
  TriMesh m = make_cylinder(0.5, 2.0, s, r);
  ASSERT_EQ(m.vertices.size(), size_t(s * r + 2));
  ASSERT_EQ(m.triangles.size(), size_t(2 * s * (r - 1) + 2 * s));
  EXPECT_NO_THROW(validate_mesh(m, "cylinder"));
  expect_outward(m);
  EXPECT_NEAR(signed_volume(m), 0.5 * s * 0.25 * std::sin(2 * kPi / s) * 2.0, 1e-12);
  EXPECT_TRUE(build_topology(m).boundary_vertices.empty());
  EXPECT_EQ(euler(m), 2);
  Vec3 lo, hi;
  bounding_box(m, lo, hi);
  EXPECT_NEAR(lo.y(), -1.0, 1e-15);
  EXPECT_NEAR(hi.y(), 1.0, 1e-15);

  TriMesh tube = make_cylinder(0.5, 2.0, s, r, false);
  ASSERT_EQ(tube.vertices.size(), size_t(s * r));
  ASSERT_EQ(tube.triangles.size(), size_t(2 * s * (r - 1)));
  EXPECT_NO_THROW(validate_mesh(tube, "tube"));
  for (int t = 0; t < static_cast<int>(tube.triangles.size()); ++t) {
    const Tri& f = tube.triangles[t];
    Vec3 c = (tube.vertices[f[0]] + tube.vertices[f[1]] + tube.vertices[f[2]]) / 3.0;
    c.y() = 0;
    EXPECT_GT(triangle_normal(tube, t).dot(c), 0.0);
  }
  EXPECT_EQ(build_topology(tube).boundary_vertices.size(), size_t(2 * s));
  EXPECT_EQ(euler(tube), 0);
  EXPECT_INPUT_ERROR(make_cylinder(0.5, 1, 2, 3), "segments");
  EXPECT_INPUT_ERROR(make_cylinder(0.5, 1, 8, 1), "rings");
}
