// Argument checks shared by the generators (internal to src/mesh).
#pragma once
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.hpp"

namespace weft::detail {

inline void require_positive(const char* gen, const char* arg, double v) {
  if (!(std::isfinite(v) && v > 0)) {
    std::ostringstream os;
    os << gen << ": " << arg << " must be a finite number > 0, got " << v;
    throw InputError(os.str());
  }
}

inline void require_at_least(const char* gen, const char* arg, long long v, long long lo) {
  if (v < lo) {
    std::ostringstream os;
    os << gen << ": " << arg << " must be >= " << lo << ", got " << v;
    throw InputError(os.str());
  }
}

constexpr double kPi = 3.14159265358979323846;

// Meshes beyond this many vertices are surely a typo (and would overflow int indices soon).
constexpr long long kMaxGeneratedVertices = 50'000'000;

inline void require_size(const char* gen, long long nverts) {
  if (nverts > kMaxGeneratedVertices) {
    std::ostringstream os;
    os << gen << ": " << nverts << " vertices is more than the limit of " << kMaxGeneratedVertices;
    throw InputError(os.str());
  }
}

// splitmix64: a tiny, platform-independent hash used for deterministic jitter.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [-1, 1], a pure function of (seed, key).
inline double hash_unit(unsigned seed, std::uint64_t key) {
  std::uint64_t h = splitmix64(splitmix64(seed) ^ (key * 0xD1B54A32D192ED03ull));
  return static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

}  // namespace weft::detail
