#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "mesh/generators.hpp"
#include "mesh/readers.hpp"
#include "mesh/validate.hpp"
#include "mesh_test_util.hpp"

using namespace weft;
using weft::test::TempDir;

namespace {

std::string to_obj(const TriMesh& m) {
  std::ostringstream os;
  os.precision(17);
  os << "# written by the test\n";
  for (const Vec3& v : m.vertices) os << "v " << v.x() << " " << v.y() << " " << v.z() << "\n";
  for (const Tri& f : m.triangles) os << "f " << f[0] + 1 << " " << f[1] + 1 << " " << f[2] + 1 << "\n";
  return os.str();
}

// Gmsh 4.1 ASCII with the nodes split over two entity blocks, sparse tags (10, 20, ...),
// a line element block and a point block that must be skipped.
std::string to_msh(const TriMesh& m) {
  std::ostringstream os;
  os.precision(17);
  const size_t n = m.vertices.size(), half = n / 2;
  os << "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
  os << "$PhysicalNames\n1\n2 1 \"cloth\"\n$EndPhysicalNames\n";
  os << "$Nodes\n2 " << n << " 10 " << 10 * n << "\n";
  auto block = [&](size_t lo, size_t hi, int param) {
    os << "2 1 " << param << " " << hi - lo << "\n";
    for (size_t i = lo; i < hi; ++i) os << 10 * (i + 1) << "\n";
    for (size_t i = lo; i < hi; ++i) {
      os << m.vertices[i].x() << " " << m.vertices[i].y() << " " << m.vertices[i].z();
      if (param) os << " 0.5 0.25";
      os << "\n";
    }
  };
  block(0, half, 0);
  block(half, n, 1);
  os << "$EndNodes\n";
  os << "$Elements\n3 " << m.triangles.size() + 2 << " 1 " << m.triangles.size() + 2 << "\n";
  os << "0 1 15 1\n1 10\n";
  os << "1 1 1 1\n2 10 20\n";
  os << "2 1 2 " << m.triangles.size() << "\n";
  for (size_t t = 0; t < m.triangles.size(); ++t) {
    const Tri& f = m.triangles[t];
    os << t + 3 << " " << 10 * (f[0] + 1) << " " << 10 * (f[1] + 1) << " " << 10 * (f[2] + 1) << "\n";
  }
  os << "$EndElements\n";
  return os.str();
}

}  // namespace

TEST(ReadObj, RoundTrip) {
  TempDir tmp;
  TriMesh m = make_grid(1.0, 0.5, 6, 4, 0.3, 3);
  TriMesh r = read_obj(tmp.write("grid.obj", to_obj(m)));
  EXPECT_EQ(r.vertices, m.vertices);
  EXPECT_EQ(r.triangles, m.triangles);
  TriMesh via = read_mesh(tmp.write("GRID.OBJ", to_obj(m)));
  EXPECT_EQ(via.triangles, m.triangles);
}

TEST(ReadObj, SlashFormsNegativeIndicesPolygonsAndNoise) {
  TempDir tmp;
  const std::string text =
      "# a unit square as one quad, then a triangle with relative indices\r\n"
      "mtllib x.mtl\n"
      "o square\n"
      "v 0 0 0\n"
      "v 1 0 0   # trailing comment\n"
      "v 1 0 1\n"
      "v 0 0 1 1.0\n"
      "vt 0 0\nvt 1 0\nvt 1 1\n"
      "vn 0 1 0\n"
      "s off\n"
      "usemtl cloth\n"
      "\n"
      "f 1/1/1 4/3/1 3/2/1 2//1\n"
      "v 2 0 0\n"
      "f -4 -1 -3\n";  // vertices 2, 5, 3 (1-based)
  TriMesh m = read_obj(tmp.write("quad.obj", text));
  ASSERT_EQ(m.vertices.size(), 5u);
  ASSERT_EQ(m.triangles.size(), 3u);
  EXPECT_EQ(m.triangles[0], (Tri{0, 3, 2}));
  EXPECT_EQ(m.triangles[1], (Tri{0, 2, 1}));
  EXPECT_EQ(m.triangles[2], (Tri{1, 4, 2}));
  EXPECT_TRUE(m.vertices[3].isApprox(Vec3(0, 0, 1)));
}

