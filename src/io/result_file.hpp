// The result file (DESIGN.md "Result files"): parallel HDF5 written collectively in the
// INPUT vertex order, whatever the rank count, plus OUT.xdmf beside it for ParaView.
// The root attribute `complete` is 0 while a run writes and 1 once it has finished, so a
// cut-short file never looks complete.
#pragma once
#include <hdf5.h>
#include <petscvec.h>

#include <cstdint>
#include <map>
#include <functional>
#include <string>
#include <vector>

#include "core/named_values.hpp"
#include "core/scene.hpp"
#include "io/xdmf.hpp"
#include "parallel/local_view.hpp"

namespace weft {

struct Checkpoint {
  int frame = 0;                 // last frame written when the checkpoint was taken
  double time = 0.0;
  // This rank's vertices only, in LocalView order (owned, then ghosts), 3 per vertex: a
  // restart reads its own rows of /checkpoint/x and /v (HDF5 point selections), never the
  // whole datasets.
  std::vector<double> x, v;
  NamedArrays arrays;            // the stepper's own state (Stepper::save), by name
};

// Rows [first, first + count) of a dataset.
struct RowRun {
  hsize_t first = 0, count = 0;
};

class ResultFile {
 public:
  // Create (truncate) `path` and write /mesh. Collective.
  ResultFile(const std::string& path, const Scene& scene, const LocalView& lv);
  // Reopen `path` to continue after frame `keep_frames - 1` (frames after it are dropped).
  ResultFile(const std::string& path, const Scene& scene, const LocalView& lv, int keep_frames);
  ~ResultFile();
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;

  // Append one frame: positions (and, as output.fields asks, velocities and per-triangle
  // strain ratios) from the solver-order ghosted Vecs x and v, plus named per-step figures.
  // `triangles` (solver ids): the current corners when the stepper tears the cloth (written
  // to /frames/triangles when the scene has spares); null = the scene's.
  void write_frame(double time, Vec x, Vec v, const NamedValues& stats, const std::vector<Tri>* triangles = nullptr);
  // The checkpoint: x and v (input order) and the stepper's named arrays (whole on every
  // rank; /checkpoint/arrays/<name>, an internal layout). Collective.
  void write_checkpoint(int frame, double time, Vec x, Vec v, const NamedArrays& arrays);
  // Mark complete and write OUT.xdmf. Collective.
  void finish();
  int frames() const { return frames_; }
  // Bytes of per-frame data and checkpoints written by this object (all ranks together):
  // positions, optional fields, time and stats of each frame, checkpoint x, v and arrays.
  std::int64_t bytes_written() const { return bytes_; }
  const std::string& path() const { return path_; }

 private:
  void open_scatter();
  // The Vec whose array is this rank's natural block of the solver-order Vec x, 3 per
  // vertex: x itself where the orders agree (identity_), else natural_ filled by the scatter
  // (tearing only: the torn strain ratios read the whole positions).
  Vec natural_of(Vec x);
  // Write the per-vertex rows of x (3 values a vertex, as type) to frame `frame` of the
  // series at `path`, or (frame < 0) to the (n, 3) dataset ds: this rank's natural block,
  // or its owned rows where they are in the file (by_input_).
  void write_vertex_rows(Vec x, hid_t type, const char* path, int frame, hid_t ds);
  // The by-input-rows path of write_vertex_rows, owned vertex l's three values at row(l).
  void write_owned_rows(const std::function<const double*(int)>& row, hid_t type, const char* path, int frame,
                        hid_t ds);
  void write_rest_positions();
  // Largest singular value of each local triangle over its strain limit (1 where it has
  // none): in this rank's natural block of triangles, or (tri_runs_ non-empty) in the
  // order of LocalView's triangles.
  void strain_ratios(Vec x, std::vector<float>& out);
  void torn_strain_ratios(const double* natural, const std::vector<Tri>& tris, std::vector<float>& out);
  double strain_ratio(int t, const Vec9& xt) const;
  void write_view();        // /view: per-object connectivity for OUT.xdmf
  void write_xdmf() const;  // rank 0, from what the file holds

  std::string path_;
  const Scene& scene_;
  const LocalView& lv_;
  hid_t file_ = -1;
  int frames_ = 0;
  std::int64_t bytes_ = 0;
  int nat_begin_ = 0, nat_end_ = 0;  // natural (input order) block of this rank
  bool identity_ = false;            // natural block == owned block, same order (no scatter)
  // Otherwise (no tearing) each rank writes its owned rows at their input rows: its owned
  // vertices in input order (local indices) and the runs of consecutive input ids they make.
  bool by_input_ = false;
  std::vector<int> input_order_;
  std::vector<RowRun> input_runs_;
  Vec natural_ = nullptr;
  VecScatter scatter_ = nullptr;
  bool velocities_ = false, strain_ratio_ = false;  // optional per-frame fields in the file
  bool torn_ = false;                               // /frames/triangles (tearing)
  std::vector<XdmfBlock> blocks_;  // per object, from write_view (OUT.xdmf reuses them)
  int tri_begin_ = 0, tri_end_ = 0;                 // natural (case order) block of triangles
  bool tri_identity_ = false;       // local triangles == natural block of triangles, same order
  // Otherwise each rank writes its local triangles' ratios at their rows (LocalView's
  // triangles: ascending ids), runs of consecutive ids.
  std::vector<RowRun> tri_runs_;
};

// Read the checkpoint of a result file: x and v of lv's local vertices (see Checkpoint);
// of the stepper's arrays, those named in `entries` (Stepper::load_entries) as distributed
// arrays holding just the listed entries, the others whole. InputError (exit 2) on a
// missing, truncated or checkpoint-less file, or an array shorter than an entry asked for.
// Collective.
Checkpoint read_checkpoint(const std::string& path, const Scene& scene, const LocalView& lv,
                           const std::vector<std::pair<std::string, std::vector<int>>>& entries = {});

}  // namespace weft
