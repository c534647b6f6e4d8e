// Rods and particles through the case file and the scene (issue 17 points 5-7): keys,
// defaults, refusals, masses, primitives in the scene and in the result file.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>

#include "io/case_loader.hpp"
#include "energy/registry.hpp"
#include "io/result_file.hpp"
#include "io/scene_loader.hpp"
#include "io_test_util.hpp"
#include "parallel/local_view.hpp"

using namespace weft;
using weft::iotest::TempDir;

namespace {

constexpr double kPi = 3.14159265358979323846;

const char* kRodsAndParticles = R"(
objects:
  - name: rod
    kind: rod
    mesh: {generator: line, length: 1.2, segments: 4}
    material: {density: 1000, youngs: 1.0e7, radius: 0.01}
    strain_limit: {max: 1.05}
  - name: net
    kind: rod
    mesh: {generator: rod_net, size: [1, 2], resolution: [3, 4]}
    transform: {translate: [0, 1, 0]}
    material: {density: 500, youngs: 1.0e6, radius: 0.002, bending_youngs: 0}
    contact: {offset: 0.001, friction: 0.2}
  - name: grains
    kind: particles
    mesh: {generator: particle_block, size: [0.3, 0.2, 0.1], resolution: [4, 3, 2], jitter: 0.1}
    transform: {translate: [0, 2, 0]}
    material: {density: 1600, radius: 0.005}
  - name: cloth
    kind: shell
    mesh: {generator: grid, size: 1, resolution: 3}
    transform: {translate: [0, -1, 0]}
    material: {vertex_mass: 0.25}
)";

}  // namespace

TEST(CodimCase, KeysAndDefaults) {
  const CaseSpec s = load_case_from_string(kRodsAndParticles, "codim.yaml");
  ASSERT_EQ(s.objects.size(), 4u);
  const ObjectSpec& rod = s.objects[0];
  EXPECT_EQ(rod.kind, ObjectKind::Rod);
  EXPECT_EQ(rod.mesh.generator, "line");
  EXPECT_EQ(rod.mesh.length, 1.2);
  EXPECT_EQ(rod.mesh.segments, 4);
  EXPECT_EQ(rod.material.radius, 0.01);
  EXPECT_EQ(rod.material.bending_youngs, -1.0);  // = youngs
  EXPECT_EQ(rod.strain_limit, 1.05);
  EXPECT_EQ(rod.offset, 0.02);  // default: the diameter
  const ObjectSpec& net = s.objects[1];
  EXPECT_EQ(net.mesh.size[0], 1.0);
  EXPECT_EQ(net.mesh.size[1], 2.0);
  EXPECT_EQ(net.mesh.resolution[0], 3);
  EXPECT_EQ(net.mesh.resolution[1], 4);
  EXPECT_EQ(net.material.bending_youngs, 0.0);
  EXPECT_EQ(net.offset, 0.001);  // given
  const ObjectSpec& g = s.objects[2];
  EXPECT_EQ(g.kind, ObjectKind::Particles);
  EXPECT_EQ(g.mesh.block[0], 4);
  EXPECT_EQ(g.mesh.block[1], 3);
  EXPECT_EQ(g.mesh.block[2], 2);
  EXPECT_EQ(g.mesh.jitter, 0.1);
  EXPECT_EQ(g.offset, 0.01);
  EXPECT_EQ(s.objects[3].offset, 0.0);  // shells: 0
  EXPECT_EQ(s.objects[3].material.vertex_mass, 0.25);
}

