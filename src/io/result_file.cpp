#include "io/result_file.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <array>
#include <filesystem>
#include <fstream>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "energy/strain_limit.hpp"
#include "energy/warp_direction.hpp"
#include "io/xdmf.hpp"
#include "parallel/even_share.hpp"

namespace weft {
namespace {

void h5check(herr_t rc, const std::string& what) {
  if (rc < 0) throw RuntimeFailure("HDF5 error: " + what);
}

hid_t h5check_id(hid_t id, const std::string& what) {
  if (id < 0) throw RuntimeFailure("HDF5 error: " + what);
  return id;
}

// HDF5's own error stack printing would put a trace on stderr; weft reports one line.
void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

hid_t mpi_fapl(MPI_Comm comm) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  return fapl;
}

hid_t collective_dxpl() {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  return dxpl;
}

// Dataset creation without fill values: every row of every dataset is written, and
// parallel HDF5 allocates space early, filling it through a buffer as large as a chunk
// (one frame of /frames/positions: 24 bytes per vertex on every rank, the largest
// transient of writing frame 0 at 4.2M vertices).
hid_t unfilled_dcpl() {
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  return dcpl;
}

// Create a (dims[0], ...) dataset and write it collectively, this rank giving rows
// [begin, end) (`data` holds just those rows): ranks split the rows evenly, so no rank
// fills the whole array (issue 20: output from each rank's part).
// Write rows [begin, end) of the open dataset `ds` collectively (`data` holds just those
// rows; an empty range takes part with no selection).
template <typename T>
void write_row_range(hid_t ds, const char* name, hid_t type, const std::vector<T>& data, hsize_t begin,
                     hsize_t end) {
  hid_t space = H5Dget_space(ds);
  std::vector<hsize_t> dims(static_cast<size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::vector<hsize_t> start(dims.size(), 0), count = dims;
  start[0] = begin;
  count[0] = end - begin;
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  const hsize_t values = std::max<hsize_t>(data.size(), 1);
  hid_t mem = H5Screate_simple(1, &values, nullptr);
  if (end == begin) {
    H5Sselect_none(space);
    H5Sselect_none(mem);
  }
  hid_t dxpl = collective_dxpl();
  h5check(H5Dwrite(ds, type, mem, space, dxpl, data.empty() ? nullptr : data.data()), name);
  H5Pclose(dxpl);
  H5Sclose(mem);
  H5Sclose(space);
}

template <typename T>
void write_split(hid_t loc, const char* name, hid_t type, const std::vector<T>& data, std::vector<hsize_t> dims,
                 hsize_t begin, hsize_t end) {
  hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t dcpl = unfilled_dcpl();
  hid_t ds = h5check_id(H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
  H5Pclose(dcpl);
  // (nothing to write in an empty dataset, e.g. no segments)
  if (H5Sget_simple_extent_npoints(space) > 0) write_row_range(ds, name, type, data, begin, end);
  H5Sclose(space);
  H5Dclose(ds);
}

void set_attr_string(hid_t loc, const char* name, const std::string& value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size() + 1);
  hid_t space = H5Screate(H5S_SCALAR);
  if (H5Aexists(loc, name) > 0) H5Adelete(loc, name);
  hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, value.c_str());
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}

template <typename T>
void set_attr(hid_t loc, const char* name, hid_t type, T value) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Aexists(loc, name) > 0 ? H5Aopen(loc, name, H5P_DEFAULT)
                                     : H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, &value);
  H5Aclose(a);
  H5Sclose(space);
}

template <typename T>
T get_attr(hid_t loc, const char* name, hid_t type) {
  T value{};
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a < 0 || H5Aread(a, type, &value) < 0) throw InputError(std::string("attribute '") + name + "' missing");
  H5Aclose(a);
  return value;
}

// 1-D extendible dataset of doubles (per-frame figures), chunked.
hid_t open_or_create_series(hid_t loc, const std::string& name) {
  if (H5Lexists(loc, name.c_str(), H5P_DEFAULT) > 0) return H5Dopen2(loc, name.c_str(), H5P_DEFAULT);
  hsize_t dims[1] = {0}, maxd[1] = {H5S_UNLIMITED}, chunk[1] = {256};
  hid_t space = H5Screate_simple(1, dims, maxd);
  hid_t dcpl = unfilled_dcpl();
  H5Pset_chunk(dcpl, 1, chunk);
  hid_t ds = H5Dcreate2(loc, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return h5check_id(ds, name);
}

void append_scalar(hid_t ds, int frame, double value, int rank) {
  hsize_t dims[1] = {hsize_t(frame) + 1};
  h5check(H5Dset_extent(ds, dims), "extend series");
  hid_t space = H5Dget_space(ds);
  hsize_t start[1] = {hsize_t(frame)}, count[1] = {1};
  hid_t mem = H5Screate_simple(1, count, nullptr);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  if (rank != 0) {
    H5Sselect_none(space);
    H5Sselect_none(mem);
  }
  hid_t dxpl = collective_dxpl();
  h5check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space, dxpl, &value), "write series");
  H5Pclose(dxpl);
  H5Sclose(mem);
  H5Sclose(space);
}

// Names of the per-frame figures under /frames/stats.
std::vector<std::string> stat_names(hid_t file) {
  std::vector<std::string> names;
  hid_t g = H5Gopen2(file, "/frames/stats", H5P_DEFAULT);
  h5check_id(g, "/frames/stats");
  hsize_t n = 0;
  H5Gget_num_objs(g, &n);
  for (hsize_t i = 0; i < n; ++i) {
    char name[256];
    H5Gget_objname_by_idx(g, i, name, sizeof name);
    names.push_back(name);
  }
  H5Gclose(g);
  return names;
}

// An extendible (F, ...) dataset of per-frame rows, one frame per chunk.
void create_frame_series(hid_t loc, const char* name, hid_t type, std::vector<hsize_t> row) {
  std::vector<hsize_t> dims{0}, maxd{H5S_UNLIMITED}, chunk{1};
  for (hsize_t r : row) dims.push_back(r), maxd.push_back(r), chunk.push_back(std::max<hsize_t>(r, 1));
  hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxd.data());
  hid_t dcpl = unfilled_dcpl();
  H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
  hid_t ds = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  h5check_id(ds, std::string("create ") + name);
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
}

