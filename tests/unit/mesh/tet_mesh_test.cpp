// Volume meshes: the tet generators (box, sphere), the boundary surface, the .msh reader's
// tetrahedra and validate_tets.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/error.hpp"
#include "mesh/boundary_surface.hpp"
#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh/readers.hpp"
#include "mesh/validate.hpp"

namespace weft {
namespace {

double tet_volume(const TriMesh& m, const std::array<int, 4>& t) {
  const Vec3 &a = m.vertices[t[0]], &b = m.vertices[t[1]], &c = m.vertices[t[2]], &d = m.vertices[t[3]];
  return (b - a).dot((c - a).cross(d - a)) / 6.0;
}

// Volume enclosed by triangles via the divergence theorem: sum over faces of
// x0 . (x1 x x2) / 6 (equals the tets' volume iff the faces are the closed outward boundary).
double enclosed_volume(const TriMesh& m, const std::vector<Tri>& tris) {
  double v = 0;
  for (const Tri& f : tris) v += m.vertices[f[0]].dot(m.vertices[f[1]].cross(m.vertices[f[2]])) / 6.0;
  return v;
}

// Closed 2-manifold: every directed edge used once and its reverse once.
void expect_closed_oriented(const std::vector<Tri>& tris) {
  std::map<std::pair<int, int>, int> directed;
  for (const Tri& f : tris)
    for (int k = 0; k < 3; ++k) ++directed[{f[k], f[(k + 1) % 3]}];
  for (const auto& [e, count] : directed) {
    EXPECT_EQ(count, 1) << e.first << "->" << e.second;
    auto rev = directed.find({e.second, e.first});
    ASSERT_NE(rev, directed.end()) << "open edge " << e.first << "-" << e.second;
  }
}

// Shape quality of a tet: 6 sqrt(2) V / l_rms^3 (1 for the regular tet, 0 when flat).
double quality(const TriMesh& m, const std::array<int, 4>& t) {
  double l2 = 0;
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) l2 += (m.vertices[t[a]] - m.vertices[t[b]]).squaredNorm();
  const double lrms = std::sqrt(l2 / 6);
  return 6 * std::sqrt(2.0) * tet_volume(m, t) / (lrms * lrms * lrms);
}

TEST(TetBox, CountsVolumesAndBoundary) {
  for (const auto& [size, n] : std::vector<std::pair<Vec3, std::array<int, 3>>>{
           {Vec3(1, 1, 1), {2, 2, 2}}, {Vec3(0.3, 0.7, 0.2), {4, 5, 3}}, {Vec3(2, 0.1, 1), {7, 2, 6}}}) {
    SCOPED_TRACE(std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]));
    const TriMesh m = make_tet_box(size, n[0], n[1], n[2]);
    ASSERT_EQ(m.vertices.size(), static_cast<size_t>(n[0] * n[1] * n[2]));
    ASSERT_EQ(m.tets.size(), static_cast<size_t>(5 * (n[0] - 1) * (n[1] - 1) * (n[2] - 1)));
    EXPECT_TRUE(m.triangles.empty());
    // Lattice: index i + nx (j + ny k), extents exactly +-size/2.
    EXPECT_EQ(m.vertices[0], Vec3(-0.5 * size));
    EXPECT_EQ(m.vertices.back(), Vec3(0.5 * size));
    EXPECT_EQ(m.vertices[1].x(), -0.5 * size.x() + size.x() / (n[0] - 1));
    EXPECT_EQ(m.vertices[n[0]].y(), -0.5 * size.y() + size.y() / (n[1] - 1));
    double vol = 0, qmin = 1;
    for (const auto& t : m.tets) {
      const double v = tet_volume(m, t);
      EXPECT_GT(v, 0.0);
      vol += v;
      qmin = std::min(qmin, quality(m, t));
    }
    const double box = size.prod();
    EXPECT_NEAR(vol, box, 1e-13 * box);
    const std::vector<Tri> surf = extract_boundary_surface(m.tets);
    const int nx = n[0] - 1, ny = n[1] - 1, nz = n[2] - 1;
    EXPECT_EQ(surf.size(), static_cast<size_t>(4 * (nx * ny + ny * nz + nx * nz)));  // 2 per boundary quad
    expect_closed_oriented(surf);
    EXPECT_NEAR(enclosed_volume(m, surf), box, 1e-13 * box);
    // Only boundary vertices on the surface.
    std::set<int> on;
    for (const Tri& f : surf) on.insert(f.begin(), f.end());
    EXPECT_EQ(on.size(), static_cast<size_t>(n[0] * n[1] * n[2] - (n[0] - 2) * (n[1] - 2) * (n[2] - 2)));
    TriMesh withsurf = m;
    withsurf.triangles = surf;
    EXPECT_NO_THROW(validate_mesh(withsurf, "box", MeshUse::volume));
    // A unit cube's corner tets: edges 1, 1, 1, sqrt2 x3, so q = sqrt2 / 1.5^1.5.
    if (size == Vec3(1, 1, 1)) {
      EXPECT_NEAR(qmin, std::sqrt(2.0) / std::pow(1.5, 1.5), 1e-12);
    }
  }
}

