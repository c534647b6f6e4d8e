// Human-readable progress on rank 0: frame k/N, the stepper's iterations (Newton, PD's
// local-global, PBD's sweeps: named by the caller), time per frame, ETA.
#pragma once
#include <chrono>
#include <string>

namespace weft {

class Progress {
 public:
  // column: the per-frame word for the iterations ("newton"); words: the summary's ("Newton
  // iterations").
  Progress(int rank, int first_frame, int last_frame, std::string column = "newton",
           std::string words = "Newton iterations");
  // Call after each frame; prints one line.
  void frame_done(int frame, int iterations, double max_strain, double frame_seconds, const std::string& extra = "");
  void summary(const std::string& output_path, int frames_written) const;
  double elapsed() const;

 private:
  int rank_, first_, last_;
  std::string column_, words_;
  long long total_iterations_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace weft
