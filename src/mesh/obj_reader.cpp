// read_obj: Wavefront OBJ vertices, faces and polylines.
#include <cmath>
#include <string>
#include <vector>

#include "mesh/mesh_utils.hpp"
#include "mesh/readers.hpp"
#include "mesh/text_scan.hpp"

namespace weft {

TriMesh read_obj(const std::string& path, MeshUse use) {
  detail::LineReader in(path);
  TriMesh m;
  std::string line;
  std::vector<std::string_view> tok;
  std::vector<long long> poly;
  // Positive indices may in principle point past the vertices read so far; check them at
  // the end, remembering the line of the largest one.
  long long max_index = 0;
  int max_index_line = 0;
  const char* max_index_what = "face";
  // Texture coordinates: 'vt u v' lines, referenced by face corners 'i/t' or 'i/t/n'.
  std::vector<Vec2> vts;
  std::vector<long long> tpoly;
  bool every_face_textured = true;
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
    } else if (tok[0] == "vt") {
      if (tok.size() < 3) in.fail("texture coordinate needs u and v ('vt u v')");
      Vec2 uv;
      for (int k = 0; k < 2; ++k)
        if (!detail::parse_double(tok[1 + k], uv[k]) || !std::isfinite(uv[k]))
          in.fail("bad texture coordinate " + detail::quote(tok[1 + k]));
      vts.push_back(uv);
    } else if (tok[0] == "f" || (tok[0] == "l" && use != MeshUse::surface)) {
      const bool face = tok[0] == "f";
      const char* what = face ? "face" : "line";
      if (face && tok.size() < 4) in.fail("face needs at least 3 vertices");
      if (!face && tok.size() < 3) in.fail("line needs at least 2 vertices ('l a b ...')");
      poly.clear();
      tpoly.clear();
      for (std::size_t k = 1; k < tok.size(); ++k) {
        std::string_view c = tok[k];
        c = c.substr(0, c.find('/'));
        long long idx = 0;
        if (!detail::parse_ll(c, idx)) in.fail(std::string("bad ") + what + " index " + detail::quote(tok[k]));
        if (idx == 0) in.fail(std::string(what) + " index 0 (OBJ indices start at 1)");
        if (idx < 0) {
          idx += static_cast<long long>(m.vertices.size());
          if (idx < 0) in.fail(std::string(what) + " index " + std::string(c) + " points before the first vertex");
        } else {
          idx -= 1;
          if (idx >= max_index) {
            max_index = idx;
            max_index_line = in.line_no();
            max_index_what = what;
          }
        }
        if (idx > 2'000'000'000LL) in.fail(std::string(what) + " index " + std::string(c) + " is too large");
        poly.push_back(idx);
        if (face) {
          const std::string_view tc = tok[k];
          // The corner's texture index (i/t or i/t/n): 1-based, negative from the last 'vt'.
          const std::size_t s1 = tc.find('/');
          const std::string_view t = s1 == std::string_view::npos ? std::string_view() : tc.substr(s1 + 1, tc.find('/', s1 + 1) - s1 - 1);
          long long ti = 0;
          if (t.empty()) {
            every_face_textured = false;
          } else {
            if (!detail::parse_ll(t, ti) || ti == 0) in.fail("bad texture index " + detail::quote(tok[k]));
            ti = ti < 0 ? ti + static_cast<long long>(vts.size()) : ti - 1;
            if (ti < 0 || ti >= static_cast<long long>(vts.size()))
              in.fail("texture index in " + detail::quote(tok[k]) + " is out of range (" + std::to_string(vts.size()) +
                      " 'vt' lines so far)");
            tpoly.push_back(ti);
          }
        }
      }
      if (face) {
        for (std::size_t k = 1; k + 1 < poly.size(); ++k) {
          m.triangles.push_back({static_cast<int>(poly[0]), static_cast<int>(poly[k]),
                                 static_cast<int>(poly[k + 1])});
          if (tpoly.size() == poly.size()) m.triangle_uv.push_back({vts[tpoly[0]], vts[tpoly[k]], vts[tpoly[k + 1]]});
        }
      } else {
        for (std::size_t k = 0; k + 1 < poly.size(); ++k)
          m.segments.push_back({static_cast<int>(poly[k]), static_cast<int>(poly[k + 1])});
      }
    }
  }
  if ((!m.triangles.empty() || !m.segments.empty()) && max_index >= static_cast<long long>(m.vertices.size()))
    in.fail_at(max_index_line, std::string(max_index_what) + " index " + std::to_string(max_index + 1) +
                                   " is out of range (the file has " + std::to_string(m.vertices.size()) +
                                   " vertices)");
  if (!every_face_textured || m.triangle_uv.size() != m.triangles.size()) m.triangle_uv.clear();
  drop_segments_on_triangles(m);
  switch (use) {
    case MeshUse::surface:
      if (m.triangles.empty()) throw InputError(path + ": no faces ('f' lines) in the OBJ file");
      break;
    case MeshUse::rods:
      if (m.segments.empty()) {
        if (m.vertices.empty()) throw InputError(path + ": no vertices ('v' lines) in the OBJ file");
        throw InputError(path + ": no lines ('l' lines that are not edges of faces) in the OBJ file");
      }
      break;
    case MeshUse::particles:
      if (m.vertices.empty()) throw InputError(path + ": no vertices ('v' lines) in the OBJ file");
      break;
    case MeshUse::volume:
      throw InputError(path + ": an OBJ file holds no tetrahedra; give a volume as a Gmsh .msh file");
  }
  return m;
}

}  // namespace weft
