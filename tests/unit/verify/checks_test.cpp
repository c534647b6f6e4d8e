// End-to-end, in-process: small result files written in the DESIGN.md layout, verified by
// the library; doctored copies must fail the right check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "h5_fixture.hpp"
#include "verify/checks.hpp"
#include "verify/cli.hpp"

using namespace weft;
using namespace weft::verify;
using namespace weft::verify::test;

namespace {

constexpr int kN = 6;           // vertices per side of each sheet
constexpr double kH = 0.2;      // spacing
constexpr double kXi = 0.01;    // offset of every triangle
constexpr double kLimit = 1.1;  // strain limit

// Two 6x6 sheets at y = 0 (vertices 0..35) and y = 0.1 (36..71). Frame 0 = rest; frame 1:
// bottom sheet stretched 5% along x, top sheet lowered to y = 0.08.
Scene two_sheets() {
  Scene s;
  s.add_sheet(kN, kN, kH, 0, 0.0, 0, kXi, kLimit);
  s.add_sheet(kN, kN, kH, 0, 0.1, 0, kXi, kLimit);
  s.frames.push_back(s.rest);
  std::vector<Vec3> f1 = s.rest;
  for (int i = 0; i < kN * kN; ++i) f1[i].x() *= 1.05;
  for (int i = kN * kN; i < 2 * kN * kN; ++i) f1[i].y() = 0.08;
  s.frames.push_back(f1);
  return s;
}

int top(int i, int k) { return kN * kN + i * kN + k; }
int bottom(int i, int k) { return i * kN + k; }

std::string path_for(const std::string& name) { return temp_dir() + "/" + name + ".h5"; }

Report run(const std::string& name, const Scene& s, const Options& opt = {}) {
  const std::string p = path_for(name);
  write_scene(p, s);
  return verify_file(p, opt);
}

bool passed(const Report& r, const std::string& check) {
  const CheckLine* c = r.find(check);
  EXPECT_NE(c, nullptr) << check;
  return c && c->pass;
}

double field(const CheckLine* c, const std::string& key) {
  for (const auto& kv : c->numbers)
    if (kv.first == key) return kv.second;
  ADD_FAILURE() << "no field " << key << " in " << c->name;
  return std::nan("");
}

int cli(std::vector<std::string> args, std::string* out = nullptr, std::string* err = nullptr) {
  args.insert(args.begin(), "weft-verify");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  std::ostringstream o, e;
  const int rc = run_cli(int(argv.size()), argv.data(), o, e, MPI_COMM_SELF);
  if (out) *out = o.str();
  if (err) *err = e.str();
  return rc;
}

}  // namespace

TEST(VerifyFile, ValidTwoFrameClothPasses) {
  const Report r = run("valid", two_sheets());
  EXPECT_TRUE(r.pass()) << to_text(r);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.frames, 2);
  ASSERT_EQ(r.checks.size(), 7u);
  const char* names[] = {"complete", "finite", "strain", "intersection", "distance", "inversion", "anisotropic"};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(r.checks[std::size_t(i)].name, names[i]);
  // Worst strain is the 5% stretch of frame 1.
  const CheckLine* strain = r.find("strain");
  EXPECT_NEAR(field(strain, "worst"), 1.05, 1e-12);
  EXPECT_EQ(field(strain, "frame"), 1);
  EXPECT_EQ(field(strain, "limit"), kLimit);
  // Non-adjacent triangles of one flat sheet are at least h/sqrt(2) apart.
  const CheckLine* dist = r.find("distance");
  EXPECT_GT(field(dist, "distance"), kH / std::sqrt(2.0) - 1e-12);
  EXPECT_EQ(field(dist, "offset"), kXi);
  const std::string text = to_text(r);
  EXPECT_NE(text.find("PASS strain  worst 1.05 (limit 1.1) at frame 1 triangle "), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7);
}

