// Orthotropic shells read from a textured OBJ (issue 19 point 2): the warp direction of each
// triangle is the direction of increasing u in the rest triangle, unless the case gives
// strain_limit.warp_direction, which wins. tests/data/aniso/uv_panel.obj: a panel in the
// plane of e1 = (1, 1, 0)/sqrt(2) and e2 = +z with u = 2 s + 0.5 along e1, v = 3 t - 1.
#include <gtest/gtest.h>

#include <cmath>

#include "energy/registry.hpp"
#include "energy/membrane_orthotropic.hpp"
#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"
#include "io_test_util.hpp"
#include "mesh/readers.hpp"

using namespace weft;

namespace {

const std::string kPanel = std::string(WEFT_DATA_DIR) + "/aniso/uv_panel.obj";

std::string textured_case(const std::string& limit) {
  return "objects:\n"
         "  - name: panel\n"
         "    mesh: {file: " + kPanel + "}\n"
         "    transform: {rotate: [30, 0, 1, 0]}\n"
         "    material: {model: orthotropic, density: 300, thickness: 5.0e-4, a11: 1.0e6, a22: 5.0e5, g12: 2.0e5}\n"
         "    strain_limit: {warp: 1.02, weft: 1.05" + limit + "}\n";
}

}  // namespace

TEST(UvWarp, ObjReaderKeepsCornerTextureCoordinates) {
  const TriMesh m = read_obj(kPanel);
  ASSERT_EQ(m.triangles.size(), 8u);
  ASSERT_EQ(m.triangle_uv.size(), 8u);
  // First quad 1/1 2/2 5/5 4/4, fanned (1, 2, 5), (1, 5, 4): corner uv of vertex k is (2 s + 0.5, 3 t - 1).
  EXPECT_NEAR(m.triangle_uv[0][1].x(), 0.7, 1e-15);
  EXPECT_NEAR(m.triangle_uv[0][2].y(), -0.7, 1e-15);
  iotest::TempDir t;
  EXPECT_INPUT_ERROR(read_obj(t.write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/3\n")),
                     "bad.obj:5: texture index in '2/2' is out of range (1 'vt' lines so far)");
  // A face without texture indices: no texture coordinates at all.
  const TriMesh partial = read_obj(t.write("p.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n"
                                                    "f 1/1 2/2 3/3\nf 2 4 3\n"));
  EXPECT_TRUE(partial.triangle_uv.empty());
}

TEST(UvWarp, WarpFollowsUAndTheCaseDirectionWins) {
  // The case rotates the panel 30 degrees about y: u still runs along the rotated e1.
  const double c = std::cos(M_PI / 6), s = std::sin(M_PI / 6), r = 1 / std::sqrt(2.0);
  const Vec3 e1 = Vec3(c * r, r, -s * r).normalized();  // R_y(30) (r, r, 0)
  const Vec3 e2 = Vec3(s, 0, c);                         // R_y(30) (0, 0, 1)
  {
    const Scene sc = build_scene(load_case_from_string(textured_case(""), "uv.yaml"), 1);
    ASSERT_EQ(sc.triangle_warp.size(), 8u);
    for (const Vec3& w : sc.triangle_warp.to_vector()) EXPECT_LT((w - e1).norm(), 1e-12) << w.transpose();
    // The membrane term's rest data uses the same direction as the output.
    const ElementSet* set = nullptr;
    for (const ElementSet& es : sc.element_sets)
      if (std::string(es.term->name) == "membrane_orthotropic") set = &es;
    ASSERT_NE(set, nullptr);
    for (const OrthotropicRest& rest : set->rest<OrthotropicRest>()) EXPECT_LT((rest.warp - e1).norm(), 1e-12);
  }
  {
    // warp_direction given: it wins over the texture (projected into each triangle: e2 itself).
    const Scene sc = build_scene(load_case_from_string(textured_case(", warp_direction: [0.5, 0, 0.866]"), "uv.yaml"), 1);
    for (const Vec3& w : sc.triangle_warp.to_vector()) EXPECT_LT((w - e2).norm(), 1e-3) << w.transpose();
  }
}

TEST(UvWarp, PlainShellsAroundAnOrthotropicOneHaveNoWarp) {
  // Objects in case order: a plain shell, the textured orthotropic panel, a plain shell. The
  // per-triangle warp runs over every triangle: zero on the plain shells' (before and after
  // the panel), the panel's u direction on its own; a scene without an orthotropic shell
  // has none at all.
  const std::string plain = "    mesh: {generator: grid, size: [1.0, 1.0], resolution: [3, 3]}\n"
                            "    material: {density: 300, youngs: 1.0e5, poisson: 0.3, thickness: 5.0e-4}\n";
  const std::string text = "objects:\n  - name: before\n" + plain +
                           textured_case("").substr(std::string("objects:\n").size()) + "  - name: after\n" + plain;
  const Scene sc = build_scene(load_case_from_string(text, "mixed.yaml"), 1);
  ASSERT_EQ(sc.triangle_warp.size(), sc.triangles.size());
  const double c = std::cos(M_PI / 6), s = std::sin(M_PI / 6), r = 1 / std::sqrt(2.0);
  const Vec3 e1 = Vec3(c * r, r, -s * r).normalized();
  int panel = 0;
  for (size_t t = 0; t < sc.triangles.size(); ++t) {
    if (sc.triangle_object[static_cast<int>(t)] == 1) {
      ++panel;
      EXPECT_LT((sc.triangle_warp[t] - e1).norm(), 1e-12) << t;
    } else {
      EXPECT_EQ(sc.triangle_warp[t], Vec3::Zero()) << t;
    }
  }
  EXPECT_EQ(panel, 8);
  EXPECT_GT(sc.triangles.size(), 8u);
  const Scene none = build_scene(load_case_from_string("objects:\n  - name: only\n" + plain, "plain.yaml"), 1);
  EXPECT_TRUE(none.triangle_warp.empty());
}