TEST(CodimCase, HelixPolylineAndFiles) {
  TempDir t;
  t.write("rod.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nl 1 2 3\n");
  t.write("grains.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\n");
  const std::string path = t.write("c.yaml", R"(
objects:
  - {name: h, kind: rod, mesh: {generator: helix, radius: 0.1, pitch: 0.05, turns: 2, segments: 40},
     material: {radius: 0.001}}
  - {name: p, kind: rod, mesh: {generator: polyline, points: [[0, 3, 0], [1, 3, 0], [1, 4, 0]]},
     material: {radius: 0.001}}
  - {name: f, kind: rod, mesh: {file: rod.obj}, transform: {translate: [5, 0, 0]}, material: {radius: 0.001}}
  - {name: g, kind: particles, mesh: {file: grains.obj}, transform: {translate: [9, 0, 0]},
     material: {radius: 0.001, density: 2000}}
)");
  const CaseSpec s = load_case(path);
  EXPECT_EQ(load_object_mesh(s, 0).segments.size(), 40u);
  EXPECT_EQ(load_object_mesh(s, 1).segments.size(), 2u);
  const TriMesh f = load_object_mesh(s, 2);
  EXPECT_EQ(f.segments.size(), 2u);
  EXPECT_EQ(f.vertices[0], Vec3(5, 0, 0));
  const TriMesh g = load_object_mesh(s, 3);
  EXPECT_EQ(g.vertices.size(), 3u);
  EXPECT_TRUE(g.triangles.empty() && g.segments.empty());
  const Scene sc = build_scene(s, 1);
  EXPECT_EQ(sc.segments.size(), 44u);
  EXPECT_EQ(sc.points.size(), 3u);
  for (int v : sc.points) EXPECT_EQ(sc.mass[v], 2000 * 4.0 / 3.0 * kPi * 0.001 * 0.001 * 0.001);
}

TEST(CodimCase, BadValuesAreRefused) {
  auto load = [](const std::string& obj) { return load_case_from_string("objects:\n  - " + obj + "\n", "bad.yaml"); };
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: line}}"), "bad.yaml: missing required key 'objects[0].material.radius'");
  EXPECT_INPUT_ERROR(load("{kind: particles, mesh: {generator: particle_block}, material: {density: 3}}"),
                     "objects[0].material.radius");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: line}, material: {radius: 0}}"),
                     "bad.yaml: objects[0].material.radius: must be > 0 (m) (got 0)");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: line}, material: {radius: -1}}"), "must be > 0");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: line, segments: 0}, material: {radius: 1}}"),
                     "bad.yaml: objects[0].mesh.segments: must be >= 1 (got 0)");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: line}, material: {radius: 1, thickness: 0.1}}"),
                     "bad.yaml: objects[0].material.thickness: is not used by kind 'rod'");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: line}, material: {radius: 1, poisson: 0.3}}"),
                     "objects[0].material.poisson: is not used by kind 'rod'");
  EXPECT_INPUT_ERROR(load("{kind: particles, mesh: {generator: particle_block}, material: {radius: 1, youngs: 5}}"),
                     "objects[0].material.youngs: is not used by kind 'particles'");
  EXPECT_INPUT_ERROR(load("{kind: particles, mesh: {generator: particle_block}, material: {radius: 1},"
                          " strain_limit: {max: 1.1}}"),
                     "objects[0].strain_limit: is not used by kind 'particles'");
  EXPECT_INPUT_ERROR(load("{kind: shell, mesh: {generator: grid}, material: {radius: 1}}"),
                     "objects[0].material.radius: is not used by kind 'shell'");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: grid}, material: {radius: 1}}"),
                     "objects[0].mesh.generator: 'grid' is not a generator for kind 'rod' (it takes: line, polyline, helix, rod_net)");
  EXPECT_INPUT_ERROR(load("{kind: shell, mesh: {generator: line}}"), "'line' is not a generator for kind 'shell'");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: line, radius: 2}, material: {radius: 1}}"),
                     "objects[0].mesh.radius: is not used by generator 'line'");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: polyline, points: [[0, 0, 0]]}, material: {radius: 1}}"),
                     "objects[0].mesh.points: expected a list of at least 2 points");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: rod_net, resolution: [1, 3]}, material: {radius: 1}}"),
                     "objects[0].mesh.resolution[0]: must be >= 2");
  EXPECT_INPUT_ERROR(load("{kind: particles, mesh: {generator: particle_block, resolution: [2, 2]}, material: {radius: 1}}"),
                     "objects[0].mesh.resolution: expected [nx, ny, nz]");
  EXPECT_INPUT_ERROR(load("{kind: particles, mesh: {generator: particle_block, jitter: 0.5}, material: {radius: 1}}"),
                     "objects[0].mesh.jitter: must be in [0, 0.4]");
  EXPECT_INPUT_ERROR(load("{kind: shell, mesh: {generator: grid}, material: {vertex_mass: 0}}"),
                     "objects[0].material.vertex_mass: must be > 0");
  EXPECT_INPUT_ERROR(load("{kind: rod, mesh: {generator: line}, material: {radius: 1}, motion: {start: 1}}"),
                     "objects[0].motion: is not used by kind 'rod'");
  EXPECT_INPUT_ERROR(load("{kind: rigid, mesh: {generator: box}}"), "'rigid' is not supported yet");
}

