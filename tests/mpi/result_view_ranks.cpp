// The result file's /mesh/triangles and /view topologies at 1, 2 and 3 ranks: each rank
// writes its local triangles' rows (issue 20: no rank reads the whole mesh for them), and a
// mixed object's topology (triangles and segments in one object, written whole by rank 0)
// gathers its triangles from every rank. Both must be exactly what the scene's triangles in
// case order give, built independently here on one rank.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "io/case_loader.hpp"
#include "io/result_file.hpp"
#include "io/scene_loader.hpp"
#include "io/xdmf.hpp"
#include "parallel/local_view.hpp"

namespace {

const std::string kCase = std::string(WEFT_TEST_DIR) + "/data/codim/mixed.yaml";

std::vector<long long> read_i64(hid_t f, const char* name) {
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  hid_t sp = H5Dget_space(ds);
  std::vector<long long> v(static_cast<size_t>(H5Sget_simple_extent_npoints(sp)));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(sp);
  H5Dclose(ds);
  return v;
}

// The case's scene with two segments added to the cloth (object 0): the cloth becomes a
// mixed object (triangles and lines), as a mesh with both would be.
weft::Scene scene_with_mixed_cloth(int ranks) {
  weft::Scene s = weft::build_scene(weft::load_case(kCase, {}), ranks);
  for (int k = 0; k < 2; ++k) {
    s.segments.push_back({s.solver_of(k), s.solver_of(k + 1)});
    s.segment_object.push_back(0);
  }
  return s;
}

TEST(ResultView, TrianglesAndAMixedObjectFromEveryRanksPart) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const weft::Scene s = scene_with_mixed_cloth(ranks);
  const weft::LocalView lv = weft::make_local_view(s, MPI_COMM_WORLD);
  long long id = rank == 0 ? static_cast<long long>(getpid()) : 0;
  MPI_Bcast(&id, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const std::string path = "/tmp/weft_result_view_" + std::to_string(id) + ".h5";
  {
    weft::ResultFile out(path, s, lv);
    out.finish();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    // The expectation, from a one-rank scene (input ids are the solver ids there).
    const weft::Scene one = scene_with_mixed_cloth(1);
    std::vector<long long> tris;
    weft::ObjectCells cloth;
    for (size_t t = 0; t < one.triangles.size(); ++t)
      for (int v : one.triangles[t]) {
        tris.push_back(v);
        if (one.triangle_object[t] == 0) cloth.triangles.push_back(v);
      }
    for (size_t k = 0; k < one.segments.size(); ++k)
      if (one.segment_object[k] == 0)
        for (int v : one.segments[k]) cloth.segments.push_back(v);
    weft::XdmfBlock b;
    for (int v = 0; v < one.num_vertices; ++v) b.num_vertices += one.vertex_object[v] == 0;  // (first vertex 0)
    const std::vector<long long> topo = weft::xdmf_topology(cloth, 0, b);
    ASSERT_EQ(b.cell, weft::XdmfCell::Mixed);
    ASSERT_EQ(b.num_cells, 242 + 2);  // (the 12 x 12 grid's triangles and the two lines)

    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    EXPECT_EQ(read_i64(f, "/mesh/triangles"), tris);
    EXPECT_EQ(read_i64(f, "/view/object0/topology"), topo);
    // The sphere (object 4) is a triangle object: its cells, object-local ids, case order.
    std::vector<long long> ball;
    for (size_t t = 0; t < one.triangles.size(); ++t)
      if (one.triangle_object[t] == 4)
        for (int v : one.triangles[t]) ball.push_back(v);
    ASSERT_FALSE(ball.empty());
    long long lo = ball[0];  // (the sphere's first vertex: every one of its vertices is on a triangle)
    for (long long v : ball) lo = std::min(lo, v);
    for (long long& v : ball) v -= lo;
    EXPECT_EQ(read_i64(f, "/view/object4/topology"), ball);
    H5Fclose(f);
    std::remove(path.c_str());
    std::remove((path.substr(0, path.size() - 3) + ".xdmf").c_str());
  }
}

}  // namespace
