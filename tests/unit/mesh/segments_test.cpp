// Codimensional segments and particles in TriMesh: validation, vertex removal and the
// OBJ reader's 'l' lines and vertex-only files (issue 17).
#include <gtest/gtest.h>

#include "mesh/generators.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh/readers.hpp"
#include "mesh/validate.hpp"
#include "mesh_test_util.hpp"

using namespace weft;
using weft::test::TempDir;

namespace {

// A bent rod 0-1-2 along x then z, plus vertex 3 on no segment.
TriMesh rod() {
  TriMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 1), Vec3(5, 5, 5)};
  m.segments = {{0, 1}, {1, 2}};
  return m;
}

}  // namespace

// ---------------------------------------------------------------- validate_mesh

TEST(ValidateSegments, AcceptsRodsBranchesLoopsAndParticles) {
  TriMesh m = rod();
  m.vertices.pop_back();
  EXPECT_NO_THROW(validate_mesh(m, "rod", MeshUse::rods));
  m.segments.push_back({2, 0});  // closed loop
  EXPECT_NO_THROW(validate_mesh(m, "loop", MeshUse::rods));
  m.vertices.push_back(Vec3(1, 1, 0));
  m.segments.push_back({1, 3});  // vertex 1 on three segments
  EXPECT_NO_THROW(validate_mesh(m, "branch", MeshUse::rods));
  TriMesh p;
  p.vertices = {Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(1, 2, 3)};  // particles may coincide
  EXPECT_NO_THROW(validate_mesh(p, "grains", MeshUse::particles));
  // A surface with a loose segment hanging off a corner.
  TriMesh s;
  s.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(-1, -1, 0)};
  s.triangles = {{0, 1, 2}};
  s.segments = {{0, 3}};
  EXPECT_NO_THROW(validate_mesh(s, "flag"));
  EXPECT_NO_THROW(validate_mesh(s, "flag", MeshUse::rods));
}

TEST(ValidateSegments, EmptinessDependsOnUse) {
  TriMesh m = rod();
  m.vertices.pop_back();
  EXPECT_INPUT_ERROR(validate_mesh(m, "rod"), "rod: mesh has no triangles");
  m.segments.clear();
  EXPECT_INPUT_ERROR(validate_mesh(m, "rod", MeshUse::rods), "rod: mesh has no segments");
  EXPECT_NO_THROW(validate_mesh(m, "grains", MeshUse::particles));
  EXPECT_INPUT_ERROR(validate_mesh(TriMesh{}, "grains", MeshUse::particles), "grains: mesh has no vertices");
  EXPECT_INPUT_ERROR(validate_mesh(TriMesh{}, "rod", MeshUse::rods), "rod: mesh has no vertices");
}

TEST(ValidateSegments, UnusedVertex) {
  EXPECT_INPUT_ERROR(validate_mesh(rod(), "noodle", MeshUse::rods),
                     "noodle: vertex 3 is not used by any triangle or segment");
  TriMesh m = rod();
  m.segments.push_back({2, 3});
  EXPECT_NO_THROW(validate_mesh(m, "noodle", MeshUse::rods));
  EXPECT_NO_THROW(validate_mesh(rod(), "grains", MeshUse::particles));  // 3 is a particle
}

TEST(ValidateSegments, IndexOutOfRange) {
  TriMesh m = rod();
  m.segments[1][1] = 9;
  EXPECT_INPUT_ERROR(validate_mesh(m, "noodle", MeshUse::rods),
                     "noodle: segment 1 references vertex 9 (the mesh has 4 vertices)");
  m.segments[1][1] = -1;
  EXPECT_INPUT_ERROR(validate_mesh(m, "noodle", MeshUse::particles), "noodle: segment 1 references vertex -1");
}

TEST(ValidateSegments, ZeroLength) {
  TriMesh m = rod();
  m.segments.push_back({3, 3});
  EXPECT_INPUT_ERROR(validate_mesh(m, "noodle", MeshUse::rods), "noodle: segment 2 is degenerate (repeats vertex 3)");
  TriMesh c = rod();
  c.vertices[3] = c.vertices[2];
  c.segments.push_back({2, 3});
  EXPECT_INPUT_ERROR(validate_mesh(c, "noodle", MeshUse::rods),
                     "noodle: segment 2 has zero length (vertices 2 and 3: length 0 < 1e-12 * bbox_diagonal");
}

TEST(ValidateSegments, RepeatedSegment) {
  TriMesh m = rod();
  m.segments = {{0, 1}, {1, 2}, {2, 3}, {2, 1}};
  EXPECT_INPUT_ERROR(validate_mesh(m, "noodle", MeshUse::rods),
                     "noodle: segment 3 repeats segment 1 (both join vertices 1 and 2)");
  m.segments[3] = {0, 1};
  EXPECT_INPUT_ERROR(validate_mesh(m, "noodle", MeshUse::rods), "segment 3 repeats segment 0");
}