TEST(ReadObj, Errors) {
  TempDir tmp;
  EXPECT_INPUT_ERROR(read_obj(tmp.file("nope.obj")), "nope.obj: mesh file not found");
  EXPECT_INPUT_ERROR(read_mesh(tmp.file("nope.obj")), "mesh file not found");
  std::string bad = tmp.write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 x 1\nf 1 2 3\n");
  EXPECT_INPUT_ERROR(read_obj(bad), "bad.obj:3: bad vertex coordinate 'x'");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("short.obj", "v 0 0\n")), "short.obj:1:");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("f2.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n")), "f2.obj:3: face needs at least 3");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("zero.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 0 1 2\n")), "zero.obj:4: face index 0");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("range.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\n\nf 1 2 9\n")),
                     "range.obj:5: face index 9 is out of range (the file has 3 vertices)");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("neg.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf -1 -2 -4\n")), "neg.obj:4:");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("idx.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 a/1\n")), "bad face index 'a/1'");
  EXPECT_INPUT_ERROR(read_obj(tmp.write("empty.obj", "# nothing\n")), "empty.obj: no faces");
  EXPECT_INPUT_ERROR(read_mesh(tmp.write("mesh.ply", "ply\n")), "unsupported mesh format '.ply'");
  EXPECT_FALSE(mesh_format_supported("a.stl"));
  EXPECT_TRUE(mesh_format_supported("dir/a.Msh"));
}

TEST(ReadMsh, RoundTripWithBlocksSparseTagsAndOtherElements) {
  TempDir tmp;
  TriMesh m = make_sphere(0.25, 1);
  TriMesh r = read_msh(tmp.write("ball.msh", to_msh(m)));
  EXPECT_EQ(r.vertices, m.vertices);
  EXPECT_EQ(r.triangles, m.triangles);
  EXPECT_NO_THROW(validate_mesh(r, "ball.msh"));
  TriMesh via = read_mesh(tmp.file("ball.msh"));
  EXPECT_EQ(via.triangles.size(), m.triangles.size());
}

TEST(ReadMsh, Errors) {
  TempDir tmp;
  EXPECT_INPUT_ERROR(read_msh(tmp.file("gone.msh")), "gone.msh: mesh file not found");
  const std::string v2 =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 0 1\n$EndNodes\n"
      "$Elements\n1\n1 2 2 0 1 1 2 3\n$EndElements\n";
  EXPECT_INPUT_ERROR(read_msh(tmp.write("old.msh", v2)), "old.msh:2: unsupported MSH version 2.2");
  EXPECT_INPUT_ERROR(read_msh(tmp.write("bin.msh", "$MeshFormat\n4.1 1 8\n")), "binary MSH files are not supported");
  EXPECT_INPUT_ERROR(read_msh(tmp.write("notmsh.msh", "hello\n")), "notmsh.msh:1: not a Gmsh .msh file");
  const std::string head = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n";
  const std::string nodes = "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 0 1\n$EndNodes\n";
  EXPECT_INPUT_ERROR(read_msh(tmp.write("coord.msh", head + "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 zz 0\n0 0 1\n$EndNodes\n")),
                     "coord.msh:11: bad node coordinate 'zz'");
  EXPECT_INPUT_ERROR(read_msh(tmp.write("unk.msh", head + nodes + "$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 7\n$EndElements\n")),
                     "unk.msh:17: triangle 1 uses unknown node 7");
  EXPECT_INPUT_ERROR(read_msh(tmp.write("trunc.msh", head + "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n")),
                     "trunc.msh:8: unexpected end of file in $Nodes");
  EXPECT_INPUT_ERROR(read_msh(tmp.write("notri.msh", head + nodes + "$Elements\n1 1 1 1\n1 1 1 1\n1 1 2\n$EndElements\n")),
                     "notri.msh: no triangles");
  // A well-formed minimal file reads.
  TriMesh ok = read_msh(tmp.write("ok.msh", head + nodes + "$Elements\n1 1 1 1\n2 1 2 1\n1 1 3 2\n$EndElements\n"));
  ASSERT_EQ(ok.triangles.size(), 1u);
  EXPECT_EQ(ok.triangles[0], (Tri{0, 2, 1}));
}
