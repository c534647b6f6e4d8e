// Human-readable progress on rank 0: frame k/N, Newton iterations, time per frame, ETA.
#pragma once
#include <chrono>
#include <string>

namespace weft {

class Progress {
 public:
  Progress(int rank, int first_frame, int last_frame);
  // Call after each frame; prints one line.
  void frame_done(int frame, int newton_iters, double max_strain, double frame_seconds, const std::string& extra = "");
  void summary(const std::string& output_path, int frames_written) const;
  double elapsed() const;

 private:
  int rank_, first_, last_;
  int total_newton_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace weft