TEST(CodimCase, FileContentsMustFitTheKind) {
  TempDir t;
  t.write("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nv 3 3 3\nv 4 4 4\nl 4 5\n");
  t.write("mesh.msh", "");
  t.write("dots.obj", "v 0 0 0\nv 1 0 0\n");
  const std::string a = t.write("a.yaml", "objects:\n  - {kind: rod, mesh: {file: tri.obj}, material: {radius: 1}}\n");
  EXPECT_INPUT_ERROR(load_object_mesh(load_case(a), 0), "a rod takes lines ('l') only");
  const std::string b = t.write("b.yaml", "objects:\n  - {kind: particles, mesh: {file: tri.obj}, material: {radius: 1}}\n");
  EXPECT_INPUT_ERROR(load_object_mesh(load_case(b), 0), "particles take vertices ('v') only");
  const std::string c = t.write("c.yaml", "objects:\n  - {kind: rod, mesh: {file: mesh.msh}, material: {radius: 1}}\n");
  EXPECT_INPUT_ERROR(load_case(c), "objects[0].mesh.file: kind 'rod' reads .obj files only");
  const std::string d = t.write("d.yaml", "objects:\n  - {kind: rod, mesh: {file: dots.obj}, material: {radius: 1}}\n");
  EXPECT_INPUT_ERROR(load_object_mesh(load_case(d), 0), "no lines");
}

// Masses: exact values. A line of 4 segments of 0.3 m: rho pi r^2 0.3 per segment, half to
// each end (ends 1 half, interior 2 halves); particles rho 4/3 pi r^3; vertex_mass wins.
TEST(CodimCase, SceneMassesAndPrimitives) {
  const CaseSpec spec = load_case_from_string(kRodsAndParticles, "codim.yaml");
  const Scene s = build_scene(spec, 1);
  const int rod_v = 5, net_v = 12, grains = 24, cloth_v = 9;
  ASSERT_EQ(s.num_vertices, rod_v + net_v + grains + cloth_v);
  const double seg = 1000 * kPi * 0.01 * 0.01 * (1.2 / 4);
  for (int i = 0; i < rod_v; ++i) {
    const double want = (i == 0 || i == rod_v - 1) ? 0.5 * seg : seg;
    EXPECT_NEAR(s.mass[s.solver_of_input[i]], want, 1e-15 * want) << i;
  }
  // The net: 3 rods along x of 3 crossings (2 segments of 0.5), 4 along z of ... (1 / 3 ...)
  double net_total = 0;
  for (int i = rod_v; i < rod_v + net_v; ++i) net_total += s.mass[s.solver_of_input[i]];
  const double net_len = 3 * 1.0 + 4 * 2.0;
  EXPECT_NEAR(net_total, 500 * kPi * 0.002 * 0.002 * net_len, 1e-12);
  const double grain = 1600 * 4.0 / 3.0 * kPi * 0.005 * 0.005 * 0.005;
  for (int i = rod_v + net_v; i < rod_v + net_v + grains; ++i) EXPECT_EQ(s.mass[s.solver_of_input[i]], grain);
  for (int i = rod_v + net_v + grains; i < s.num_vertices; ++i) EXPECT_EQ(s.mass[s.solver_of_input[i]], 0.25);

  // Primitives: case order, solver ids, objects.
  ASSERT_EQ(s.segments.size(), 4u + 17u);
  ASSERT_EQ(s.points.size(), size_t(grains));
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(s.segments[k][0], s.solver_of_input[k]);
    EXPECT_EQ(s.segments[k][1], s.solver_of_input[k + 1]);
    EXPECT_EQ(s.segment_object[k], 0);
  }
  for (size_t k = 4; k < s.segments.size(); ++k) EXPECT_EQ(s.segment_object[k], 1);
  for (int k = 0; k < grains; ++k) {
    EXPECT_EQ(s.points[k], s.solver_of_input[rod_v + net_v + k]);
    EXPECT_EQ(s.point_object[k], 2);
  }
  EXPECT_EQ(s.triangles.size(), 8u);
  EXPECT_EQ(s.objects[0].strain_limit, 1.05);
  EXPECT_EQ(s.objects[0].offset, 0.02);
  EXPECT_EQ(s.objects[1].friction, 0.2);
  EXPECT_EQ(s.objects[2].offset, 0.01);
  // Rod objects reach the terms registered for (rod, any model), if any are.
  long rod_stencils = 0;
  for (const ElementSet& set : s.element_sets)
    if (set.term->kind == ObjectKind::Rod) rod_stencils += set.size();
  long registered = 0;
  for (const TermFactory* f : term_registry()) registered += f->kind == ObjectKind::Rod;
  if (registered > 0) {
    EXPECT_GT(rod_stencils, 0);
  }
}

