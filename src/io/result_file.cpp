#include "io/result_file.hpp"

#include <filesystem>
#include <fstream>

#include "core/error.hpp"

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

// A dataset whose whole content every rank holds: created collectively, written by rank 0.
template <typename T>
void write_replicated(hid_t loc, const char* name, hid_t type, const std::vector<T>& data,
                      std::vector<hsize_t> dims, int rank) {
  hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t ds = h5check_id(H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name);
  if (H5Sget_simple_extent_npoints(space) == 0) {  // nothing to write (e.g. no segments)
    H5Sclose(space);
    H5Dclose(ds);
    return;
  }
  hid_t mem = H5Scopy(space);
  if (rank != 0) {
    H5Sselect_none(space);
    H5Sselect_none(mem);
  }
  hid_t dxpl = collective_dxpl();
  h5check(H5Dwrite(ds, type, mem, space, dxpl, data.empty() ? nullptr : data.data()), name);
  H5Pclose(dxpl);
  H5Sclose(mem);
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
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
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

// Write rows [begin, end) of an (M, 3) dataset (or of frame `frame` of an (F, M, 3) one).
void write_rows(hid_t ds, int frame, int begin, int end, const std::vector<double>& rows) {
  hid_t space = H5Dget_space(ds);
  const int rank = H5Sget_simple_extent_ndims(space);
  hsize_t start[3], count[3];
  if (rank == 3) {
    start[0] = frame, start[1] = begin, start[2] = 0;
    count[0] = 1, count[1] = end - begin, count[2] = 3;
  } else {
    start[0] = begin, start[1] = 0;
    count[0] = end - begin, count[1] = 3;
  }
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  hsize_t mcount[1] = {hsize_t(end - begin) * 3};
  hid_t mem = H5Screate_simple(1, mcount, nullptr);
  if (end == begin) {
    H5Sselect_none(space);
    H5Sselect_none(mem);
  }
  hid_t dxpl = collective_dxpl();
  h5check(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem, space, dxpl, rows.data()), "write rows");
  H5Pclose(dxpl);
  H5Sclose(mem);
  H5Sclose(space);
}

