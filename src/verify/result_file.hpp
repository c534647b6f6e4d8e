// Read-only access to a weft result file (DESIGN.md "Result files") for weft-verify.
// Uses the HDF5 C API serially (default file-access property list). Every failure --
// missing file, not HDF5, truncated, missing or mis-shaped dataset, index out of range --
// throws InputError with one line naming the file and the dataset.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace weft::verify {

struct ResultMesh {
  std::vector<Vec3> rest;                  // /mesh/rest_positions (N,3)
  std::vector<Tri> triangles;              // /mesh/triangles (T,3)
  std::vector<double> triangle_offset;     // /mesh/triangle_offset (T)
  std::vector<double> strain_limit;        // /mesh/strain_limit (T), 0 = none; empty: none limited
  std::vector<Edge> segments;              // /mesh/segments (S,2), optional
  std::vector<double> segment_offset;      // /mesh/segment_offset (S), required with segments
  std::vector<int> points;                 // /mesh/points (P), optional
  std::vector<double> point_offset;        // /mesh/point_offset (P), required with points
  std::vector<std::array<int, 4>> tets;    // /mesh/tets (K,4), optional
  // /mesh/stitches (S,2), optional: stitched vertex pairs, one vertex to the checks (the two
  // are pulled together, then welded and written at one position).
  std::vector<Edge> stitches;
  // Orthotropic shells, optional (all three or none): /mesh/warp_direction (T,3) rest-frame
  // warp per triangle (0 = not orthotropic), /mesh/strain_limit_warp and _weft (T) stretch
  // ratios (0 = none).
  std::vector<Vec3> warp_direction;
  std::vector<double> strain_limit_warp, strain_limit_weft;
  std::vector<int> object_id;              // /mesh/object_id (N), optional (empty when absent)
  // A part of a mesh (the simulator's distributed start check, methods/initial_check.hpp):
  // row k's index in the whole mesh's dataset, ascending, which the checks report and order
  // pairs by. Empty (a file's mesh): k.
  std::vector<long> triangle_index, segment_index, point_index;
  // /mesh attributes object_names, object_kinds (one line per object), optional (empty
  // when absent; files from before they were written).
  std::vector<std::string> object_names, object_kinds;
  std::size_t num_vertices() const { return rest.size(); }
};

class ResultFile {
 public:
  // Opens `path` and reads the whole /mesh group plus the frame count.
  explicit ResultFile(const std::string& path);
  ~ResultFile();
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;

  const std::string& path() const { return path_; }
  const ResultMesh& mesh() const { return mesh_; }
  // Frames present: min of the first extents of /frames/positions and /frames/time.
  long num_frames() const { return frames_; }
  double time(long f) const { return times_.at(std::size_t(f)); }
  // Root attribute "complete": 1 = finished run; missing attribute -> has_complete() false.
  bool has_complete() const { return has_complete_; }
  long complete_value() const { return complete_; }

  // Reads frame f of /frames/positions into x (resized to N).
  void read_frame(long f, std::vector<Vec3>& x) const;
  // Tearing: whether the file has /frames/triangles (F, T, 3), each frame's corners, and
  // frame f's (the frame-0 /mesh/triangles without it).
  bool has_frame_triangles() const { return triangles_ >= 0; }
  void read_frame_triangles(long f, std::vector<Tri>& tris) const;

 private:
  std::string path_;
  std::int64_t file_ = -1, positions_ = -1, triangles_ = -1;  // hid_t
  ResultMesh mesh_;
  std::vector<double> times_;
  long frames_ = 0;
  bool has_complete_ = false;
  long complete_ = 0;
};

}  // namespace weft::verify
