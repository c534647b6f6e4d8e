// mass_spring and pd at 1, 2 and 3 ranks (ctest runs this binary under each): hang_two_corners
// (16 x 16, contact off) for 10 steps must match a 1-rank run made here on MPI_COMM_SELF
// within 1e-8 relative. mass_spring: a tight Newton tolerance with a direct solver; pd: a
// fixed number of local/global iterations (tolerance 1e-300), so both runs do the same
// iterations and differ only by the factorisation's rounding.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/case_loader.hpp"
#include "methods/simulation.hpp"

namespace {

std::vector<double> read_all(const std::string& file, const std::string& dataset) {
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

weft::CaseSpec spring_case(const std::string& method) {
  return weft::load_case(std::string(WEFT_TEST_DIR) + "/../cases/hang_two_corners.yaml",
                         {"method=" + method, "objects.0.mesh.resolution=[16,16]", "contact.enabled=false",
                          "solver.newton_tol=1e-7", "solver.linear.pc=cholesky", "pd.iterations=50",
                          "pd.tolerance=1e-300"});
}

void compare(const std::string& method) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string par = "mpi_out/" + method + "_np" + std::to_string(ranks) + ".h5";
  const std::string ref = "mpi_out/" + method + "_ref_np" + std::to_string(ranks) + ".h5";
  weft::RunOptions opt;
  opt.frames = 10;
  opt.progress = false;
  opt.output = par;
  weft::RunSummary s = weft::run_simulation(spring_case(method), opt, MPI_COMM_WORLD);
  EXPECT_EQ(s.frames_written, 11);
  if (rank == 0) {
    opt.output = ref;
    weft::run_simulation(spring_case(method), opt, MPI_COMM_SELF);
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
  EXPECT_LE(worst, 1e-8 * scale) << method << ": max position difference " << worst;
  const size_t n3 = a.size() / 11;
  double moved = 0;
  for (size_t i = 0; i < n3; ++i) moved = std::max(moved, std::abs(b[10 * n3 + i] - b[i]));
  EXPECT_GT(moved, 0.05) << method;
  const auto e = read_all(par, "/frames/stats/energy");
  EXPECT_EQ(e.size(), 11u);
}

}  // namespace

TEST(SpringMethodsRanks, MassSpringMatchesOneRank) { compare("mass_spring"); }
TEST(SpringMethodsRanks, ProjectiveDynamicsMatchesOneRank) { compare("pd"); }