TEST(ValidateSegments, SegmentOnATriangleEdge) {
  TriMesh s;
  s.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  s.triangles = {{0, 1, 2}};
  s.segments = {{2, 1}};
  EXPECT_INPUT_ERROR(validate_mesh(s, "flag"),
                     "flag: segment 0 (1, 2) is an edge of triangle 0 (a segment must belong to no triangle)");
}

TEST(ValidateSegments, SurfaceMessagesUnchangedWithoutSegments) {
  TriMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(3, 3, 3)};
  m.triangles = {{0, 1, 2}};
  std::string msg = test::input_error_of([&] { validate_mesh(m, "cloth"); });
  EXPECT_EQ(msg, "cloth: vertex 3 is not used by any triangle");
}

// ---------------------------------------------------------------- mesh utilities

TEST(SegmentUtils, RemoveUnreferencedKeepsSegmentVertices) {
  TriMesh m;
  m.vertices = {Vec3(9, 9, 9), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(8, 8, 8), Vec3(1, 1, 0), Vec3(0, 1, 0)};
  m.triangles = {{1, 2, 5}};
  m.segments = {{2, 4}};
  TriMesh keep = m;
  EXPECT_EQ(remove_unreferenced_vertices(m), 2);
  ASSERT_EQ(m.vertices.size(), 4u);
  EXPECT_EQ(m.vertices[0], Vec3(0, 0, 0));
  EXPECT_EQ(m.vertices[2], Vec3(1, 1, 0));
  EXPECT_EQ(m.vertices[3], Vec3(0, 1, 0));
  EXPECT_EQ(m.triangles[0], (Tri{0, 1, 3}));
  EXPECT_EQ(m.segments[0], (Edge{1, 2}));
  // Particles: every vertex is kept.
  EXPECT_EQ(remove_unreferenced_vertices(keep, MeshUse::particles), 0);
  EXPECT_EQ(keep.vertices.size(), 6u);
  EXPECT_EQ(keep.segments[0], (Edge{2, 4}));
  // A rod alone: nothing but the stray vertex goes.
  TriMesh r = rod();
  EXPECT_EQ(remove_unreferenced_vertices(r, MeshUse::rods), 1);
  EXPECT_EQ(r.vertices.size(), 3u);
  EXPECT_EQ(r.segments, (std::vector<Edge>{{0, 1}, {1, 2}}));
}

TEST(SegmentUtils, LengthAndDropOnTriangles) {
  TriMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(3, 0, 0), Vec3(0, 4, 0), Vec3(0, 0, 2)};
  m.triangles = {{0, 1, 2}};
  m.segments = {{1, 2}, {0, 3}, {2, 0}, {3, 1}};
  EXPECT_EQ(segment_length(m, 0), 5.0);
  EXPECT_EQ(segment_length(m, 1), 2.0);
  EXPECT_EQ(drop_segments_on_triangles(m), 2);
  EXPECT_EQ(m.segments, (std::vector<Edge>{{0, 3}, {3, 1}}));
  EXPECT_EQ(drop_segments_on_triangles(m), 0);
}

// ---------------------------------------------------------------- OBJ 'l' lines and 'v' only

TEST(ReadObjSegments, Polylines) {
  TempDir tmp;
  const std::string text =
      "# two rods, one with relative indices and slash forms\n"
      "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\n"
      "l 1 2 3\n"
      "v 1 1 0\n"
      "l -2/1 -1/2   # 4 -> 5\n"
      "l 3 1\n";
  TriMesh m = read_obj(tmp.write("rods.obj", text), MeshUse::rods);
  ASSERT_EQ(m.vertices.size(), 5u);
  EXPECT_TRUE(m.triangles.empty());
  EXPECT_EQ(m.segments, (std::vector<Edge>{{0, 1}, {1, 2}, {3, 4}, {2, 0}}));
  EXPECT_NO_THROW(validate_mesh(m, "rods.obj", MeshUse::rods));
  TriMesh via = read_mesh(tmp.file("rods.obj"), MeshUse::rods);
  EXPECT_EQ(via.segments, m.segments);
  // The surface reader ignores 'l' lines, as before: this file has no faces for it.
  EXPECT_INPUT_ERROR(read_obj(tmp.file("rods.obj")), "rods.obj: no faces ('f' lines) in the OBJ file");
}

