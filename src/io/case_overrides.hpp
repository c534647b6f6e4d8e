// --set key.path=value overrides, applied to the parsed YAML tree before validation.
// Internal to src/io (includes yaml-cpp); the public entry point is load_case().
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace weft {

// A copy of `n` in which no node is shared (YAML anchors/aliases become separate copies),
// so an override through one alias does not change the other uses. Keeps duplicate keys.
YAML::Node deep_copy_yaml(const YAML::Node& n);

// Applies one "key.path=value" assignment to `root` (a mapping; a null root becomes one).
// Path segments are separated by '.', list items are numbers ("objects.0.mesh.radius") or
// written "objects[0].mesh.radius"; the value is parsed as YAML (scalar, [flow, list] or
// {flow: map}). Every mapping key on the path must exist in the case schema; list indices
// must exist in the file. Missing mappings on the way are created. Returns the normalised
// key path ("objects[0].mesh.radius"). Throws InputError "FILE: --set ASSIGNMENT: ...".
std::string apply_case_override(YAML::Node& root, const std::string& assignment, const std::string& file);

}  // namespace weft
