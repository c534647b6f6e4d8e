// read_obj: Wavefront OBJ vertices and faces.
#include <string>
#include <vector>

#include "mesh/readers.hpp"
#include "mesh/text_scan.hpp"

namespace weft {

TriMesh read_obj(const std::string& path) {
  detail::LineReader in(path);
  TriMesh m;
  std::string line;
  std::vector<std::string_view> tok;
  std::vector<long long> poly;
  // Positive indices may in principle point past the vertices read so far; check them at
  // the end, remembering the line of the largest one.
  long long max_index = 0;
  int max_index_line = 0;
  while (in.next(line)) {
    std::size_t hash = line.find('#');
    std::string_view s(line);
    if (hash != std::string::npos) s = s.substr(0, hash);
    detail::split_ws(s, tok);
    if (tok.empty()) continue;
    if (tok[0] == "v") {
      if (tok.size() < 4) in.fail("vertex needs 3 coordinates ('v x y z')");
      Vec3 p;
      for (int k = 0; k < 3; ++k)
        if (!detail::parse_double(tok[1 + k], p[k]))
          in.fail("bad vertex coordinate " + detail::quote(tok[1 + k]));
      m.vertices.push_back(p);
    } else if (tok[0] == "f") {
      if (tok.size() < 4) in.fail("face needs at least 3 vertices");
      poly.clear();
      for (std::size_t k = 1; k < tok.size(); ++k) {
        std::string_view c = tok[k];
        c = c.substr(0, c.find('/'));
        long long idx = 0;
        if (!detail::parse_ll(c, idx)) in.fail("bad face index " + detail::quote(tok[k]));
        if (idx == 0) in.fail("face index 0 (OBJ indices start at 1)");
        if (idx < 0) {
          idx += static_cast<long long>(m.vertices.size());
          if (idx < 0) in.fail("face index " + std::string(c) + " points before the first vertex");
        } else {
          idx -= 1;
          if (idx >= max_index) {
            max_index = idx;
            max_index_line = in.line_no();
          }
        }
        if (idx > 2'000'000'000LL) in.fail("face index " + std::string(c) + " is too large");
        poly.push_back(idx);
      }
      for (std::size_t k = 1; k + 1 < poly.size(); ++k)
        m.triangles.push_back({static_cast<int>(poly[0]), static_cast<int>(poly[k]),
                               static_cast<int>(poly[k + 1])});
    }
  }
  if (!m.triangles.empty() && max_index >= static_cast<long long>(m.vertices.size()))
    in.fail_at(max_index_line, "face index " + std::to_string(max_index + 1) + " is out of range (the file has " +
                                   std::to_string(m.vertices.size()) + " vertices)");
  if (m.triangles.empty()) throw InputError(path + ": no faces ('f' lines) in the OBJ file");
  return m;
}

}  // namespace weft
