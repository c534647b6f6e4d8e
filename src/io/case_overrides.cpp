#include "io/case_overrides.hpp"

#include <cctype>

#include "core/error.hpp"
#include "io/case_schema.hpp"

namespace weft {

namespace cs = case_schema;

YAML::Node deep_copy_yaml(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar: {
      YAML::Node c(n.Scalar());
      c.SetTag(n.Tag());
      return c;
    }
    case YAML::NodeType::Sequence: {
      YAML::Node c(YAML::NodeType::Sequence);
      for (const YAML::Node& e : n) c.push_back(deep_copy_yaml(e));
      return c;
    }
    case YAML::NodeType::Map: {
      YAML::Node c(YAML::NodeType::Map);
      for (auto it = n.begin(); it != n.end(); ++it) c.force_insert(deep_copy_yaml(it->first), deep_copy_yaml(it->second));
      return c;
    }
    case YAML::NodeType::Null:
      return YAML::Node(YAML::NodeType::Null);
    default:
      return YAML::Node();
  }
}

namespace {

[[noreturn]] void fail_set(const std::string& file, const std::string& assignment, const std::string& msg) {
  throw InputError(file + ": --set " + assignment + ": " + msg);
}

bool is_index(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string apply_case_override(YAML::Node& root, const std::string& assignment, const std::string& file) {
  auto fail = [&](const std::string& msg) { fail_set(file, assignment, msg); };
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) fail("expected key.path=value");
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);

  // Segments: split on '.', with "name[3]" read as "name", "3".
  std::vector<std::string> segs;
  {
    std::string cur;
    auto flush = [&] {
      if (cur.empty()) fail("empty key in '" + key + "'");
      segs.push_back(cur);
      cur.clear();
    };
    for (std::size_t i = 0; i < key.size(); ++i) {
      char c = key[i];
      if (c == '.') {
        flush();
      } else if (c == '[') {
        flush();
        std::size_t close = key.find(']', i);
        if (close == std::string::npos) fail("unclosed '[' in '" + key + "'");
        cur = key.substr(i + 1, close - i - 1);
        if (!is_index(cur)) fail("expected a list index in '[...]', got '" + cur + "'");
        i = close;
        if (i + 1 < key.size() && key[i + 1] != '.' && key[i + 1] != '[') fail("expected '.' after ']' in '" + key + "'");
        if (i + 1 < key.size() && key[i + 1] == '.') ++i;
        flush();
      } else {
        cur += c;
      }
    }
    if (!cur.empty() || segs.empty()) flush();
  }

  YAML::Node value;
  if (text.find_first_not_of(" \t") == std::string::npos) fail("empty value");
  try {
    value = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail("cannot parse the value as YAML (" + e.msg + ")");
  }

  if (!root.IsDefined() || root.IsNull()) root.reset(YAML::Node(YAML::NodeType::Map));
  if (!root.IsMap()) fail("the case file's top level is not a mapping");

  std::string path;  // normalised, e.g. objects[0].mesh
  YAML::Node cur;
  cur.reset(root);
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const std::string& seg = segs[i];
    const bool last = i + 1 == segs.size();
    const std::string pattern = cs::pattern_of(path);
    if (cur.IsSequence()) {
      if (!is_index(seg))
        fail("'" + path + "' is a list: expected an item number after it, got '" + seg + "'");
      const std::size_t idx = std::stoul(seg);
      if (idx >= cur.size())
        fail("'" + cs::item(path, idx) + "' does not exist ('" + path + "' has " + std::to_string(cur.size()) +
             " item" + (cur.size() == 1 ? "" : "s") + ")");
      path = cs::item(path, idx);
      if (last) {
        cur[idx] = value;
      } else {
        YAML::Node next = cur[idx];
        cur.reset(next);
      }
      continue;
    }
    const std::vector<std::string>* allowed = cs::keys(pattern);
    if (!allowed) {
      if (cs::is_list_of_maps(pattern))
        fail("'" + path + "' has no items to set (list items can only be changed, not added, with --set)");
      fail("'" + path + "' is not a mapping, so it has no key '" + seg + "'");
    }
    bool known = false;
    for (const std::string& k : *allowed) known = known || k == seg;
    if (!known)
      fail("unknown key '" + cs::child(path, seg) + "' (expected one of: " + cs::join(*allowed) + ")");
    if (cur.IsDefined() && !cur.IsNull() && !cur.IsMap())
      fail("'" + path + "' is not a mapping in the case file");
    path = cs::child(path, seg);
    if (last) {
      cur[seg] = value;
      break;
    }
    YAML::Node next = cur[seg];
    if (!next.IsDefined() || next.IsNull()) {
      const std::string np = cs::pattern_of(path);
      if (cs::is_list_of_maps(np))
        fail("'" + path + "' is not in the case file (list items can only be changed, not added, with --set)");
      if (!cs::keys(np))
        fail("'" + path + "' is not in the case file; set it whole (e.g. --set " + path + "=[...])");
      cur[seg] = YAML::Node(YAML::NodeType::Map);
      next.reset(cur[seg]);
    }
    cur.reset(next);
  }
  return path;
}

}  // namespace weft