void read_rows(hid_t ds, int begin, int end, std::vector<double>& rows) {
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
  std::vector<double> rest(3 * n);
  std::vector<int> obj(n), part(n);
  for (int i = 0; i < n; ++i) {
    const int v = scene.solver_of_input[i];
    for (int d = 0; d < 3; ++d) rest[3 * i + d] = scene.rest[v][d];
    obj[i] = scene.vertex_object[v];
    part[i] = scene.partition[v];
  }
  std::vector<long long> tris(3 * T);
  std::vector<double> toff(T), tlim(T);
  for (size_t t = 0; t < T; ++t) {
    for (int a = 0; a < 3; ++a) tris[3 * t + a] = scene.input_of_solver[scene.triangles[t][a]];
    const ObjectParams& op = scene.objects[scene.triangle_object[t]];
    toff[t] = op.offset;
    tlim[t] = op.kind == ObjectKind::Shell ? op.strain_limit : 0.0;
  }
  hid_t mesh = H5Gcreate2(file_, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  write_replicated(mesh, "rest_positions", H5T_NATIVE_DOUBLE, rest, {hsize_t(n), 3}, lv.rank);
  write_replicated(mesh, "object_id", H5T_NATIVE_INT, obj, {hsize_t(n)}, lv.rank);
  write_replicated(mesh, "partition", H5T_NATIVE_INT, part, {hsize_t(n)}, lv.rank);
  write_replicated(mesh, "triangles", H5T_NATIVE_LLONG, tris, {hsize_t(T), 3}, lv.rank);
  write_replicated(mesh, "triangle_offset", H5T_NATIVE_DOUBLE, toff, {hsize_t(T)}, lv.rank);
  write_replicated(mesh, "strain_limit", H5T_NATIVE_DOUBLE, tlim, {hsize_t(T)}, lv.rank);
  std::vector<long long> none;
  std::vector<double> none_d;
  write_replicated(mesh, "segments", H5T_NATIVE_LLONG, none, {0, 2}, lv.rank);
  write_replicated(mesh, "segment_offset", H5T_NATIVE_DOUBLE, none_d, {0}, lv.rank);
  write_replicated(mesh, "points", H5T_NATIVE_LLONG, none, {0}, lv.rank);
  write_replicated(mesh, "point_offset", H5T_NATIVE_DOUBLE, none_d, {0}, lv.rank);
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
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 3, chunk);
  hid_t ds = H5Dcreate2(frames, "positions", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  h5check_id(ds, "create /frames/positions");
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Dclose(open_or_create_series(frames, "time"));
  hid_t stats = H5Gcreate2(frames, "stats", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Gclose(stats);
  H5Gclose(frames);
  open_scatter();
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
  // Drop every frame after the checkpoint, in positions, time and every stats series.
  hid_t ds = H5Dopen2(file_, "/frames/positions", H5P_DEFAULT);
  hsize_t dims[3] = {hsize_t(keep_frames), hsize_t(scene.num_vertices), 3};
  h5check(H5Dset_extent(ds, dims), "shrink positions");
  H5Dclose(ds);
  hsize_t d1[1] = {hsize_t(keep_frames)};
  ds = H5Dopen2(file_, "/frames/time", H5P_DEFAULT);
  h5check(H5Dset_extent(ds, d1), "shrink time");
  H5Dclose(ds);
  hid_t stats = H5Gopen2(file_, "/frames/stats", H5P_DEFAULT);
  hsize_t nlinks = 0;
  H5Gget_num_objs(stats, &nlinks);
  for (hsize_t i = 0; i < nlinks; ++i) {
    char name[256];
    H5Gget_objname_by_idx(stats, i, name, sizeof name);
    hid_t s = H5Dopen2(stats, name, H5P_DEFAULT);
    h5check(H5Dset_extent(s, d1), "shrink stats");
    H5Dclose(s);
  }
  H5Gclose(stats);
  frames_ = keep_frames;
  open_scatter();
}

ResultFile::~ResultFile() {
  VecScatterDestroy(&scatter_);
  VecDestroy(&natural_);
  if (file_ >= 0) H5Fclose(file_);
}

void ResultFile::open_scatter() {
  // Natural layout: input ids split evenly over ranks; scatter from solver order.
  const int n = scene_.num_vertices;
  nat_begin_ = static_cast<int>((long long)n * lv_.rank / lv_.ranks);
  nat_end_ = static_cast<int>((long long)n * (lv_.rank + 1) / lv_.ranks);
  VecCreateMPI(lv_.comm, 3 * (nat_end_ - nat_begin_), 3 * n, &natural_);
  VecSetBlockSize(natural_, 3);
  std::vector<PetscInt> from(nat_end_ - nat_begin_);
  for (int i = nat_begin_; i < nat_end_; ++i) from[i - nat_begin_] = scene_.solver_of_input[i];
  IS is_from, is_to;
  ISCreateBlock(lv_.comm, 3, static_cast<PetscInt>(from.size()), from.data(), PETSC_COPY_VALUES, &is_from);
  ISCreateStride(lv_.comm, 3 * (nat_end_ - nat_begin_), 3 * nat_begin_, 1, &is_to);
  Vec layout;  // same parallel layout as the solver's global Vecs
  VecCreateMPI(lv_.comm, 3 * lv_.num_owned(), 3 * n, &layout);
  VecScatterCreate(layout, is_from, natural_, is_to, &scatter_);
  VecDestroy(&layout);
  ISDestroy(&is_from);
  ISDestroy(&is_to);
}

void ResultFile::to_natural(Vec x, std::vector<double>& out) {
  VecScatterBegin(scatter_, x, natural_, INSERT_VALUES, SCATTER_FORWARD);
  VecScatterEnd(scatter_, x, natural_, INSERT_VALUES, SCATTER_FORWARD);
  const PetscScalar* a;
  VecGetArrayRead(natural_, &a);
  out.assign(a, a + 3 * (nat_end_ - nat_begin_));
  VecRestoreArrayRead(natural_, &a);
}

void ResultFile::write_frame(double time, Vec x, const std::map<std::string, double>& stats) {
  std::vector<double> rows;
  to_natural(x, rows);
  hid_t ds = H5Dopen2(file_, "/frames/positions", H5P_DEFAULT);
  hsize_t dims[3] = {hsize_t(frames_) + 1, hsize_t(scene_.num_vertices), 3};
  h5check(H5Dset_extent(ds, dims), "extend positions");
  write_rows(ds, frames_, nat_begin_, nat_end_, rows);
  H5Dclose(ds);
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
  ++frames_;
  set_attr<int>(file_, "frames_written", H5T_NATIVE_INT, frames_);
  H5Fflush(file_, H5F_SCOPE_GLOBAL);
}

void ResultFile::write_checkpoint(int frame, double time, Vec x, Vec v, const std::vector<double>& kappa_local,
                                  double contact_kappa) {
  const int n = scene_.num_vertices;
  hid_t cp = H5Lexists(file_, "checkpoint", H5P_DEFAULT) > 0
                 ? H5Gopen2(file_, "checkpoint", H5P_DEFAULT)
                 : H5Gcreate2(file_, "checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  // Invalidate first: a crash in the middle leaves frame = -1, never a mixed checkpoint.
  set_attr<int>(cp, "frame", H5T_NATIVE_INT, -1);
  for (const char* name : {"x", "v"}) {
    std::vector<double> rows;
    to_natural(std::string(name) == "x" ? x : v, rows);
    hid_t ds;
    if (H5Lexists(cp, name, H5P_DEFAULT) > 0) {
      ds = H5Dopen2(cp, name, H5P_DEFAULT);
    } else {
      hsize_t dims[2] = {hsize_t(n), 3};
      hid_t space = H5Screate_simple(2, dims, nullptr);
      ds = H5Dcreate2(cp, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Sclose(space);
    }
    write_rows(ds, 0, nat_begin_, nat_end_, rows);
    H5Dclose(ds);
  }
  // Adaptive strain stiffness: each triangle lives on one rank, so a sum assembles it.
  std::vector<double> kappa(scene_.triangles.size(), 0.0);
  for (size_t k = 0; k < kappa_local.size(); ++k) kappa[lv_.triangles[k]] = kappa_local[k];
  MPI_Allreduce(MPI_IN_PLACE, kappa.data(), static_cast<int>(kappa.size()), MPI_DOUBLE, MPI_SUM, lv_.comm);
  if (H5Lexists(cp, "kappa_s", H5P_DEFAULT) > 0) H5Ldelete(cp, "kappa_s", H5P_DEFAULT);
  write_replicated(cp, "kappa_s", H5T_NATIVE_DOUBLE, kappa, {hsize_t(kappa.size())}, lv_.rank);
  set_attr<double>(cp, "time", H5T_NATIVE_DOUBLE, time);
  set_attr<double>(cp, "contact_kappa", H5T_NATIVE_DOUBLE, contact_kappa);
  set_attr<int>(cp, "frame", H5T_NATIVE_INT, frame);
  H5Gclose(cp);
  H5Fflush(file_, H5F_SCOPE_GLOBAL);
}

void ResultFile::finish() {
  set_attr<int>(file_, "complete", H5T_NATIVE_INT, 1);
  H5Fflush(file_, H5F_SCOPE_GLOBAL);
  if (lv_.rank == 0) write_xdmf();
}

void ResultFile::write_xdmf() const {
  const std::filesystem::path h5(path_);
  std::filesystem::path xdmf = h5;
  xdmf.replace_extension(".xdmf");
  const std::string file = h5.filename().string();
  const size_t n = scene_.num_vertices, T = scene_.triangles.size();
  std::ofstream os(xdmf);
  os << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n"
     << "  <Grid Name=\"" << scene_.spec.name << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (int f = 0; f < frames_; ++f) {
    const double t = f * scene_.spec.dt * scene_.spec.output_every;
    os << "   <Grid Name=\"frame" << f << "\" GridType=\"Uniform\">\n"
       << "    <Time Value=\"" << t << "\"/>\n"
       << "    <Topology TopologyType=\"Triangle\" NumberOfElements=\"" << T << "\">\n"
       << "     <DataItem Dimensions=\"" << T << " 3\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">"
       << file << ":/mesh/triangles</DataItem>\n    </Topology>\n"
       << "    <Geometry GeometryType=\"XYZ\">\n"
       << "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << n << " 3\">\n"
       << "      <DataItem Dimensions=\"3 3\" Format=\"XML\">" << f << " 0 0 1 1 1 1 " << n << " 3</DataItem>\n"
       << "      <DataItem Dimensions=\"" << frames_ << " " << n << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
       << file << ":/frames/positions</DataItem>\n     </DataItem>\n    </Geometry>\n";
    for (const char* attr : {"object_id", "partition"})
      os << "    <Attribute Name=\"" << attr << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
         << "     <DataItem Dimensions=\"" << n << "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">" << file
         << ":/mesh/" << attr << "</DataItem>\n    </Attribute>\n";
    os << "   </Grid>\n";
  }
  os << "  </Grid>\n </Domain>\n</Xdmf>\n";
}

Checkpoint read_checkpoint(const std::string& path, const Scene& scene, MPI_Comm comm) {
  quiet_hdf5();
  if (!std::filesystem::exists(path)) throw InputError(path + ": restart file not found");
  hid_t fapl = mpi_fapl(comm);
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  if (file < 0) throw InputError(path + ": not a readable HDF5 result file (truncated or corrupt?)");
  Checkpoint c;
  try {
    if (H5Lexists(file, "checkpoint", H5P_DEFAULT) <= 0) throw InputError(path + ": has no /checkpoint to restart from");
    hid_t cp = H5Gopen2(file, "checkpoint", H5P_DEFAULT);
    c.frame = get_attr<int>(cp, "frame", H5T_NATIVE_INT);
    c.time = get_attr<double>(cp, "time", H5T_NATIVE_DOUBLE);
    c.contact_kappa = get_attr<double>(cp, "contact_kappa", H5T_NATIVE_DOUBLE);
    if (c.frame < 0) throw InputError(path + ": its checkpoint was being written when the run stopped");
    const int n = scene.num_vertices;
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
      read_rows(ds, 0, n, std::string(name) == "x" ? c.x : c.v);
      H5Dclose(ds);
    }
    hid_t ds = H5Dopen2(cp, "kappa_s", H5P_DEFAULT);
    if (ds < 0) throw InputError(path + ": /checkpoint/kappa_s missing");
    c.kappa_s.resize(scene.triangles.size());
    if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, c.kappa_s.data()) < 0)
      throw InputError(path + ": cannot read /checkpoint/kappa_s");
    H5Dclose(ds);
    H5Gclose(cp);
  } catch (...) {
    H5Fclose(file);
    throw;
  }
  H5Fclose(file);
  return c;
}

}  // namespace weft