TEST(ReadObjSegments, VerticesOnlyIsAParticleSet) {
  TempDir tmp;
  const std::string path = tmp.write("grains.obj", "v 0 0 0\nv 1 2 3\nvn 0 1 0\nv -1 -2 -3.5\n");
  TriMesh m = read_obj(path, MeshUse::particles);
  ASSERT_EQ(m.vertices.size(), 3u);
  EXPECT_EQ(m.vertices[2], Vec3(-1, -2, -3.5));
  EXPECT_TRUE(m.triangles.empty());
  EXPECT_TRUE(m.segments.empty());
  EXPECT_EQ(remove_unreferenced_vertices(m, MeshUse::particles), 0);
  EXPECT_NO_THROW(validate_mesh(m, path, MeshUse::particles));
  EXPECT_INPUT_ERROR(read_obj(path, MeshUse::rods),
                     "grains.obj: no lines ('l' lines that are not edges of faces) in the OBJ file");
  EXPECT_INPUT_ERROR(read_obj(path), "grains.obj: no faces");
}

TEST(ReadObjSegments, MixedFacesAndLinesDropTriangleEdges) {
  TempDir tmp;
  const std::string text =
      "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nv 0 1 0\n"
      "f 1 4 3 2\n"       // triangles (0,3,2), (0,2,1): edges 0-3, 3-2, 2-0, 2-1, 1-0
      "l 2 1 5 4 3\n";    // 1-0 and 3-2 lie on triangles; 0-4, 4-3 are rods
  TriMesh m = read_obj(tmp.write("mixed.obj", text), MeshUse::rods);
  EXPECT_EQ(m.triangles, (std::vector<Tri>{{0, 3, 2}, {0, 2, 1}}));
  EXPECT_EQ(m.segments, (std::vector<Edge>{{0, 4}, {4, 3}}));
  EXPECT_NO_THROW(validate_mesh(m, "mixed.obj", MeshUse::rods));
  TriMesh surf = read_obj(tmp.file("mixed.obj"));
  EXPECT_EQ(surf.triangles, m.triangles);
  EXPECT_TRUE(surf.segments.empty());
  // Only lines on faces: nothing codimensional is left.
  EXPECT_INPUT_ERROR(read_obj(tmp.write("onface.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\nl 1 2 3 1\n"), MeshUse::rods),
                     "onface.obj: no lines ('l' lines that are not edges of faces)");
  TriMesh pf = read_obj(tmp.file("onface.obj"), MeshUse::particles);
  EXPECT_EQ(pf.triangles.size(), 1u);
  EXPECT_TRUE(pf.segments.empty());
}

TEST(ReadObjSegments, RepeatedAndZeroLengthLinesAreLeftForValidation) {
  TempDir tmp;
  TriMesh m = read_obj(tmp.write("rep.obj", "v 0 0 0\nv 1 0 0\nl 1 2\nl 2 1\n"), MeshUse::rods);
  EXPECT_EQ(m.segments, (std::vector<Edge>{{0, 1}, {1, 0}}));
  EXPECT_INPUT_ERROR(validate_mesh(m, "rep.obj", MeshUse::rods), "rep.obj: segment 1 repeats segment 0");
  TriMesh z = read_obj(tmp.write("z.obj", "v 0 0 0\nv 1 0 0\nl 1 2 2\n"), MeshUse::rods);
  EXPECT_INPUT_ERROR(validate_mesh(z, "z.obj", MeshUse::rods), "z.obj: segment 1 is degenerate (repeats vertex 1)");
}

TEST(ReadObjSegments, Errors) {
  TempDir tmp;
  const MeshUse r = MeshUse::rods;
  EXPECT_INPUT_ERROR(read_obj(tmp.write("one.obj", "v 0 0 0\nv 1 0 0\nl 1\n"), r), "one.obj:3: line needs at least 2 vertices");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("zero.obj", "v 0 0 0\nv 1 0 0\nl 0 1\n"), r),
                     "zero.obj:3: line index 0 (OBJ indices start at 1)");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("range.obj", "v 0 0 0\nv 1 0 0\n\nl 1 2 7\n"), r),
                     "range.obj:4: line index 7 is out of range (the file has 2 vertices)");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("neg.obj", "v 0 0 0\nv 1 0 0\nl -1 -3\n"), r),
                     "neg.obj:3: line index -3 points before the first vertex");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("bad.obj", "v 0 0 0\nv 1 0 0\nl 1 b\n"), r), "bad.obj:3: bad line index 'b'");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("empty.obj", "# nothing\n"), r), "empty.obj: no vertices ('v' lines) in the OBJ file");
  EXPECT_INPUT_ERROR(read_obj(tmp.file("empty.obj"), MeshUse::particles), "empty.obj: no vertices ('v' lines)");
  EXPECT_INPUT_ERROR(read_obj(tmp.file("empty.obj")), "empty.obj: no faces ('f' lines) in the OBJ file");
  // The surface reader still ignores malformed 'l' lines, as it always did.
  TriMesh s = read_obj(tmp.write("surf.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\nl 1\nl x y\n"));
  EXPECT_EQ(s.triangles.size(), 1u);
  EXPECT_INPUT_ERROR(read_mesh(tmp.write("rod.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"), r),
                     "rod.msh: .msh files are read as surfaces or volumes only; give rods as an OBJ file with 'l' lines");
}
