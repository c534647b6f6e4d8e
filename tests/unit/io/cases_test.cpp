// Every scene in cases/ loads, and its meshes build and pass validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "io/case_loader.hpp"
#include "io_test_util.hpp"

using namespace weft;
namespace fs = std::filesystem;

namespace {

const fs::path kCases = fs::path(WEFT_TEST_DIR) / ".." / "cases";

int count_in_box(const TriMesh& m, const PinSpec& p) {
  int n = 0;
  for (const Vec3& v : m.vertices)
    if ((v.array() >= p.box_min.array()).all() && (v.array() <= p.box_max.array()).all()) ++n;
  return n;
}

}  // namespace

TEST(Cases, EveryCaseLoadsAndItsMeshesBuild) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kCases))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 3u);
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    CaseSpec s;
    ASSERT_NO_THROW(s = load_case(f.string(), {}));
    EXPECT_EQ(s.name, f.stem().string());
    for (size_t i = 0; i < s.objects.size(); ++i) {
      TriMesh m;
      ASSERT_NO_THROW(m = load_object_mesh(s, i)) << s.objects[i].name;
      for (size_t k = 0; k < s.objects[i].pins.size(); ++k)
        EXPECT_GE(count_in_box(m, s.objects[i].pins[k]), 1) << "pin " << k << " selects no vertex";
    }
  }
}

TEST(Cases, HangTwoCorners) {
  CaseSpec s = load_case((kCases / "hang_two_corners.yaml").string());
  EXPECT_EQ(s.dt, 0.04);
  EXPECT_EQ(s.frames, 40);
  ASSERT_EQ(s.objects.size(), 1u);
  const ObjectSpec& c = s.objects[0];
  EXPECT_EQ(c.strain_limit, 1.01);
  EXPECT_EQ(c.material.youngs, 1e5);
  TriMesh m = load_object_mesh(s, 0);
  EXPECT_EQ(m.vertices.size(), 32u * 32u);
  ASSERT_EQ(c.pins.size(), 2u);
  for (const PinSpec& p : c.pins) EXPECT_EQ(count_in_box(m, p), 1);
}

TEST(Cases, PullWeighted) {
  CaseSpec s = load_case((kCases / "pull_weighted.yaml").string());
  const ObjectSpec& c = s.objects[0];
  EXPECT_EQ(c.strain_limit, 1.06);
  TriMesh m = load_object_mesh(s, 0);
  ASSERT_EQ(c.pins.size(), 4u);
  for (const PinSpec& p : c.pins) EXPECT_EQ(count_in_box(m, p), 1);
  EXPECT_FALSE(c.pins[0].motion.moving());
  EXPECT_TRUE(c.pins[2].motion.moving());
  EXPECT_EQ(c.pins[2].motion.velocity, Vec3(0, -0.05, 0));
  EXPECT_EQ(c.pins[3].motion.until, 2.0);
  // Pull 0.1 m over a 2 m drop: 5%, inside the 6% limit.
  Vec3 lo = m.vertices[0], hi = m.vertices[0];
  for (const Vec3& v : m.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
  EXPECT_NEAR(hi.y() - lo.y(), 2.0, 1e-12);
  EXPECT_LT(1.0 + 0.05 * 2.0 / (hi.y() - lo.y()), c.strain_limit);
}

TEST(Cases, DrapeDefault) {
  CaseSpec s = load_case((kCases / "drape_default.yaml").string());
  EXPECT_EQ(s.frames, 50);
  const ObjectSpec& c = s.objects[0];
  EXPECT_EQ(c.mesh.resolution, (std::array<int, 2>{64, 64}));
  EXPECT_EQ(c.mesh.jitter, 0.3);
  EXPECT_EQ(c.strain_limit, 1.06);
  EXPECT_TRUE(c.pins.empty());
  TriMesh m = load_object_mesh(s, 0);
  for (const Vec3& v : m.vertices) EXPECT_NEAR(v.y(), 1.0, 1e-15);
}
