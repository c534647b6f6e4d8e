// What an object is, parsed once from the case's `kind:` string (case_loader); everything
// downstream compares the enum. Rigid bodies are parsed but not simulated yet (issue 19+).
#pragma once
#include <optional>
#include <string>

namespace weft {

enum class ObjectKind { Shell, Rod, Particles, Volume, Rigid, Obstacle };

// The case-file spelling: "shell", "rod", "particles", "volume", "rigid", "obstacle".
const char* to_string(ObjectKind k);
std::optional<ObjectKind> parse_object_kind(const std::string& s);

}  // namespace weft
