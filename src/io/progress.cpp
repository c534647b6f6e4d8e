#include "io/progress.hpp"

#include <cstdio>
#include <filesystem>
#include <utility>

namespace weft {

Progress::Progress(int rank, int first_frame, int last_frame, std::string column, std::string words)
    : rank_(rank),
      first_(first_frame),
      last_(last_frame),
      column_(std::move(column)),
      words_(std::move(words)),
      start_(std::chrono::steady_clock::now()) {}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::frame_done(int frame, int iterations, double max_strain, double frame_seconds,
                          const std::string& extra) {
  total_iterations_ += iterations;
  if (rank_ != 0) return;
  const int done = frame - first_ + 1, left = last_ - frame;
  const double per_frame = elapsed() / done;
  std::printf("frame %d/%d  %s %3d  max strain %.5f  %.3f s/frame  ETA %.1f s%s%s\n", frame, last_,
              column_.c_str(), iterations, max_strain, frame_seconds, per_frame * left, extra.empty() ? "" : "  ",
              extra.c_str());
  std::fflush(stdout);
}

void Progress::summary(const std::string& output_path, int frames_written) const {
  if (rank_ != 0) return;
  const int steps = last_ - first_ + 1;
  std::printf("done: %d steps in %.2f s (%.3f s/step, %.1f %s/step); %d frames in %s\n", steps, elapsed(),
              steps > 0 ? elapsed() / steps : 0.0, steps > 0 ? double(total_iterations_) / steps : 0.0,
              words_.c_str(), frames_written, output_path.c_str());
  std::filesystem::path xdmf = std::filesystem::absolute(output_path);
  xdmf.replace_extension(".xdmf");
  std::printf("open in ParaView: paraview %s   (Python: h5py.File(\"%s\"))\n",
              xdmf.string().c_str(), output_path.c_str());
}

}  // namespace weft
