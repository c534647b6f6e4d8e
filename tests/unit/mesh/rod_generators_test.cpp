// Rod generators (line, polyline, helix, rod_net) and the particle block: exact counts,
// coordinates and connectivity (issue 17).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh/validate.hpp"
#include "mesh_test_util.hpp"

using namespace weft;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Number of segments at each vertex.
std::vector<int> valence(const TriMesh& m) {
  std::vector<int> n(m.vertices.size(), 0);
  for (const Edge& e : m.segments) {
    ++n[e[0]];
    ++n[e[1]];
  }
  return n;
}

// Segments [first, last) run head to tail.
void expect_chain(const TriMesh& m, int first, int last) {
  for (int s = first; s + 1 < last; ++s) ASSERT_EQ(m.segments[s][1], m.segments[s + 1][0]) << "segment " << s;
}

}  // namespace

// ---------------------------------------------------------------- line

TEST(Line, OneSegment) {
  TriMesh m = make_line(2.0, 1);
  ASSERT_EQ(m.vertices.size(), 2u);
  EXPECT_EQ(m.vertices[0], Vec3(-1, 0, 0));
  EXPECT_EQ(m.vertices[1], Vec3(1, 0, 0));
  EXPECT_EQ(m.segments, (std::vector<Edge>{{0, 1}}));
  EXPECT_TRUE(m.triangles.empty());
  EXPECT_NO_THROW(validate_mesh(m, "line", MeshUse::rods));
}

TEST(Line, CountsAndCoordinates) {
  TriMesh m = make_line(1.0, 4);
  ASSERT_EQ(m.vertices.size(), 5u);
  ASSERT_EQ(m.segments.size(), 4u);
  const double x[5] = {-0.5, -0.25, 0.0, 0.25, 0.5};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(m.vertices[i], Vec3(x[i], 0, 0)) << i;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(m.segments[i], (Edge{i, i + 1}));
  // A length that is not a binary fraction: the last vertex is pinned exactly.
  TriMesh t = make_line(0.3, 3);
  EXPECT_EQ(t.vertices[0].x(), -0.15);
  EXPECT_NEAR(t.vertices[1].x(), -0.05, 1e-16);
  EXPECT_NEAR(t.vertices[2].x(), 0.05, 1e-16);
  EXPECT_EQ(t.vertices[3].x(), 0.15);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(segment_length(t, i), 0.1, 1e-15);
  EXPECT_NO_THROW(validate_mesh(make_line(1.0, 1000), "line", MeshUse::rods));
}

TEST(Line, Errors) {
  EXPECT_INPUT_ERROR(make_line(1.0, 0), "line: segments must be >= 1, got 0");
  EXPECT_INPUT_ERROR(make_line(-1.0, 3), "line: length must be a finite number > 0, got -1");
  EXPECT_INPUT_ERROR(make_line(std::numeric_limits<double>::infinity(), 3), "line: length must be a finite number > 0");
  EXPECT_INPUT_ERROR(make_line(1.0, 50'000'000), "line: 50000001 vertices is more than the limit of 50000000");
}

// ---------------------------------------------------------------- polyline