TEST(TetBox, SplitIsConformingAcrossCells) {
  // Every interior face shared by exactly two tets (extract_boundary_surface would throw on
  // more), and the count of faces is consistent: 4 T = 2 F_int + F_bnd.
  const TriMesh m = make_tet_box(Vec3(1, 1, 1), 4, 4, 4);
  const std::vector<Tri> surf = extract_boundary_surface(m.tets);
  std::map<Tri, int> faces;
  for (const auto& t : m.tets)
    for (const Tri& f : std::vector<Tri>{{t[1], t[2], t[3]}, {t[0], t[3], t[2]}, {t[0], t[1], t[3]}, {t[0], t[2], t[1]}}) {
      Tri k = f;
      std::sort(k.begin(), k.end());
      ++faces[k];
    }
  int interior = 0;
  for (const auto& [f, c] : faces) {
    EXPECT_LE(c, 2);
    interior += c == 2;
  }
  EXPECT_EQ(4 * static_cast<int>(m.tets.size()), 2 * interior + static_cast<int>(surf.size()));
}

TEST(TetBox, BadArguments) {
  EXPECT_THROW(make_tet_box(Vec3(1, 0, 1), 2, 2, 2), InputError);
  EXPECT_THROW(make_tet_box(Vec3(1, 1, 1), 2, 1, 2), InputError);
  try {
    make_tet_box(Vec3(1, 1, 1), 3, 3, 1);
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "box (volume): resolution z must be >= 2, got 1");
  }
}

// The ball: every tet positive and reasonably shaped, surface closed and outward, volume
// close to 4/3 pi r^3 (the polyhedron is inscribed: always a little less).
TEST(TetSphere, PositiveClosedAndVolume) {
  const double r = 0.3;
  const double ball = 4.0 / 3.0 * M_PI * r * r * r;
  double prev_err = 1;
  for (int n : {2, 3, 4, 5, 9, 17, 33}) {
    SCOPED_TRACE("resolution " + std::to_string(n));
    const TriMesh m = make_tet_sphere(r, n);
    const int L = std::max(1, (n + 1) / 4), N = std::max(1, n - 1 - 2 * L);
    ASSERT_EQ(m.vertices.size(), static_cast<size_t>((N + 1) * (N + 1) * (N + 1) + L * ((N + 1) * (N + 1) * (N + 1) - (N - 1) * (N - 1) * (N - 1))));
    ASSERT_EQ(m.tets.size(), static_cast<size_t>(5 * (N * N * N + 6 * N * N * L)));
    double vol = 0, qmin = 1;
    for (const auto& t : m.tets) {
      const double v = tet_volume(m, t);
      EXPECT_GT(v, 0.0);
      vol += v;
      qmin = std::min(qmin, quality(m, t));
    }
    const std::vector<Tri> surf = extract_boundary_surface(m.tets);
    expect_closed_oriented(surf);
    EXPECT_NEAR(enclosed_volume(m, surf), vol, 1e-13 * vol);
    for (const Tri& f : surf)
      for (int v : f) EXPECT_NEAR(m.vertices[v].norm(), r, 1e-15);
    const double err = (ball - vol) / ball;
    EXPECT_GT(err, 0.0);
    if (n > 4) {
      EXPECT_LT(err, prev_err);  // converges
    }
    prev_err = err;
    EXPECT_GT(qmin, 0.15);  // bounded: 0.30, 0.21, 0.20, 0.19, 0.18 for 4 .. 33 points
    std::printf("  tet sphere resolution %2d: %5zu tets, volume error %.4f%%, min quality %.3f\n", n, m.tets.size(),
                100 * err, qmin);
    if (n == 33) {
      EXPECT_LT(err, 0.005);  // measured 0.42%
    }
  }
  EXPECT_THROW(make_tet_sphere(-1, 5), InputError);
  EXPECT_THROW(make_tet_sphere(1, 1), InputError);
}

TEST(BoundarySurface, SingleTetAndNonConforming) {
  TriMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
  m.tets = {{0, 1, 2, 3}};
  const std::vector<Tri> s = extract_boundary_surface(m.tets);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0], (Tri{1, 2, 3}));
  EXPECT_EQ(s[3], (Tri{0, 2, 1}));
  expect_closed_oriented(s);
  EXPECT_NEAR(enclosed_volume(m, s), 1.0 / 6.0, 1e-16);
  // Each face normal points away from the opposite vertex.
  for (int f = 0; f < 4; ++f) {
    const Vec3 n = (m.vertices[s[f][1]] - m.vertices[s[f][0]]).cross(m.vertices[s[f][2]] - m.vertices[s[f][0]]);
    EXPECT_LT(n.dot(m.vertices[f] - m.vertices[s[f][0]]), 0.0);  // face f is opposite vertex f
  }
  // Three tets on one face.
  const std::vector<std::array<int, 4>> fin{{0, 1, 2, 3}, {0, 2, 1, 4}, {0, 1, 2, 5}};
  EXPECT_THROW(extract_boundary_surface(fin), InputError);
}

