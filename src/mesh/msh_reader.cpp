// read_msh: Gmsh MSH 4.1 ASCII, nodes and 3-node triangles or 4-node tetrahedra.
#include <array>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

#include <Eigen/Geometry>

#include "mesh/readers.hpp"
#include "mesh/text_scan.hpp"

namespace weft {

namespace {

class MshScanner {
 public:
  explicit MshScanner(const std::string& path) : in_(path) {}

  // Next non-blank line, split into tok; false at end of file.
  bool next() {
    while (in_.next(line_)) {
      detail::split_ws(line_, tok);
      if (!tok.empty()) return true;
    }
    return false;
  }
  void need(const char* where) {
    if (!next()) in_.fail(std::string("unexpected end of file in ") + where);
  }
  // The current line must hold at least n integers; returns them.
  void ints(std::size_t n, long long* out, const char* what) {
    if (tok.size() < n) in_.fail(std::string("expected ") + what);
    for (std::size_t k = 0; k < n; ++k)
      if (!detail::parse_ll(tok[k], out[k])) in_.fail("bad integer " + detail::quote(tok[k]) + " in " + what);
  }
  void expect(const char* marker) {
    if (!next()) in_.fail(std::string("unexpected end of file, expected ") + marker);
    if (tok[0] != marker) in_.fail(std::string("expected ") + marker + ", got " + detail::quote(tok[0]));
  }
  [[noreturn]] void fail(const std::string& msg) const { in_.fail(msg); }

  std::vector<std::string_view> tok;