TEST(Polyline, PointsAsGiven) {
  std::vector<Vec3> p = {Vec3(1, 1, 1), Vec3(2, 1, 1), Vec3(2, 3, 1), Vec3(1, 1, 1)};
  TriMesh m = make_polyline(p);
  EXPECT_EQ(m.vertices, p);  // not re-centred; a later point may repeat an earlier one
  EXPECT_EQ(m.segments, (std::vector<Edge>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_NO_THROW(validate_mesh(m, "polyline", MeshUse::rods));
  TriMesh two = make_polyline({Vec3(0, 0, 0), Vec3(0, 0, -1)});
  EXPECT_EQ(two.segments, (std::vector<Edge>{{0, 1}}));
}

TEST(Polyline, Errors) {
  EXPECT_INPUT_ERROR(make_polyline({}), "polyline: points must hold at least 2 points, got 0");
  EXPECT_INPUT_ERROR(make_polyline({Vec3(1, 2, 3)}), "polyline: points must hold at least 2 points, got 1");
  EXPECT_INPUT_ERROR(make_polyline({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)}),
                     "polyline: points 1 and 2 coincide (segment length 0; consecutive points must differ)");
  EXPECT_INPUT_ERROR(make_polyline({Vec3(0, 0, 0), Vec3(1e6, 0, 0), Vec3(1e6, 1e-9, 0)}),
                     "polyline: points 1 and 2 coincide");  // shorter than 1e-12 * bbox diagonal
  EXPECT_INPUT_ERROR(make_polyline({Vec3(0, 0, 0), Vec3(0, std::nan(""), 0)}),
                     "polyline: point 1 has a non-finite coordinate");
}

// ---------------------------------------------------------------- helix

TEST(Helix, FirstLastAndQuarterTurns) {
  const double r = 0.5, pitch = 0.2, turns = 2.0;
  const int n = 16;
  TriMesh m = make_helix(r, pitch, turns, n);
  ASSERT_EQ(m.vertices.size(), 17u);
  ASSERT_EQ(m.segments.size(), 16u);
  EXPECT_TRUE(m.triangles.empty());
  EXPECT_EQ(m.vertices[0], Vec3(0.5, -0.2, 0.0));  // angle 0, bottom
  EXPECT_NEAR(m.vertices[16].x(), 0.5, 1e-15);    // two full turns
  EXPECT_EQ(m.vertices[16].y(), 0.2);
  EXPECT_NEAR(m.vertices[16].z(), 0.0, 1e-15);
  // 8 segments per turn: vertex 2 is a quarter turn from +x towards +z, vertex 4 a half.
  EXPECT_NEAR((m.vertices[2] - Vec3(0.0, -0.15, 0.5)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((m.vertices[4] - Vec3(-0.5, -0.1, 0.0)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((m.vertices[6] - Vec3(0.0, -0.05, -0.5)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((m.vertices[8] - Vec3(0.5, 0.0, 0.0)).norm(), 0.0, 1e-15);
  const double chord = std::sqrt(std::pow(2 * r * std::sin(kPi / 8), 2) + std::pow(pitch * turns / n, 2));
  for (int s = 0; s < n; ++s) {
    EXPECT_EQ(m.segments[s], (Edge{s, s + 1}));
    EXPECT_NEAR(segment_length(m, s), chord, 1e-15);
    EXPECT_NEAR(std::hypot(m.vertices[s].x(), m.vertices[s].z()), r, 1e-15);
  }
  EXPECT_NO_THROW(validate_mesh(m, "helix", MeshUse::rods));
}

TEST(Helix, FractionalTurnsAndOneSegment) {
  TriMesh m = make_helix(1.0, 4.0, 0.25, 1);  // a quarter turn, rise 1
  ASSERT_EQ(m.vertices.size(), 2u);
  EXPECT_EQ(m.vertices[0], Vec3(1.0, -0.5, 0.0));
  EXPECT_NEAR(m.vertices[1].x(), 0.0, 1e-16);
  EXPECT_EQ(m.vertices[1].y(), 0.5);
  EXPECT_EQ(m.vertices[1].z(), 1.0);
}

TEST(Helix, Errors) {
  EXPECT_INPUT_ERROR(make_helix(0.0, 1, 1, 8), "helix: radius must be a finite number > 0, got 0");
  EXPECT_INPUT_ERROR(make_helix(1, 0.0, 1, 8), "helix: pitch must be a finite number > 0, got 0");
  EXPECT_INPUT_ERROR(make_helix(1, 1, -2.0, 8), "helix: turns must be a finite number > 0, got -2");
  EXPECT_INPUT_ERROR(make_helix(1, 1, 1, 0), "helix: segments must be >= 1, got 0");
}

// ---------------------------------------------------------------- rod_net

TEST(RodNet, CrossingsOnlyCountsAndSharedCrossings) {
  // m = 3 rods along x at z = -0.5, 0, 0.5; n = 4 rods along z at x = -1, -1/3, 1/3, 1.
  TriMesh m = make_rod_net(2.0, 1.0, 3, 4);
  ASSERT_EQ(m.vertices.size(), 12u);               // m n
  ASSERT_EQ(m.segments.size(), 17u);               // m (n-1) + n (m-1) = 9 + 8
  EXPECT_TRUE(m.triangles.empty());
  EXPECT_EQ(m.vertices[0], Vec3(-1, 0, -0.5));
  EXPECT_EQ(m.vertices[3], Vec3(1, 0, -0.5));
  EXPECT_EQ(m.vertices[11], Vec3(1, 0, 0.5));
  EXPECT_NEAR((m.vertices[9] - Vec3(-1.0 / 3.0, 0, 0.5)).norm(), 0.0, 1e-16);  // crossing (1, 2)
  EXPECT_NEAR((m.vertices[6] - Vec3(1.0 / 3.0, 0, 0.0)).norm(), 0.0, 1e-16);   // crossing (2, 1)
  // x-rods: segments 0..8, three per rod, towards +x.
  EXPECT_EQ(m.segments[0], (Edge{0, 1}));
  EXPECT_EQ(m.segments[3], (Edge{4, 5}));
  EXPECT_EQ(m.segments[5], (Edge{6, 7}));
  EXPECT_EQ(m.segments[8], (Edge{10, 11}));
  // z-rods: segments 9..16, two per rod, towards +z; they reuse the crossing vertices.
  EXPECT_EQ(m.segments[9], (Edge{0, 4}));
  EXPECT_EQ(m.segments[10], (Edge{4, 8}));
  EXPECT_EQ(m.segments[11], (Edge{1, 5}));
  EXPECT_EQ(m.segments[15], (Edge{3, 7}));
  EXPECT_EQ(m.segments[16], (Edge{7, 11}));
  std::vector<int> val = valence(m);
  EXPECT_EQ(val[0], 2);   // corner
  EXPECT_EQ(val[1], 3);   // rim
  EXPECT_EQ(val[4], 3);   // rim
  EXPECT_EQ(val[5], 4);   // interior crossing, two rods
  EXPECT_EQ(val[6], 4);
  for (int j = 0; j < 3; ++j) expect_chain(m, 3 * j, 3 * j + 3);
  for (int i = 0; i < 4; ++i) expect_chain(m, 9 + 2 * i, 9 + 2 * i + 2);
  EXPECT_NO_THROW(validate_mesh(m, "rod_net", MeshUse::rods));
}

TEST(RodNet, SubdividedSquare) {
  TriMesh m = make_rod_net(1.0, 1.0, 2, 2, 2);
  ASSERT_EQ(m.vertices.size(), 8u);  // 4 crossings + (2 - 1) (2 + 2)
  const std::vector<Vec3> v = {Vec3(-0.5, 0, -0.5), Vec3(0.5, 0, -0.5), Vec3(-0.5, 0, 0.5), Vec3(0.5, 0, 0.5),
                               Vec3(0, 0, -0.5),    Vec3(0, 0, 0.5),    Vec3(-0.5, 0, 0),   Vec3(0.5, 0, 0)};
  EXPECT_EQ(m.vertices, v);
  EXPECT_EQ(m.segments,
            (std::vector<Edge>{{0, 4}, {4, 1}, {2, 5}, {5, 3}, {0, 6}, {6, 2}, {1, 7}, {7, 3}}));
  EXPECT_NO_THROW(validate_mesh(m, "rod_net", MeshUse::rods));
}

TEST(RodNet, SubdividedCountsChainsAndLengths) {
  const int mr = 3, nr = 4, s = 3;
  TriMesh m = make_rod_net(2.0, 1.0, mr, nr, s);
  ASSERT_EQ(m.vertices.size(), static_cast<size_t>(mr * nr + (s - 1) * (mr * (nr - 1) + nr * (mr - 1))));  // 46
  ASSERT_EQ(m.segments.size(), static_cast<size_t>(s * (mr * (nr - 1) + nr * (mr - 1))));                // 51
  EXPECT_EQ(m.vertices.size(), 46u);
  EXPECT_EQ(m.segments.size(), 51u);
  // x-rod j: s (n - 1) = 9 segments from crossing (0, j) to crossing (3, j), each 2/9 long.
  for (int j = 0; j < mr; ++j) {
    const int first = j * (nr - 1) * s;
    expect_chain(m, first, first + (nr - 1) * s);
    EXPECT_EQ(m.segments[first][0], j * nr);
    EXPECT_EQ(m.segments[first + (nr - 1) * s - 1][1], j * nr + nr - 1);
    for (int k = first; k < first + (nr - 1) * s; ++k) EXPECT_NEAR(segment_length(m, k), 2.0 / 9.0, 1e-15);
  }
  // z-rod i: s (m - 1) = 6 segments from crossing (i, 0) to (i, 2), each 1/6 long.
  for (int i = 0; i < nr; ++i) {
    const int first = mr * (nr - 1) * s + i * (mr - 1) * s;
    expect_chain(m, first, first + (mr - 1) * s);
    EXPECT_EQ(m.segments[first][0], i);
    EXPECT_EQ(m.segments[first + s - 1][1], nr + i);  // through crossing (i, 1) after s segments
    EXPECT_EQ(m.segments[first + (mr - 1) * s - 1][1], 2 * nr + i);
    for (int k = first; k < first + (mr - 1) * s; ++k) EXPECT_NEAR(segment_length(m, k), 1.0 / 6.0, 1e-15);
  }
  // Interior point k = 1 of x-rod 1, gap 2 (between x = 1/3 and 1): index 12 + (1*3 + 2)*2.
  EXPECT_NEAR((m.vertices[22] - Vec3(1.0 / 3.0 + 2.0 / 9.0, 0, 0)).norm(), 0.0, 1e-15);
  // Interior point k = 2 of z-rod 3 (x = 1), gap 0: index 12 + 18 + (3*2 + 0)*2 + 1.
  EXPECT_NEAR((m.vertices[43] - Vec3(1.0, 0, -0.5 + 2.0 / 6.0)).norm(), 0.0, 1e-15);
  std::vector<int> val = valence(m);
  for (int v = 12; v < 46; ++v) EXPECT_EQ(val[v], 2) << v;  // interior points of one rod
  EXPECT_EQ(val[nr + 1], 4);
  for (const Vec3& p : m.vertices) EXPECT_EQ(p.y(), 0.0);
  EXPECT_NO_THROW(validate_mesh(m, "rod_net", MeshUse::rods));
}

TEST(RodNet, Errors) {
  EXPECT_INPUT_ERROR(make_rod_net(1, 1, 1, 4), "rod_net: m (rods along x) must be >= 2, got 1");
  EXPECT_INPUT_ERROR(make_rod_net(1, 1, 4, 0), "rod_net: n (rods along z) must be >= 2, got 0");
  EXPECT_INPUT_ERROR(make_rod_net(0, 1, 4, 4), "rod_net: size_a must be a finite number > 0, got 0");
  EXPECT_INPUT_ERROR(make_rod_net(1, -1, 4, 4), "rod_net: size_b must be a finite number > 0, got -1");
  EXPECT_INPUT_ERROR(make_rod_net(1, 1, 4, 4, 0), "rod_net: subdivisions must be >= 1, got 0");
  EXPECT_INPUT_ERROR(make_rod_net(1, 1, 2, 2, 20'000'000), "rod_net: 80000000 vertices is more than the limit");
  EXPECT_INPUT_ERROR(make_rod_net(1, 1, 10'000, 10'000), "rod_net: 100000000 vertices is more than the limit");
}

// ---------------------------------------------------------------- particle_block

TEST(ParticleBlock, LatticeWithSingleLayerAxis) {
  TriMesh m = make_particle_block(Vec3(2.0, 0.0, 1.0), 3, 1, 2);  // ny = 1: y = 0, size_y unused
  ASSERT_EQ(m.vertices.size(), 6u);
  EXPECT_TRUE(m.triangles.empty());
  EXPECT_TRUE(m.segments.empty());
  // index i + nx (j + ny k)
  const std::vector<Vec3> v = {Vec3(-1, 0, -0.5), Vec3(0, 0, -0.5), Vec3(1, 0, -0.5),
                               Vec3(-1, 0, 0.5),  Vec3(0, 0, 0.5),  Vec3(1, 0, 0.5)};
  EXPECT_EQ(m.vertices, v);
  EXPECT_NO_THROW(validate_mesh(m, "grains", MeshUse::particles));
  // All three axes single: one particle at the origin.
  TriMesh one = make_particle_block(Vec3(1, 1, 1), 1, 1, 1, 0.4, 9);
  ASSERT_EQ(one.vertices.size(), 1u);
  EXPECT_EQ(one.vertices[0], Vec3(0, 0, 0));
  // y is the middle index: (nx, ny, nz) = (1, 3, 2).
  TriMesh col = make_particle_block(Vec3(5, 0.3, 0.2), 1, 3, 2);
  ASSERT_EQ(col.vertices.size(), 6u);
  EXPECT_EQ(col.vertices[0], Vec3(0, -0.15, -0.1));
  EXPECT_EQ(col.vertices[2], Vec3(0, 0.15, -0.1));
  EXPECT_EQ(col.vertices[5], Vec3(0, 0.15, 0.1));
  EXPECT_NEAR(col.vertices[4].y(), 0.0, 1e-17);
}

TEST(ParticleBlock, JitterBoundsAndDeterminism) {
  const int nx = 6, ny = 5, nz = 4;
  const Vec3 size(1.0, 0.8, 0.6);
  const double jitter = 0.4;
  const Vec3 d(size.x() / (nx - 1), size.y() / (ny - 1), size.z() / (nz - 1));
  TriMesh reg = make_particle_block(size, nx, ny, nz, 0.0, 7);
  TriMesh a = make_particle_block(size, nx, ny, nz, jitter, 7);
  TriMesh b = make_particle_block(size, nx, ny, nz, jitter, 7);
  TriMesh c = make_particle_block(size, nx, ny, nz, jitter, 8);
  EXPECT_EQ(reg.vertices, make_particle_block(size, nx, ny, nz, 0.0, 123).vertices);  // no jitter: seed unused
  EXPECT_EQ(a.vertices, b.vertices);  // bit-identical for the same seed
  ASSERT_EQ(a.vertices.size(), 120u);
  int moved = 0, differ = 0;
  for (size_t v = 0; v < a.vertices.size(); ++v) {
    Vec3 off = a.vertices[v] - reg.vertices[v];
    for (int k = 0; k < 3; ++k) EXPECT_LE(std::abs(off[k]), jitter * d[k] * (1 + 1e-12)) << v << " axis " << k;
    if (off.cwiseAbs().minCoeff() > 0.05 * d.minCoeff()) ++moved;
    if (a.vertices[v] != c.vertices[v]) ++differ;
  }
  EXPECT_GT(moved, 60);    // most particles move along every axis (boundary ones too)
  EXPECT_GT(differ, 110);  // another seed gives another block
  // A single-layer axis gets no jitter.
  TriMesh flat = make_particle_block(Vec3(1, 1, 1), 4, 1, 4, 0.4, 3);
  for (const Vec3& p : flat.vertices) EXPECT_EQ(p.y(), 0.0);
  EXPECT_NO_THROW(validate_mesh(a, "grains", MeshUse::particles));
}

TEST(ParticleBlock, Errors) {
  EXPECT_INPUT_ERROR(make_particle_block(Vec3(1, 1, 1), 0, 2, 2), "particle_block: nx must be >= 1, got 0");
  EXPECT_INPUT_ERROR(make_particle_block(Vec3(1, 1, 1), 2, 2, -1), "particle_block: nz must be >= 1, got -1");
  EXPECT_INPUT_ERROR(make_particle_block(Vec3(1, 0, 1), 2, 2, 2), "particle_block: size_y must be a finite number > 0, got 0");
  EXPECT_INPUT_ERROR(make_particle_block(Vec3(1, -1, 1), 2, 1, 2), "particle_block: size_y must be a finite number >= 0, got -1");
  EXPECT_INPUT_ERROR(make_particle_block(Vec3(1, 1, 1), 2, 2, 2, 0.5), "particle_block: jitter must be in [0, 0.4], got 0.5");
  EXPECT_INPUT_ERROR(make_particle_block(Vec3(1, 1, 1), 1000, 1000, 1000), "particle_block: 1000000000 vertices is more than the limit");
}