TEST(VerifyFile, VertexPushedThroughOtherSheetIsAnIntersection) {
  Scene s = two_sheets();
  s.frames[1][std::size_t(top(2, 2))].y() = -0.05;  // through the bottom sheet at y = 0
  const Report r = run("intersect", s);
  EXPECT_FALSE(passed(r, "intersection")) << to_text(r);
  EXPECT_EQ(r.exit_code(), 1);
  const CheckLine* c = r.find("intersection");
  EXPECT_EQ(field(c, "frame"), 1);
  EXPECT_NE(c->message.find("intersecting pairs; first at frame 1: triangle"), std::string::npos) << c->message;
  EXPECT_FALSE(passed(r, "distance"));  // intersecting pairs have distance 0 < offset
  EXPECT_TRUE(passed(r, "complete"));
  EXPECT_TRUE(passed(r, "finite"));
}

TEST(VerifyFile, StretchedTriangleFailsStrainOnly) {
  Scene s = two_sheets();
  s.frames[1][std::size_t(bottom(0, 0))] = Vec3(-0.1, 0, -0.1);  // corner pulled outward
  const Report r = run("strain", s);
  EXPECT_FALSE(passed(r, "strain")) << to_text(r);
  EXPECT_TRUE(passed(r, "intersection")) << to_text(r);
  EXPECT_TRUE(passed(r, "distance")) << to_text(r);
  const CheckLine* c = r.find("strain");
  EXPECT_EQ(field(c, "frame"), 1);
  const double tri = field(c, "triangle");
  EXPECT_TRUE(tri == 0 || tri == 1) << tri;  // the two triangles at vertex 0
  EXPECT_GT(field(c, "worst"), 1.5);
  EXPECT_EQ(field(c, "violations"), 2);
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(VerifyFile, SheetsCloserThanOffsetFailDistanceOnly) {
  Scene s = two_sheets();
  for (int i = kN * kN; i < 2 * kN * kN; ++i) s.frames[1][std::size_t(i)].y() = 0.004;
  const Report r = run("distance", s);
  EXPECT_FALSE(passed(r, "distance")) << to_text(r);
  EXPECT_TRUE(passed(r, "intersection"));
  EXPECT_TRUE(passed(r, "strain"));
  const CheckLine* c = r.find("distance");
  EXPECT_NEAR(field(c, "worst"), 0.004 - kXi, 1e-15);
  EXPECT_NEAR(field(c, "distance"), 0.004, 1e-15);
  EXPECT_EQ(field(c, "frame"), 1);
  EXPECT_GT(field(c, "violations"), 0);
}

TEST(VerifyFile, DistanceAndStrainTolerances) {
  // Gap of -2e-9: inside the default 1e-8 tolerance, outside a zero tolerance.
  Scene s = two_sheets();
  for (int i = kN * kN; i < 2 * kN * kN; ++i) s.frames[1][std::size_t(i)].y() = kXi - 2e-9;
  EXPECT_TRUE(run("tol_default", s).pass());
  Options strict;
  strict.tol_distance = 0;
  EXPECT_FALSE(passed(run("tol_strict", s, strict), "distance"));
  // Stretch to exactly limit + 5e-7: passes the default 1e-6, fails 1e-7.
  Scene t = two_sheets();
  for (int i = 0; i < kN * kN; ++i) t.frames[1][std::size_t(i)].x() = t.rest[std::size_t(i)].x() * (kLimit + 5e-7);
  EXPECT_TRUE(passed(run("strain_tol_default", t), "strain"));
  Options tight;
  tight.tol_strain = 1e-7;
  EXPECT_FALSE(passed(run("strain_tol_tight", t, tight), "strain"));
}

TEST(VerifyFile, IncompleteFileFailsCompleteCheck) {
  Scene s = two_sheets();
  s.complete = 0;
  Report r = run("complete0", s);
  EXPECT_FALSE(passed(r, "complete"));
  EXPECT_NE(r.find("complete")->message.find("file incomplete"), std::string::npos);
  EXPECT_TRUE(passed(r, "intersection"));
  EXPECT_EQ(r.exit_code(), 1);
  s.complete = -1;  // attribute missing
  r = run("complete_missing", s);
  EXPECT_FALSE(passed(r, "complete"));
  EXPECT_NE(r.find("complete")->message.find("missing"), std::string::npos);
}

TEST(VerifyFile, NonFinitePositionFailsFinite) {
  Scene s = two_sheets();
  s.frames[1][3].z() = std::nan("");
  const Report r = run("nan", s);
  EXPECT_FALSE(passed(r, "finite"));
  EXPECT_EQ(field(r.find("finite"), "frame"), 1);
  EXPECT_EQ(field(r.find("finite"), "vertex"), 3);
  EXPECT_TRUE(passed(r, "intersection"));  // frame 1 skipped, frame 0 fine
}

TEST(VerifyFile, SegmentsThroughSheetAndCrossingEachOther) {
  Scene s = two_sheets();
  const int v = int(s.rest.size());
  s.rest.insert(s.rest.end(), {Vec3(0.5, 0.03, 0.5), Vec3(0.5, 0.05, 0.5)});  // a rod piece
  s.segs.push_back({v, v + 1});
  s.seg_offset.push_back(0.0);
  for (auto& f : s.frames) f.insert(f.end(), {Vec3(0.5, 0.03, 0.5), Vec3(0.5, 0.05, 0.5)});
  EXPECT_TRUE(run("segment_ok", s).pass()) << to_text(run("segment_ok", s));
  // Frame 1: the segment pierces the bottom sheet.
  s.frames[1][std::size_t(v)].y() = -0.05;
  Report r = run("segment_through", s);
  EXPECT_FALSE(passed(r, "intersection"));
  EXPECT_NE(r.find("intersection")->message.find("triangle"), std::string::npos);
  EXPECT_NE(r.find("intersection")->message.find("segment 0"), std::string::npos);

  // Two segments crossing at one point, above everything.
  Scene c = two_sheets();
  const int w = int(c.rest.size());
  const std::vector<Vec3> rod = {Vec3(0.3, 0.5, 0.3), Vec3(0.7, 0.5, 0.7), Vec3(0.3, 0.5, 0.7), Vec3(0.7, 0.5, 0.3)};
  c.rest.insert(c.rest.end(), rod.begin(), rod.end());
  c.segs = {{w, w + 1}, {w + 2, w + 3}};
  c.seg_offset = {0.0, 0.0};
  for (auto& f : c.frames) f.insert(f.end(), rod.begin(), rod.end());
  c.frames[0][std::size_t(w + 2)].y() = 0.6;  // frame 0: second segment lifted, no crossing
  c.frames[0][std::size_t(w + 3)].y() = 0.6;
  r = run("segments_cross", c);
  EXPECT_FALSE(passed(r, "intersection")) << to_text(r);
  EXPECT_NE(r.find("intersection")->message.find("segment 0 x segment 1"), std::string::npos)
      << r.find("intersection")->message;
  EXPECT_EQ(field(r.find("intersection"), "frame"), 1);
}

TEST(VerifyFile, InvertedTetFailsInversion) {
  Scene s = two_sheets();
  const int v = int(s.rest.size());
  const std::vector<Vec3> tet = {Vec3(2, 0, 0), Vec3(3, 0, 0), Vec3(2, 1, 0), Vec3(2, 0, 1)};
  s.rest.insert(s.rest.end(), tet.begin(), tet.end());
  s.tets = {{v, v + 1, v + 2, v + 3}, {v, v + 2, v + 1, v + 3}};  // second has negative rest volume
  for (auto& f : s.frames) f.insert(f.end(), tet.begin(), tet.end());
  Report r = run("tet_ok", s);
  EXPECT_TRUE(passed(r, "inversion")) << to_text(r);
  EXPECT_EQ(field(r.find("inversion"), "worst"), 1.0);
  s.frames[1][std::size_t(v + 3)].z() = -1;  // apex through the base: both inverted
  r = run("tet_inverted", s);
  EXPECT_FALSE(passed(r, "inversion"));
  EXPECT_EQ(field(r.find("inversion"), "frame"), 1);
  EXPECT_EQ(field(r.find("inversion"), "violations"), 2);
  EXPECT_EQ(field(r.find("inversion"), "worst"), -1.0);
}

// Orthotropic triangles: the check measures |F d_warp| and |F d_weft| (d_weft = n x d_warp,
// its sign changes no stretch). Frame 1 stretches the bottom sheet 5% along x: with warp
// along x that breaks a warp limit of 1.03; with warp along z it is the weft stretch.
TEST(VerifyFile, AnisotropicStretchPerDirection) {
  Scene s = two_sheets();
  for (double& l : s.strain_limit) l = 0;  // the isotropic limit is not this check's
  const std::size_t T = s.tris.size();
  s.warp.assign(T, Vec3(1, 0, 0));
  s.limit_warp.assign(T, 1.03);
  s.limit_weft.assign(T, 1.10);
  Report r = run("aniso_warp_x", s);
  EXPECT_FALSE(passed(r, "anisotropic")) << to_text(r);
  EXPECT_NEAR(field(r.find("anisotropic"), "worst"), 1.05, 1e-12);
  EXPECT_EQ(field(r.find("anisotropic"), "limit"), 1.03);
  EXPECT_EQ(field(r.find("anisotropic"), "frame"), 1);
  EXPECT_TRUE(passed(r, "strain"));
  // Warp along z: the x stretch is now along weft (limit 1.06): passes, and the worst
  // (closest to its limit) is 1.05 along weft, not the unstretched warp (1 of 1.03).
  s.warp.assign(T, Vec3(0, 0, 1));
  s.limit_weft.assign(T, 1.06);
  r = run("aniso_warp_z", s);
  EXPECT_TRUE(passed(r, "anisotropic")) << to_text(r);
  EXPECT_NEAR(field(r.find("anisotropic"), "worst"), 1.05, 1e-12);
  EXPECT_NE(r.find("anisotropic")->message.find("along weft"), std::string::npos) << r.find("anisotropic")->message;
  // ... and a weft limit below it fails.
  s.limit_weft.assign(T, 1.04);
  r = run("aniso_weft_tight", s);
  EXPECT_FALSE(passed(r, "anisotropic")) << to_text(r);
  EXPECT_EQ(field(r.find("anisotropic"), "limit"), 1.04);
  // No warp direction (0) = not orthotropic: nothing checked.
  s.warp.assign(T, Vec3::Zero());
  r = run("aniso_none", s);
  EXPECT_TRUE(passed(r, "anisotropic"));
  EXPECT_EQ(r.find("anisotropic")->message, "no warp/weft-limited triangles");
}

TEST(VerifyFile, UnreadableInputsThrowInputError) {
  const std::string good = path_for("good");
  write_scene(good, two_sheets());
  // Truncated: a valid file cut to half its bytes.
  const std::string cut = path_for("truncated");
  std::filesystem::copy_file(good, cut, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut, std::filesystem::file_size(good) / 2);
  EXPECT_THROW(verify_file(cut), InputError);
  try {
    verify_file(cut);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(cut), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  // Truncated inside the frame data only (superblock and metadata intact or not, still 2).
  const std::string cut2 = path_for("truncated_tail");
  std::filesystem::copy_file(good, cut2, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut2, std::filesystem::file_size(good) - 100);
  EXPECT_THROW(verify_file(cut2), InputError);

  EXPECT_THROW(verify_file(path_for("does_not_exist")), InputError);
  const std::string text = temp_dir() + "/not_hdf5.h5";
  std::ofstream(text) << "this is not an HDF5 file\n";
  EXPECT_THROW(verify_file(text), InputError);

  Scene s = two_sheets();
  s.write_strain_limit = false;
  write_scene(path_for("no_strain_limit"), s);
  try {
    verify_file(path_for("no_strain_limit"));
    ADD_FAILURE() << "missing dataset accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/mesh/strain_limit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no_strain_limit.h5"), std::string::npos) << e.what();
  }

  Scene bad = two_sheets();
  bad.tris[3][1] = 1000;  // index out of range
  write_scene(path_for("bad_index"), bad);
  try {
    verify_file(path_for("bad_index"));
    ADD_FAILURE() << "bad index accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/mesh/triangles"), std::string::npos) << e.what();
  }

  Scene shape = two_sheets();
  shape.frames[1].pop_back();  // frames no longer (F, N, 3)
  shape.frames[0].pop_back();
  write_scene(path_for("bad_shape"), shape);
  EXPECT_THROW(verify_file(path_for("bad_shape")), InputError);
}

