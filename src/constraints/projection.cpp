#include "constraints/projection.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace weft {

double pbd_stiffness(double k, int iterations) {
  if (!(k >= 0.0 && k <= 1.0))
    throw InputError("PBD stiffness must lie in [0, 1], got " + std::to_string(k));
  if (iterations < 1)
    throw InputError("PBD iteration count must be >= 1, got " + std::to_string(iterations));
  return 1.0 - std::pow(1.0 - k, 1.0 / iterations);
}

}  // namespace weft
