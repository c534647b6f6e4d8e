// The case file's key schema (DESIGN.md "Case files"), shared by the validator and the
// --set override checker. Internal to src/io: nothing here includes yaml-cpp.
#pragma once
#include <string>
#include <vector>

namespace weft::case_schema {

// Keys allowed in the mapping at `pattern`: a key path whose list indices are written "[]"
// ("" = top level, "objects[].mesh", "objects[].pins[].motion.rotate"). nullptr when the
// pattern is not a mapping in the schema.
const std::vector<std::string>* keys(const std::string& pattern);

// True for the lists whose items are mappings: "objects" and "objects[].pins".
bool is_list_of_maps(const std::string& pattern);

// "objects[3].pins[0].box" -> "objects[].pins[].box".
std::string pattern_of(const std::string& path);

// "a, b, c".
std::string join(const std::vector<std::string>& words);

// path + "." + key (or key at the top level); path + "[i]".
std::string child(const std::string& path, const std::string& key);
std::string item(const std::string& path, std::size_t i);

}  // namespace weft::case_schema
