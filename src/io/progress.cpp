#include "io/progress.hpp"

#include <cstdio>
#include <filesystem>

namespace weft {

Progress::Progress(int rank, int first_frame, int last_frame)
    : rank_(rank), first_(first_frame), last_(last_frame), start_(std::chrono::steady_clock::now()) {}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::frame_done(int frame, int newton_iters, double max_strain, double frame_seconds,
                          const std::string& extra) {
  total_newton_ += newton_iters;
  if (rank_ != 0) return;
  const int done = frame - first_ + 1, left = last_ - frame;
  const double per_frame = elapsed() / done;
  std::printf("frame %d/%d  newton %3d  max strain %.5f  %.3f s/frame  ETA %.1f s%s%s\n", frame, last_,
              newton_iters, max_strain, frame_seconds, per_frame * left, extra.empty() ? "" : "  ",
              extra.c_str());
  std::fflush(stdout);
}

void Progress::summary(const std::string& output_path, int frames_written) const {
  if (rank_ != 0) return;
  const int steps = last_ - first_ + 1;
  std::printf("done: %d steps in %.2f s (%.3f s/step, %.1f Newton iterations/step); %d frames in %s\n", steps,
              elapsed(), steps > 0 ? elapsed() / steps : 0.0, steps > 0 ? double(total_newton_) / steps : 0.0,
              frames_written, output_path.c_str());
  std::filesystem::path xdmf = std::filesystem::absolute(output_path);
  xdmf.replace_extension(".xdmf");
  std::printf("open in ParaView: paraview %s   (Python: h5py.File(\"%s\"))\n",
              xdmf.string().c_str(), output_path.c_str());
}

}  // namespace weft