// Grow an (F, ...) dataset to `frames` frames (or shrink it, on restart).
void set_frames(hid_t file, const char* path, hsize_t frames) {
  hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
  h5check_id(ds, path);
  hid_t space = H5Dget_space(ds);
  hsize_t dims[3] = {0, 0, 0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  H5Sclose(space);
  dims[0] = frames;
  h5check(H5Dset_extent(ds, dims), std::string("resize ") + path);
  H5Dclose(ds);
}

// `space` with the rows of runs [a, b) selected: of frame `frame` in an (F, M) or (F, M, width)
// series, or of an (M, width) dataset (frame < 0). Halves are selected apart and OR-ed
// (H5Scombine_select): OR-ing thousands of runs one at a time into one selection takes time
// quadratic in their number in HDF5 1.10 (4 s for 16,000 runs), halving keeps it linear.
hid_t select_runs(hid_t space, const std::vector<RowRun>& runs, size_t a, size_t b, long long frame, int width) {
  if (b - a > 64) {
    const size_t m = a + (b - a) / 2;
    hid_t lo = select_runs(space, runs, a, m, frame, width), hi = select_runs(space, runs, m, b, frame, width);
    hid_t both = H5Scombine_select(lo, H5S_SELECT_OR, hi);
    H5Sclose(lo);
    H5Sclose(hi);
    return h5check_id(both, "select rows");
  }
  hid_t s = H5Scopy(space);
  for (size_t r = a; r < b; ++r) {
    hsize_t start[3] = {runs[r].first, 0, 0}, count[3] = {runs[r].count, hsize_t(width), 1};
    if (frame >= 0)
      start[0] = hsize_t(frame), start[1] = runs[r].first, count[0] = 1, count[1] = runs[r].count, count[2] = hsize_t(width);
    h5check(H5Sselect_hyperslab(s, r == a ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr, count, nullptr),
            "select rows");
  }
  if (a == b) H5Sselect_none(s);
  return s;
}

// Write the rows of `runs` (ascending, disjoint; `rows` holds them packed, `width` values a
// row) of the open dataset `ds` collectively: of frame `frame` of a series, or (frame < 0)
// of an (M, width) dataset. A rank writes its own rows where they are in the file, so no
// rank gathers another's (issue 20: no natural-order copy, no scatter).
template <typename T>
void write_runs(hid_t ds, hid_t type, long long frame, const std::vector<RowRun>& runs, int width, const T* rows,
                const char* what) {
  hsize_t total = 0;
  for (const RowRun& r : runs) total += r.count;
  hid_t space = H5Dget_space(ds);
  hid_t sel = select_runs(space, runs, 0, runs.size(), frame, width);
  hsize_t mcount[1] = {std::max<hsize_t>(1, total * hsize_t(width))};
  hid_t mem = H5Screate_simple(1, mcount, nullptr);
  if (total == 0) H5Sselect_none(mem);
  hid_t dxpl = collective_dxpl();
  h5check(H5Dwrite(ds, type, mem, sel, dxpl, rows), std::string("write ") + what);
  H5Pclose(dxpl);
  H5Sclose(mem);
  H5Sclose(sel);
  H5Sclose(space);
}

// Append frame `frame` to a series (collective: grows it to frame + 1 frames), this rank
// writing the rows of `runs`.
template <typename T>
void write_frame_runs(hid_t file, const char* path, hid_t type, int frame, const std::vector<RowRun>& runs, int width,
                      const T* rows) {
  set_frames(file, path, hsize_t(frame) + 1);
  hid_t ds = H5Dopen2(file, path, H5P_DEFAULT);
  write_runs(ds, type, frame, runs, width, rows, path);
  H5Dclose(ds);
}

// Append frame `frame` to an (F, M) or (F, M, 3) dataset (collective: grows it to frame + 1
// frames), this rank writing rows [begin, end): one run.
template <typename T>
void write_frame_rows(hid_t file, const char* path, hid_t type, int frame, int begin, int end, int width,
                      const T* rows) {
  std::vector<RowRun> one;
  if (end > begin) one.push_back({hsize_t(begin), hsize_t(end - begin)});
  write_frame_runs(file, path, type, frame, one, width, rows);
}

template <typename T>
void write_frame_rows(hid_t file, const char* path, hid_t type, int frame, int begin, int end, int width,
                      const std::vector<T>& rows) {
  write_frame_rows(file, path, type, frame, begin, end, width, rows.data());
}

// The dataset `name` of group g opened when it holds `length` values; a dataset of another
// length is deleted (a checkpoint array whose size changed): -1 then, as when there is none.
hid_t open_same_length(hid_t g, const char* name, hsize_t length) {
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0) return -1;
  hid_t ds = H5Dopen2(g, name, H5P_DEFAULT);
  hid_t space = H5Dget_space(ds);
  const bool same = H5Sget_simple_extent_npoints(space) == static_cast<hssize_t>(length);
  H5Sclose(space);
  if (same) return ds;
  H5Dclose(ds);
  H5Ldelete(g, name, H5P_DEFAULT);
  return -1;
}

// Runs of consecutive values in `ids` (ascending, distinct).
std::vector<RowRun> runs_of(const std::vector<int>& ids) {
  std::vector<RowRun> runs;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i + 1;
    while (j < ids.size() && ids[j] == ids[j - 1] + 1) ++j;
    runs.push_back({hsize_t(ids[i]), hsize_t(j - i)});
    i = j;
  }
  return runs;
}

// A Vec's array, read (RAII).
struct ReadArray {
  explicit ReadArray(Vec v) : v(v) { VecGetArrayRead(v, &a); }
  ~ReadArray() { VecRestoreArrayRead(v, &a); }
  ReadArray(const ReadArray&) = delete;
  ReadArray& operator=(const ReadArray&) = delete;
  Vec v;
  const PetscScalar* a = nullptr;
};

// Write rows [begin, end) of an (M, 3) dataset (per-frame datasets: write_frame_rows).
void write_rows(hid_t ds, int begin, int end, const double* rows) {
  hid_t space = H5Dget_space(ds);
  hsize_t start[2] = {hsize_t(begin), 0}, count[2] = {hsize_t(end - begin), 3};
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  hsize_t mcount[1] = {hsize_t(end - begin) * 3};
  hid_t mem = H5Screate_simple(1, mcount, nullptr);
  if (end == begin) {
    H5Sselect_none(space);
    H5Sselect_none(mem);
  }
  hid_t dxpl = collective_dxpl();
  h5check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space, dxpl, rows), "write rows");
  H5Pclose(dxpl);
  H5Sclose(mem);
  H5Sclose(space);
}

// The rows `input_ids` (any order, each once) of an (n x 3) dataset into rows[3 i + d]: one
// point selection over the rows asked for (sorted, so the file is read front to back).
void read_selected_rows(hid_t ds, const std::vector<int>& input_ids, std::vector<double>& rows) {
  const size_t n = input_ids.size();
  std::vector<int> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return input_ids[a] < input_ids[b]; });
  std::vector<hsize_t> coords(6 * n);
  for (size_t k = 0; k < n; ++k)
    for (int d = 0; d < 3; ++d) coords[6 * k + 2 * d] = hsize_t(input_ids[order[k]]), coords[6 * k + 2 * d + 1] = d;
  hid_t space = H5Dget_space(ds);
  hsize_t mcount[1] = {std::max<hsize_t>(1, 3 * n)};
  hid_t mem = H5Screate_simple(1, mcount, nullptr);
  if (n > 0) {
    H5Sselect_elements(space, H5S_SELECT_SET, 3 * n, coords.data());
  } else {
    H5Sselect_none(space);
    H5Sselect_none(mem);
  }
  std::vector<double> sorted(3 * n + 1);
  herr_t rc = H5Dread(ds, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, sorted.data());
  H5Sclose(mem);
  H5Sclose(space);
  if (rc < 0) throw InputError("cannot read checkpoint data");
  rows.resize(3 * n);
  for (size_t k = 0; k < n; ++k)
    for (int d = 0; d < 3; ++d) rows[3 * order[k] + d] = sorted[3 * k + d];
}

[[maybe_unused]] void read_rows(hid_t ds, int begin, int end, std::vector<double>& rows) {
  hid_t space = H5Dget_space(ds);
  hsize_t start[2] = {hsize_t(begin), 0}, count[2] = {hsize_t(end - begin), 3};
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  hsize_t mcount[1] = {count[0] * 3};
  hid_t mem = H5Screate_simple(1, mcount, nullptr);
  rows.resize(mcount[0]);
  herr_t rc = H5Dread(ds, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, rows.data());
  H5Sclose(mem);
  H5Sclose(space);
  if (rc < 0) throw InputError("cannot read checkpoint data");
}

// Rows of a /mesh dataset a rank fills and writes at a time.
constexpr size_t kMeshRows = size_t(1) << 16;

// The rod segments, particles or tets a rank leads (first vertex owned: every one by one
// rank), from its part of the scene: their case-order indices (ascending) and where they
// are in the scene's lists. /mesh's rows and a single-type object's /view cells of them
// are written by their leader.
enum class Primitive { point, segment, tet };
struct LedPrimitives {
  std::vector<int> index, at;
};
LedPrimitives led_primitives(const Scene& scene, const LocalView& lv, Primitive type) {
  const size_t held = type == Primitive::point ? scene.points.size()
                      : type == Primitive::segment ? scene.segments.size() : scene.tets.size();
  LedPrimitives led;
  for (size_t k = 0; k < held; ++k) {
    const int first = type == Primitive::point ? scene.points[k]
                      : type == Primitive::segment ? scene.segments[k][0] : scene.tets[k][0];
    if (first < lv.vbegin || first >= lv.vend) continue;
    led.index.push_back(type == Primitive::point ? scene.point_index(k)
                        : type == Primitive::segment ? scene.segment_index(k) : scene.tet_index(k));
    led.at.push_back(static_cast<int>(k));
  }
  return led;
}

// Rows [begin, end) of the open dataset `ds` (this rank's share; `fill(i, out)` gives row
// i's `per` values), filled and written kMeshRows rows at a time: every rank takes part in
// as many collective writes as the largest share needs, and none holds its whole share in
// file layout (at one rank a whole dataset was the /mesh phase's peak: 48 bytes a vertex).
template <typename T, typename Fill>
void write_share_rows(hid_t ds, const char* name, hid_t type, T zero, size_t begin, size_t end, int per,
                      MPI_Comm comm, Fill&& fill) {
  long long rounds = static_cast<long long>((end - begin + kMeshRows - 1) / kMeshRows);
  MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_LONG_LONG, MPI_MAX, comm);
  std::vector<T> a;
  for (long long r = 0; r < rounds; ++r) {
    const size_t rb = std::min(end, begin + static_cast<size_t>(r) * kMeshRows), re = std::min(end, rb + kMeshRows);
    a.assign((re - rb) * per, zero);
    for (size_t i = rb; i < re; ++i) fill(i, a.data() + (i - rb) * per);
    write_row_range(ds, name, type, a, rb, re);
  }
}

}  // namespace

