// OUT.xdmf (src/io/xdmf.hpp): per-object connectivity with object-local ids for every
// primitive kind, and the text the Xdmf3 readers read. XdmfSample also writes a small
// result with points, a polyline, triangles, tets and a mixed object to the folder in
// WEFT_XDMF_SAMPLE (when set), which tests/e2e/paraview.sh opens in ParaView.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/xdmf.hpp"

using namespace weft;
namespace fs = std::filesystem;

TEST(XdmfTopology, OneKindIsPlainWithObjectLocalIds) {
  ObjectCells c;
  c.triangles = {10, 11, 12, 12, 11, 13};
  XdmfBlock b;
  b.num_vertices = 4;
  EXPECT_EQ(xdmf_topology(c, 10, b), (std::vector<long long>{0, 1, 2, 2, 1, 3}));
  EXPECT_EQ(b.cell, XdmfCell::Triangle);
  EXPECT_EQ(b.num_cells, 2);
  EXPECT_EQ(b.topology_size, 6);

  ObjectCells r;
  r.segments = {5, 6, 6, 7};
  XdmfBlock br;
  br.num_vertices = 3;
  EXPECT_EQ(xdmf_topology(r, 5, br), (std::vector<long long>{0, 1, 1, 2}));
  EXPECT_EQ(br.cell, XdmfCell::Polyline);
  EXPECT_EQ(br.nodes_per_cell, 2);

  ObjectCells t;
  t.tets = {3, 4, 5, 6};
  XdmfBlock bt;
  bt.num_vertices = 4;
  EXPECT_EQ(xdmf_topology(t, 3, bt), (std::vector<long long>{0, 1, 2, 3}));
  EXPECT_EQ(bt.cell, XdmfCell::Tetrahedron);
  EXPECT_EQ(bt.num_cells, 1);
}

TEST(XdmfTopology, ObjectWithoutPrimitivesShowsItsVertices) {
  XdmfBlock b;
  b.num_vertices = 3;
  EXPECT_EQ(xdmf_topology(ObjectCells{}, 7, b), (std::vector<long long>{0, 1, 2}));
  EXPECT_EQ(b.cell, XdmfCell::Polyvertex);
  EXPECT_EQ(b.num_cells, 3);
}

TEST(XdmfTopology, SeveralKindsAreMixedWithTypeCodesAndCounts) {
  ObjectCells c;
  c.points = {23};
  c.segments = {22, 23};
  c.triangles = {20, 21, 22};
  c.tets = {20, 21, 22, 23};
  XdmfBlock b;
  b.num_vertices = 4;
  // Polyvertex 1 (count 1), polyline 2 (count 2), triangle 4, tetrahedron 6.
  EXPECT_EQ(xdmf_topology(c, 20, b),
            (std::vector<long long>{1, 1, 3, 2, 2, 2, 3, 4, 0, 1, 2, 6, 0, 1, 2, 3}));
  EXPECT_EQ(b.cell, XdmfCell::Mixed);
  EXPECT_EQ(b.num_cells, 4);
  EXPECT_EQ(b.topology_size, 16);
}

namespace {

// A 10-vertex, 6-triangle result over two frames (0 and 0.1 s) with velocities, holding one
// shell block: vertices 4..9 and triangles 2..5, its topology in /view/object1.
XdmfLayout cloth_layout(const char* title) {
  XdmfLayout L;
  L.h5_name = "run.h5";
  L.title = title;
  L.num_vertices = 10;
  L.num_triangles = 6;
  L.times = {0.0, 0.1};
  L.velocities = true;
  XdmfBlock b;
  b.name = "cloth";
  b.kind = "shell";
  b.first_vertex = 4;
  b.num_vertices = 6;
  b.cell = XdmfCell::Triangle;
  b.num_cells = 4;
  b.topology_size = 12;
  b.view_group = "/view/object1";
  b.first_triangle = 2;
  L.blocks = {b};
  return L;
}

}  // namespace

