// Timing of a 262K-vertex frame (512 x 512 sheet, 522K triangles). Disabled by default:
//   unit-verify --gtest_also_run_disabled_tests --gtest_filter='*Timing*'
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "h5_fixture.hpp"
#include "verify/checks.hpp"

using namespace weft;
using namespace weft::verify;
using namespace weft::verify::test;

TEST(Timing, DISABLED_Frame262KVertices) {
  const int n = 512;
  const double h = 1.0 / (n - 1), r = 5e-3;
  Scene s;
  s.add_sheet(n, n, h, -0.5, 0.0, -0.5, 1e-3, 1.1);
  std::vector<Vec3> flat = s.rest, wave = s.rest, fold = s.rest;
  const double pi = std::acos(-1.0);
  for (std::size_t i = 0; i < s.rest.size(); ++i) {
    const double x = s.rest[i].x(), z = s.rest[i].z();
    wave[i].y() = 0.02 * std::sin(6 * pi * x) * std::cos(4 * pi * z);
    // Fold the half x > 0 back over the other half around a cylinder of radius r.
    const double t = x;  // arc length past the fold line x = 0
    if (t > 0) {
      if (t < pi * r) fold[i] = Vec3(r * std::sin(t / r), r - r * std::cos(t / r), z);
      else fold[i] = Vec3(-(t - pi * r), 2 * r, z);
    }
  }
  s.frames = {flat, wave, fold};
  const std::string path = temp_dir() + "/timing.h5";
  write_scene(path, s);

  const ResultFile file(path);
  FrameChecker checker(file.mesh(), Options{});
  const char* names[] = {"flat (exactly coplanar)", "wave", "folded (two layers 1e-2 apart)"};
  for (int f = 0; f < 3; ++f) {
    Stats st;
    const auto t0 = std::chrono::steady_clock::now();
    checker.check(f, s.frames[std::size_t(f)], st);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("frame %d %-32s %.3f s  (%ld candidate pairs, min gap %.3g)\n", f, names[f], dt,
                st.candidate_pairs, st.distance_gap);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const Report rep = verify_file(path);
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("verify_file, 3 frames incl. HDF5 read: %.3f s\n%s", dt, to_text(rep).c_str());
  EXPECT_TRUE(rep.find("intersection")->pass);
}