TEST(Cli, ExitCodesAndOutput) {
  const std::string good = path_for("cli_good");
  write_scene(good, two_sheets());
  std::string out, err;
  EXPECT_EQ(cli({good}, &out, &err), 0);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 7) << out;
  EXPECT_EQ(out.rfind("PASS complete  ", 0), 0u) << out;
  EXPECT_TRUE(err.empty());

  EXPECT_EQ(cli({good, "--json"}, &out), 0);
  EXPECT_EQ(out.rfind("{\"file\": ", 0), 0u) << out;
  EXPECT_NE(out.find("\"pass\": true"), std::string::npos);
  EXPECT_NE(out.find("\"name\": \"distance\""), std::string::npos);

  Scene s = two_sheets();
  s.complete = 0;
  write_scene(path_for("cli_incomplete"), s);
  EXPECT_EQ(cli({path_for("cli_incomplete")}, &out), 1);
  EXPECT_NE(out.find("FAIL complete  file incomplete"), std::string::npos) << out;
  EXPECT_EQ(cli({"--json", path_for("cli_incomplete")}, &out), 1);
  EXPECT_NE(out.find("\"pass\": false"), std::string::npos);

  const std::string cut = path_for("cli_truncated");
  std::filesystem::copy_file(good, cut, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut, std::filesystem::file_size(good) / 3);
  EXPECT_EQ(cli({cut}, &out, &err), 2);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(err.rfind("weft-verify: " + cut + ": ", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;

  EXPECT_EQ(cli({good, "--bogus"}, nullptr, &err), 2);
  EXPECT_NE(err.find("--bogus"), std::string::npos);
  EXPECT_EQ(cli({good, "--tol-distance", "abc"}, nullptr, &err), 2);
  EXPECT_EQ(cli({good, "--tol-strain"}, nullptr, &err), 2);
  EXPECT_EQ(cli({}, nullptr, &err), 2);
  EXPECT_EQ(cli({good, good}, nullptr, &err), 2);
  EXPECT_EQ(cli({good, "--tol-distance=1e-6", "--tol-strain", "0"}, &out), 0);
  EXPECT_EQ(cli({"--help"}, &out), 0);
  EXPECT_NE(out.find("usage: weft-verify"), std::string::npos);
}

TEST(Cli, ParseArgs) {
  const char* argv[] = {"weft-verify", "--tol-distance", "1e-6", "f.h5", "--json", "--tol-strain=2e-3"};
  const CliArgs a = parse_args(6, argv);
  EXPECT_EQ(a.file, "f.h5");
  EXPECT_TRUE(a.json);
  EXPECT_EQ(a.opt.tol_distance, 1e-6);
  EXPECT_EQ(a.opt.tol_strain, 2e-3);
  const char* neg[] = {"weft-verify", "f.h5", "--tol-strain", "-1"};
  EXPECT_THROW(parse_args(4, neg), InputError);
}

TEST(Merge, WorstWinsAndTiesGoToEarlierFrame) {
  Stats a, b;
  a.strain_excess = 0.1; a.strain_frame = 5; a.strain_triangle = 1; a.strain_violations = 1;
  b.strain_excess = 0.1; b.strain_frame = 2; b.strain_triangle = 7; b.strain_violations = 2;
  a.distance_gap = -1; a.distance_frame = 3;
  b.distance_gap = 0.5; b.distance_frame = 1;
  b.intersections = 4; b.intersection_frame = 9;
  Stats t;
  merge(t, a);
  merge(t, b);
  EXPECT_EQ(t.strain_frame, 2);
  EXPECT_EQ(t.strain_triangle, 7);
  EXPECT_EQ(t.strain_violations, 3);
  EXPECT_EQ(t.distance_frame, 3);
  EXPECT_EQ(t.intersections, 4);
  EXPECT_EQ(t.intersection_frame, 9);
}

TEST(VerifyFile, FramesSplitOverRanksGiveTheSameReport) {
  // Five frames with violations in different frames; at 1 rank this compares the
  // COMM_WORLD path with COMM_SELF, under mpirun -n 2/3 it checks the cyclic split.
  Scene s = two_sheets();
  for (int f = 2; f < 5; ++f) s.frames.push_back(s.frames[1]);
  s.frames[2][std::size_t(bottom(0, 0))] = Vec3(-0.1, 0, -0.1);                 // strain, frame 2
  for (int i = kN * kN; i < 2 * kN * kN; ++i) s.frames[3][std::size_t(i)].y() = 0.004;  // distance, 3
  s.frames[4][std::size_t(top(2, 2))].y() = -0.05;                              // intersection, 4
  const std::string p = path_for("split");
  write_scene(p, s);
  const Report self = verify_file(p, {}, MPI_COMM_SELF);
  const Report world = verify_file(p, {}, MPI_COMM_WORLD);
  EXPECT_EQ(to_json(self), to_json(world));
  EXPECT_EQ(field(self.find("strain"), "frame"), 2);        // 1.67 beats frame 4's 1.36
  EXPECT_EQ(field(self.find("intersection"), "frame"), 4);
  EXPECT_EQ(field(self.find("distance"), "frame"), 4);      // gap -0.01 (intersecting) < -0.006
  EXPECT_GT(field(self.find("distance"), "violations"), 300);  // frames 3 and 4
}

// The contact check in chunks of few primitives (each with its own neighbourhood grid, what
// bounds the memory on large meshes) finds the same pairs: the same report, bit for bit, for
// every chunk size, with intersections, distance violations, segments and points in play.
TEST(VerifyFile, ChunkedContactCheckGivesTheSameReport) {
  Scene s = two_sheets();
  const int v = int(s.rest.size());
  const std::vector<Vec3> extra = {Vec3(0.5, 0.03, 0.5), Vec3(0.5, 0.05, 0.5), Vec3(0.31, 0.06, 0.43)};
  s.rest.insert(s.rest.end(), extra.begin(), extra.end());
  s.segs.push_back({v, v + 1});
  s.seg_offset.push_back(0.0);
  s.pts.push_back(v + 2);
  s.pt_offset.push_back(0.002);
  for (auto& f : s.frames) f.insert(f.end(), extra.begin(), extra.end());
  for (int f = 2; f < 4; ++f) s.frames.push_back(s.frames[1]);
  for (int i = kN * kN; i < 2 * kN * kN; ++i) s.frames[2][std::size_t(i)].y() = 0.004;  // distance, 2
  s.frames[3][std::size_t(top(2, 2))].y() = -0.05;                              // intersection, 3
  s.frames[3][std::size_t(v)].y() = -0.05;  // the segment through the bottom sheet
  const Report whole = run("chunked", s);
  EXPECT_FALSE(passed(whole, "intersection"));
  EXPECT_FALSE(passed(whole, "distance"));
  for (std::size_t chunk : {1, 2, 5, 17, 40}) {
    Options o;
    o.chunk_primitives = chunk;
    EXPECT_EQ(to_json(run("chunked", s, o)), to_json(whole)) << chunk;
  }
}

// The same with the pairs split over processes (set_share, the simulator's initial check):
// three shares, each in chunks, merged, give the unsplit check's counts and example pairs.
TEST(VerifyFile, SharesInChunksMergeToTheWholeCheck) {
  Scene s = two_sheets();
  s.frames[1][std::size_t(top(2, 2))].y() = -0.05;  // an intersection
  for (int i = kN * kN; i < 2 * kN * kN; i += 3) s.frames[1][std::size_t(i)].y() = 0.004;  // close pairs
  const std::string p = path_for("shares");
  write_scene(p, s);
  const ResultFile file(p);
  FrameChecker all(file.mesh(), Options{});
  Stats whole;
  all.check(1, s.frames[1], whole);
  EXPECT_GT(whole.intersections, 0);
  EXPECT_GT(whole.distance_violations, 0);
  for (std::size_t chunk : {std::size_t(1), std::size_t(4), std::size_t(25), std::size_t(1) << 20}) {
    Options o;
    o.chunk_primitives = chunk;
    Stats merged;
    for (int part = 0; part < 3; ++part) {
      FrameChecker c(file.mesh(), o);
      c.set_share([part](int v) { return (v * 7) % 3 == part; });  // scattered shares
      Stats mine;
      c.check(1, s.frames[1], mine);
      merge(merged, mine);
    }
    EXPECT_EQ(merged.candidate_pairs, whole.candidate_pairs) << chunk;
    EXPECT_EQ(merged.intersections, whole.intersections) << chunk;
    EXPECT_EQ(merged.distance_violations, whole.distance_violations) << chunk;
    EXPECT_EQ(merged.distance_gap, whole.distance_gap) << chunk;
    EXPECT_EQ(merged.intersection_pair.a, whole.intersection_pair.a) << chunk;
    EXPECT_EQ(merged.intersection_pair.b, whole.intersection_pair.b) << chunk;
    EXPECT_EQ(merged.distance_pair.a, whole.distance_pair.a) << chunk;
    EXPECT_EQ(merged.distance_pair.b, whole.distance_pair.b) << chunk;
  }
}

// Stitched pairs (/mesh/stitches) are one vertex: two sheets welded along a row, both copies
// written at one position, are no 0-distance pair; without the stitches they are.
TEST(VerifyFile, StitchedPairsAreOneVertex) {
  Scene s;
  // The next sheet along z, 2 offsets beyond the first at rest (frame 0), then welded.
  s.add_sheet(kN, kN, kH, 0, 0.0, 0, kXi, kLimit);
  s.add_sheet(kN, kN, kH, 0, 0.0, kH * (kN - 1) + 2 * kXi, kXi, kLimit);
  for (int i = 0; i < kN; ++i) s.stitches.push_back({bottom(i, kN - 1), top(i, 0)});
  s.frames.push_back(s.rest);
  std::vector<Vec3> welded = s.rest;
  for (const Edge& e : s.stitches) welded[e[1]] = welded[e[0]];  // one position, both copies
  s.frames.push_back(welded);
  const Report r = run("stitched", s);
  EXPECT_TRUE(passed(r, "distance"));
  EXPECT_TRUE(passed(r, "intersection"));
  s.stitches.clear();
  const Report bad = run("unstitched", s);
  EXPECT_FALSE(passed(bad, "distance"));
  EXPECT_FALSE(passed(bad, "intersection"));
}

namespace {

// Tearing (/frames/triangles): a 6 x 6 sheet torn along its column x = 0.4 (i = 2): the quads
// right of it take spares 36..41 for the column's vertices. Frame 0: untorn (spares unused, at
// vertex 0); frame 1: the right piece moved 0.1 away; frame 2: 0.1 into the left piece
// (coplanar overlap).
Scene torn_sheet(int frames) {
  Scene s;
  s.add_sheet(kN, kN, kH, 0, 0.0, 0, 0.0, 0.0);
  for (int k = 0; k < kN; ++k) s.rest.push_back(s.rest[0]);
  std::vector<Tri> torn = s.tris;
  for (int i = 2; i + 1 < kN; ++i)
    for (int k = 0; k + 1 < kN; ++k)
      for (int q = 0; q < 2; ++q)
        for (int& c : torn[2 * (i * (kN - 1) + k) + q])
          if (c / kN == 2) c = kN * kN + c % kN;
  s.frame_tris = {s.tris};
  s.frames = {s.rest};
  for (double dx : {0.1, -0.1}) {
    if (static_cast<int>(s.frames.size()) == frames) break;
    std::vector<Vec3> x = s.rest;
    for (int k = 0; k < kN; ++k) x[kN * kN + k] = s.rest[2 * kN + k];
    for (int v = 3 * kN; v < kN * kN + kN; ++v) x[v].x() += dx;
    for (int k = 0; k < kN; ++k) x[kN * kN + k].x() = x[2 * kN + k].x() + dx;
    s.frames.push_back(x);
    s.frame_tris.push_back(torn);
  }
  return s;
}

}  // namespace

TEST(VerifyFile, TornSheetUsesEachFramesTriangles) {
  // Apart: no intersection, although the frame-0 topology would join the pieces.
  const Report ok = run("torn_apart", torn_sheet(2));
  EXPECT_TRUE(passed(ok, "intersection"));
  EXPECT_TRUE(passed(ok, "finite"));
  // Pushed into each other: the pieces share no vertex, so the overlap is an intersection.
  const Report bad = run("torn_overlap", torn_sheet(3));
  EXPECT_FALSE(passed(bad, "intersection"));
  EXPECT_EQ(field(bad.find("intersection"), "frame"), 2.0);
}

namespace {

// The torn 6 x 6 sheet of torn_sheet at frame 1 with the given positions of the right piece
// (columns 3..5 and the spares 36..41 of column 2): move(v, x) edits them.
template <class Move>
Scene torn_sheet_at(Move move) {
  Scene s = torn_sheet(2);
  std::vector<Vec3>& x = s.frames[1];
  x = s.rest;
  for (int k = 0; k < kN; ++k) x[kN * kN + k] = s.rest[2 * kN + k];  // each spare on its vertex
  for (int v = 3 * kN; v < kN * kN + kN; ++v) move(v, x[v]);
  return s;
}

}  // namespace

// The crack rule (core/material_point.hpp): a vertex and its spare at bitwise one position
// are one material point, so the closed crack (each spare on its vertex, the pieces touching
// along the column) is no intersection; before the rule weft-verify counted every touching
// pair across it. The rule hides nothing else: a spare one ulp off its vertex is a point of
// its own, the pieces folded over each other still intersect away from the crack, and
// vertices of different roots at one position still touch.
TEST(VerifyFile, ClosedCrackIsOneMaterialPoint) {
  const Report closed = run("crack_closed", torn_sheet_at([](int, Vec3&) {}));
  EXPECT_TRUE(passed(closed, "intersection")) << to_text(closed);
  // The right piece shifted by one ulp along x: apart from the left one, nothing touches.
  const Report ulp = run("crack_ulp", torn_sheet_at([](int, Vec3& p) { p.x() = std::nextafter(p.x(), 1.0); }));
  EXPECT_TRUE(passed(ulp, "intersection")) << to_text(ulp);
  // Spares on their vertices, columns 3..5 folded back over the left piece (column 3 at
  // x = 0.25, 4 at 0.45): the strip between them overlaps the left piece's strip between
  // columns 1 and 2, sharing no material point.
  const Report folded = run("crack_folded", torn_sheet_at([](int v, Vec3& p) {
                              if (v < kN * kN) p.x() -= 0.35;
                            }));
  EXPECT_FALSE(passed(folded, "intersection"));
  // The right piece slid one row along z: spare k sits on vertex k + 1 of column 2, a vertex
  // of another root; the pieces touch along the column and that is an intersection.
  const Report slid = run("crack_slid", torn_sheet_at([](int, Vec3& p) { p.z() += kH; }));
  EXPECT_FALSE(passed(slid, "intersection"));
  EXPECT_GT(field(slid.find("intersection"), "violations"), 0.0);
}