 private:
  detail::LineReader in_;
  std::string line_;
};

}  // namespace

TriMesh read_msh(const std::string& path, MeshUse use) {
  const bool volume = use == MeshUse::volume;
  MshScanner sc(path);
  TriMesh m;
  if (!sc.next()) throw InputError(path + ": empty file, not a Gmsh .msh file");
  if (sc.tok[0] != "$MeshFormat") sc.fail("not a Gmsh .msh file (expected $MeshFormat)");
  sc.need("$MeshFormat");
  if (sc.tok.size() < 3) sc.fail("expected 'version file-type data-size' in $MeshFormat");
  const std::string version(sc.tok[0]);
  if (version != "4.1")
    sc.fail("unsupported MSH version " + version +
            " (weft reads Gmsh MSH 4.1 ASCII; re-export with 'gmsh -format msh41' or Mesh.MshFileVersion = 4.1)");
  if (sc.tok[1] != "0")
    sc.fail("binary MSH files are not supported (re-export as ASCII: Mesh.Binary = 0)");
  sc.expect("$EndMeshFormat");

  std::unordered_map<long long, int> node_index;
  bool have_nodes = false, have_elements = false;
  while (sc.next()) {
    const std::string_view head = sc.tok[0];
    if (head == "$Nodes") {
      if (have_nodes) sc.fail("second $Nodes section");
      have_nodes = true;
      long long h[4];
      sc.need("$Nodes");
      sc.ints(4, h, "'numEntityBlocks numNodes minNodeTag maxNodeTag'");
      const long long blocks = h[0], total = h[1];
      if (blocks < 0 || total < 0 || total > 2'000'000'000LL) sc.fail("bad $Nodes header");
      m.vertices.reserve(static_cast<std::size_t>(total));
      node_index.reserve(static_cast<std::size_t>(total));
      std::vector<long long> tags;
      for (long long b = 0; b < blocks; ++b) {
        long long e[4];
        sc.need("$Nodes");
        sc.ints(4, e, "'entityDim entityTag parametric numNodesInBlock'");
        const long long dim = e[0], parametric = e[2], n = e[3];
        if (n < 0 || static_cast<long long>(m.vertices.size()) + n > total)
          sc.fail("node block has more nodes than the $Nodes header announced");
        const std::size_t ncoord = 3 + (parametric ? static_cast<std::size_t>(dim) : 0);
        tags.resize(static_cast<std::size_t>(n));
        for (long long k = 0; k < n; ++k) {
          sc.need("$Nodes");
          sc.ints(1, &tags[k], "a node tag");
        }
        for (long long k = 0; k < n; ++k) {
          sc.need("$Nodes");
          if (sc.tok.size() < ncoord) sc.fail("expected node coordinates 'x y z'");
          Vec3 p;
          for (int c = 0; c < 3; ++c)
            if (!detail::parse_double(sc.tok[c], p[c])) sc.fail("bad node coordinate " + detail::quote(sc.tok[c]));
          if (!node_index.emplace(tags[k], static_cast<int>(m.vertices.size())).second)
            sc.fail("duplicate node tag " + std::to_string(tags[k]));
          m.vertices.push_back(p);
        }
      }
      if (static_cast<long long>(m.vertices.size()) != total)
        sc.fail("$Nodes header announced " + std::to_string(total) + " nodes, found " +
                std::to_string(m.vertices.size()));
      sc.expect("$EndNodes");
    } else if (head == "$Elements") {
      if (!have_nodes) sc.fail("$Elements before $Nodes");
      if (have_elements) sc.fail("second $Elements section");
      have_elements = true;
      long long h[4];
      sc.need("$Elements");
      sc.ints(4, h, "'numEntityBlocks numElements minElementTag maxElementTag'");
      const long long blocks = h[0];
      if (blocks < 0) sc.fail("bad $Elements header");
      for (long long b = 0; b < blocks; ++b) {
        long long e[4];
        sc.need("$Elements");
        sc.ints(4, e, "'entityDim entityTag elementType numElementsInBlock'");
        const long long type = e[2], n = e[3];
        if (n < 0) sc.fail("bad element count");
        if (volume && type == 11 && n > 0)
          sc.fail("10-node (second-order) tetrahedra are not supported; re-export with first-order elements (Mesh.ElementOrder = 1)");
        for (long long k = 0; k < n; ++k) {
          sc.need("$Elements");
          if (volume && type == 4) {
            long long t[5];
            sc.ints(5, t, "'elementTag node1 node2 node3 node4' for a tetrahedron");
            std::array<int, 4> tet;
            for (int c = 0; c < 4; ++c) {
              auto it = node_index.find(t[1 + c]);
              if (it == node_index.end())
                sc.fail("tetrahedron " + std::to_string(t[0]) + " uses unknown node " + std::to_string(t[1 + c]));
              tet[c] = it->second;
            }
            const Vec3 &a = m.vertices[tet[0]], &b = m.vertices[tet[1]], &c = m.vertices[tet[2]], &d = m.vertices[tet[3]];
            if ((b - a).dot((c - a).cross(d - a)) < 0) std::swap(tet[1], tet[2]);
            m.tets.push_back(tet);
            continue;
          }
          if (volume || type != 2) continue;
          long long t[4];
          sc.ints(4, t, "'elementTag node1 node2 node3' for a triangle");
          Tri f;
          for (int c = 0; c < 3; ++c) {
            auto it = node_index.find(t[1 + c]);
            if (it == node_index.end()) sc.fail("triangle " + std::to_string(t[0]) + " uses unknown node " + std::to_string(t[1 + c]));
            f[c] = it->second;
          }
          m.triangles.push_back(f);
        }
      }
      sc.expect("$EndElements");
    } else if (head.size() > 1 && head[0] == '$' && head.substr(0, 4) != "$End") {
      // Some other section ($Entities, $PhysicalNames, $NodeData, ...): skip it.
      const std::string end = "$End" + std::string(head.substr(1));
      bool closed = false;
      while (sc.next())
        if (sc.tok[0] == end) {
          closed = true;
          break;
        }
      if (!closed) sc.fail("unexpected end of file, expected " + end);
    } else {
      sc.fail("unexpected line outside any section: " + detail::quote(head));
    }
  }
  if (!have_nodes) throw InputError(path + ": no $Nodes section");
  if (volume) {
    if (m.tets.empty()) throw InputError(path + ": no tetrahedra (element type 4) in the .msh file");
  } else if (m.triangles.empty()) {
    throw InputError(path + ": no triangles (element type 2) in the .msh file");
  }
  return m;
}

}  // namespace weft
