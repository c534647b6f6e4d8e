// weft-verify --extents: per-object boxes of the last frame and the pile height.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "h5_fixture.hpp"
#include "verify/cli.hpp"
#include "verify/extents.hpp"

using namespace weft;
using namespace weft::verify;
using namespace weft::verify::test;

namespace {

void string_attr(const std::string& path, const char* name, const std::string& value) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t g = H5Gopen2(f, "/mesh", H5P_DEFAULT);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, value.size() + 1);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(g, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, t, value.c_str());
  H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
  H5Gclose(g);
  H5Fclose(f);
}

// A board triangle (object 0, top at y = 0) and two cloth triangles (objects 1, 2) that
// fall from y = 0.5 / 0.6 to y = 0.01 / 0.02 in the last of three frames.
// The writer closes the file when it goes out of scope; attributes are added after.
std::string write_pile(bool with_names) {
  const std::string path = temp_dir() + (with_names ? "/pile.h5" : "/pile_unnamed.h5");
  H5Writer w(path);
  std::vector<Vec3> rest = {{-1, 0, -1}, {1, 0, -1}, {0, 0, 1},          // board
                            {0, 0.5, 0}, {0.1, 0.5, 0}, {0, 0.5, 0.1},   // cloth a
                            {0, 0.6, 0}, {0.2, 0.6, 0}, {0, 0.6, 0.2}};  // cloth b
  std::vector<double> r;
  for (const Vec3& p : rest) r.insert(r.end(), {p.x(), p.y(), p.z()});
  w.f64("/mesh/rest_positions", {9, 3}, r);
  w.i64("/mesh/triangles", {3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  w.f64("/mesh/triangle_offset", {3}, {0, 0, 0});
  w.f64("/mesh/strain_limit", {3}, {0, 0, 0});
  w.i32("/mesh/object_id", {9}, {0, 0, 0, 1, 1, 1, 2, 2, 2});
  std::vector<double> pos;
  for (int f = 0; f < 3; ++f)
    for (int v = 0; v < 9; ++v) {
      Vec3 p = rest[v];
      if (v >= 3 && f == 1) p.y() -= 0.2;
      if (v >= 3 && f == 2) p.y() = v < 6 ? 0.01 : 0.02;
      pos.insert(pos.end(), {p.x(), p.y(), p.z()});
    }
  w.f64("/frames/positions", {3, 9, 3}, pos);
  w.f64("/frames/time", {3}, {0, 0.04, 0.08});
  w.attr_int("complete", 1);
  return path;
}

}  // namespace

TEST(Extents, BoxesAndPileHeightOfTheLastFrame) {
  const std::string path = write_pile(true);
  string_attr(path, "object_names", "board\ncloth_a\ncloth_b");
  string_attr(path, "object_kinds", "obstacle\nshell\nshell");
  const Extents e = compute_extents(ResultFile(path));
  EXPECT_EQ(e.frame, 2);
  EXPECT_DOUBLE_EQ(e.time, 0.08);
  ASSERT_EQ(e.objects.size(), 3u);
  EXPECT_EQ(e.objects[0].name, "board");
  EXPECT_EQ(e.objects[1].kind, "shell");
  EXPECT_EQ(e.objects[2].vertices, 3);
  EXPECT_EQ(e.objects[0].min, Vec3(-1, 0, -1));
  EXPECT_EQ(e.objects[0].max, Vec3(1, 0, 1));
  EXPECT_EQ(e.objects[2].min, Vec3(0, 0.02, 0));
  EXPECT_EQ(e.objects[2].max, Vec3(0.2, 0.02, 0.2));
  EXPECT_DOUBLE_EQ(e.shells_top, 0.02);
  EXPECT_DOUBLE_EQ(e.obstacles_top, 0.0);
  EXPECT_DOUBLE_EQ(e.pile_height, 0.02);

  const std::string text = extents_text(e);
  EXPECT_NE(text.find("EXTENT 2 cloth_b shell vertices 3 min 0 0.02 0 max 0.2 0.02 0.2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("PILE height 0.02 shells_top 0.02 board_top 0 frame 2 time 0.08\n"), std::string::npos) << text;

  // Through the command line: --extents appends to the checks; --json nests it.
  std::ostringstream out, err;
  const char* argv[] = {"weft-verify", path.c_str(), "--extents"};
  EXPECT_EQ(run_cli(3, argv, out, err, MPI_COMM_SELF), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("PASS intersection"), std::string::npos);
  EXPECT_NE(out.str().find("PILE height 0.02"), std::string::npos);
  std::ostringstream jout, jerr;
  const char* jargv[] = {"weft-verify", path.c_str(), "--json", "--extents"};
  EXPECT_EQ(run_cli(4, jargv, jout, jerr, MPI_COMM_SELF), 0);
  const std::string j = jout.str();
  EXPECT_NE(j.find("\"extents\": {\"frame\": 2"), std::string::npos) << j;
  EXPECT_NE(j.find("\"pile_height\": 0.02"), std::string::npos) << j;
  EXPECT_EQ(j.substr(j.size() - 3), "}}\n") << j;
}

TEST(Extents, WithoutKindsThereIsNoPileHeight) {
  const std::string path = write_pile(false);
  const Extents e = compute_extents(ResultFile(path));
  ASSERT_EQ(e.objects.size(), 3u);
  EXPECT_EQ(e.objects[1].name, "object1");
  EXPECT_EQ(e.objects[1].kind, "unknown");
  EXPECT_TRUE(std::isnan(e.pile_height));
  EXPECT_NE(extents_text(e).find("PILE height nan"), std::string::npos);
  EXPECT_NE(extents_json(e).find("\"pile_height\": null"), std::string::npos);
}
