#include <gtest/gtest.h>

#include "mesh/build_object_mesh.hpp"
#include "mesh/mesh_utils.hpp"
#include "mesh_test_util.hpp"

using namespace weft;
using weft::test::TempDir;

TEST(BuildObjectMesh, GeneratorThenTransform) {
  MeshSpec ms;
  ms.generator = "grid";
  ms.size = Vec3(2.0, 1.0, 0);
  ms.resolution = {5, 3};
  TransformSpec xf;
  xf.rotate_deg = 90;
  xf.rotate_axis = Vec3(1, 0, 0);
  xf.translate = Vec3(0, 1, 0);
  TriMesh m = build_object_mesh(ms, xf, "");
  ASSERT_EQ(m.vertices.size(), 15u);
  // Grid in x-z with +y normal, rotated 90 degrees about x: now in the x-y plane, normal +z.
  for (int t = 0; t < static_cast<int>(m.triangles.size()); ++t)
    EXPECT_GT(triangle_normal(m, t).z(), 0);
  Vec3 lo, hi;
  bounding_box(m, lo, hi);
  EXPECT_TRUE(lo.isApprox(Vec3(-1, 0.5, 0), 1e-12)) << lo.transpose();
  EXPECT_TRUE(hi.isApprox(Vec3(1, 1.5, 0), 1e-12)) << hi.transpose();

  for (const char* g : {"disk", "sphere", "box", "cylinder"}) {
    MeshSpec s;
    s.generator = g;
    s.resolution = {12, 4};
    EXPECT_NO_THROW(build_object_mesh(s, TransformSpec{}, "")) << g;
  }
}

TEST(BuildObjectMesh, FileRelativeToCaseDirDropsUnusedVertices) {
  TempDir tmp;
  tmp.write("meshes/tri.obj", "v 9 9 9\nv 0 0 0\nv 1 0 0\nv 0 0 -1\nf 2 3 4\n");
  MeshSpec ms;
  ms.file = "meshes/tri.obj";
  TransformSpec xf;
  xf.scale = 2;
  TriMesh m = build_object_mesh(ms, xf, tmp.dir());
  ASSERT_EQ(m.vertices.size(), 3u);
  EXPECT_EQ(m.triangles[0], (Tri{0, 1, 2}));
  EXPECT_TRUE(m.vertices[1].isApprox(Vec3(2, 0, 0)));
}

TEST(BuildObjectMesh, Errors) {
  TempDir tmp;
  MeshSpec ms;
  ms.generator = "torus";
  EXPECT_INPUT_ERROR(build_object_mesh(ms, TransformSpec{}, ""), "unknown generator 'torus'");
  ms.generator = "grid";
  ms.resolution = {1, 4};
  EXPECT_INPUT_ERROR(build_object_mesh(ms, TransformSpec{}, "", "case.yaml: objects[0] (cloth) mesh"),
                     "case.yaml: objects[0] (cloth) mesh: grid: nx");
  MeshSpec f;
  f.file = tmp.write("fin.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nf 1 2 3\nf 2 4 3\nf 2 3 5\n");
  EXPECT_INPUT_ERROR(build_object_mesh(f, TransformSpec{}, ""), "fin.obj: non-manifold edge");
  f.file = "missing.obj";
  EXPECT_INPUT_ERROR(build_object_mesh(f, TransformSpec{}, tmp.dir()), "missing.obj: mesh file not found");
  MeshSpec g;
  g.generator = "sphere";
  TransformSpec bad;
  bad.scale = 0;
  EXPECT_INPUT_ERROR(build_object_mesh(g, bad, "", "obj"), "obj: transform: scale");
}
