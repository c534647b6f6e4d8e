// hang_two_corners at 1, 2 and 3 ranks (ctest runs this binary under each): 20 steps with
// a direct solver and a tight Newton tolerance must match a 1-rank run made here on
// MPI_COMM_SELF, within 1e-8 relative; the files differ only in /mesh/partition. Contact is
// off here (elasticity + strain limit); tests/e2e/contact_cases.sh compares contact runs.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/case_loader.hpp"
#include "methods/simulation.hpp"

namespace {

std::vector<double> read_all(const std::string& file, const std::string& dataset, hid_t type = H5T_NATIVE_DOUBLE) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(f, 0) << file;
  hid_t ds = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  EXPECT_GE(ds, 0) << dataset;
  hid_t sp = H5Dget_space(ds);
  std::vector<double> out(H5Sget_simple_extent_npoints(sp));
  if (!out.empty()) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Sclose(sp);
  H5Dclose(ds);
  H5Fclose(f);
  return out;
}

weft::CaseSpec hang_case() {
  return weft::load_case(std::string(WEFT_TEST_DIR) + "/../cases/hang_two_corners.yaml",
                         {"solver.newton_tol=1e-7", "solver.linear.pc=cholesky", "output.checkpoint_every=5",
                          "contact.enabled=false"});
}

}  // namespace

TEST(HangTwoCornersRanks, MatchesOneRank) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string dir = "mpi_out";
  const std::string par = dir + "/hang_np" + std::to_string(ranks) + ".h5";
  const std::string ref = dir + "/hang_ref_np" + std::to_string(ranks) + ".h5";

  weft::RunOptions opt;
  opt.frames = 20;
  opt.progress = false;
  opt.output = par;
  weft::RunSummary s = weft::run_simulation(hang_case(), opt, MPI_COMM_WORLD);
  EXPECT_EQ(s.frames_written, 21);
  if (rank == 0) {
    opt.output = ref;
    weft::run_simulation(hang_case(), opt, MPI_COMM_SELF);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) return;

  const auto a = read_all(par, "/frames/positions"), b = read_all(ref, "/frames/positions");
  ASSERT_EQ(a.size(), b.size());
  double scale = 0, worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(b[i]));
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  EXPECT_LE(worst, 1e-8 * scale) << "max position difference " << worst;
  // The cloth moved: the comparison is not between two copies of the rest state.
  const size_t n3 = a.size() / 21;
  double moved = 0;
  for (size_t i = 0; i < n3; ++i) moved = std::max(moved, std::abs(b[20 * n3 + i] - b[i]));
  EXPECT_GT(moved, 0.05);
  for (const char* ds : {"/mesh/rest_positions", "/mesh/triangles", "/mesh/object_id", "/mesh/strain_limit",
                         "/frames/time"})
    EXPECT_EQ(read_all(par, ds), read_all(ref, ds)) << ds;
  const auto strain = read_all(par, "/frames/stats/max_strain");
  for (double v : strain) EXPECT_LE(v, 1.01);
}