TEST(ValidateTets, Refusals) {
  TriMesh m = make_tet_box(Vec3(1, 1, 1), 3, 2, 2);
  m.triangles = extract_boundary_surface(m.tets);
  EXPECT_NO_THROW(validate_mesh(m, "cube", MeshUse::volume));
  auto expect_error = [](const TriMesh& bad, const std::string& what) {
    try {
      validate_mesh(bad, "cube", MeshUse::volume);
      ADD_FAILURE() << "no error, expected " << what;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  TriMesh inv = m;
  std::swap(inv.tets[3][1], inv.tets[3][2]);
  expect_error(inv, "cube: tetrahedron 3 is inverted");
  TriMesh range = m;
  range.tets[1][2] = 99;
  expect_error(range, "cube: tetrahedron 1 references vertex 99");
  TriMesh rep = m;
  rep.tets[0][3] = rep.tets[0][0];
  expect_error(rep, "cube: tetrahedron 0 repeats vertex");
  TriMesh none = m;
  none.tets.clear();
  expect_error(none, "cube: mesh has no tetrahedra");
  // Interior vertices count as used in a volume; unreferenced ones are removed with tets remapped.
  TriMesh big = make_tet_box(Vec3(1, 1, 1), 3, 3, 3);
  big.triangles = extract_boundary_surface(big.tets);
  EXPECT_NO_THROW(validate_mesh(big, "ball", MeshUse::volume));
  big.vertices.insert(big.vertices.begin(), Vec3(5, 5, 5));  // an unused vertex first
  for (auto& t : big.tets)
    for (int& v : t) ++v;
  for (Tri& f : big.triangles)
    for (int& v : f) ++v;
  EXPECT_EQ(remove_unreferenced_vertices(big, MeshUse::volume), 1);
  EXPECT_EQ(big.vertices.size(), 27u);
  EXPECT_EQ(big.tets[0], make_tet_box(Vec3(1, 1, 1), 3, 3, 3).tets[0]);
}

TEST(MshTets, ReadsHandWrittenCube) {
  const std::string path = std::string(WEFT_DATA_DIR) + "/mesh/tet_cube.msh";
  const TriMesh m = read_mesh(path, MeshUse::volume);
  ASSERT_EQ(m.vertices.size(), 8u);
  ASSERT_EQ(m.tets.size(), 5u);
  EXPECT_TRUE(m.triangles.empty());  // surface elements are skipped for volumes
  EXPECT_TRUE(m.segments.empty());
  EXPECT_EQ(m.vertices[3], Vec3(1, 1, 0));  // node tag 40, file order
  // The central tet was written negatively oriented (10 40 60 70): nodes 2, 3 swapped.
  EXPECT_EQ(m.tets[0], (std::array<int, 4>{0, 5, 3, 6}));
  EXPECT_EQ(m.tets[1], (std::array<int, 4>{1, 3, 0, 5}));
  double vol = 0;
  for (const auto& t : m.tets) {
    EXPECT_GT(tet_volume(m, t), 0.0);
    vol += tet_volume(m, t);
  }
  EXPECT_DOUBLE_EQ(vol, 1.0);
  const std::vector<Tri> surf = extract_boundary_surface(m.tets);
  EXPECT_EQ(surf.size(), 12u);
  EXPECT_DOUBLE_EQ(enclosed_volume(m, surf), 1.0);
  // The same file as a surface: its two triangles.
  const TriMesh s = read_msh(path);
  EXPECT_EQ(s.triangles.size(), 2u);
  EXPECT_TRUE(s.tets.empty());
}

TEST(MshTets, Errors) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string p = dir + "/" + name;
    FILE* f = std::fopen(p.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
    return p;
  };
  auto expect_error = [](auto&& fn, const std::string& what) {
    try {
      fn();
      ADD_FAILURE() << "no error, expected " << what;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const std::string head = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n3 1 0 4\n1\n2\n3\n4\n"
                           "0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n";
  const std::string tri = write("tri.msh", head + "$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n");
  expect_error([&] { read_mesh(tri, MeshUse::volume); }, "tri.msh: no tetrahedra (element type 4)");
  const std::string unknown = write("unk.msh", head + "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 9\n$EndElements\n");
  expect_error([&] { read_mesh(unknown, MeshUse::volume); }, "tetrahedron 1 uses unknown node 9");
  const std::string order2 = write("o2.msh", head + "$Elements\n1 1 1 1\n3 1 11 1\n1 1 2 3 4 1 1 1 1 1 1\n$EndElements\n");
  expect_error([&] { read_mesh(order2, MeshUse::volume); }, "10-node (second-order) tetrahedra are not supported");
  const std::string obj = write("cube.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  expect_error([&] { read_mesh(obj, MeshUse::volume); }, "cube.obj: an OBJ file holds no tetrahedra");
  const std::string tet = write("tet.msh", head + "$Elements\n1 1 1 1\n3 1 4 1\n1 1 2 3 4\n$EndElements\n");
  EXPECT_EQ(read_mesh(tet, MeshUse::volume).tets.size(), 1u);
  expect_error([&] { read_mesh(tet); }, "tet.msh: no triangles (element type 2)");
}

}  // namespace
}  // namespace weft
