#include "verify/result_file.hpp"

#include <hdf5.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace weft::verify {
namespace {

struct Handle {  // closes an HDF5 object on scope exit
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
};

// Silences HDF5's automatic error-stack printing for one call into this file (failures
// become InputError) and restores the caller's handler afterwards.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw InputError(file + ": " + what);
}

bool exists(hid_t file, const std::string& name) {
  // Check each path component: H5Lexists on a/b fails if a is missing.
  std::size_t pos = 0;
  while (true) {
    pos = name.find('/', pos + 1);
    std::string part = name.substr(0, pos);
    if (H5Lexists(file, part.c_str(), H5P_DEFAULT) <= 0) return false;
    if (pos == std::string::npos) return true;
  }
}

// Reads a whole dataset of rank 1 or 2 (dims checked against `cols`, 0 = rank 1) and
// converts to T via HDF5's type conversion. Returns the number of rows.
template <class T>
std::size_t read_dataset(hid_t file, const std::string& path, const std::string& name, int cols,
                         hid_t mem_type, std::vector<T>& out) {
  Handle ds{H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose};
  if (ds.id < 0) fail(path, "dataset " + name + ": cannot open");
  Handle space{H5Dget_space(ds.id), H5Sclose};
  if (space.id < 0) fail(path, "dataset " + name + ": cannot read dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.id);
  hsize_t dims[4] = {0, 0, 0, 0};
  if (rank < 1 || rank > 2) fail(path, "dataset " + name + ": expected rank " + (cols ? "2" : "1"));
  H5Sget_simple_extent_dims(space.id, dims, nullptr);
  const int want_rank = cols ? 2 : 1;
  if (rank != want_rank || (cols && dims[1] != hsize_t(cols)))
    fail(path, "dataset " + name + ": expected shape " +
                   (cols ? "(n," + std::to_string(cols) + ")" : std::string("(n)")));
  const H5T_class_t cls = [&] {
    Handle t{H5Dget_type(ds.id), H5Tclose};
    return H5Tget_class(t.id);
  }();
  const bool want_float = (mem_type == H5T_NATIVE_DOUBLE);
  if (want_float ? (cls != H5T_FLOAT && cls != H5T_INTEGER) : cls != H5T_INTEGER)
    fail(path, "dataset " + name + (want_float ? ": expected floating-point data" : ": expected integer data"));
  out.resize(std::size_t(dims[0]) * std::size_t(cols ? cols : 1));
  if (!out.empty() && H5Dread(ds.id, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail(path, "dataset " + name + ": read failed (truncated or corrupt file?)");
  return std::size_t(dims[0]);
}

std::vector<double> read_f64(hid_t file, const std::string& path, const std::string& name, int cols,
                             std::size_t* rows = nullptr) {
  std::vector<double> v;
  std::size_t r = read_dataset(file, path, name, cols, H5T_NATIVE_DOUBLE, v);
  if (rows) *rows = r;
  return v;
}

std::vector<std::int64_t> read_i64(hid_t file, const std::string& path, const std::string& name,
                                   int cols, std::size_t* rows = nullptr) {
  std::vector<std::int64_t> v;
  std::size_t r = read_dataset(file, path, name, cols, H5T_NATIVE_INT64, v);
  if (rows) *rows = r;
  return v;
}

// A string attribute holding one item per line; empty when the attribute is absent.
std::vector<std::string> read_lines_attr(hid_t loc, const std::string& path, const char* name) {
  std::vector<std::string> out;
  if (H5Aexists(loc, name) <= 0) return out;
  Handle a{H5Aopen(loc, name, H5P_DEFAULT), H5Aclose};
  Handle t{H5Aget_type(a.id), H5Tclose};
  if (a.id < 0 || t.id < 0 || H5Tget_class(t.id) != H5T_STRING || H5Tis_variable_str(t.id) > 0)
    fail(path, std::string("attribute /mesh/") + name + ": expected a fixed-length string");
  const std::size_t len = H5Tget_size(t.id);
  std::string buf(len, '\0');
  if (H5Aread(a.id, t.id, buf.data()) < 0) fail(path, std::string("attribute /mesh/") + name + ": cannot read");
  buf.resize(std::min(buf.find('\0'), buf.size()));
  std::size_t pos = 0;
  while (pos <= buf.size() && !buf.empty()) {
    const std::size_t nl = buf.find('\n', pos);
    out.push_back(buf.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

void require(hid_t file, const std::string& path, const std::string& name) {
  if (!exists(file, name)) fail(path, "dataset " + name + ": missing");
}

void check_len(const std::string& path, const std::string& name, std::size_t got, std::size_t want,
               const std::string& against) {
  if (got != want)
    fail(path, "dataset " + name + ": has " + std::to_string(got) + " rows, expected " +
                   std::to_string(want) + " (one per row of " + against + ")");
}

template <std::size_t K>
std::vector<std::array<int, K>> to_index_rows(const std::vector<std::int64_t>& flat,
                                              std::size_t nverts, const std::string& path,
                                              const std::string& name) {
  std::vector<std::array<int, K>> rows(flat.size() / K);
  for (std::size_t i = 0; i < flat.size(); ++i) {
    if (flat[i] < 0 || std::uint64_t(flat[i]) >= nverts)
      fail(path, "dataset " + name + ": row " + std::to_string(i / K) + " has vertex index " +
                     std::to_string(flat[i]) + " outside [0, " + std::to_string(nverts) + ")");
    rows[i / K][i % K] = int(flat[i]);
  }
  return rows;
}

// Opens a per-frame dataset of shape (F, rows, 3) (`letter` names rows in the message: N,
// T) and checks its shape against `rows` entries of `rows_of`; returns the open dataset
// and stores F.
hid_t open_frame_rows(hid_t f, const std::string& path, const std::string& name, char letter, hsize_t rows,
                      const std::string& rows_of, hsize_t* frames) {
  Handle ds{H5Dopen2(f, name.c_str(), H5P_DEFAULT), H5Dclose};  // closed if a check fails
  if (ds.id < 0) fail(path, "dataset " + name + ": cannot open");
  Handle space{H5Dget_space(ds.id), H5Sclose};
  hsize_t dims[3] = {0, 0, 0};
  if (H5Sget_simple_extent_ndims(space.id) != 3)
    fail(path, "dataset " + name + ": expected shape (F," + letter + ",3)");
  H5Sget_simple_extent_dims(space.id, dims, nullptr);
  if (dims[1] != rows || dims[2] != 3)
    fail(path, "dataset " + name + ": shape (" + std::to_string(dims[0]) + "," + std::to_string(dims[1]) + "," +
                   std::to_string(dims[2]) + ") does not match (F," + std::to_string(rows) + ",3) of " + rows_of);
  *frames = dims[0];
  const hid_t open = ds.id;
  ds.id = -1;  // the caller keeps it
  return open;
}

}  // namespace

ResultFile::ResultFile(const std::string& path) : path_(path) {
  const QuietHdf5 quiet;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) fail(path, "cannot open: no such file");
  if (!S_ISREG(st.st_mode)) fail(path, "cannot open: not a regular file");
  if (H5Fis_hdf5(path.c_str()) <= 0) fail(path, "not an HDF5 file (or truncated)");
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) fail(path, "cannot open as HDF5 (truncated or corrupt file?)");
  const hid_t f = hid_t(file_);

  try {
    for (const char* n : {"/mesh/rest_positions", "/mesh/triangles", "/mesh/triangle_offset",
                          "/mesh/strain_limit", "/frames/positions", "/frames/time"})
      require(f, path, n);

    std::size_t n = 0;
    std::vector<double> rest = read_f64(f, path, "/mesh/rest_positions", 3, &n);
    mesh_.rest.resize(n);
    for (std::size_t i = 0; i < n; ++i) mesh_.rest[i] = Vec3(rest[3 * i], rest[3 * i + 1], rest[3 * i + 2]);

    std::size_t t = 0;
    mesh_.triangles = to_index_rows<3>(read_i64(f, path, "/mesh/triangles", 3, &t), n, path, "/mesh/triangles");
    std::size_t rows = 0;
    mesh_.triangle_offset = read_f64(f, path, "/mesh/triangle_offset", 0, &rows);
    check_len(path, "/mesh/triangle_offset", rows, t, "/mesh/triangles");
    mesh_.strain_limit = read_f64(f, path, "/mesh/strain_limit", 0, &rows);
    check_len(path, "/mesh/strain_limit", rows, t, "/mesh/triangles");

    if (exists(f, "/mesh/object_id")) {
      const std::vector<std::int64_t> ids = read_i64(f, path, "/mesh/object_id", 0, &rows);
      check_len(path, "/mesh/object_id", rows, n, "/mesh/rest_positions");
      mesh_.object_id.assign(ids.begin(), ids.end());
      for (std::int64_t id : ids)
        if (id < 0 || id > (1 << 30)) fail(path, "dataset /mesh/object_id: negative or huge object id");
      Handle g{H5Gopen2(f, "/mesh", H5P_DEFAULT), H5Gclose};
      mesh_.object_names = read_lines_attr(g.id, path, "object_names");
      mesh_.object_kinds = read_lines_attr(g.id, path, "object_kinds");
    }
    if (exists(f, "/mesh/segments")) {
      std::size_t s = 0;
      mesh_.segments = to_index_rows<2>(read_i64(f, path, "/mesh/segments", 2, &s), n, path, "/mesh/segments");
      require(f, path, "/mesh/segment_offset");
      mesh_.segment_offset = read_f64(f, path, "/mesh/segment_offset", 0, &rows);
      check_len(path, "/mesh/segment_offset", rows, s, "/mesh/segments");
    }
    if (exists(f, "/mesh/points")) {
      std::size_t p = 0;
      auto pts = to_index_rows<1>(read_i64(f, path, "/mesh/points", 0, &p), n, path, "/mesh/points");
      for (auto& r : pts) mesh_.points.push_back(r[0]);
      require(f, path, "/mesh/point_offset");
      mesh_.point_offset = read_f64(f, path, "/mesh/point_offset", 0, &rows);
      check_len(path, "/mesh/point_offset", rows, p, "/mesh/points");
    }
    if (exists(f, "/mesh/stitches"))
      mesh_.stitches = to_index_rows<2>(read_i64(f, path, "/mesh/stitches", 2, nullptr), n, path, "/mesh/stitches");
    if (exists(f, "/mesh/tets"))
      mesh_.tets = to_index_rows<4>(read_i64(f, path, "/mesh/tets", 4, nullptr), n, path, "/mesh/tets");

    if (exists(f, "/mesh/warp_direction")) {
      std::size_t w = 0;
      const std::vector<double> d = read_f64(f, path, "/mesh/warp_direction", 3, &w);
      check_len(path, "/mesh/warp_direction", w, t, "/mesh/triangles");
      for (std::size_t k = 0; k < w; ++k) mesh_.warp_direction.emplace_back(d[3 * k], d[3 * k + 1], d[3 * k + 2]);
      for (const char* name : {"/mesh/strain_limit_warp", "/mesh/strain_limit_weft"}) {
        require(f, path, name);
        std::vector<double> lim = read_f64(f, path, name, 0, &rows);
        check_len(path, name, rows, t, "/mesh/triangles");
        for (double x : lim)
          if (!std::isfinite(x) || x < 0) fail(path, std::string("dataset ") + name + ": values must be finite and >= 0");
        (std::string(name).back() == 'p' ? mesh_.strain_limit_warp : mesh_.strain_limit_weft) = std::move(lim);
      }
      for (const Vec3& v : mesh_.warp_direction)
        if (!v.allFinite()) fail(path, "dataset /mesh/warp_direction: values must be finite");
    }

    for (const auto* v : {&mesh_.triangle_offset, &mesh_.strain_limit, &mesh_.segment_offset, &mesh_.point_offset})
      for (double x : *v)
        if (!std::isfinite(x) || x < 0) {
          const char* name = v == &mesh_.triangle_offset ? "/mesh/triangle_offset"
                             : v == &mesh_.strain_limit  ? "/mesh/strain_limit"
                             : v == &mesh_.segment_offset ? "/mesh/segment_offset"
                                                          : "/mesh/point_offset";
          fail(path, std::string("dataset ") + name + ": values must be finite and >= 0");
        }

    times_ = read_f64(f, path, "/frames/time", 0, &rows);

    hsize_t nf = 0;
    positions_ = open_frame_rows(f, path, "/frames/positions", 'N', n, "/mesh/rest_positions", &nf);
    {
      Handle t{H5Dget_type(hid_t(positions_)), H5Tclose};
      if (H5Tget_class(t.id) != H5T_FLOAT) fail(path, "dataset /frames/positions: expected floating-point data");
    }
    frames_ = long(std::min<hsize_t>(nf, times_.size()));
    if (exists(f, "/frames/triangles")) {
      // Tearing: each frame's triangle corners (F, T, 3), T as /mesh/triangles.
      triangles_ = open_frame_rows(f, path, "/frames/triangles", 'T', t, "/mesh/triangles", &nf);
      frames_ = std::min(frames_, long(nf));
    }

    if (H5Aexists(f, "complete") > 0) {
      Handle a{H5Aopen(f, "complete", H5P_DEFAULT), H5Aclose};
      long long v = 0;
      if (a.id < 0 || H5Aread(a.id, H5T_NATIVE_LLONG, &v) < 0)
        fail(path, "attribute /complete: cannot read as an integer");
      has_complete_ = true;
      complete_ = long(v);
    }
  } catch (...) {
    if (triangles_ >= 0) H5Dclose(hid_t(triangles_));
    if (positions_ >= 0) H5Dclose(hid_t(positions_));
    H5Fclose(f);
    positions_ = file_ = -1;
    throw;
  }
}

ResultFile::~ResultFile() {
  if (triangles_ >= 0) H5Dclose(hid_t(triangles_));
  if (positions_ >= 0) H5Dclose(hid_t(positions_));
  if (file_ >= 0) H5Fclose(hid_t(file_));
}

void ResultFile::read_frame(long f, std::vector<Vec3>& x) const {
  const QuietHdf5 quiet;
  const std::size_t n = mesh_.rest.size();
  x.resize(n);
  if (f < 0 || f >= frames_) fail(path_, "dataset /frames/positions: frame " + std::to_string(f) + " out of range");
  if (n == 0) return;
  Handle fspace{H5Dget_space(hid_t(positions_)), H5Sclose};
  hsize_t start[3] = {hsize_t(f), 0, 0}, count[3] = {1, hsize_t(n), 3};
  hsize_t mdims[1] = {hsize_t(3 * n)};
  Handle mspace{H5Screate_simple(1, mdims, nullptr), H5Sclose};
  static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
  if (fspace.id < 0 || mspace.id < 0 ||
      H5Sselect_hyperslab(fspace.id, H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
      H5Dread(hid_t(positions_), H5T_NATIVE_DOUBLE, mspace.id, fspace.id, H5P_DEFAULT, x.data()->data()) < 0)
    fail(path_, "dataset /frames/positions: cannot read frame " + std::to_string(f) +
                    " (truncated or corrupt file?)");
}

}  // namespace weft::verify

namespace weft::verify {

void ResultFile::read_frame_triangles(long f, std::vector<Tri>& tris) const {
  const QuietHdf5 quiet;
  tris = mesh_.triangles;
  if (triangles_ < 0 || tris.empty()) return;
  if (f < 0 || f >= frames_) fail(path_, "dataset /frames/triangles: frame " + std::to_string(f) + " out of range");
  const std::size_t T = tris.size(), n = mesh_.rest.size();
  std::vector<long long> c(3 * T);
  Handle fspace{H5Dget_space(hid_t(triangles_)), H5Sclose};
  hsize_t start[3] = {hsize_t(f), 0, 0}, count[3] = {1, hsize_t(T), 3};
  hsize_t mdims[1] = {hsize_t(3 * T)};
  Handle mspace{H5Screate_simple(1, mdims, nullptr), H5Sclose};
  if (fspace.id < 0 || mspace.id < 0 ||
      H5Sselect_hyperslab(fspace.id, H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
      H5Dread(hid_t(triangles_), H5T_NATIVE_LLONG, mspace.id, fspace.id, H5P_DEFAULT, c.data()) < 0)
    fail(path_, "dataset /frames/triangles: cannot read frame " + std::to_string(f) + " (truncated or corrupt file?)");
  for (std::size_t k = 0; k < 3 * T; ++k) {
    if (c[k] < 0 || c[k] >= static_cast<long long>(n))
      fail(path_, "dataset /frames/triangles: frame " + std::to_string(f) + " has vertex index " + std::to_string(c[k]) +
                      " outside [0, " + std::to_string(n) + ")");
    tris[k / 3][k % 3] = static_cast<int>(c[k]);
  }
}

}  // namespace weft::verify
