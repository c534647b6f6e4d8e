#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <utility>

#include "mesh/build_object_mesh.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh/topology.hpp"
#include "mesh/validate.hpp"
#include "mesh_test_util.hpp"

using namespace weft;

namespace {

double radial(const Vec3& p) { return std::hypot(p.x(), p.z()); }

}  // namespace

TEST(Funnel, CountsAndRimRadii) {
  const int s = 20, r = 6;
  const double top = 0.6, bottom = 0.15, h = 0.8;
  TriMesh m = make_funnel(top, bottom, h, s, r);
  ASSERT_EQ(m.vertices.size(), size_t(s * r));
  ASSERT_EQ(m.triangles.size(), size_t(2 * s * (r - 1)));
  for (int k = 0; k < s; ++k) {
    const Vec3& b = m.vertices[k];                  // ring 0: bottom rim
    const Vec3& t = m.vertices[(r - 1) * s + k];    // ring r-1: top rim
    EXPECT_NEAR(radial(b), bottom, 1e-15);
    EXPECT_NEAR(radial(t), top, 1e-15);
    EXPECT_EQ(b.y(), -0.5 * h);
    EXPECT_EQ(t.y(), 0.5 * h);
  }
  // Every vertex lies on the cone: radius linear in y.
  for (const Vec3& p : m.vertices)
    EXPECT_NEAR(radial(p), bottom + (top - bottom) * (p.y() / h + 0.5), 1e-14);
  Vec3 lo, hi;
  bounding_box(m, lo, hi);
  EXPECT_NEAR(lo.y(), -0.4, 1e-15);
  EXPECT_NEAR(hi.y(), 0.4, 1e-15);
  EXPECT_NEAR(hi.x(), top, 1e-15);
}

TEST(Funnel, ManifoldWithTwoBoundaryLoops) {
  const int s = 16, r = 5;
  TriMesh m = make_funnel(0.5, 0.1, 1.0, s, r);
  EXPECT_NO_THROW(validate_mesh(m, "funnel"));
  const MeshTopology topo = build_topology(m);
  // Interior edges have 2 triangles, rim edges 1 (validate_mesh rejects > 2).
  std::map<std::pair<int, int>, int> uses;
  for (const Tri& t : m.triangles)
    for (int a = 0; a < 3; ++a) {
      const int u = t[a], v = t[(a + 1) % 3];
      ++uses[{std::min(u, v), std::max(u, v)}];
    }
  int boundary = 0;
  for (const auto& [e, n] : uses) {
    ASSERT_LE(n, 2);
    if (n == 1) {
      ++boundary;
      const double y0 = m.vertices[e.first].y(), y1 = m.vertices[e.second].y();
      EXPECT_EQ(y0, y1) << "a boundary edge off the rims";
      EXPECT_TRUE(std::abs(y0) == 0.5);
    }
  }
  EXPECT_EQ(boundary, 2 * s);
  EXPECT_EQ(topo.boundary_vertices.size(), size_t(2 * s));
  // An annulus: V - E + F = 0.
  EXPECT_EQ(static_cast<int>(m.vertices.size()) - static_cast<int>(topo.edges.size()) +
                static_cast<int>(m.triangles.size()),
            0);
}

TEST(Funnel, ConsistentlyOrientedAwayFromTheAxis) {
  for (auto [top, bottom] : {std::pair{0.5, 0.1}, std::pair{0.1, 0.5}, std::pair{0.3, 0.3}}) {
    TriMesh m = make_funnel(top, bottom, 0.7, 12, 4);
    // Each interior edge is walked in opposite directions by its two triangles.
    std::map<std::pair<int, int>, int> directed;
    for (const Tri& t : m.triangles)
      for (int a = 0; a < 3; ++a) ++directed[{t[a], t[(a + 1) % 3]}];
    for (const auto& [e, n] : directed) EXPECT_EQ(n, 1) << "edge " << e.first << "-" << e.second << " twice";
    for (int t = 0; t < static_cast<int>(m.triangles.size()); ++t) {
      const Tri& f = m.triangles[t];
      Vec3 c = (m.vertices[f[0]] + m.vertices[f[1]] + m.vertices[f[2]]) / 3.0;
      c.y() = 0;
      EXPECT_GT(triangle_normal(m, t).dot(c), 0.0) << "triangle " << t;
      EXPECT_GT(triangle_area(m, t), 0.0);
    }
  }
}

TEST(Funnel, BadArgumentsAndDispatch) {
  EXPECT_INPUT_ERROR(make_funnel(0.5, 0.1, 1, 2, 3), "segments");
  EXPECT_INPUT_ERROR(make_funnel(0.5, 0.1, 1, 8, 1), "rings");
  EXPECT_INPUT_ERROR(make_funnel(0.5, 0.0, 1, 8, 3), "bottom_radius");
  EXPECT_INPUT_ERROR(make_funnel(-1, 0.1, 1, 8, 3), "top_radius");
  EXPECT_INPUT_ERROR(make_funnel(0.5, 0.1, NAN, 8, 3), "height");
  MeshSpec s;
  s.generator = "funnel";
  s.top_radius = 0.4;
  s.bottom_radius = 0.05;
  s.height = 0.3;
  s.resolution = {24, 4};
  TransformSpec xf;
  xf.translate = Vec3(0, 1, 0);
  TriMesh m = build_object_mesh(s, xf, "");
  ASSERT_EQ(m.vertices.size(), 96u);
  EXPECT_NEAR(m.vertices[0].y(), 0.85, 1e-15);
  EXPECT_NEAR(radial(m.vertices[95]), 0.4, 1e-15);
}