// Particle-only scenes are cut by coordinate bisection: each rank's particles are a slab.
TEST(CodimCase, ParticlesAlonePartitionIntoSlabs) {
  const CaseSpec spec = load_case_from_string(R"(
objects:
  - {name: g, kind: particles, mesh: {generator: particle_block, size: [1, 0.1, 0.1], resolution: [30, 2, 2]},
     material: {radius: 0.01}}
)", "p.yaml");
  for (int ranks : {2, 3}) {
    const Scene s = build_scene(spec, ranks);
    std::vector<double> lo(ranks, 1e9), hi(ranks, -1e9);
    std::vector<int> count(ranks, 0);
    for (int v = 0; v < s.num_vertices; ++v) {
      const int p = s.partition_of(v);
      lo[p] = std::min(lo[p], s.rest[v][0]);
      hi[p] = std::max(hi[p], s.rest[v][0]);
      ++count[p];
    }
    for (int p = 0; p < ranks; ++p) {
      EXPECT_EQ(count[p], 120 / ranks);
      for (int q = 0; q < ranks; ++q)
        if (q != p) {
          EXPECT_TRUE(hi[p] < lo[q] || hi[q] < lo[p]) << "slabs " << p << " and " << q << " overlap";
        }
    }
  }
}

namespace {

std::vector<long long> read_i64(hid_t f, const char* name, std::vector<hsize_t>* dims = nullptr) {
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  EXPECT_GE(ds, 0) << name;
  hid_t sp = H5Dget_space(ds);
  std::vector<hsize_t> d(H5Sget_simple_extent_ndims(sp));
  H5Sget_simple_extent_dims(sp, d.data(), nullptr);
  std::vector<long long> v(H5Sget_simple_extent_npoints(sp));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(sp);
  H5Dclose(ds);
  if (dims) *dims = d;
  return v;
}

std::vector<double> read_f64(hid_t f, const char* name) {
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t sp = H5Dget_space(ds);
  std::vector<double> v(H5Sget_simple_extent_npoints(sp));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(sp);
  H5Dclose(ds);
  return v;
}

}  // namespace

// /mesh/segments (S, 2) and /mesh/points (P) in input vertex order with their offsets.
TEST(CodimCase, ResultFileHoldsSegmentsAndPoints) {
  TempDir t;
  const CaseSpec spec = load_case_from_string(kRodsAndParticles, "codim.yaml");
  const Scene s = build_scene(spec, 1);
  const LocalView lv = make_local_view(s, MPI_COMM_SELF);
  const std::string path = t.file("codim.h5");
  {
    ResultFile out(path, s, lv);
    out.finish();
  }
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  std::vector<hsize_t> dims;
  const std::vector<long long> segs = read_i64(f, "/mesh/segments", &dims);
  ASSERT_EQ(dims, (std::vector<hsize_t>{21, 2}));
  for (int k = 0; k < 4; ++k) {  // the line: (k, k + 1) in input ids
    EXPECT_EQ(segs[2 * k], k);
    EXPECT_EQ(segs[2 * k + 1], k + 1);
  }
  const std::vector<double> soff = read_f64(f, "/mesh/segment_offset");
  ASSERT_EQ(soff.size(), 21u);
  for (int k = 0; k < 21; ++k) EXPECT_EQ(soff[k], k < 4 ? 0.02 : 0.001) << k;
  const std::vector<long long> pts = read_i64(f, "/mesh/points");
  ASSERT_EQ(pts.size(), 24u);
  for (int k = 0; k < 24; ++k) EXPECT_EQ(pts[k], 17 + k);  // after the line (5) and the net (12)
  const std::vector<double> poff = read_f64(f, "/mesh/point_offset");
  for (double o : poff) EXPECT_EQ(o, 0.01);
  H5Fclose(f);
}
