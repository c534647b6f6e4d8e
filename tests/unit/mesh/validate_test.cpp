#include <gtest/gtest.h>

#include <limits>

#include "mesh/generators.hpp"
#include "mesh/validate.hpp"
#include "mesh_test_util.hpp"

using namespace weft;

namespace {

// Two triangles sharing edge (1, 2), both normals +z.
TriMesh two_triangles() {
  TriMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0)};
  m.triangles = {{0, 1, 2}, {1, 3, 2}};
  return m;
}

}  // namespace

TEST(ValidateMesh, AcceptsGoodMeshes) {
  EXPECT_NO_THROW(validate_mesh(two_triangles(), "pair"));
  EXPECT_NO_THROW(validate_mesh(make_grid(1, 1, 30, 30, 0.4, 2), "grid"));
  EXPECT_NO_THROW(validate_mesh(make_sphere(1, 3), "sphere"));
}

TEST(ValidateMesh, EmptyMesh) {
  EXPECT_INPUT_ERROR(validate_mesh(TriMesh{}, "m"), "m: mesh has no vertices");
  TriMesh m = two_triangles();
  m.triangles.clear();
  EXPECT_INPUT_ERROR(validate_mesh(m, "m"), "m: mesh has no triangles");
}

TEST(ValidateMesh, NonFiniteCoordinate) {
  TriMesh m = two_triangles();
  m.vertices[2].y() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_INPUT_ERROR(validate_mesh(m, "cloth"), "cloth: vertex 2 has a non-finite coordinate");
  m.vertices[2].y() = std::numeric_limits<double>::infinity();
  EXPECT_INPUT_ERROR(validate_mesh(m, "cloth"), "vertex 2 has a non-finite");
}

TEST(ValidateMesh, IndexOutOfRange) {
  TriMesh m = two_triangles();
  m.triangles[1][1] = 7;
  EXPECT_INPUT_ERROR(validate_mesh(m, "cloth"), "cloth: triangle 1 references vertex 7 (the mesh has 4 vertices)");
  m.triangles[1][1] = -1;
  EXPECT_INPUT_ERROR(validate_mesh(m, "cloth"), "triangle 1 references vertex -1");
}

TEST(ValidateMesh, DegenerateTriangles) {
  TriMesh m = two_triangles();
  m.triangles[1] = {1, 3, 1};
  EXPECT_INPUT_ERROR(validate_mesh(m, "cloth"), "cloth: triangle 1 is degenerate (repeats a vertex");
  TriMesh c = two_triangles();
  c.vertices[3] = Vec3(0.5, 0.5, 0);  // on the segment 1-2: zero area
  EXPECT_INPUT_ERROR(validate_mesh(c, "cloth"), "cloth: triangle 1 is degenerate (area");
  TriMesh tiny = two_triangles();
  tiny.vertices[3] = Vec3(0.5 + 1e-14, 0.5 + 1e-14, 0);  // area ~1e-14 < 1e-12 * 2
  EXPECT_INPUT_ERROR(validate_mesh(tiny, "cloth"), "triangle 1 is degenerate");
}

TEST(ValidateMesh, UnusedVertex) {
  TriMesh m = two_triangles();
  m.vertices.push_back(Vec3(5, 5, 5));
  EXPECT_INPUT_ERROR(validate_mesh(m, "cloth"), "cloth: vertex 4 is not used by any triangle");
}

TEST(ValidateMesh, DuplicateTriangle) {
  TriMesh m = two_triangles();
  m.triangles.push_back({2, 1, 0});
  EXPECT_INPUT_ERROR(validate_mesh(m, "cloth"), "triangle 2 duplicates triangle 0");
}

TEST(ValidateMesh, NonManifoldEdge) {
  TriMesh m = two_triangles();
  m.vertices.push_back(Vec3(0.5, 0.5, 1));
  m.triangles.push_back({1, 2, 4});  // third triangle on edge (1, 2)
  EXPECT_INPUT_ERROR(validate_mesh(m, "fin.obj"), "fin.obj: non-manifold edge (1, 2) is shared by 3 triangles (0, 1, 2)");
}

TEST(ValidateMesh, InconsistentOrientation) {
  TriMesh m = two_triangles();
  m.triangles[1] = {1, 2, 3};
  EXPECT_INPUT_ERROR(validate_mesh(m, "cloth"), "cloth: triangles 0 and 1 are inconsistently oriented across edge (1, 2)");
}

TEST(ValidateMesh, BowtieVertex) {
  // Two triangles touching only at vertex 0.
  TriMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(-1, 0, 0), Vec3(-1, -1, 0)};
  m.triangles = {{0, 1, 2}, {0, 3, 4}};
  EXPECT_INPUT_ERROR(validate_mesh(m, "bowtie"), "bowtie: non-manifold vertex 0");
  // Two cones sharing an apex (closed fans, still one vertex): also refused.
  TriMesh a = make_grid(1, 1, 3, 3);  // centre vertex 4 has a full disk
  TriMesh b = a;
  for (Vec3& v : b.vertices) v += Vec3(0, 0.0, 0) + (v.norm() > 0 ? Vec3(0, 1.0, 0) : Vec3::Zero());
  TriMesh both = a;
  const int off = static_cast<int>(a.vertices.size());
  for (const Vec3& v : b.vertices) both.vertices.push_back(v);
  for (Tri f : b.triangles) {
    for (int& v : f) v = (v == 4) ? 4 : v + off;
    both.triangles.push_back(f);
  }
  both.vertices.erase(both.vertices.begin() + off + 4);  // drop b's copy of the apex
  for (size_t t = a.triangles.size(); t < both.triangles.size(); ++t)
    for (int& v : both.triangles[t])
      if (v > off + 4) --v;
  EXPECT_INPUT_ERROR(validate_mesh(both, "cones"), "cones: non-manifold vertex 4");
}
