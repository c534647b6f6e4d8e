// The result file (DESIGN.md "Result files"): parallel HDF5 written collectively in the
// INPUT vertex order, whatever the rank count, plus OUT.xdmf beside it for ParaView.
// The root attribute `complete` is 0 while a run writes and 1 once it has finished, so a
// cut-short file never looks complete.
#pragma once
#include <hdf5.h>
#include <petscvec.h>

#include <map>
#include <string>
#include <vector>

#include "core/scene.hpp"
#include "parallel/local_view.hpp"

namespace weft {

struct Checkpoint {
  int frame = 0;                 // last frame written when the checkpoint was taken
  double time = 0.0;
  std::vector<double> x, v;      // input order, 3 per vertex
  std::vector<double> kappa_s;   // case triangle order
  double contact_kappa = 0.0;    // adaptive contact barrier stiffness
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

  // Append one frame: positions from the solver-order Vec x, plus named per-step figures.
  void write_frame(double time, Vec x, const std::map<std::string, double>& stats);
  void write_checkpoint(int frame, double time, Vec x, Vec v, const std::vector<double>& kappa_local,
                        double contact_kappa);
  // Mark complete and write OUT.xdmf. Collective.
  void finish();
  int frames() const { return frames_; }
  const std::string& path() const { return path_; }

 private:
  void open_scatter();
  void to_natural(Vec x, std::vector<double>& out);  // owned natural block, 3 per vertex
  void write_xdmf() const;

  std::string path_;
  const Scene& scene_;
  const LocalView& lv_;
  hid_t file_ = -1;
  int frames_ = 0;
  int nat_begin_ = 0, nat_end_ = 0;  // natural (input order) block of this rank
  Vec natural_ = nullptr;
  VecScatter scatter_ = nullptr;
};

// Read the checkpoint of a result file; InputError (exit 2) on a missing, truncated or
// checkpoint-less file. Collective.
Checkpoint read_checkpoint(const std::string& path, const Scene& scene, MPI_Comm comm);

}  // namespace weft
