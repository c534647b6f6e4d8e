// make_bowl: a hemispherical cap open at the top (cases/noodles.yaml, sprinkles.yaml).
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh/topology.hpp"
#include "mesh/validate.hpp"

using namespace weft;

TEST(Bowl, CountsPoleRimAndSphere) {
  const int s = 12, r = 4;
  const double R = 0.3;
  const TriMesh m = make_bowl(R, s, r);
  ASSERT_EQ(m.vertices.size(), size_t(1 + s * r));
  ASSERT_EQ(m.triangles.size(), size_t(s * (2 * r - 1)));
  EXPECT_EQ(m.vertices[0], Vec3(0, -R, 0));
  for (size_t v = 0; v < m.vertices.size(); ++v) EXPECT_NEAR(m.vertices[v].norm(), R, 1e-15) << v;
  for (int k = 0; k < s; ++k) {
    const Vec3& rim = m.vertices[1 + (r - 1) * s + k];
    EXPECT_EQ(rim.y(), 0.0);
    EXPECT_EQ(std::hypot(rim.x(), rim.z()), R);
  }
  // Ring 1 vertex 0 at polar angle pi/2 / r from the pole, angle 0 (+x).
  const double phi = 3.14159265358979323846 / 2 / r;
  EXPECT_NEAR(m.vertices[1].x(), R * std::sin(phi), 1e-16);
  EXPECT_NEAR(m.vertices[1].y(), -R * std::cos(phi), 1e-16);
  EXPECT_EQ(m.vertices[1].z(), 0.0);
  validate_mesh(m, "bowl");
  // Open at the top: exactly one boundary loop, the rim (s boundary edges).
  const MeshTopology t = build_topology(m);
  EXPECT_EQ(t.boundary_edges.size(), size_t(s));
}

TEST(Bowl, NormalsPointAwayFromTheCentre) {
  const TriMesh m = make_bowl(1.0, 16, 5);
  for (size_t k = 0; k < m.triangles.size(); ++k) {
    const Vec3 c = (m.vertices[m.triangles[k][0]] + m.vertices[m.triangles[k][1]] + m.vertices[m.triangles[k][2]]) / 3;
    EXPECT_GT(triangle_normal(m, static_cast<int>(k)).dot(c), 0) << k;
  }
}

TEST(Bowl, BadArguments) {
  EXPECT_THROW(make_bowl(0.0, 8, 2), InputError);
  EXPECT_THROW(make_bowl(1.0, 2, 2), InputError);
  EXPECT_THROW(make_bowl(1.0, 8, 0), InputError);
  EXPECT_NO_THROW(make_bowl(1.0, 3, 1));
}
