// Line-oriented text scanning for the mesh readers (internal to src/mesh): whitespace
// splitting and locale-independent number parsing with std::from_chars.
#pragma once
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/error.hpp"

namespace weft::detail {

inline void split_ws(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0, n = s.size();
  while (i < n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v')) ++i;
    std::size_t j = i;
    while (j < n && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\f' || s[j] == '\v')) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
}

inline bool parse_double(std::string_view s, double& v) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

inline bool parse_ll(std::string_view s, long long& v) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Reads a file line by line, counting lines, and formats "path:LINE: msg" errors.
class LineReader {
 public:
  explicit LineReader(const std::string& path);
  bool next(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  int line_no() const { return line_no_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& msg) const {
    throw InputError(path_ + ":" + std::to_string(line_no_) + ": " + msg);
  }
  [[noreturn]] void fail_at(int line, const std::string& msg) const {
    throw InputError(path_ + ":" + std::to_string(line) + ": " + msg);
  }

 private:
  std::string path_;
  std::ifstream in_;
  int line_no_ = 0;
};

// Throws "PATH: mesh file not found" / "PATH: cannot read mesh file".
void require_readable_file(const std::string& path);

inline LineReader::LineReader(const std::string& path) : path_(path) {
  require_readable_file(path);
  in_.open(path);
  if (!in_) throw InputError(path + ": cannot read mesh file");
}

inline std::string quote(std::string_view s) {
  std::string q = "'";
  q.append(s.substr(0, 40));
  if (s.size() > 40) q += "...";
  return q + "'";
}

}  // namespace weft::detail
