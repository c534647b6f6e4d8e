// The orthotropic membrane's separate limits in a hanging test (issue 19 "Shown by"):
// tests/data/aniso/hang.yaml, a sheet hanging from two corners with warp along x and weft
// along y. In every frame the stretch along warp, |F d_warp|, stays <= the warp limit 1.02
// and along weft, |F d_weft|, <= the weft limit 1.05, while the weft stretch DOES pass
// 1.02 somewhere (so the two limits are really separate). The stretches are computed here
// from the result file alone (rest positions, warp directions, frames), and weft-verify's
// checks pass too.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <Eigen/Dense>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "io/case_loader.hpp"
#include "methods/simulation.hpp"
#include "verify/checks.hpp"

namespace {

std::vector<double> read_doubles(hid_t f, const char* name) {
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  hid_t sp = H5Dget_space(ds);
  std::vector<double> v(H5Sget_simple_extent_npoints(sp));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(sp);
  H5Dclose(ds);
  return v;
}

std::vector<long long> read_ints(hid_t f, const char* name) {
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  hid_t sp = H5Dget_space(ds);
  std::vector<long long> v(H5Sget_simple_extent_npoints(sp));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(sp);
  H5Dclose(ds);
  return v;
}

}  // namespace

TEST(OrthotropicHang, StretchRespectsEachLimitAlongItsDirection) {
  const std::string dir = (std::filesystem::temp_directory_path() / "weft-ortho-hang").string();
  std::filesystem::create_directories(dir);
  const std::string out = dir + "/hang.h5";
  const weft::CaseSpec spec = weft::load_case(std::string(WEFT_DATA_DIR) + "/aniso/hang.yaml");
  weft::RunOptions opt;
  opt.output = out;
  opt.progress = false;
  const weft::RunSummary run = weft::run_simulation(spec, opt, MPI_COMM_SELF);
  ASSERT_EQ(run.frames_written, spec.frames + 1);
  EXPECT_TRUE(run.all_converged);

  hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const std::vector<double> rest = read_doubles(f, "/mesh/rest_positions");
  const std::vector<long long> tris = read_ints(f, "/mesh/triangles");
  const std::vector<double> warp = read_doubles(f, "/mesh/warp_direction");
  const std::vector<double> lw = read_doubles(f, "/mesh/strain_limit_warp"), lf = read_doubles(f, "/mesh/strain_limit_weft");
  const std::vector<double> pos = read_doubles(f, "/frames/positions");
  H5Fclose(f);
  const size_t n = rest.size() / 3, T = tris.size() / 3, F = pos.size() / (3 * n);
  ASSERT_EQ(F, size_t(spec.frames + 1));
  ASSERT_EQ(warp.size(), 3 * T);
  using V3 = Eigen::Vector3d;
  auto at = [](const std::vector<double>& a, size_t i) { return V3(a[3 * i], a[3 * i + 1], a[3 * i + 2]); };
  double max_warp = 0, max_weft = 0;
  for (size_t t = 0; t < T; ++t) {
    ASSERT_EQ(lw[t], 1.02);
    ASSERT_EQ(lf[t], 1.05);
    const V3 X0 = at(rest, tris[3 * t]), X1 = at(rest, tris[3 * t + 1]), X2 = at(rest, tris[3 * t + 2]);
    const V3 d1 = at(warp, t);
    EXPECT_NEAR(d1.x(), 1.0, 1e-12);  // +x lies in the sheet's plane
    const V3 nrm = (X1 - X0).cross(X2 - X0).normalized(), d2 = nrm.cross(d1);
    Eigen::Matrix2d Dm;
    Dm << (X1 - X0).dot(d1), (X2 - X0).dot(d1), (X1 - X0).dot(d2), (X2 - X0).dot(d2);
    const Eigen::Matrix2d Dinv = Dm.inverse();
    for (size_t fr = 0; fr < F; ++fr) {
      const double* p = pos.data() + 3 * n * fr;
      auto x = [&](long long v) { return V3(p[3 * v], p[3 * v + 1], p[3 * v + 2]); };
      Eigen::Matrix<double, 3, 2> Ds;
      Ds << x(tris[3 * t + 1]) - x(tris[3 * t]), x(tris[3 * t + 2]) - x(tris[3 * t]);
      const Eigen::Matrix<double, 3, 2> G = Ds * Dinv;
      max_warp = std::max(max_warp, G.col(0).norm());
      max_weft = std::max(max_weft, G.col(1).norm());
    }
  }
  std::printf("largest stretch along warp %.6f (limit 1.02), along weft %.6f (limit 1.05)\n", max_warp, max_weft);
  EXPECT_LE(max_warp, 1.02 + 1e-9);
  EXPECT_LE(max_weft, 1.05 + 1e-9);
  EXPECT_GT(max_weft, 1.02 + 1e-3);  // the weft passes the warp limit: the limits are separate

  const weft::verify::Report r = weft::verify::verify_file(out);
  EXPECT_TRUE(r.pass()) << weft::verify::to_text(r);
  const weft::verify::CheckLine* c = r.find("anisotropic");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->message.find("worst stretch along"), std::string::npos) << c->message;
  std::filesystem::remove_all(dir);
}
