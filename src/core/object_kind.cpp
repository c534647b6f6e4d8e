#include "core/object_kind.hpp"

namespace weft {
namespace {

constexpr ObjectKind kAll[] = {ObjectKind::Shell,  ObjectKind::Rod,   ObjectKind::Particles,
                               ObjectKind::Volume, ObjectKind::Rigid, ObjectKind::Obstacle};

}  // namespace

const char* to_string(ObjectKind k) {
  switch (k) {
    case ObjectKind::Shell: return "shell";
    case ObjectKind::Rod: return "rod";
    case ObjectKind::Particles: return "particles";
    case ObjectKind::Volume: return "volume";
    case ObjectKind::Rigid: return "rigid";
    case ObjectKind::Obstacle: return "obstacle";
  }
  return "?";
}

std::optional<ObjectKind> parse_object_kind(const std::string& s) {
  for (ObjectKind k : kAll)
    if (s == to_string(k)) return k;
  return std::nullopt;
}

}  // namespace weft
