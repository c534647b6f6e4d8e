// Test helper: writes small result files in the layout of DESIGN.md "Result files".
#pragma once
#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace weft::verify::test {

class H5Writer {
 public:
  explicit H5Writer(const std::string& path) {
    file_ = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    group("/mesh");
    group("/frames");
  }
  ~H5Writer() { H5Fclose(file_); }
  void group(const std::string& name) {
    hid_t g = H5Gcreate2(file_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);
  }
  void f64(const std::string& name, std::vector<hsize_t> dims, const std::vector<double>& v) {
    write(name, dims, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data());
  }
  void i64(const std::string& name, std::vector<hsize_t> dims, const std::vector<std::int64_t>& v) {
    write(name, dims, H5T_STD_I64LE, H5T_NATIVE_INT64, v.data());
  }
  void i32(const std::string& name, std::vector<hsize_t> dims, const std::vector<std::int32_t>& v) {
    write(name, dims, H5T_STD_I32LE, H5T_NATIVE_INT32, v.data());
  }
  void attr_int(const std::string& name, long long v) {
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(file_, name.c_str(), H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
    H5Sclose(sp);
  }

 private:
  void write(const std::string& name, std::vector<hsize_t> dims, hid_t file_type, hid_t mem_type,
             const void* data) {
    hid_t sp = H5Screate_simple(int(dims.size()), dims.data(), nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dims.size() == 3 && dims[0] > 0 && dims[1] > 0) {  // frames: one chunk per frame
      std::vector<hsize_t> chunk = {1, dims[1], dims[2]};
      H5Pset_chunk(dcpl, 3, chunk.data());
    }
    hid_t ds = H5Dcreate2(file_, name.c_str(), file_type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    bool empty = false;
    for (hsize_t d : dims) empty |= d == 0;
    if (!empty) H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(sp);
  }
  hid_t file_;
};

// A scene in memory, written with write_scene().
struct Scene {
  std::vector<Vec3> rest;
  std::vector<Tri> tris;
  std::vector<double> tri_offset, strain_limit;
  std::vector<Edge> segs;
  std::vector<double> seg_offset;
  std::vector<int> pts;  // /mesh/points (isolated points), written when non-empty
  std::vector<double> pt_offset;
  std::vector<std::array<int, 4>> tets;
  std::vector<Edge> stitches;  // /mesh/stitches, written when non-empty
  // Orthotropic triangles (written when warp is non-empty): warp direction, limits.
  std::vector<Vec3> warp;
  std::vector<double> limit_warp, limit_weft;
  std::vector<std::vector<Vec3>> frames;
  std::vector<std::vector<Tri>> frame_tris;  // /frames/triangles (tearing), written when non-empty
  int complete = 1;  // < 0: attribute missing
  bool write_strain_limit = true;

  // A grid sheet of nx x nz vertices, spacing h, in the plane y = y0 starting at (x0, z0).
  void add_sheet(int nx, int nz, double h, double x0, double y0, double z0, double offset, double limit) {
    const int base = int(rest.size());
    for (int i = 0; i < nx; ++i)
      for (int k = 0; k < nz; ++k) rest.emplace_back(x0 + i * h, y0, z0 + k * h);
    for (int i = 0; i + 1 < nx; ++i)
      for (int k = 0; k + 1 < nz; ++k) {
        const int v00 = base + i * nz + k, v10 = v00 + nz, v01 = v00 + 1, v11 = v10 + 1;
        tris.push_back({v00, v10, v11});
        tris.push_back({v00, v11, v01});
        tri_offset.insert(tri_offset.end(), 2, offset);
        strain_limit.insert(strain_limit.end(), 2, limit);
      }
  }
};

inline void write_scene(const std::string& path, const Scene& s) {
  H5Writer w(path);
  const hsize_t n = s.rest.size(), t = s.tris.size(), f = s.frames.size();
  std::vector<double> rest;
  for (const Vec3& p : s.rest) rest.insert(rest.end(), {p.x(), p.y(), p.z()});
  w.f64("/mesh/rest_positions", {n, 3}, rest);
  std::vector<std::int64_t> tris;
  for (const Tri& tr : s.tris) tris.insert(tris.end(), {tr[0], tr[1], tr[2]});
  w.i64("/mesh/triangles", {t, 3}, tris);
  w.f64("/mesh/triangle_offset", {t}, s.tri_offset);
  if (s.write_strain_limit) w.f64("/mesh/strain_limit", {t}, s.strain_limit);
  w.i32("/mesh/object_id", {n}, std::vector<std::int32_t>(n, 0));
  if (!s.segs.empty()) {
    std::vector<std::int64_t> segs;
    for (const Edge& e : s.segs) segs.insert(segs.end(), {e[0], e[1]});
    w.i64("/mesh/segments", {s.segs.size(), 2}, segs);
    w.f64("/mesh/segment_offset", {s.segs.size()}, s.seg_offset);
  }
  if (!s.pts.empty()) {
    w.i64("/mesh/points", {s.pts.size()}, std::vector<std::int64_t>(s.pts.begin(), s.pts.end()));
    w.f64("/mesh/point_offset", {s.pts.size()}, s.pt_offset);
  }
  if (!s.stitches.empty()) {
    std::vector<std::int64_t> st;
    for (const Edge& e : s.stitches) st.insert(st.end(), {e[0], e[1]});
    w.i64("/mesh/stitches", {s.stitches.size(), 2}, st);
  }
  if (!s.tets.empty()) {
    std::vector<std::int64_t> tets;
    for (const auto& k : s.tets) tets.insert(tets.end(), {k[0], k[1], k[2], k[3]});
    w.i64("/mesh/tets", {s.tets.size(), 4}, tets);
  }
  if (!s.warp.empty()) {
    std::vector<double> d;
    for (const Vec3& p : s.warp) d.insert(d.end(), {p.x(), p.y(), p.z()});
    w.f64("/mesh/warp_direction", {t, 3}, d);
    w.f64("/mesh/strain_limit_warp", {t}, s.limit_warp);
    w.f64("/mesh/strain_limit_weft", {t}, s.limit_weft);
  }
  std::vector<double> pos, time;
  for (std::size_t i = 0; i < f; ++i) {
    for (const Vec3& p : s.frames[i]) pos.insert(pos.end(), {p.x(), p.y(), p.z()});
    time.push_back(0.04 * double(i));
  }
  const hsize_t nf = s.frames.empty() ? n : s.frames[0].size();  // tests may make it != N
  w.f64("/frames/positions", {f, nf, 3}, pos);
  w.f64("/frames/time", {f}, time);
  if (!s.frame_tris.empty()) {
    std::vector<std::int64_t> ft;
    for (const auto& fr : s.frame_tris)
      for (const Tri& tr : fr) ft.insert(ft.end(), {tr[0], tr[1], tr[2]});
    w.i64("/frames/triangles", {s.frame_tris.size(), t, 3}, ft);
  }
  if (s.complete >= 0) w.attr_int("complete", s.complete);
}

// A fresh temporary directory per test binary run, removed at exit unless
// WEFT_KEEP_TEST_FILES is set.
inline std::string temp_dir() {
  struct Dir {
    std::string path;
    Dir() {
      auto d = std::filesystem::temp_directory_path() / ("weft-verify-test-" + std::to_string(::getpid()));
      std::filesystem::create_directories(d);
      path = d.string();
    }
    ~Dir() {
      if (std::getenv("WEFT_KEEP_TEST_FILES")) return;
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static Dir dir;
  return dir.path;
}

}  // namespace weft::verify::test