ResultFile::ResultFile(const std::string& path, const Scene& scene, const LocalView& lv)
    : path_(path), scene_(scene), lv_(lv) {
  quiet_hdf5();
  const auto dir = std::filesystem::path(path).parent_path();
  if (lv.rank == 0 && !dir.empty()) std::filesystem::create_directories(dir);
  MPI_Barrier(lv.comm);
  hid_t fapl = mpi_fapl(lv.comm);
  file_ = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (file_ < 0) throw InputError(path + ": cannot create the output file");

  set_attr<int>(file_, "complete", H5T_NATIVE_INT, 0);
  set_attr_string(file_, "case", scene.spec.name);
  set_attr_string(file_, "method", scene.spec.method);
  set_attr_string(file_, "weft_version", WEFT_VERSION);
  set_attr<int>(file_, "ranks", H5T_NATIVE_INT, lv.ranks);
  set_attr<double>(file_, "dt", H5T_NATIVE_DOUBLE, scene.spec.dt);

  const int n = scene.num_vertices;
  const size_t T = scene.triangles.size();
  // Every rank writes an even share of each /mesh dataset's rows (write_split), filling
  // just those rows before the dataset and freeing them right after: no rank holds a whole
  // dataset in file layout (rank 0 wrote them all before: ~100 bytes per vertex on it).
  hid_t mesh = H5Gcreate2(file_, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  // Per vertex (input order) or per element: `fill(i)` gives entry i's `per` values, each
  // rank writing its even share (write_share_rows).
  // A (count) or (count, per) dataset of /mesh, created unfilled (every row is written).
  auto create_mesh_dataset = [&](const char* name, hid_t type, size_t count, int per) {
    std::vector<hsize_t> dims{hsize_t(count)};
    if (per > 1) dims.push_back(hsize_t(per));
    hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    hid_t dcpl = unfilled_dcpl();
    hid_t ds = h5check_id(H5Dcreate2(mesh, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
    H5Pclose(dcpl);
    H5Sclose(space);
    return ds;
  };
  auto write_mesh = [&](const char* name, hid_t type, auto zero, size_t count, int per, auto&& fill) {
    const auto [b, e] = even_share(static_cast<long long>(count), lv.rank, lv.ranks);
    const size_t begin = b, end = e;
    hid_t ds = create_mesh_dataset(name, type, count, per);
    if (count > 0) write_share_rows(ds, name, type, zero, begin, end, per, lv.comm, fill);  // (none in an empty one)
    H5Dclose(ds);
  };
  // The rest positions: each rank's owned rows, as the frames' positions (below, once the
  // rows' layout is known): a rank on several holds only its part of them (Scene::vertex_part).
  H5Dclose(create_mesh_dataset("rest_positions", H5T_NATIVE_DOUBLE, static_cast<size_t>(n), 3));
  write_mesh("object_id", H5T_NATIVE_INT, 0, n, 1,
             [&](size_t i, int* o) { *o = scene.vertex_object[scene.solver_of_input[i]]; });
  write_mesh("partition", H5T_NATIVE_INT, 0, n, 1,
             [&](size_t i, int* o) { *o = scene.partition_of(scene.solver_of_input[i]); });
  // Per element: rows `ids` (ascending; every row is one rank's) of a (count, per) dataset,
  // fill(j, out) giving row ids[j], kMeshRows rows a round: each rank writes the rows of the
  // elements it leads where they are in the file, from its part of the scene (issue 20 point 3).
  auto write_rows = [&](const char* name, hid_t type, auto zero, size_t count, int per, const std::vector<int>& mine,
                        auto&& fill) {
    hid_t ds = create_mesh_dataset(name, type, count, per);
    if (count > 0) {
      long long rounds = static_cast<long long>((mine.size() + kMeshRows - 1) / kMeshRows);
      MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_LONG_LONG, MPI_MAX, lv.comm);
      std::vector<decltype(zero)> a;
      std::vector<int> ids;
      for (long long r = 0; r < rounds; ++r) {
        const size_t k0 = std::min(mine.size(), static_cast<size_t>(r) * kMeshRows);
        const size_t k1 = std::min(mine.size(), k0 + kMeshRows);
        ids.assign(mine.begin() + k0, mine.begin() + k1);
        a.assign((k1 - k0) * per, zero);
        for (size_t k = k0; k < k1; ++k) fill(k, a.data() + (k - k0) * per);
        write_runs(ds, type, -1, runs_of(ids), per, a.data(), name);
      }
    }
    H5Dclose(ds);
  };
  // Per triangle: its local triangles (LocalView::triangles, those whose first vertex it owns).
  auto write_triangle_rows = [&](const char* name, hid_t type, auto zero, int per, auto&& fill) {
    write_rows(name, type, zero, T, per, lv.triangles,
               [&](size_t j, decltype(zero)* o) { fill(static_cast<size_t>(lv.triangles[j]), o); });
  };
  write_triangle_rows("triangles", H5T_NATIVE_LLONG, 0LL, 3, [&](size_t t, long long* o) {
    for (int a = 0; a < 3; ++a) o[a] = scene.input_of_solver[scene.triangles[t][a]];
  });
  auto tri_param = [&](size_t t) -> const ObjectParams& { return scene.objects[scene.triangle_object[t]]; };
  write_triangle_rows("triangle_offset", H5T_NATIVE_DOUBLE, 0.0, 1,
                      [&](size_t t, double* o) { *o = tri_param(t).offset; });
  write_triangle_rows("strain_limit", H5T_NATIVE_DOUBLE, 0.0, 1, [&](size_t t, double* o) {
    *o = tri_param(t).kind == ObjectKind::Shell ? tri_param(t).strain_limit : 0.0;
  });
  // Orthotropic shells (issue 19): rest-frame warp direction and the stretch-ratio limits
  // along warp and weft per triangle (zeros elsewhere / where no such limit).
  write_triangle_rows("warp_direction", H5T_NATIVE_DOUBLE, 0.0, 3, [&](size_t t, double* o) {
    for (int a = 0; a < 3; ++a) o[a] = scene.warp_of(t)[a];
  });
  write_triangle_rows("strain_limit_warp", H5T_NATIVE_DOUBLE, 0.0, 1, [&](size_t t, double* o) {
    *o = scene.warp_of(t).squaredNorm() > 0 ? tri_param(t).limit_warp : 0.0;
  });
  write_triangle_rows("strain_limit_weft", H5T_NATIVE_DOUBLE, 0.0, 1, [&](size_t t, double* o) {
    *o = scene.warp_of(t).squaredNorm() > 0 ? tri_param(t).limit_weft : 0.0;
  });
  // Stitch pairs (issue 19 point 3), case order, input vertex ids: welded pairs are one
  // vertex written twice at the same position; /frames/stats/welded counts them per frame.
  write_mesh("stitches", H5T_NATIVE_LLONG, 0LL, scene.stitches_input.size(), 2, [&](size_t k, long long* o) {
    for (int a = 0; a < 2; ++a) o[a] = scene.stitches_input[k][a];
  });
  // Rod segments and particles, case order, input vertex ids (empty datasets without them);
  // volume elements (positively oriented at rest). Each rank writes the rows of those it
  // leads, from its part.
  {
    const LedPrimitives seg = led_primitives(scene, lv, Primitive::segment);
    write_rows("segments", H5T_NATIVE_LLONG, 0LL, scene.num_segments(), 2, seg.index, [&](size_t j, long long* o) {
      for (int a = 0; a < 2; ++a) o[a] = scene.input_of_solver[scene.segments[seg.at[j]][a]];
    });
    write_rows("segment_offset", H5T_NATIVE_DOUBLE, 0.0, scene.num_segments(), 1, seg.index,
               [&](size_t j, double* o) { *o = scene.objects[scene.segment_object[seg.index[j]]].offset; });
  }
  {
    const LedPrimitives pts = led_primitives(scene, lv, Primitive::point);
    write_rows("points", H5T_NATIVE_LLONG, 0LL, scene.num_points(), 1, pts.index,
               [&](size_t j, long long* o) { *o = scene.input_of_solver[scene.points[pts.at[j]]]; });
    write_rows("point_offset", H5T_NATIVE_DOUBLE, 0.0, scene.num_points(), 1, pts.index,
               [&](size_t j, double* o) { *o = scene.objects[scene.point_object[pts.index[j]]].offset; });
  }
  {
    const LedPrimitives tets = led_primitives(scene, lv, Primitive::tet);
    write_rows("tets", H5T_NATIVE_LLONG, 0LL, scene.num_tets(), 4, tets.index, [&](size_t j, long long* o) {
      for (int a = 0; a < 4; ++a) o[a] = scene.input_of_solver[scene.tets[tets.at[j]][a]];
    });
  }
  // Object names and kinds, one per line in case order (object_id indexes them).
  std::string names, kinds;
  for (size_t o = 0; o < scene.objects.size(); ++o) {
    names += (o ? "\n" : "") + scene.objects[o].name;
    kinds += (o ? "\n" : "") + std::string(to_string(scene.objects[o].kind));
  }
  set_attr_string(mesh, "object_names", names);
  set_attr_string(mesh, "object_kinds", kinds);
  H5Gclose(mesh);

  hid_t frames = H5Gcreate2(file_, "frames", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[3] = {0, hsize_t(n), 3}, maxd[3] = {H5S_UNLIMITED, hsize_t(n), 3};
  hsize_t chunk[3] = {1, hsize_t(std::max(n, 1)), 3};  // one frame per chunk
  hid_t space = H5Screate_simple(3, dims, maxd);
  hid_t dcpl = unfilled_dcpl();
  H5Pset_chunk(dcpl, 3, chunk);
  hid_t ds = H5Dcreate2(frames, "positions", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  h5check_id(ds, "create /frames/positions");
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Dclose(open_or_create_series(frames, "time"));
  for (const std::string& f : scene.spec.output_fields) {
    if (f == "velocities") {
      create_frame_series(frames, "velocities", H5T_NATIVE_FLOAT, {hsize_t(n), 3});
      velocities_ = true;
    } else if (f == "strain_ratio" && T > 0) {
      create_frame_series(frames, "strain_ratio", H5T_NATIVE_FLOAT, {hsize_t(T)});
      strain_ratio_ = true;
    }
  }
  // Tearing (spares allocated): each frame's triangle corners, input ids; /mesh/triangles
  // stays the frame-0 topology.
  for (const ObjectParams& op : scene.objects) torn_ = torn_ || op.spare_count > 0;
  if (torn_ && T > 0) create_frame_series(frames, "triangles", H5T_NATIVE_LLONG, {hsize_t(T), 3});
  torn_ = torn_ && T > 0;
  hid_t stats = H5Gcreate2(frames, "stats", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(stats);
  H5Gclose(frames);
  write_view();
  open_scatter();
  write_rest_positions();
}

// /mesh/rest_positions from the rows this rank holds: its owned vertices' where they are in
// the file (by input id), or its natural block where that is its owned block or the scene
// is held whole (one rank, tearing), read from the scene kMeshRows rows at a time.
void ResultFile::write_rest_positions() {
  hid_t ds = H5Dopen2(file_, "/mesh/rest_positions", H5P_DEFAULT);
  if (by_input_) {
    write_owned_rows([&](int l) { return scene_.rest[lv_.vbegin + l].data(); }, H5T_NATIVE_DOUBLE,
                     "/mesh/rest_positions", -1, ds);
  } else {
    write_share_rows(ds, "rest_positions", H5T_NATIVE_DOUBLE, 0.0, static_cast<size_t>(nat_begin_),
                     static_cast<size_t>(nat_end_), 3, lv_.comm, [&](size_t i, double* o) {
                       for (int d = 0; d < 3; ++d) o[d] = scene_.rest[scene_.solver_of_input[i]][d];
                     });
  }
  H5Dclose(ds);
}

ResultFile::ResultFile(const std::string& path, const Scene& scene, const LocalView& lv, int keep_frames)
    : path_(path), scene_(scene), lv_(lv) {
  quiet_hdf5();
  hid_t fapl = mpi_fapl(lv.comm);
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  if (file_ < 0) throw InputError(path + ": cannot open the result file to continue it");
  set_attr<int>(file_, "complete", H5T_NATIVE_INT, 0);
  H5Fflush(file_, H5F_SCOPE_GLOBAL);
  // Drop every frame after the checkpoint, in every per-frame dataset. The file decides
  // which optional fields it carries, so the continued file has the same layout.
  velocities_ = H5Lexists(file_, "/frames/velocities", H5P_DEFAULT) > 0;
  strain_ratio_ = H5Lexists(file_, "/frames/strain_ratio", H5P_DEFAULT) > 0;
  torn_ = H5Lexists(file_, "/frames/triangles", H5P_DEFAULT) > 0;
  set_frames(file_, "/frames/positions", keep_frames);
  if (torn_) set_frames(file_, "/frames/triangles", keep_frames);
  set_frames(file_, "/frames/time", keep_frames);
  if (velocities_) set_frames(file_, "/frames/velocities", keep_frames);
  if (strain_ratio_) set_frames(file_, "/frames/strain_ratio", keep_frames);
  for (const std::string& name : stat_names(file_)) set_frames(file_, ("/frames/stats/" + name).c_str(), keep_frames);
  frames_ = keep_frames;
  open_scatter();
}

ResultFile::~ResultFile() {
  VecScatterDestroy(&scatter_);
  VecDestroy(&natural_);
  if (file_ >= 0) H5Fclose(file_);
}

void ResultFile::open_scatter() {
  // Natural layout: input ids split evenly over ranks.
  const int n = scene_.num_vertices;
  const auto [nb, ne] = even_share(n, lv_.rank, lv_.ranks);
  nat_begin_ = static_cast<int>(nb), nat_end_ = static_cast<int>(ne);
  // Where every rank's natural block is its owned block in the same order (one rank: the
  // solver order is the input order), a Vec's own array is its natural block.
  int same = nat_begin_ == lv_.vbegin && nat_end_ == lv_.vend;
  for (int i = nat_begin_; same && i < nat_end_; ++i) same = scene_.solver_of_input[i] == i;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, lv_.comm);
  identity_ = same != 0;
  if (!identity_ && !torn_) {
    // Each rank writes its owned rows where they are in the file (runs of consecutive input
    // ids): no natural-order Vec, no scatter and its index arrays and buffers (~50 bytes a
    // vertex at more ranks than one, issue 20).
    by_input_ = true;
    input_order_.resize(lv_.num_owned());
    for (int l = 0; l < lv_.num_owned(); ++l) input_order_[l] = l;
    std::sort(input_order_.begin(), input_order_.end(),
              [&](int a, int b) { return scene_.input_of(lv_.vbegin + a) < scene_.input_of(lv_.vbegin + b); });
    std::vector<int> ids(input_order_.size());
    for (size_t k = 0; k < ids.size(); ++k) ids[k] = scene_.input_of(lv_.vbegin + input_order_[k]);
    input_runs_ = runs_of(ids);
  } else if (!identity_) {
    // Tearing: the torn strain ratios read the whole positions from the natural blocks.
    IS is_from, is_to;
    VecCreateMPI(lv_.comm, 3 * (nat_end_ - nat_begin_), 3 * n, &natural_);
    VecSetBlockSize(natural_, 3);
    std::vector<PetscInt> from(nat_end_ - nat_begin_);
    for (int i = nat_begin_; i < nat_end_; ++i) from[i - nat_begin_] = scene_.solver_of_input[i];
    ISCreateBlock(lv_.comm, 3, static_cast<PetscInt>(from.size()), from.data(), PETSC_COPY_VALUES, &is_from);
    ISCreateStride(lv_.comm, 3 * (nat_end_ - nat_begin_), 3 * nat_begin_, 1, &is_to);
    Vec layout;  // same parallel layout as the solver's global Vecs
    VecCreateMPI(lv_.comm, 3 * lv_.num_owned(), 3 * n, &layout);
    VecScatterCreate(layout, is_from, natural_, is_to, &scatter_);
    VecDestroy(&layout);
    ISDestroy(&is_from);
    ISDestroy(&is_to);
  }
  // Triangles: an even split in case order.
  const int T = static_cast<int>(scene_.triangles.size()), nloc = static_cast<int>(lv_.triangles.size());
  const auto [tb, te] = even_share(static_cast<long long>(T), lv_.rank, lv_.ranks);
  tri_begin_ = static_cast<int>(tb), tri_end_ = static_cast<int>(te);
  if (!strain_ratio_ || torn_) return;  // torn: computed from the whole positions (torn_strain_ratios)
  // Where each rank's local triangles are its natural block in order (one rank), the ratios
  // are computed straight into it; else each rank writes its local triangles' rows.
  int tri_same = nloc == tri_end_ - tri_begin_;
  for (int k = 0; tri_same && k < nloc; ++k) tri_same = lv_.triangles[k] == tri_begin_ + k;
  MPI_Allreduce(MPI_IN_PLACE, &tri_same, 1, MPI_INT, MPI_MIN, lv_.comm);
  tri_identity_ = tri_same != 0;
  if (!tri_identity_) tri_runs_ = runs_of(lv_.triangles);
}

void ResultFile::strain_ratios(Vec x, std::vector<float>& out) {
  // Ghost values as the owners hold them, whatever the stepper left in the ghost slots.
  VecGhostUpdateBegin(x, INSERT_VALUES, SCATTER_FORWARD);
  VecGhostUpdateEnd(x, INSERT_VALUES, SCATTER_FORWARD);
  Vec xl;
  const PetscScalar* a;
  VecGhostGetLocalForm(x, &xl);
  VecGetArrayRead(xl, &a);
  out.resize(lv_.triangles.size());
  for (size_t k = 0; k < lv_.triangles.size(); ++k) {
    const int t = lv_.triangles[k];
    const Tri& tl = lv_.triangle_local[k];
    Vec9 xt;
    for (int i = 0; i < 3; ++i)
      for (int d = 0; d < 3; ++d) xt[3 * i + d] = a[3 * tl[i] + d];
    out[k] = static_cast<float>(strain_ratio(t, xt));
  }
  VecRestoreArrayRead(xl, &a);
  VecGhostRestoreLocalForm(x, &xl);
}

// Tearing: the triangles' corners change, so LocalView's local triangles are stale. Each
// rank gathers the whole positions (input order) and evaluates its natural block of
// triangles with their current corners; the rest shape of triangle t is the frame-0 one (a
// spare replaces a vertex with the same rest position).
void ResultFile::torn_strain_ratios(const double* natural, const std::vector<Tri>& tris,
                                    std::vector<float>& out) {
  const int n = scene_.num_vertices;
  std::vector<int> counts(lv_.ranks), displs(lv_.ranks);
  for (int r = 0; r < lv_.ranks; ++r) {
    const int b = static_cast<int>((long long)n * r / lv_.ranks), e = static_cast<int>((long long)n * (r + 1) / lv_.ranks);
    counts[r] = 3 * (e - b), displs[r] = 3 * b;
  }
  std::vector<double> all(3 * static_cast<size_t>(n));
  MPI_Allgatherv(natural, 3 * (nat_end_ - nat_begin_), MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                 MPI_DOUBLE, lv_.comm);
  out.resize(tri_end_ - tri_begin_);
  for (int t = tri_begin_; t < tri_end_; ++t) {
    Vec9 xt;
    for (int i = 0; i < 3; ++i)
      for (int d = 0; d < 3; ++d) xt[3 * i + d] = all[3 * static_cast<size_t>(scene_.input_of(tris[t][i])) + d];
    out[t - tri_begin_] = static_cast<float>(strain_ratio(t, xt));
  }
}

// Triangle t's stretch over its limit at corners xt (1 = at the limit; no limit: the
// largest singular value itself). Orthotropic: the larger of the stretch along warp / its
// limit and along weft / its limit. The rest shape is frame 0's (after a tear too).
double ResultFile::strain_ratio(int t, const Vec9& xt) const {
  const ObjectParams& op = scene_.objects[scene_.triangle_object[t]];
  const Vec3 warp = scene_.warp_of(t);
  if (warp.squaredNorm() > 0 && (op.limit_warp > 0 || op.limit_weft > 0)) {
    const Tri& tg = scene_.triangles[t];
    const Vec2 s =
        warp_weft_stretch(xt, make_aligned_tri_rest(scene_.rest[tg[0]], scene_.rest[tg[1]], scene_.rest[tg[2]], warp));
    return std::max(op.limit_warp > 0 ? s[0] / op.limit_warp : 0.0, op.limit_weft > 0 ? s[1] / op.limit_weft : 0.0);
  }
  const double limit = op.strain_limit;
  return max_singular_value(xt, scene_.triangle_rest(t)) / (limit > 0 ? limit : 1.0);
}

Vec ResultFile::natural_of(Vec x) {
  if (identity_) return x;
  VecScatterBegin(scatter_, x, natural_, INSERT_VALUES, SCATTER_FORWARD);
  VecScatterEnd(scatter_, x, natural_, INSERT_VALUES, SCATTER_FORWARD);
  return natural_;
}

void ResultFile::write_vertex_rows(Vec x, hid_t type, const char* path, int frame, hid_t ds) {
  // Single precision: velocities, a field to colour by (a series, frame >= 0).
  const bool single = H5Tequal(type, H5T_NATIVE_FLOAT) > 0;
  if (!by_input_) {  // this rank's natural block
    ReadArray rows(natural_of(x));
    if (single)
      write_frame_rows(file_, path, type, frame, nat_begin_, nat_end_, 3,
                       std::vector<float>(rows.a, rows.a + 3 * (nat_end_ - nat_begin_)));
    else if (frame >= 0)
      write_frame_rows(file_, path, type, frame, nat_begin_, nat_end_, 3, rows.a);
    else
      write_rows(ds, nat_begin_, nat_end_, rows.a);
    return;
  }
  ReadArray owned(x);
  write_owned_rows([&](int l) { return owned.a + 3 * static_cast<size_t>(l); }, type, path, frame, ds);
}

void ResultFile::write_owned_rows(const std::function<const double*(int)>& row, hid_t type, const char* path,
                                  int frame, hid_t ds) {
  const bool single = H5Tequal(type, H5T_NATIVE_FLOAT) > 0;
  // This rank's owned rows in input order, written where they are in the file, packed and
  // written kRoundRows at a time (one collective write a round, as many rounds as the largest
  // owned block needs): a packed copy of the whole block was frame 0's largest transient at
  // more ranks than one (24 bytes an owned vertex).
  constexpr size_t kRoundRows = size_t(1) << 18;
  const size_t n = input_order_.size();
  long long rounds = static_cast<long long>((n + kRoundRows - 1) / kRoundRows);
  MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_LONG_LONG, MPI_MAX, lv_.comm);
  if (frame >= 0) set_frames(file_, path, hsize_t(frame) + 1);
  hid_t d = frame >= 0 ? H5Dopen2(file_, path, H5P_DEFAULT) : ds;
  std::vector<RowRun> part;
  size_t run = 0;
  hsize_t used = 0;  // rows of input_runs_[run] written in earlier rounds
  auto write = [&](auto* buffer) {
    for (long long r = 0; r < rounds; ++r) {
      const size_t k0 = std::min(n, static_cast<size_t>(r) * kRoundRows), k1 = std::min(n, k0 + kRoundRows);
      part.clear();
      for (hsize_t need = k1 - k0; need > 0;) {
        const hsize_t take = std::min(need, input_runs_[run].count - used);
        part.push_back({input_runs_[run].first + used, take});
        used += take, need -= take;
        if (used == input_runs_[run].count) ++run, used = 0;
      }
      for (size_t k = k0; k < k1; ++k) {
        const double* v = row(input_order_[k]);
        for (int c = 0; c < 3; ++c) buffer[3 * (k - k0) + c] = v[c];
      }
      write_runs(d, type, frame, part, 3, buffer, path);
    }
  };
  if (single) {
    std::vector<float> rows(3 * std::min(n, kRoundRows));
    write(rows.data());
  } else {
    std::vector<double> rows(3 * std::min(n, kRoundRows));
    write(rows.data());
  }
  if (frame >= 0) H5Dclose(d);
}

void ResultFile::write_frame(double time, Vec x, Vec v, const NamedValues& stats, const std::vector<Tri>* triangles) {
  if (!torn_) {
    write_vertex_rows(x, H5T_NATIVE_DOUBLE, "/frames/positions", frames_, -1);
  } else {  // (this rank's natural block of x: positions, and a torn cloth's strain ratios)
    // (a torn mesh's triangles are the stepper's; a method that tears reads the whole scene)
    const std::vector<Tri>& tris = triangles ? *triangles : scene_.triangles.whole();
    ReadArray rows(natural_of(x));
    write_frame_rows(file_, "/frames/positions", H5T_NATIVE_DOUBLE, frames_, nat_begin_, nat_end_, 3, rows.a);
    {
      std::vector<long long> corners;
      for (int t = tri_begin_; t < tri_end_; ++t)
        for (int v : tris[t]) corners.push_back(scene_.input_of(v));
      write_frame_rows(file_, "/frames/triangles", H5T_NATIVE_LLONG, frames_, tri_begin_, tri_end_, 3, corners);
    }
    if (strain_ratio_ && torn_) {
      std::vector<float> ratio;
      torn_strain_ratios(rows.a, tris, ratio);
      write_frame_rows(file_, "/frames/strain_ratio", H5T_NATIVE_FLOAT, frames_, tri_begin_, tri_end_, 1, ratio);
    }
  }
  if (velocities_) write_vertex_rows(v, H5T_NATIVE_FLOAT, "/frames/velocities", frames_, -1);
  if (strain_ratio_ && !torn_) {
    std::vector<float> ratio;
    strain_ratios(x, ratio);
    if (tri_identity_)
      write_frame_rows(file_, "/frames/strain_ratio", H5T_NATIVE_FLOAT, frames_, tri_begin_, tri_end_, 1, ratio);
    else
      write_frame_runs(file_, "/frames/strain_ratio", H5T_NATIVE_FLOAT, frames_, tri_runs_, 1, ratio.data());
  }
  hid_t ts = H5Dopen2(file_, "/frames/time", H5P_DEFAULT);
  append_scalar(ts, frames_, time, lv_.rank);
  H5Dclose(ts);
  hid_t sg = H5Gopen2(file_, "/frames/stats", H5P_DEFAULT);
  for (const auto& [name, value] : stats) {
    hid_t s = open_or_create_series(sg, name);
    // A figure first reported at a later frame is back-filled with NaN.
    hid_t space = H5Dget_space(s);
    hsize_t have = 0;
    H5Sget_simple_extent_dims(space, &have, nullptr);
    H5Sclose(space);
    for (hsize_t f = have; f < hsize_t(frames_); ++f) append_scalar(s, static_cast<int>(f), NAN, lv_.rank);
    append_scalar(s, frames_, value, lv_.rank);
    H5Dclose(s);
  }
  H5Gclose(sg);
  const std::int64_t n = scene_.num_vertices, T = static_cast<std::int64_t>(scene_.triangles.size());
  bytes_ += 24 * n + (velocities_ ? 12 * n : 0) + (strain_ratio_ ? 4 * T : 0) + (torn_ ? 24 * T : 0) +
            8 * (1 + std::int64_t(stats.size()));
  ++frames_;
  set_attr<int>(file_, "frames_written", H5T_NATIVE_INT, frames_);
  H5Fflush(file_, H5F_SCOPE_GLOBAL);
}

void ResultFile::write_checkpoint(int frame, double time, Vec x, Vec v, const NamedArrays& arrays) {
  const int n = scene_.num_vertices;
  hid_t cp = H5Lexists(file_, "checkpoint", H5P_DEFAULT) > 0
                 ? H5Gopen2(file_, "checkpoint", H5P_DEFAULT)
                 : H5Gcreate2(file_, "checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  // Invalidate first: a crash in the middle leaves frame = -1, never a mixed checkpoint.
  set_attr<int>(cp, "frame", H5T_NATIVE_INT, -1);
  for (const char* name : {"x", "v"}) {
    hid_t ds;
    if (H5Lexists(cp, name, H5P_DEFAULT) > 0) {
      ds = H5Dopen2(cp, name, H5P_DEFAULT);
    } else {
      hsize_t dims[2] = {hsize_t(n), 3};
      hid_t space = H5Screate_simple(2, dims, nullptr);
      hid_t dcpl = unfilled_dcpl();
      ds = H5Dcreate2(cp, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      H5Pclose(dcpl);
      H5Sclose(space);
    }
    write_vertex_rows(std::string(name) == "x" ? x : v, H5T_NATIVE_DOUBLE, name, -1, ds);
    H5Dclose(ds);
  }
  // The stepper's arrays, in place when the dataset of the last checkpoint has the same
  // size: a whole array (on every rank) is written by rank 0, a distributed one in even
  // shares (gather_even_share).
  hid_t ag = H5Lexists(cp, "arrays", H5P_DEFAULT) > 0 ? H5Gopen2(cp, "arrays", H5P_DEFAULT)
                                                      : H5Gcreate2(cp, "arrays", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5check_id(ag, "/checkpoint/arrays");
  for (const NamedArray& a : arrays) {
    const char* name = a.name.c_str();
    // A distributed array whose entries the ranks hold between them, each once (an energy
    // term's per-stencil values: each stencil lives on one rank): every rank writes its
    // entries at their rows (runs of consecutive indices), no even-share copy.
    long long held = a.distributed() ? static_cast<long long>(a.index.size()) : 0;
    if (a.distributed()) MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_LONG_LONG, MPI_SUM, lv_.comm);
    if (a.distributed() && held == a.whole && a.whole > 0) {
      // The packed values go to the selected rows in file order: the ids must ascend
      // strictly (each held once, one value each) on every rank, else the even-share path.
      int ascending = a.values.size() == a.index.size() &&
                      std::adjacent_find(a.index.begin(), a.index.end(), std::greater_equal<int>()) == a.index.end();
      MPI_Allreduce(MPI_IN_PLACE, &ascending, 1, MPI_INT, MPI_MIN, lv_.comm);
      if (ascending) {
        const std::vector<RowRun> runs = runs_of(a.index);
        const hsize_t length = hsize_t(a.whole);
        hid_t ds = open_same_length(ag, name, length);
        if (ds < 0) {
          hid_t space = H5Screate_simple(1, &length, nullptr);
          hid_t dcpl = unfilled_dcpl();
          ds = h5check_id(H5Dcreate2(ag, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
          H5Pclose(dcpl);
          H5Sclose(space);
        }
        write_runs(ds, H5T_NATIVE_DOUBLE, -1, runs, 1, a.values.data(), name);
        H5Dclose(ds);
        continue;
      }
    }
    // This rank's rows: a distributed array's even share, a whole one's all on rank 0.
    long long begin = 0;
    const std::vector<double> share =
        a.distributed() ? gather_even_share(a.index, a.values, a.whole, lv_.comm, &begin) : std::vector<double>();
    const std::vector<double>& rows = a.distributed() ? share : a.values;
    const hsize_t length = hsize_t(a.length());
    const hsize_t first = hsize_t(begin), last = a.distributed() ? first + rows.size() : (lv_.rank == 0 ? length : 0);
    if (hid_t ds = open_same_length(ag, name, length); ds >= 0) {
      if (length > 0) write_row_range(ds, name, H5T_NATIVE_DOUBLE, rows, first, last);
      H5Dclose(ds);
      continue;
    }
    write_split(ag, name, H5T_NATIVE_DOUBLE, rows, {length}, first, last);
  }
  H5Gclose(ag);
  bytes_ += 48 * std::int64_t(n);
  for (const NamedArray& a : arrays) bytes_ += 8 * std::int64_t(a.length());
  set_attr<double>(cp, "time", H5T_NATIVE_DOUBLE, time);
  set_attr<int>(cp, "frame", H5T_NATIVE_INT, frame);
  H5Gclose(cp);
  H5Fflush(file_, H5F_SCOPE_GLOBAL);
}

void ResultFile::finish() {
  set_attr<int>(file_, "complete", H5T_NATIVE_INT, 1);
  H5Fflush(file_, H5F_SCOPE_GLOBAL);
  if (lv_.rank == 0) write_xdmf();
}

namespace {

std::string xml_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// The part of one object's /view topology a rank writes: entries [begin, end) of the flat
// array, and their values.
struct TopologyShare {
  long long begin = 0, end = 0;
  std::vector<long long> values;
};

// Per object, how many entries of `objects` (one per primitive, case order) it has.
std::vector<long long> per_object(const RunInts& objects, size_t O) {
  std::vector<long long> n(O, 0);
  objects.for_each_run([&](int, int count, int o) { n[static_cast<size_t>(o)] += count; });
  return n;
}

// Per object, the index of its first entry in `objects` (-1: none).
std::vector<long long> first_per_object(const RunInts& objects, size_t O) {
  std::vector<long long> first(O, -1);
  objects.for_each_run([&](int start, int, int o) {
    if (first[static_cast<size_t>(o)] < 0) first[static_cast<size_t>(o)] = start;
  });
  return first;
}

// One complete XdmfBlock per object (name, kind, vertex range, cell type and counts, view
// group, first triangle). Objects are concatenated in case order, so an object's vertices
// are one range of input ids.
std::vector<XdmfBlock> object_blocks(const Scene& scene) {
  const size_t O = scene.objects.size();
  std::vector<long long> first(O, -1), count(O, 0), first_tri(O, -1);
  for (int i = 0; i < scene.num_vertices; ++i) {
    const int o = scene.vertex_object[scene.solver_of_input[i]];
    if (first[o] < 0) first[o] = i;
    if (first[o] + count[o] != i)  // OUT.xdmf names each object's rows as one range
      throw RuntimeFailure("object '" + scene.objects[o].name + "' has no contiguous range of input vertices");
    ++count[o];
  }
  // A volume shows its tets only: its triangles are their boundary faces, which ParaView
  // draws from the tets anyway (the cell count is the tet count).
  std::vector<long long> P = per_object(scene.point_object, O), S = per_object(scene.segment_object, O),
                         T(O, 0), K = per_object(scene.tet_object, O);
  for (size_t t = 0; t < scene.triangles.size(); ++t) {
    const int o = scene.triangle_object[t];
    if (K[o] > 0) continue;
    if (first_tri[o] < 0) first_tri[o] = static_cast<long long>(t);
    ++T[o];
  }
  std::vector<XdmfBlock> blocks(O);
  for (size_t o = 0; o < O; ++o) {
    XdmfBlock& b = blocks[o];
    b.name = xml_escaped(scene.objects[o].name);
    b.kind = to_string(scene.objects[o].kind);
    b.first_vertex = std::max(first[o], 0LL);
    b.num_vertices = count[o];
    xdmf_shape(P[o], S[o], T[o], K[o], b);
    b.view_group = "/view/object" + std::to_string(o);
    if (b.cell == XdmfCell::Triangle) b.first_triangle = first_tri[o];
    // A tearing object's corners change per frame (/frames/triangles, global input ids).
    b.frame_topology = scene.objects[o].spare_count > 0 && b.cell == XdmfCell::Triangle && b.first_triangle >= 0;
  }
  return blocks;
}

// This rank's share of the topologies not written from each rank's own elements
// (write_view): an object without primitives (its vertices as points) split evenly by cells
// over the ranks (each rank fills only its rows), and a mixed one (an object with several
// primitive types: variable-length cells), which rank 0 writes from `mixed` (gathered from
// every rank's elements by write_view: object -> its cells in case order, input ids).
// With a window, only cells [win_first, win_first + win_cells) of this rank's even share of
// each object without primitives (and a mixed object's cells only in the window at 0).
// O(objects + the cells filled): called once per round of write_view's collective writes.
std::vector<TopologyShare> topology_shares(const std::vector<XdmfBlock>& blocks, int rank, int ranks,
                                           long long win_first, long long win_cells,
                                           std::vector<ObjectCells>& mixed) {
  std::vector<TopologyShare> shares(blocks.size());
  for (size_t o = 0; o < blocks.size(); ++o) {
    const XdmfBlock& b = blocks[o];
    TopologyShare& sh = shares[o];
    if (b.cell == XdmfCell::Mixed) {
      if (rank == 0 && win_first == 0) {
        sh.end = b.topology_size;
        XdmfBlock copy = b;
        sh.values = xdmf_topology(mixed[o], b.first_vertex, copy);
        mixed[o] = ObjectCells{};
      }
      continue;
    }
    if (!b.vertices_as_points) continue;  // (from each rank's own elements: write_view)
    auto [cell_begin, cell_end] = even_share(b.num_cells, rank, ranks);
    cell_begin = std::min(cell_end, cell_begin + win_first);
    cell_end = std::min(cell_end, cell_begin + std::min(win_cells, cell_end - cell_begin));
    sh.begin = cell_begin * b.nodes_per_cell;
    sh.end = cell_end * b.nodes_per_cell;
    for (long long v = cell_begin; v < cell_end; ++v) sh.values.push_back(v);
  }
  return shares;
}

}  // namespace

void ResultFile::write_view() {
  // Every rank writes its share of each object's topology and per-cell object ids, kViewCells
  // cells of each object at a time (a window of its share, topology_shares), in as many
  // collective rounds as the largest share needs: at one rank a whole topology was the /view
  // phase's peak (a cloth's: 48 bytes a vertex).
  constexpr long long kViewCells = 1LL << 18;
  blocks_ = object_blocks(scene_);
  const std::vector<XdmfBlock>& blocks = blocks_;
  const size_t O = blocks.size();
  hid_t view = H5Gcreate2(file_, "view", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  set_attr_string(view, "about", "per-object connectivity (object-local vertex ids) read by the .xdmf beside this file");
  std::vector<hid_t> groups(O), topology(O), object_id(O);
  long long rounds = 1;
  for (size_t o = 0; o < O; ++o) {
    const XdmfBlock& b = blocks[o];
    groups[o] = H5Gcreate2(view, ("object" + std::to_string(o)).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    auto create = [&](const char* name, hid_t type, long long size) {
      const hsize_t dims[1] = {hsize_t(size)};
      hid_t space = H5Screate_simple(1, dims, nullptr);
      hid_t dcpl = unfilled_dcpl();
      hid_t ds = h5check_id(H5Dcreate2(groups[o], name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), name);
      H5Pclose(dcpl);
      H5Sclose(space);
      return ds;
    };
    topology[o] = create("topology", H5T_NATIVE_LLONG, b.topology_size);
    object_id[o] = create("object_id", H5T_NATIVE_INT, b.num_cells);
    const auto [begin, end] = even_share(b.num_cells, lv_.rank, lv_.ranks);
    rounds = std::max(rounds, (end - begin + kViewCells - 1) / kViewCells);
  }
  MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_LONG_LONG, MPI_MAX, lv_.comm);
  // The elements this rank leads (first vertex owned: every element once), by `type` (0
  // point, 1 segment, 2 triangle, 3 tet: a mixed topology's order): led element k of a type
  // is its case-order index, object and input-id nodes, or none (false): a volume's
  // triangles are its tets' faces, not its cells.
  const std::vector<long long> first_of[4] = {first_per_object(scene_.point_object, O),
                                              first_per_object(scene_.segment_object, O), {},
                                              first_per_object(scene_.tet_object, O)};
  const std::vector<long long> tets_of = per_object(scene_.tet_object, O);
  const LedPrimitives led_of[4] = {led_primitives(scene_, lv_, Primitive::point),
                                   led_primitives(scene_, lv_, Primitive::segment), {},
                                   led_primitives(scene_, lv_, Primitive::tet)};
  struct Cell {
    int index = 0, object = 0;
    long long v[4] = {0, 0, 0, 0};
  };
  auto count_led = [&](int type) { return type == 2 ? lv_.triangles.size() : led_of[type].index.size(); };
  constexpr int kNodes[4] = {1, 2, 3, 4};
  auto led = [&](int type, size_t k, Cell& c) {
    const int* v = nullptr;
    if (type == 2) {
      c.index = lv_.triangles[k], v = scene_.triangles[c.index].data(), c.object = scene_.triangle_object[c.index];
      if (tets_of[c.object] > 0) return false;
    } else {
      c.index = led_of[type].index[k];
      const int at = led_of[type].at[k];
      v = type == 0 ? &scene_.points[at] : type == 1 ? scene_.segments[at].data() : scene_.tets[at].data();
      c.object = type == 0 ? scene_.point_object[c.index]
                 : type == 1 ? scene_.segment_object[c.index] : scene_.tet_object[c.index];
    }
    for (int a = 0; a < kNodes[type]; ++a) c.v[a] = scene_.input_of_solver[v[a]];
    return true;
  };
  // A mixed object's cells (rank 0 writes its whole topology): each rank sends the elements
  // it leads (type, index, object, nodes) to rank 0, which puts them in case order.
  std::vector<ObjectCells> mixed(lv_.rank == 0 ? O : 0);
  if (std::any_of(blocks.begin(), blocks.end(), [](const XdmfBlock& b) { return b.cell == XdmfCell::Mixed; })) {
    std::vector<long long> mine;
    Cell c;
    for (int type = 0; type < 4; ++type)
      for (size_t k = 0; k < count_led(type); ++k)
        if (led(type, k, c) && blocks[c.object].cell == XdmfCell::Mixed)
          mine.insert(mine.end(), {type, c.index, c.object, c.v[0], c.v[1], c.v[2], c.v[3]});
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(lv_.rank == 0 ? lv_.ranks : 0), displs(counts.size(), 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, lv_.comm);
    for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
    std::vector<long long> all(lv_.rank == 0 ? static_cast<size_t>(displs.back() + counts.back()) : 0);
    MPI_Gatherv(mine.data(), count, MPI_LONG_LONG, all.data(), counts.data(), displs.data(), MPI_LONG_LONG, 0,
                lv_.comm);
    std::vector<std::array<long long, 7>> rows(all.size() / 7);
    for (size_t k = 0; k < rows.size(); ++k)
      for (int a = 0; a < 7; ++a) rows[k][a] = all[7 * k + a];
    std::sort(rows.begin(), rows.end());  // (by type, then index: case order)
    std::vector<long long> ObjectCells::*list[4] = {&ObjectCells::points, &ObjectCells::segments,
                                                    &ObjectCells::triangles, &ObjectCells::tets};
    for (const auto& r : rows) {
      const int type = static_cast<int>(r[0]);
      std::vector<long long>& cells = mixed[static_cast<size_t>(r[2])].*list[type];
      cells.insert(cells.end(), r.begin() + 3, r.begin() + 3 + kNodes[type]);
    }
  }
  for (long long r = 0; r < rounds; ++r) {
    std::vector<TopologyShare> shares = topology_shares(blocks, lv_.rank, lv_.ranks, r * kViewCells, kViewCells, mixed);
    for (size_t o = 0; o < O; ++o) {
      const XdmfBlock& b = blocks[o];
      std::vector<long long> topo;
      topo.swap(shares[o].values);
      // (nothing to write in an empty dataset)
      if (b.topology_size > 0) write_row_range(topology[o], "topology", H5T_NATIVE_LLONG, topo, shares[o].begin, shares[o].end);
      auto [begin, end] = even_share(b.num_cells, lv_.rank, lv_.ranks);
      begin = std::min(end, begin + r * kViewCells);
      end = std::min(end, begin + kViewCells);
      const std::vector<int> ids(end - begin, static_cast<int>(o));
      if (b.num_cells > 0) write_row_range(object_id[o], "object_id", H5T_NATIVE_INT, ids, begin, end);
    }
  }
  // Single-type objects: each rank writes the cells of the elements it leads where they are
  // in the topology, kViewCells elements a round, one collective write per object of the
  // type a round: no rank reads another's elements (issue 20 point 3).
  constexpr XdmfCell kCell[4] = {XdmfCell::Polyvertex, XdmfCell::Polyline, XdmfCell::Triangle, XdmfCell::Tetrahedron};
  for (int type = 0; type < 4; ++type) {
    const size_t n = count_led(type);
    long long type_rounds = static_cast<long long>((n + kViewCells - 1) / kViewCells);
    MPI_Allreduce(MPI_IN_PLACE, &type_rounds, 1, MPI_LONG_LONG, MPI_MAX, lv_.comm);
    std::vector<std::vector<RowRun>> runs(O);
    std::vector<std::vector<long long>> values(O);
    Cell c;
    for (long long r = 0; r < type_rounds; ++r) {
      const size_t k0 = std::min<size_t>(n, static_cast<size_t>(r * kViewCells));
      const size_t k1 = std::min<size_t>(n, k0 + static_cast<size_t>(kViewCells));
      for (size_t o = 0; o < O; ++o) runs[o].clear(), values[o].clear();
      for (size_t k = k0; k < k1; ++k) {
        if (!led(type, k, c)) continue;
        const XdmfBlock& b = blocks[c.object];
        if (b.cell != kCell[type]) continue;  // (a mixed object)
        // (an object's elements of a type are consecutive in case order)
        const long long first = type == 2 ? b.first_triangle : first_of[type][c.object];
        const hsize_t row = hsize_t(kNodes[type]) * hsize_t(c.index - first);
        std::vector<RowRun>& rr = runs[c.object];
        if (!rr.empty() && rr.back().first + rr.back().count == row)
          rr.back().count += kNodes[type];
        else
          rr.push_back({row, hsize_t(kNodes[type])});
        for (int a = 0; a < kNodes[type]; ++a) values[c.object].push_back(c.v[a] - b.first_vertex);
      }
      for (size_t o = 0; o < O; ++o)
        if (blocks[o].cell == kCell[type] && blocks[o].topology_size > 0)
          write_runs(topology[o], H5T_NATIVE_LLONG, -1, runs[o], 1, values[o].data(), "topology");
    }
  }
  for (size_t o = 0; o < O; ++o) {
    H5Dclose(topology[o]);
    H5Dclose(object_id[o]);
    set_attr_string(groups[o], "name", scene_.objects[o].name);
    H5Gclose(groups[o]);
  }
  H5Gclose(view);
}

void ResultFile::write_xdmf() const {
  const std::filesystem::path h5(path_);
  std::filesystem::path xdmf = h5;
  xdmf.replace_extension(".xdmf");
  XdmfLayout L;
  L.h5_name = h5.filename().string();
  L.title = xml_escaped(scene_.spec.name);
  L.num_vertices = scene_.num_vertices;
  L.num_triangles = static_cast<long long>(scene_.triangles.size());
  L.velocities = velocities_;
  L.strain_ratio = strain_ratio_;
  L.frame_triangles = torn_;
  // Times and statistics as the file holds them (a restarted run wrote part of them).
  L.times.resize(frames_);
  hid_t ts = H5Dopen2(file_, "/frames/time", H5P_DEFAULT);
  if (frames_ > 0) h5check(H5Dread(ts, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, L.times.data()), "read time");
  H5Dclose(ts);
  L.stats = stat_names(file_);
  L.blocks = blocks_.empty() ? object_blocks(scene_) : blocks_;  // (restart: not built yet)
  std::ofstream(xdmf) << xdmf_text(L);
}

Checkpoint read_checkpoint(const std::string& path, const Scene& scene, const LocalView& lv,
                           const std::vector<std::pair<std::string, std::vector<int>>>& entries) {
  quiet_hdf5();
  if (!std::filesystem::exists(path)) throw InputError(path + ": restart file not found");
  hid_t fapl = mpi_fapl(lv.comm);
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  if (file < 0) throw InputError(path + ": not a readable HDF5 result file (truncated or corrupt?)");
  Checkpoint c;
  try {
    if (H5Lexists(file, "checkpoint", H5P_DEFAULT) <= 0) throw InputError(path + ": has no /checkpoint to restart from");
    hid_t cp = H5Gopen2(file, "checkpoint", H5P_DEFAULT);
    c.frame = get_attr<int>(cp, "frame", H5T_NATIVE_INT);
    c.time = get_attr<double>(cp, "time", H5T_NATIVE_DOUBLE);
    if (c.frame < 0) throw InputError(path + ": its checkpoint was being written when the run stopped");
    const int n = scene.num_vertices;
    std::vector<int> rows(lv.num_local());  // this rank's vertices, as input ids
    for (int l = 0; l < lv.num_local(); ++l) rows[l] = scene.input_of_solver[lv.global_of_local(l)];
    for (const char* name : {"x", "v"}) {
      hid_t ds = H5Dopen2(cp, name, H5P_DEFAULT);
      if (ds < 0) throw InputError(path + ": /checkpoint/" + name + " missing");
      hid_t space = H5Dget_space(ds);
      hsize_t dims[2] = {0, 0};
      H5Sget_simple_extent_dims(space, dims, nullptr);
      H5Sclose(space);
      if (dims[0] != hsize_t(n) || dims[1] != 3)
        throw InputError(path + ": /checkpoint/" + name + " has " + std::to_string(dims[0]) +
                         " vertices but the case has " + std::to_string(n));
      read_selected_rows(ds, rows, std::string(name) == "x" ? c.x : c.v);
      H5Dclose(ds);
    }
    if (H5Lexists(cp, "arrays", H5P_DEFAULT) <= 0) throw InputError(path + ": /checkpoint/arrays missing");
    hid_t ag = H5Gopen2(cp, "arrays", H5P_DEFAULT);
    hsize_t count = 0;
    H5Gget_num_objs(ag, &count);
    for (hsize_t i = 0; i < count; ++i) {
      char name[256];
      H5Gget_objname_by_idx(ag, i, name, sizeof name);
      hid_t ds = H5Dopen2(ag, name, H5P_DEFAULT);
      if (ds < 0) throw InputError(path + ": cannot open /checkpoint/arrays/" + name);
      hid_t space = H5Dget_space(ds);
      const long length = static_cast<long>(H5Sget_simple_extent_npoints(space));
      const auto wanted = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == name; });
      NamedArray a;
      a.name = name;
      herr_t rc = 0;
      if (wanted == entries.end()) {
        // A whole array: every rank reads it all.
        a.values.resize(static_cast<size_t>(length));
        if (length > 0) rc = H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.values.data());
      } else {
        // A distributed array: only this rank's entries, one point selection.
        a.index = wanted->second;
        a.whole = length;
        for (int i : a.index)
          if (i < 0 || i >= length) {
            H5Sclose(space);
            H5Dclose(ds);
            throw InputError(path + ": /checkpoint/arrays/" + name + " has " + std::to_string(length) +
                             " values, but the case needs entry " + std::to_string(i));
          }
        a.values.resize(a.index.size());
        if (!a.index.empty()) {
          const std::vector<hsize_t> coords(a.index.begin(), a.index.end());
          H5Sselect_elements(space, H5S_SELECT_SET, coords.size(), coords.data());
          const hsize_t count = coords.size();
          hid_t mem = H5Screate_simple(1, &count, nullptr);
          rc = H5Dread(ds, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, a.values.data());
          H5Sclose(mem);
        }
      }
      H5Sclose(space);
      H5Dclose(ds);
      if (rc < 0) throw InputError(path + ": cannot read /checkpoint/arrays/" + name);
      c.arrays.push_back(std::move(a));
    }
    H5Gclose(ag);
    H5Gclose(cp);
  } catch (...) {
    H5Fclose(file);
    throw;
  }
  H5Fclose(file);
  return c;
}

}  // namespace weft