TEST(XdmfText, FramesAreHyperslabsOfThePerFrameDatasets) {
  XdmfLayout L = cloth_layout("demo");
  L.strain_ratio = true;
  L.stats = {"newton_iters"};
  const XdmfBlock b = L.blocks[0];
  const std::string x = xdmf_text(L);
  // Frame 1 of the cloth: rows 4..9 of frame 1, in the Xdmf3 controller form.
  EXPECT_NE(x.find("run.h5:/frames/positions|1 4 0:1 1 1:1 6 3:2 10 3"), std::string::npos) << x;
  EXPECT_NE(x.find("run.h5:/frames/velocities|1 4 0:1 1 1:1 6 3:2 10 3"), std::string::npos);
  EXPECT_NE(x.find("run.h5:/frames/strain_ratio|1 2:1 1:1 4:2 6"), std::string::npos);
  EXPECT_NE(x.find("run.h5:/frames/stats/newton_iters|1:1:1:2"), std::string::npos);
  EXPECT_NE(x.find("<Time Value=\"0.10000000000000001\"/>"), std::string::npos);
  EXPECT_NE(x.find("<Grid Name=\"cloth\" GridType=\"Uniform\">"), std::string::npos);
  EXPECT_NE(x.find("<Information Name=\"kind\" Value=\"shell\"/>"), std::string::npos);
  EXPECT_NE(x.find("run.h5:/view/object1/topology</DataItem>"), std::string::npos);
  EXPECT_NE(x.find("Center=\"Cell\">\n      <DataItem Dimensions=\"4\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">run.h5:/view/object1/object_id"),
            std::string::npos);
  EXPECT_EQ(x.find("HyperSlab"), std::string::npos);  // the XDMF2 form reads as 0 points in Xdmf3

  // With an obstacle first, the per-frame figures go on the first deformable block only,
  // once per frame.
  XdmfBlock ground = b;
  ground.name = "ground";
  ground.kind = "obstacle";
  L.blocks = {ground, b};
  const std::string y = xdmf_text(L);
  size_t count = 0;
  for (size_t at = y.find("Name=\"newton_iters\""); at != std::string::npos; at = y.find("Name=\"newton_iters\"", at + 1))
    ++count;
  EXPECT_EQ(count, 2u);
  const size_t cloth = y.find("<Grid Name=\"cloth\""), stat = y.find("Name=\"newton_iters\"");
  EXPECT_LT(y.find("<Grid Name=\"ground\""), cloth);
  EXPECT_LT(cloth, stat);
}

// Tearing: a block with frame_topology takes its triangles from its rows of frame f of
// /frames/triangles (global ids) over the frame's whole N points; without the dataset
// (frame_triangles false) it keeps the object-local /view topology.
TEST(XdmfText, TornBlockReadsEachFramesTriangles) {
  XdmfLayout L = cloth_layout("tear");
  L.frame_triangles = true;
  L.blocks[0].frame_topology = true;
  const std::string x = xdmf_text(L);
  EXPECT_NE(x.find("<DataItem Dimensions=\"4 3\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">"
                   "run.h5:/frames/triangles|1 2 0:1 1 1:1 4 3:2 6 3</DataItem>"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("run.h5:/frames/positions|1 0 0:1 1 1:1 10 3:2 10 3"), std::string::npos);
  EXPECT_NE(x.find("run.h5:/frames/velocities|0 0 0:1 1 1:1 10 3:2 10 3"), std::string::npos);
  EXPECT_EQ(x.find("/view/object1/topology"), std::string::npos);
  L.frame_triangles = false;
  const std::string y = xdmf_text(L);
  EXPECT_EQ(y.find("/frames/triangles"), std::string::npos);
  EXPECT_NE(y.find("run.h5:/view/object1/topology</DataItem>"), std::string::npos);
  EXPECT_NE(y.find("run.h5:/frames/positions|1 4 0:1 1 1:1 6 3:2 10 3"), std::string::npos);
}

namespace {

void write_dataset(hid_t loc, const char* name, hid_t type, const void* data, std::vector<hsize_t> dims) {
  hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t ds = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(ds, 0) << name;
  H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(ds);
  H5Sclose(space);
}

}  // namespace

// Every primitive kind the result file can hold, as weft lays it out: 22 vertices in
// object order, 2 frames (the second moved by +1 in y), a figure per frame.
TEST(XdmfSample, EveryPrimitiveKind) {
  const char* env = std::getenv("WEFT_XDMF_SAMPLE");
  const fs::path dir = env ? fs::path(env) : fs::temp_directory_path() / "weft_xdmf_sample";
  fs::create_directories(dir);
  const fs::path h5 = dir / "primitives.h5";

  struct Obj {
    const char* name;
    const char* kind;
    long long first, count;
    ObjectCells cells;
  };
  std::vector<Obj> objs = {
      {"grains", "particles", 0, 4, {{0, 1, 2, 3}, {}, {}, {}}},
      {"noodle", "rod", 4, 5, {{}, {4, 5, 5, 6, 6, 7, 7, 8}, {}, {}}},
      {"sheet", "shell", 9, 4, {{}, {}, {9, 10, 11, 11, 10, 12}, {}}},
      {"jelly", "volume", 13, 5, {{}, {}, {}, {13, 14, 15, 16, 14, 15, 16, 17}}},
      {"mixed", "shell", 18, 4, {{}, {20, 21}, {18, 19, 20}, {}}},
  };
  const long long N = 22;
  std::vector<double> pos(2 * N * 3);
  for (long long v = 0; v < N; ++v)
    for (int f = 0; f < 2; ++f) {
      pos[(f * N + v) * 3 + 0] = 0.1 * v;
      pos[(f * N + v) * 3 + 1] = 0.01 * (v % 3) + f;
      pos[(f * N + v) * 3 + 2] = 0.001 * v * v;
    }
  // The tets need volume: lift their 4th/5th vertices off the line.
  for (int f = 0; f < 2; ++f) {
    pos[(f * N + 16) * 3 + 2] = 0.5;
    pos[(f * N + 17) * 3 + 1] = f + 0.7;
  }
  const double times[2] = {0.0, 0.04};
  const double iters[2] = {0, 3};

  hid_t file = H5Fcreate(h5.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  hid_t frames = H5Gcreate2(file, "frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  write_dataset(frames, "positions", H5T_NATIVE_DOUBLE, pos.data(), {2, hsize_t(N), 3});
  write_dataset(frames, "time", H5T_NATIVE_DOUBLE, times, {2});
  hid_t stats = H5Gcreate2(frames, "stats", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  write_dataset(stats, "newton_iters", H5T_NATIVE_DOUBLE, iters, {2});
  H5Gclose(stats);
  H5Gclose(frames);
  hid_t view = H5Gcreate2(file, "view", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  XdmfLayout L;
  L.h5_name = h5.filename().string();
  L.title = "primitives";
  L.num_vertices = N;
  L.times = {times[0], times[1]};
  L.stats = {"newton_iters"};
  for (size_t o = 0; o < objs.size(); ++o) {
    XdmfBlock b;
    b.name = objs[o].name;
    b.kind = objs[o].kind;
    b.first_vertex = objs[o].first;
    b.num_vertices = objs[o].count;
    const std::vector<long long> topo = xdmf_topology(objs[o].cells, objs[o].first, b);
    const std::string group = "object" + std::to_string(o);
    hid_t g = H5Gcreate2(view, group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    write_dataset(g, "topology", H5T_NATIVE_LLONG, topo.data(), {topo.size()});
    const std::vector<int> ids(b.num_cells, static_cast<int>(o));
    write_dataset(g, "object_id", H5T_NATIVE_INT, ids.data(), {ids.size()});
    H5Gclose(g);
    b.view_group = "/view/" + group;
    L.blocks.push_back(b);
  }
  H5Gclose(view);
  H5Fclose(file);
  std::ofstream(dir / "primitives.xdmf") << xdmf_text(L);

  EXPECT_EQ(L.blocks[0].cell, XdmfCell::Polyvertex);
  EXPECT_EQ(L.blocks[1].cell, XdmfCell::Polyline);
  EXPECT_EQ(L.blocks[2].cell, XdmfCell::Triangle);
  EXPECT_EQ(L.blocks[3].cell, XdmfCell::Tetrahedron);
  EXPECT_EQ(L.blocks[4].cell, XdmfCell::Mixed);
  EXPECT_EQ(L.blocks[4].num_cells, 2);
  EXPECT_TRUE(fs::exists(dir / "primitives.xdmf"));
}
