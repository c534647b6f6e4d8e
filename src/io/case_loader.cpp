#include "io/case_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "core/error.hpp"
#include "io/case_overrides.hpp"
#include "io/case_schema.hpp"
#include "mesh/build_object_mesh.hpp"
#include "mesh/generators.hpp"
#include "mesh/readers.hpp"

namespace weft {

namespace {

namespace cs = case_schema;
namespace fs = std::filesystem;
using Words = std::vector<std::string>;

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar: {
      std::string s = n.Scalar();
      if (s.size() > 40) s = s.substr(0, 40) + "...";
      return "'" + s + "'";
    }
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

bool contains(const Words& w, const std::string& s) {
  for (const std::string& x : w)
    if (x == s) return true;
  return false;
}

// The file name for messages plus the key paths that --set changed.
struct Ctx {
  std::string file;
  std::vector<std::pair<std::string, std::string>> overridden;  // (normalised path, assignment)

  std::string origin(const std::string& path) const {
    for (auto it = overridden.rbegin(); it != overridden.rend(); ++it) {
      const std::string& p = it->first;
      if (path == p || (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
                        (path[p.size()] == '.' || path[p.size()] == '[')))
        return " (from --set " + it->second + ")";
    }
    return "";
  }
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const {
    throw InputError(file + ": " + (path.empty() ? "" : path + ": ") + msg + origin(path));
  }
  [[noreturn]] void fail_plain(const std::string& msg, const std::string& path = "") const {
    throw InputError(file + ": " + msg + origin(path));
  }
  [[noreturn]] void range(const std::string& path, const std::string& expected, double got) const {
    fail(path, "must be " + expected + " (got " + fmt(got) + ")");
  }
};

double to_number(const Ctx& c, const YAML::Node& n, const std::string& path) {
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v)) c.fail(path, "expected a number, got " + describe(n));
  if (!std::isfinite(v)) c.fail(path, "expected a finite number, got " + describe(n));
  return v;
}

long long to_integer(const Ctx& c, const YAML::Node& n, const std::string& path) {
  long long v = 0;
  if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v))
    c.fail(path, "expected an integer, got " + describe(n));
  return v;
}

int to_int(const Ctx& c, const YAML::Node& n, const std::string& path, long long lo, long long hi,
           const std::string& expected) {
  long long v = to_integer(c, n, path);
  if (v < lo || v > hi) c.fail(path, "must be " + expected + " (got " + std::to_string(v) + ")");
  return static_cast<int>(v);
}

std::string to_text(const Ctx& c, const YAML::Node& n, const std::string& path) {
  if (!n.IsScalar()) c.fail(path, "expected a string, got " + describe(n));
  return n.Scalar();
}

bool to_bool(const Ctx& c, const YAML::Node& n, const std::string& path) {
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) c.fail(path, "expected true or false, got " + describe(n));
  return v;
}

std::vector<double> to_numbers(const Ctx& c, const YAML::Node& n, const std::string& path, std::size_t count,
                               const std::string& expected) {
  if (!n.IsSequence() || n.size() != count) c.fail(path, "expected " + expected + ", got " + describe(n) +
                                                       (n.IsSequence() ? " of " + std::to_string(n.size()) : ""));
  std::vector<double> v;
  for (std::size_t i = 0; i < count; ++i) v.push_back(to_number(c, n[i], cs::item(path, i)));
  return v;
}

Vec3 to_vec3(const Ctx& c, const YAML::Node& n, const std::string& path) {
  std::vector<double> v = to_numbers(c, n, path, 3, "a list of 3 numbers [x, y, z]");
  return Vec3(v[0], v[1], v[2]);
}

std::string to_choice(const Ctx& c, const YAML::Node& n, const std::string& path, const Words& choices) {
  std::string s = to_text(c, n, path);
  if (!contains(choices, s)) c.fail(path, "expected one of: " + cs::join(choices) + " (got '" + s + "')");
  return s;
}

// A mapping in the case, checked against the schema on construction. Absent and null
// mappings read as empty.
class MapNode {
 public:
  MapNode(const Ctx& c, const YAML::Node& n, std::string path) : c_(c), n_(n), path_(std::move(path)) {
    if (!n_.IsDefined() || n_.IsNull()) {
      empty_ = true;
      return;
    }
    if (!n_.IsMap()) c_.fail(path_, "expected a mapping {key: value, ...}, got " + describe(n_));
    const Words* allowed = cs::keys(cs::pattern_of(path_));
    std::set<std::string> seen;
    for (auto it = n_.begin(); it != n_.end(); ++it) {
      if (!it->first.IsScalar())
        c_.fail(path_, "keys must be plain words, got " + describe(it->first));
      const std::string k = it->first.Scalar();
      if (allowed && !contains(*allowed, k))
        c_.fail_plain("unknown key '" + cs::child(path_, k) + "' (expected one of: " + cs::join(*allowed) + ")",
                      cs::child(path_, k));
      if (!seen.insert(k).second) c_.fail(cs::child(path_, k), "duplicate key");
    }
  }

  bool has(const std::string& k) const { return !empty_ && n_[k].IsDefined(); }
  YAML::Node get(const std::string& k) const { return empty_ ? YAML::Node() : n_[k]; }
  std::string at(const std::string& k) const { return cs::child(path_, k); }
  const std::string& path() const { return path_; }
  Words present() const {
    Words w;
    if (!empty_)
      for (auto it = n_.begin(); it != n_.end(); ++it) w.push_back(it->first.Scalar());
    return w;
  }
  MapNode map(const std::string& k) const { return MapNode(c_, get(k), at(k)); }

  double number(const std::string& k, double def) const { return has(k) ? to_number(c_, get(k), at(k)) : def; }
  std::string text(const std::string& k, const std::string& def) const {
    return has(k) ? to_text(c_, get(k), at(k)) : def;
  }
  Vec3 vec3(const std::string& k, const Vec3& def) const { return has(k) ? to_vec3(c_, get(k), at(k)) : def; }

  // number(k) with a range check; `ok` says whether v is acceptable, `expected` describes it.
  template <class Ok>
  double number(const std::string& k, double def, Ok ok, const std::string& expected) const {
    double v = number(k, def);
    if (has(k) && !ok(v)) c_.range(at(k), expected, v);
    return v;
  }
  int integer(const std::string& k, int def, long long lo, long long hi, const std::string& expected) const {
    return has(k) ? to_int(c_, get(k), at(k), lo, hi, expected) : def;
  }

 private:
  const Ctx& c_;
  YAML::Node n_;
  std::string path_;
  bool empty_ = false;
};

auto positive = [](double v) { return v > 0; };
auto non_negative = [](double v) { return v >= 0; };
constexpr long long kIntMax = std::numeric_limits<int>::max();

// Keys of `m` must all be in `allowed`; otherwise "is not used by ...".
void only_keys(const Ctx& c, const MapNode& m, const Words& allowed, const std::string& by, const Words& takes) {
  for (const std::string& k : m.present())
    if (!contains(allowed, k)) c.fail(m.at(k), "is not used by " + by + " (it takes: " + cs::join(takes) + ")");
}

MotionSpec parse_motion(const Ctx& c, const MapNode& m) {
  MotionSpec mo;
  MapNode tr = m.map("translate");
  mo.velocity = tr.vec3("velocity", mo.velocity);
  MapNode ro = m.map("rotate");
  mo.rotate_axis = ro.vec3("axis", mo.rotate_axis);
  if (!(mo.rotate_axis.norm() > 0)) c.fail(ro.at("axis"), "must be a non-zero vector");
  mo.rotate_axis.normalize();
  mo.rotate_center = ro.vec3("center", mo.rotate_center);
  mo.deg_per_s = ro.number("deg_per_s", mo.deg_per_s);
  mo.start = m.number("start", mo.start, non_negative, ">= 0 (seconds)");
  mo.until = m.number("until", mo.until);
  if (m.has("until") && !(mo.until > mo.start))
    c.fail(m.at("until"), "must be > start (" + fmt(mo.start) + " s) (got " + fmt(mo.until) + ")");
  return mo;
}

// resolution as [a, b] (or a single number for both when `single_ok`).
std::array<int, 2> parse_pair(const Ctx& c, const MapNode& m, const std::string& k, std::array<int, 2> def,
                              bool single_ok, const std::array<int, 2>& lo, const std::string& what) {
  if (!m.has(k)) return def;
  const YAML::Node n = m.get(k);
  const std::string path = m.at(k);
  if (single_ok && n.IsScalar()) {
    int v = to_int(c, n, path, std::max(lo[0], lo[1]), kIntMax, ">= " + std::to_string(std::max(lo[0], lo[1])));
    return {v, v};
  }
  if (!n.IsSequence() || n.size() != 2)
    c.fail(path, "expected " + what + ", got " + describe(n) + (n.IsSequence() ? " of " + std::to_string(n.size()) : ""));
  std::array<int, 2> r;
  for (int i = 0; i < 2; ++i)
    r[i] = to_int(c, n[i], cs::item(path, i), lo[i], kIntMax, ">= " + std::to_string(lo[i]));
  return r;
}

bool mesh_format_supported_for(const std::string& path, ObjectKind kind) {
  std::string ext = fs::path(path).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return kind == ObjectKind::Volume ? ext == ".msh" : ext == ".obj";
}

// The generators each kind takes (a shell or an obstacle is a surface).
Words generators_of(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::Rod:
      return {"line", "polyline", "helix", "rod_net"};
    case ObjectKind::Particles:
      return {"particle_block"};
    case ObjectKind::Volume:
      return {"box", "sphere"};
    default:
      return {"grid", "disk", "sphere", "box", "cylinder", "funnel", "bowl"};
  }
}

std::string kind_word(ObjectKind k) { return std::string("kind '") + to_string(k) + "'"; }

void only_generator_keys(const Ctx& c, const MapNode& m, const std::string& by, const Words& takes) {
  Words allowed = takes;
  allowed.push_back("generator");
  only_keys(c, m, allowed, by, takes);
}

// ---- Volumes (kind: volume, issue 19) ----

// Tet generators: box {size: [x, y, z], resolution: [nx, ny, nz]} (lattice points per
// axis, each >= 2; default [2, 2, 2]: 5 tets) and sphere {radius, resolution: n} (about n
// points along a diameter, >= 2; default 8).
MeshSpec parse_volume_generator(const Ctx& c, const MapNode& m, MeshSpec ms, const std::string& by) {
  if (ms.generator == "box") {
    only_generator_keys(c, m, by + " of kind 'volume'", {"size", "resolution"});
    ms.size = m.vec3("size", Vec3(1, 1, 1));
    for (int i = 0; i < 3; ++i)
      if (!(ms.size[i] > 0)) c.range(cs::item(m.at("size"), i), "> 0", ms.size[i]);
    ms.block = {2, 2, 2};
    if (m.has("resolution")) {
      const YAML::Node n = m.get("resolution");
      if (!n.IsSequence() || n.size() != 3)
        c.fail(m.at("resolution"), "expected [nx, ny, nz] (lattice points along x, y, z, each >= 2), got " +
                                       describe(n) + (n.IsSequence() ? " of " + std::to_string(n.size()) : ""));
      for (int i = 0; i < 3; ++i) ms.block[i] = to_int(c, n[i], cs::item(m.at("resolution"), i), 2, 100000, "in [2, 100000]");
    }
  } else {  // sphere
    only_generator_keys(c, m, by + " of kind 'volume'", {"radius", "resolution"});
    ms.radius = m.number("radius", ms.radius, positive, "> 0");
    ms.resolution = {m.integer("resolution", 8, 2, 10000, "in [2, 10000] (points along a diameter)"), 0};
  }
  return ms;
}

// Volume materials: {model: fixed_corotated | neo_hookean (default), density, youngs,
// poisson, vertex_mass}.
MaterialSpec parse_volume_material(const Ctx& c, const MapNode& m) {
  MaterialSpec mat;
  const Words takes = {"model", "density", "youngs", "poisson", "vertex_mass"};
  only_keys(c, m, takes, "kind 'volume'", takes);
  if (m.has("model")) mat.model = to_choice(c, m.get("model"), m.at("model"), {"fixed_corotated", "neo_hookean"});
  mat.density = m.number("density", mat.density, positive, "> 0 (kg/m^3)");
  mat.youngs = m.number("youngs", mat.youngs, positive, "> 0 (Pa)");
  mat.poisson = m.number("poisson", mat.poisson, [](double v) { return v > -1 && v < 0.5; }, "in (-1, 0.5)");
  mat.vertex_mass = m.number("vertex_mass", 0.0, positive, "> 0 (kg per vertex)");
  return mat;
}

MeshSpec parse_mesh(const Ctx& c, const MapNode& m, const std::string& case_dir, ObjectKind kind) {
  MeshSpec ms;
  const bool gen = m.has("generator"), file = m.has("file");
  const Words gens = generators_of(kind);
  if (gen && file) c.fail(m.path(), "give either 'generator' or 'file', not both");
  if (!gen && !file)
    c.fail(m.path(), "needs 'generator' (" + cs::join(gens) + ") or 'file' (" +
                         (kind == ObjectKind::Rod || kind == ObjectKind::Particles ? ".obj"
                          : kind == ObjectKind::Volume                             ? ".msh"
                                                                                   : ".obj, .msh") +
                         ")");
  if (file) {
    only_keys(c, m, {"file"}, "a mesh file", {"file"});
    std::string f = to_text(c, m.get("file"), m.at("file"));
    if (f.empty()) c.fail(m.at("file"), "must not be empty");
    fs::path p(f);
    if (p.is_relative()) p = fs::path(case_dir) / p;
    std::error_code ec;
    fs::path abs = fs::absolute(p, ec);
    if (!ec) p = abs;
    p = p.lexically_normal();
    const auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) c.fail(m.at("file"), "mesh file not found: '" + p.string() + "'");
    if (fs::is_directory(st)) c.fail(m.at("file"), "is a directory, not a mesh file: '" + p.string() + "'");
    if (!mesh_format_supported(p.string()))
      c.fail(m.at("file"), "unsupported mesh format '" + p.extension().string() + "' (expected .obj or .msh)");
    if ((kind == ObjectKind::Rod || kind == ObjectKind::Particles) && !mesh_format_supported_for(p.string(), kind))
      c.fail(m.at("file"), kind_word(kind) + " reads .obj files only ('" + (kind == ObjectKind::Rod ? "l" : "v") +
                               "' lines), got '" + p.extension().string() + "'");
    if (kind == ObjectKind::Volume && !mesh_format_supported_for(p.string(), kind))
      c.fail(m.at("file"), "kind 'volume' reads Gmsh .msh files only (4-node tetrahedra), got '" +
                               p.extension().string() + "'");
    ms.file = p.string();
    return ms;
  }
  ms.generator = to_text(c, m.get("generator"), m.at("generator"));
  if (!contains(gens, ms.generator)) {
    Words all = generators_of(ObjectKind::Shell), rods = generators_of(ObjectKind::Rod);
    all.insert(all.end(), rods.begin(), rods.end());
    all.push_back("particle_block");
    if (contains(all, ms.generator))
      c.fail(m.at("generator"), "'" + ms.generator + "' is not a generator for " + kind_word(kind) +
                                    " (it takes: " + cs::join(gens) + ")");
    c.fail(m.at("generator"), "expected one of: " + cs::join(gens) + " (got '" + ms.generator + "')");
  }
  const std::string by = "generator '" + ms.generator + "'";
  if (kind == ObjectKind::Volume) return parse_volume_generator(c, m, ms, by);
  auto radius = [&] { ms.radius = m.number("radius", ms.radius, positive, "> 0"); };
  auto segments = [&](int def) { ms.segments = m.integer("segments", def, 1, kIntMax, ">= 1"); };
  if (ms.generator == "line") {
    only_generator_keys(c, m, by, {"length", "segments"});
    ms.length = m.number("length", 1.0, positive, "> 0 (m)");
    segments(16);
  } else if (ms.generator == "polyline") {
    only_generator_keys(c, m, by, {"points"});
    if (!m.has("points")) c.fail_plain("missing required key '" + m.at("points") + "' ([[x, y, z], ...], at least 2)");
    const YAML::Node p = m.get("points");
    if (!p.IsSequence() || p.size() < 2)
      c.fail(m.at("points"), "expected a list of at least 2 points [[x, y, z], ...], got " + describe(p) +
                                 (p.IsSequence() ? " of " + std::to_string(p.size()) : ""));
    for (std::size_t i = 0; i < p.size(); ++i) ms.points.push_back(to_vec3(c, p[i], cs::item(m.at("points"), i)));
  } else if (ms.generator == "helix") {
    only_generator_keys(c, m, by, {"radius", "pitch", "turns", "segments"});
    radius();
    ms.pitch = m.number("pitch", ms.pitch, positive, "> 0 (m per turn)");
    ms.turns = m.number("turns", ms.turns, positive, "> 0");
    segments(64);
  } else if (ms.generator == "rod_net") {
    only_generator_keys(c, m, by, {"size", "resolution", "subdivisions"});
    if (m.has("size")) {
      std::vector<double> v = to_numbers(c, m.get("size"), m.at("size"), 2, "[size_x, size_z]");
      for (int i = 0; i < 2; ++i)
        if (!(v[i] > 0)) c.range(cs::item(m.at("size"), i), "> 0", v[i]);
      ms.size = Vec3(v[0], v[1], 0);
    } else {
      ms.size = Vec3(1, 1, 0);
    }
    ms.resolution = parse_pair(c, m, "resolution", {5, 5}, false, {2, 2}, "[rods along x, rods along z]");
    ms.subdivisions = m.integer("subdivisions", 1, 1, kIntMax, ">= 1 (segments between two crossings)");
  } else if (ms.generator == "particle_block") {
    only_generator_keys(c, m, by, {"size", "resolution", "jitter", "seed"});
    ms.size = m.vec3("size", Vec3(1, 1, 1));
    for (int i = 0; i < 3; ++i)
      if (!(ms.size[i] > 0)) c.range(cs::item(m.at("size"), i), "> 0", ms.size[i]);
    if (m.has("resolution")) {
      const YAML::Node n = m.get("resolution");
      if (!n.IsSequence() || n.size() != 3)
        c.fail(m.at("resolution"), "expected [nx, ny, nz] (particles along x, y, z), got " + describe(n) +
                                       (n.IsSequence() ? " of " + std::to_string(n.size()) : ""));
      for (int i = 0; i < 3; ++i) ms.block[i] = to_int(c, n[i], cs::item(m.at("resolution"), i), 1, kIntMax, ">= 1");
    }
    ms.jitter = m.number("jitter", 0.0, [](double v) { return v >= 0 && v <= 0.4; }, "in [0, 0.4]");
    if (m.has("seed")) {
      long long sd = to_integer(c, m.get("seed"), m.at("seed"));
      if (sd < 0 || sd > 4294967295LL) c.fail(m.at("seed"), "must be in [0, 4294967295] (got " + std::to_string(sd) + ")");
      ms.seed = static_cast<unsigned>(sd);
    }
  } else if (ms.generator == "bowl") {
    only_generator_keys(c, m, by, {"radius", "resolution"});
    radius();
    ms.resolution = parse_pair(c, m, "resolution", {32, 8}, false, {3, 1}, "[segments around, rings]");
  } else if (ms.generator == "grid") {
    const Words takes = {"size", "resolution", "jitter", "seed"};
    Words allowed = takes;
    allowed.push_back("generator");
    only_keys(c, m, allowed, by, takes);
    if (m.has("size")) {
      const YAML::Node n = m.get("size");
      if (n.IsScalar()) {
        double s = to_number(c, n, m.at("size"));
        if (!(s > 0)) c.range(m.at("size"), "> 0", s);
        ms.size = Vec3(s, s, 0);
      } else {
        std::vector<double> v = to_numbers(c, n, m.at("size"), 2, "[size_x, size_z] (or one number)");
        for (int i = 0; i < 2; ++i)
          if (!(v[i] > 0)) c.range(cs::item(m.at("size"), i), "> 0", v[i]);
        ms.size = Vec3(v[0], v[1], 0);
      }
    } else {
      ms.size = Vec3(1, 1, 0);
    }
    ms.resolution = parse_pair(c, m, "resolution", {16, 16}, true, {2, 2},
                               "[vertices along x, vertices along z] (or one number)");
    ms.jitter = m.number("jitter", 0.0, [](double v) { return v >= 0 && v <= 0.4; }, "in [0, 0.4]");
    if (m.has("seed")) {
      long long s = to_integer(c, m.get("seed"), m.at("seed"));
      if (s < 0 || s > 4294967295LL) c.fail(m.at("seed"), "must be in [0, 4294967295] (got " + std::to_string(s) + ")");
      ms.seed = static_cast<unsigned>(s);
    }
  } else if (ms.generator == "disk") {
    const Words takes = {"radius", "resolution"};
    only_keys(c, m, {"generator", "radius", "resolution"}, by, takes);
    radius();
    ms.resolution = parse_pair(c, m, "resolution", {48, 8}, false, {3, 1}, "[segments on the rim, rings]");
    const int need = disk_min_segments(ms.resolution[1]);
    if (ms.resolution[0] < need)
      c.fail(cs::item(m.at("resolution"), 0), "must be >= " + std::to_string(need) + " for " +
                                                  std::to_string(ms.resolution[1]) + " rings (got " +
                                                  std::to_string(ms.resolution[0]) + "); 6 * rings is a good choice");
  } else if (ms.generator == "sphere") {
    const Words takes = {"radius", "subdivisions"};
    only_keys(c, m, {"generator", "radius", "subdivisions"}, by, takes);
    radius();
    ms.subdivisions = m.integer("subdivisions", 3, 0, 8, "in [0, 8]");
  } else if (ms.generator == "box") {
    const Words takes = {"size", "resolution"};
    only_keys(c, m, {"generator", "size", "resolution"}, by, takes);
    ms.size = m.vec3("size", Vec3(1, 1, 1));
    for (int i = 0; i < 3; ++i)
      if (!(ms.size[i] > 0)) c.range(cs::item(m.at("size"), i), "> 0", ms.size[i]);
    const int r = m.integer("resolution", 2, 2, kIntMax, ">= 2 (vertices along the longest edge)");
    ms.resolution = {r, r};
  } else if (ms.generator == "funnel") {
    const Words takes = {"top_radius", "bottom_radius", "height", "resolution"};
    only_keys(c, m, {"generator", "top_radius", "bottom_radius", "height", "resolution"}, by, takes);
    ms.top_radius = m.number("top_radius", ms.top_radius, positive, "> 0");
    ms.bottom_radius = m.number("bottom_radius", ms.bottom_radius, positive, "> 0");
    ms.height = m.number("height", ms.height, positive, "> 0");
    // Default: 32 around, and rings spaced like the top rim's edges along the slant.
    const int seg = 32;
    const double edge = 2 * 3.14159265358979323846 * std::max(ms.top_radius, ms.bottom_radius) / seg;
    const double slant = std::hypot(ms.height, ms.top_radius - ms.bottom_radius);
    const long long rings = std::max(2LL, std::llround(std::min(slant / edge, 1e6)) + 1);
    ms.resolution = parse_pair(c, m, "resolution", {seg, static_cast<int>(rings)}, false, {3, 2},
                               "[segments around, rings along the axis]");
  } else {  // cylinder
    const Words takes = {"radius", "height", "resolution", "capped"};
    only_keys(c, m, {"generator", "radius", "height", "resolution", "capped"}, by, takes);
    radius();
    ms.height = m.number("height", ms.height, positive, "> 0");
    ms.capped = m.has("capped") ? to_bool(c, m.get("capped"), m.at("capped")) : true;
    const int seg = 32;
    const double edge = 2 * 3.14159265358979323846 * ms.radius / seg;
    const long long rings = std::max(2LL, std::llround(std::min(ms.height / edge, 1e6)) + 1);
    ms.resolution = parse_pair(c, m, "resolution", {seg, static_cast<int>(rings)}, false, {3, 2},
                               "[segments around, rings along the axis]");
  }
  return ms;
}

TransformSpec parse_transform(const Ctx& c, const MapNode& m) {
  TransformSpec t;
  t.translate = m.vec3("translate", t.translate);
  if (m.has("rotate")) {
    std::vector<double> r = to_numbers(c, m.get("rotate"), m.at("rotate"), 4, "[degrees, axis_x, axis_y, axis_z]");
    t.rotate_deg = r[0];
    t.rotate_axis = Vec3(r[1], r[2], r[3]);
    if (t.rotate_deg != 0 && !(t.rotate_axis.norm() > 0)) c.fail(m.at("rotate"), "the rotation axis must be non-zero");
  }
  t.scale = m.number("scale", t.scale, positive, "> 0");
  return t;
}

// ---- Orthotropic shells (material.model: orthotropic, C-IPC sec. 4.2, issue 19) ----

// {model: orthotropic, density, thickness, a11, a22, a12, g12, poisson, bending_youngs,
// vertex_mass}: eq. 8's moduli in Pa (a11, a22, g12 required, > 0; a12 default 0 with
// a11 a22 > a12^2, so the quadratic form is positive definite). Hinge bending takes
// bending_youngs (default sqrt(a11 a22)) and poisson (default 0.243, bending only).
MaterialSpec parse_orthotropic_material(const Ctx& c, const MapNode& m, const std::string& object_path) {
  MaterialSpec mat;
  const Words takes = {"model", "density", "thickness", "a11", "a22", "a12", "g12", "poisson", "bending_youngs",
                       "vertex_mass"};
  only_keys(c, m, takes, "material.model 'orthotropic'", takes);
  mat.model = "orthotropic";
  const std::string mp = cs::child(object_path, "material");
  for (const char* k : {"a11", "a22", "g12"})
    if (!m.has(k))
      c.fail_plain("missing required key '" + cs::child(mp, k) + "' (material.model 'orthotropic': eq. 8's modulus in Pa)");
  mat.a11 = m.number("a11", 0.0, positive, "> 0 (Pa)");
  mat.a22 = m.number("a22", 0.0, positive, "> 0 (Pa)");
  mat.g12 = m.number("g12", 0.0, positive, "> 0 (Pa)");
  mat.a12 = m.number("a12", 0.0);
  if (!(mat.a11 * mat.a22 > mat.a12 * mat.a12))
    c.fail(m.at("a12"), "must satisfy a12^2 < a11 a22 = " + fmt(mat.a11 * mat.a22) + " (got " + fmt(mat.a12) + ")");
  mat.density = m.number("density", mat.density, positive, "> 0 (kg/m^3)");
  mat.thickness = m.number("thickness", mat.thickness, positive, "> 0 (m)");
  mat.poisson = m.number("poisson", mat.poisson, [](double v) { return v > -1 && v < 0.5; }, "in (-1, 0.5)");
  mat.youngs = std::sqrt(mat.a11 * mat.a22);  // what bending_youngs defaults to
  mat.bending_youngs = m.number("bending_youngs", mat.bending_youngs, non_negative, ">= 0 (Pa; 0 disables bending)");
  mat.vertex_mass = m.number("vertex_mass", 0.0, positive, "> 0 (kg per vertex)");
  return mat;
}

// strain_limit of an orthotropic shell: {warp, weft (stretch ratios > 1), shear (|E12| > 0),
// warp_direction (a non-zero world axis, default +x)}; at least one limit. 'max' and
// 'threshold' are the isotropic limit's and are refused beside them.
AnisoLimitSpec parse_aniso_limit(const Ctx& c, const MapNode& sl) {
  AnisoLimitSpec a;
  for (const char* k : {"max", "threshold"})
    if (sl.has(k))
      c.fail(sl.at(k), "is the isotropic limit; material.model 'orthotropic' takes warp, weft, shear and "
                       "warp_direction (the two are exclusive)");
  if (!sl.has("warp") && !sl.has("weft") && !sl.has("shear"))
    c.fail(sl.path(), "needs at least one of warp, weft (stretch ratios > 1) or shear (> 0)");
  auto ratio = [](double v) { return v > 1; };
  a.warp = sl.number("warp", 0.0, ratio, "> 1 (a stretch ratio along warp; 1.02 allows 2%)");
  a.weft = sl.number("weft", 0.0, ratio, "> 1 (a stretch ratio along weft; 1.05 allows 5%)");
  a.shear = sl.number("shear", 0.0, positive, "> 0 (the largest |E12|)");
  a.warp_direction = sl.vec3("warp_direction", Vec3::UnitX());
  a.warp_given = sl.has("warp_direction");
  if (!(a.warp_direction.norm() > 0)) c.fail(sl.at("warp_direction"), "must be a non-zero vector");
  return a;
}

MaterialSpec parse_material(const Ctx& c, const MapNode& m, ObjectKind kind, const std::string& object_path) {
  if (kind == ObjectKind::Volume) return parse_volume_material(c, m);
  if (kind == ObjectKind::Shell && m.has("model") && m.get("model").IsScalar() &&
      m.get("model").Scalar() == "orthotropic")
    return parse_orthotropic_material(c, m, object_path);
  MaterialSpec mat;
  Words takes;
  if (kind == ObjectKind::Rod)
    takes = {"density", "youngs", "radius", "bending_youngs", "vertex_mass"};
  else if (kind == ObjectKind::Particles)
    takes = {"density", "radius", "vertex_mass"};
  else
    takes = {"model", "density", "youngs", "poisson", "thickness", "bending_youngs", "vertex_mass"};
  only_keys(c, m, takes, kind_word(kind), takes);
  if (kind == ObjectKind::Rod || kind == ObjectKind::Particles) {
    if (!m.has("radius"))
      c.fail_plain("missing required key '" + cs::child(cs::child(object_path, "material"), "radius") + "' (" +
                   kind_word(kind) + ": the cross-section radius in m, e.g. 0.001)");
    mat.radius = m.number("radius", 0.0, positive, "> 0 (m)");
  }
  mat.vertex_mass = m.number("vertex_mass", 0.0, positive, "> 0 (kg per vertex)");
  if (m.has("model"))
    mat.model = to_choice(c, m.get("model"), m.at("model"),
                          kind == ObjectKind::Shell ? Words{"neo_hookean", "stvk", "orthotropic"}
                                                    : Words{"neo_hookean", "stvk"});
  mat.density = m.number("density", mat.density, positive, "> 0 (kg/m^3)");
  mat.youngs = m.number("youngs", mat.youngs, positive, "> 0 (Pa)");
  mat.poisson = m.number("poisson", mat.poisson, [](double v) { return v > -1 && v < 0.5; }, "in (-1, 0.5)");
  mat.thickness = m.number("thickness", mat.thickness, positive, "> 0 (m)");
  mat.bending_youngs = m.number("bending_youngs", mat.bending_youngs, non_negative, ">= 0 (Pa; 0 disables bending)");
  return mat;
}

PinSpec parse_pin(const Ctx& c, const MapNode& m) {
  PinSpec p;
  if (!m.has("box")) c.fail(m.path(), "missing required key 'box' ([[min_x, min_y, min_z], [max_x, max_y, max_z]])");
  const YAML::Node b = m.get("box");
  const std::string bp = m.at("box");
  if (!b.IsSequence() || b.size() != 2)
    c.fail(bp, "expected [[min_x, min_y, min_z], [max_x, max_y, max_z]], got " + describe(b) +
                   (b.IsSequence() ? " of " + std::to_string(b.size()) : ""));
  p.box_min = to_vec3(c, b[0], cs::item(bp, 0));
  p.box_max = to_vec3(c, b[1], cs::item(bp, 1));
  for (int i = 0; i < 3; ++i)
    if (p.box_min[i] > p.box_max[i])
      c.fail(bp, "min must be <= max in every coordinate (coordinate " + std::to_string(i) + ": " +
                     fmt(p.box_min[i]) + " > " + fmt(p.box_max[i]) + ")");
  p.motion = parse_motion(c, m.map("motion"));
  return p;
}

ObjectSpec parse_object(const Ctx& c, const YAML::Node& n, const std::string& path, std::size_t index,
                        const std::string& case_dir) {
  // The kind first: an unsupported kind is the real problem, not its unknown keys.
  const Words kinds = {"shell", "rod", "particles", "volume", "obstacle"}, later = {"rigid"};
  if (n.IsMap() && n["kind"].IsDefined()) {
    const YAML::Node k = n["kind"];
    std::string kind = to_text(c, k, cs::child(path, "kind"));
    if (contains(later, kind))
      c.fail(cs::child(path, "kind"), "'" + kind + "' is not supported yet (supported: " + cs::join(kinds) + ")");
    if (!contains(kinds, kind))
      c.fail(cs::child(path, "kind"), "expected one of: " + cs::join(kinds) + " (got '" + kind + "')");
  }
  if (!n.IsMap()) c.fail(path, "expected a mapping {name: ..., kind: ..., mesh: ...}, got " + describe(n));
  MapNode m(c, n, path);
  ObjectSpec o;
  o.name = m.text("name", "object" + std::to_string(index));
  if (o.name.empty()) c.fail(m.at("name"), "must not be empty");
  // Validated above: parsed once here, an enum from now on.
  o.kind = parse_object_kind(m.text("kind", "shell")).value_or(ObjectKind::Shell);
  if (o.kind == ObjectKind::Obstacle) {
    const Words takes = {"name", "kind", "mesh", "transform", "contact", "motion"};
    only_keys(c, m, takes, "kind 'obstacle' (obstacles are kinematic)", takes);
  } else {
    for (const std::string& k : m.present())
      if (k == "motion")
        c.fail(m.at(k), "is not used by " + kind_word(o.kind) + " (move it through pins[].motion; only obstacles take 'motion')");
    if (o.kind == ObjectKind::Particles || o.kind == ObjectKind::Volume) {
      const Words takes = {"name", "kind", "mesh", "transform", "material", "contact", "pins", "initial"};
      only_keys(c, m, takes, kind_word(o.kind), takes);
    }
  }
  if (!m.has("mesh")) c.fail_plain("missing required key '" + m.at("mesh") + "'");
  {
    const YAML::Node mn = m.get("mesh");
    if (!mn.IsMap()) c.fail(m.at("mesh"), "expected a mapping {generator: ...} or {file: ...}, got " + describe(mn));
  }
  o.mesh = parse_mesh(c, m.map("mesh"), case_dir, o.kind);
  o.transform = parse_transform(c, m.map("transform"));

  o.material = parse_material(c, m.map("material"), o.kind, path);

  if (m.has("strain_limit") && o.material.model == "orthotropic") {
    o.material.aniso_limit = parse_aniso_limit(c, m.map("strain_limit"));
  } else if (m.has("strain_limit")) {
    MapNode sl = m.map("strain_limit");
    for (const char* k : {"warp", "weft", "shear", "warp_direction"})
      if (sl.has(k))
        c.fail(sl.at(k), "is a per-direction limit of material.model 'orthotropic' (this object's model is '" +
                             o.material.model + "'; it takes max and threshold)");
    if (!sl.has("max")) c.fail_plain("missing required key '" + sl.at("max") + "' (the largest allowed stretch, e.g. 1.06)");
    o.strain_threshold = sl.number("threshold", 1.0, [](double v) { return v >= 1; }, ">= 1");
    o.strain_limit = sl.number("max", 0.0);
    if (!(o.strain_limit >= 1)) c.range(sl.at("max"), ">= 1 (a stretch ratio; 1.06 allows 6%)", o.strain_limit);
    if (!(o.strain_limit > o.strain_threshold))
      c.fail(sl.at("max"), "must be > strain_limit.threshold = " + fmt(o.strain_threshold) + " (got " +
                               fmt(o.strain_limit) + ")");
  }
  MapNode ct = m.map("contact");
  // Rods and particles are thick: their default offset is the diameter (C-IPC sec. 3).
  o.offset = ct.number("offset", o.material.radius > 0 ? 2 * o.material.radius : 0.0, non_negative, ">= 0 (m)");
  o.friction = ct.number("friction", -1.0, non_negative, ">= 0");
  if (m.has("pins")) {
    const YAML::Node pins = m.get("pins");
    if (!pins.IsSequence()) c.fail(m.at("pins"), "expected a list of {box: ..., motion: ...}, got " + describe(pins));
    for (std::size_t k = 0; k < pins.size(); ++k) {
      const std::string pp = cs::item(m.at("pins"), k);
      if (!pins[k].IsMap()) c.fail(pp, "expected a mapping {box: ..., motion: ...}, got " + describe(pins[k]));
      o.pins.push_back(parse_pin(c, MapNode(c, pins[k], pp)));
    }
  }
  o.initial_velocity = m.map("initial").vec3("velocity", o.initial_velocity);
  o.motion = parse_motion(c, m.map("motion"));
  return o;
}

// A box [[min], [max]] (pins and stitches): min <= max in every coordinate.
std::pair<Vec3, Vec3> parse_box(const Ctx& c, const YAML::Node& b, const std::string& bp) {
  if (!b.IsSequence() || b.size() != 2)
    c.fail(bp, "expected [[min_x, min_y, min_z], [max_x, max_y, max_z]], got " + describe(b) +
                   (b.IsSequence() ? " of " + std::to_string(b.size()) : ""));
  const Vec3 lo = to_vec3(c, b[0], cs::item(bp, 0)), hi = to_vec3(c, b[1], cs::item(bp, 1));
  for (int i = 0; i < 3; ++i)
    if (lo[i] > hi[i])
      c.fail(bp, "min must be <= max in every coordinate (coordinate " + std::to_string(i) + ": " + fmt(lo[i]) +
                     " > " + fmt(hi[i]) + ")");
  return {lo, hi};
}

// stitches: [{a: {object, box}, b: {object, box}}] (issue 19 point 3). The boxes' vertex
// counts are checked against the meshes by match_stitches (io/stitch_match.hpp).
void parse_stitches(const Ctx& c, const MapNode& top, CaseSpec& s) {
  if (!top.has("stitches")) return;
  const YAML::Node list = top.get("stitches");
  if (!list.IsSequence())
    c.fail("stitches", "expected a list of {a: {object, box}, b: {object, box}}, got " + describe(list));
  if (s.method != "cipc" && s.method != "mass_spring")
    c.fail("stitches", "need method cipc or mass_spring (the method is '" + s.method + "')");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string sp = cs::item("stitches", i);
    if (!list[i].IsMap()) c.fail(sp, "expected a mapping {a: {object, box}, b: {object, box}}, got " + describe(list[i]));
    MapNode m(c, list[i], sp);
    StitchSpec st;
    for (const char* side : {"a", "b"}) {
      if (!m.has(side)) c.fail(sp, std::string("missing required key '") + side + "' ({object: name, box: [[min], [max]]})");
      const MapNode sm = m.map(side);
      if (!sm.has("object")) c.fail(sm.path(), "missing required key 'object' (the name of a deformable object)");
      if (!sm.has("box")) c.fail(sm.path(), "missing required key 'box' ([[min_x, min_y, min_z], [max_x, max_y, max_z]])");
      const std::string name = sm.text("object", "");
      StitchSide& ss = side[0] == 'a' ? st.a : st.b;
      for (std::size_t o = 0; o < s.objects.size(); ++o)
        if (s.objects[o].name == name) ss.object = static_cast<int>(o);
      if (ss.object < 0) c.fail(sm.at("object"), "no object is named '" + name + "'");
      const ObjectKind k = s.objects[ss.object].kind;
      if (k == ObjectKind::Obstacle || k == ObjectKind::Particles)
        c.fail(sm.at("object"), "'" + name + "' is " + kind_word(k) + "; stitches join shells, rods or volumes");
      std::tie(ss.box_min, ss.box_max) = parse_box(c, sm.get("box"), sm.at("box"));
    }
    s.stitches.push_back(st);
  }
}

// The mass_spring and pd blocks (issue 18). Read whatever the method, so --set method=...
// switches a case between methods; only mass_spring and pd use them.
void parse_springs(const Ctx& c, const MapNode& top, CaseSpec& s) {
  MapNode ms = top.map("mass_spring");
  const std::string units = "> 0 (N/m per spring; absent = derived from the material)";
  s.mass_spring.stretch_stiffness = ms.number("stretch_stiffness", -1.0, positive, units);
  s.mass_spring.shear_stiffness = ms.number("shear_stiffness", -1.0, positive, units);
  s.mass_spring.bending_stiffness = ms.number("bending_stiffness", -1.0, non_negative,
                                              ">= 0 (N/m per spring; 0 = no bending; absent = derived from the material)");
  if (ms.has("bending"))
    s.mass_spring.bending = to_choice(c, ms.get("bending"), ms.at("bending"), {"springs", "dihedral"});
  MapNode pd = top.map("pd");
  s.pd.iterations = pd.integer("iterations", s.pd.iterations, 1, kIntMax, ">= 1");
  s.pd.tolerance = pd.number("tolerance", s.pd.tolerance, positive, "> 0 (m)");
  if (s.method == "pd" && s.mass_spring.bending == "dihedral")
    c.fail(ms.at("bending"), "'dihedral' is not available with method pd (its local steps project springs; use springs)");
  // Strain limits are C-IPC's barrier: the spring methods do not enforce them, so the run
  // records no limit (and weft-verify checks none) rather than one it never promised.
  const bool springs = s.method == "mass_spring" || s.method == "pd";
  for (ObjectSpec& o : s.objects) {
    o.springs = s.mass_spring;
    if (springs) o.strain_limit = 0.0, o.strain_threshold = 1.0;
  }
}

// The `pbd:` / `xpbd:` block (issue 18; DESIGN.md "Position-based methods").
PbdSpec parse_pbd(const Ctx& c, const MapNode& m, bool xpbd) {
  PbdSpec p;
  p.iterations = m.integer("iterations", p.iterations, 1, 1000000, "an integer in [1, 1000000]");
  p.substeps = m.integer("substeps", p.substeps, 1, 100000, "an integer in [1, 100000]");
  if (m.has("solver")) p.solver = to_choice(c, m.get("solver"), m.at("solver"), {"gauss_seidel", "jacobi"});
  if (m.has("chebyshev")) {
    // true / false, or the spectral radius rho in (0, 1) itself.
    const YAML::Node n = m.get("chebyshev");
    bool b = false;
    double rho = 0.0;
    if (n.IsScalar() && YAML::convert<bool>::decode(n, b)) {
      p.chebyshev = b;
    } else if (n.IsScalar() && YAML::convert<double>::decode(n, rho) && rho > 0 && rho < 1) {
      p.chebyshev = true, p.chebyshev_rho = rho;
    } else {
      c.fail(m.at("chebyshev"), "expected true, false or a spectral radius in (0, 1), got " + describe(n));
    }
  }
  p.levels = m.integer("levels", p.levels, 1, 32, "an integer in [1, 32]");
  auto unit = [](double v) { return v >= 0 && v <= 1; };
  p.damping = m.number("damping", p.damping, unit, "in [0, 1]");
  if (xpbd) {
    p.compliance = m.number("compliance", p.compliance, non_negative, ">= 0 (m/N; absent: from the material)");
    p.bending_compliance =
        m.number("bending_compliance", p.bending_compliance, non_negative, ">= 0 (absent: from the material)");
  } else {
    p.stretch_stiffness = m.number("stretch_stiffness", p.stretch_stiffness, unit, "in [0, 1]");
    p.bending_stiffness = m.number("bending_stiffness", p.bending_stiffness, unit, "in [0, 1]");
  }
  if (m.has("bending")) p.bending = to_choice(c, m.get("bending"), m.at("bending"), {"dihedral", "isometric"});
  if (m.has("self_collision")) p.self_collision = to_bool(c, m.get("self_collision"), m.at("self_collision"));
  p.thickness = m.number("thickness", p.thickness, non_negative, ">= 0 (m)");
  p.restitution = m.number("restitution", p.restitution, unit, "in [0, 1]");
  p.tear_stretch = m.number("tear_stretch", p.tear_stretch, [](double v) { return v == 0 || v > 1; },
                            "0 (off) or a stretch ratio > 1");
  p.pressure = m.number("pressure", p.pressure, non_negative, ">= 0 (0 = off)");
  if (m.has("strain_limit")) {
    const std::vector<double> v =
        to_numbers(c, m.get("strain_limit"), m.at("strain_limit"), 2, "[sigma_min, sigma_max]");
    if (!(v[0] >= 0 && v[0] <= 1)) c.range(cs::item(m.at("strain_limit"), 0), "in [0, 1] (sigma_min)", v[0]);
    if (!(v[1] >= 1)) c.range(cs::item(m.at("strain_limit"), 1), ">= 1 (sigma_max)", v[1]);
    p.strain_limit = true, p.strain_min = v[0], p.strain_max = v[1];
  }
  if (m.has("integrator"))
    p.integrator = to_choice(c, m.get("integrator"), m.at("integrator"), {"euler", "bdf2"});
  if (p.chebyshev && p.solver != "jacobi")
    c.fail(m.at("chebyshev"), "accelerates the Jacobi sweeps: it needs solver: jacobi");
  return p;
}

CaseSpec parse_case(const YAML::Node& root, const Ctx& c, const std::string& path) {
  if (!root.IsDefined() || root.IsNull()) c.fail_plain("the case file is empty (it needs at least 'objects')");
  if (!root.IsMap()) c.fail_plain("expected a mapping of keys at the top level, got " + describe(root));
  MapNode top(c, root, "");
  CaseSpec s;
  s.path = path;
  s.name = top.text("name", fs::path(path).stem().string());
  if (s.name.empty()) c.fail("name", "must not be empty");

  MapNode time = top.map("time");
  s.dt = time.number("dt", s.dt, positive, "> 0 (seconds)");
  s.frames = time.integer("frames", s.frames, 0, 1000000000, ">= 0");
  s.gravity = top.vec3("gravity", s.gravity);
  if (top.has("method"))
    s.method = to_choice(c, top.get("method"), top.at("method"), {"cipc", "pbd", "xpbd", "mass_spring", "pd"});

  s.pbd = parse_pbd(c, top.map("pbd"), false);
  s.xpbd = parse_pbd(c, top.map("xpbd"), true);

  MapNode solver = top.map("solver");
  s.newton_tol = solver.number("newton_tol", s.newton_tol, positive, "> 0 (m/s)");
  s.max_newton = solver.integer("max_newton", s.max_newton, 1, kIntMax, ">= 1");
  if (solver.has("newton_norm"))
    s.newton_norm = to_choice(c, solver.get("newton_norm"), solver.at("newton_norm"), {"max", "rms"});
  MapNode lin = solver.map("linear");
  s.linear.ksp = lin.text("ksp", s.linear.ksp);
  s.linear.pc = lin.text("pc", s.linear.pc);
  for (const auto& [k, v] : {std::pair<std::string, std::string>{"ksp", s.linear.ksp}, {"pc", s.linear.pc}})
    for (char ch : v)
      if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'))
        c.fail(lin.at(k), "expected a PETSc type name such as cg, gmres, gamg, lu (got '" + v + "')");
  s.linear.rtol = lin.number("rtol", s.linear.rtol, [](double v) { return v > 0 && v < 1; }, "in (0, 1)");
  s.linear.factor_reuse_its = lin.integer("factor_reuse_its", s.linear.factor_reuse_its, 0, 100000, "in [0, 100000]");

  MapNode contact = top.map("contact");
  {
    const std::string on = contact.text("enabled", s.contact_enabled ? "true" : "false");
    if (on != "true" && on != "false") c.fail(contact.at("enabled"), "expected true or false (got '" + on + "')");
    s.contact_enabled = on == "true";
  }
  s.dhat = contact.number("dhat", s.dhat, positive, "> 0 (m)");
  s.friction = contact.number("friction", s.friction, non_negative, ">= 0");
  s.friction_iterations = contact.integer("friction_iterations", s.friction_iterations, 0, kIntMax, ">= 0");
  s.epsilon_v = contact.number("epsilon_v", s.epsilon_v, positive, "> 0 (m/s)");
  s.kappa_s = top.number("strain_limit_stiffness", s.kappa_s, positive, "> 0 (Pa)");

  MapNode out = top.map("output");
  s.output_file = out.text("file", "out/" + s.name + ".h5");
  if (s.output_file.empty()) c.fail(out.at("file"), "must not be empty");
  s.output_every = out.integer("every", s.output_every, 1, kIntMax, ">= 1");
  s.checkpoint_every = out.integer("checkpoint_every", s.checkpoint_every, 0, kIntMax, ">= 0 (0 = never)");
  if (out.has("fields")) {
    static const Words known = {"velocities", "strain_ratio"};
    const YAML::Node f = out.get("fields");
    if (!f.IsSequence())
      c.fail(out.at("fields"), "expected a list of field names (any of: " + cs::join(known) + "), got " + describe(f));
    s.output_fields.clear();
    for (std::size_t i = 0; i < f.size(); ++i) {
      const std::string name = to_text(c, f[i], cs::item(out.at("fields"), i));
      if (!contains(known, name))
        c.fail(cs::item(out.at("fields"), i), "unknown field '" + name + "' (expected one of: " + cs::join(known) + ")");
      if (contains(s.output_fields, name)) c.fail(cs::item(out.at("fields"), i), "'" + name + "' is listed twice");
      s.output_fields.push_back(name);
    }
  }

  if (!top.has("objects")) c.fail_plain("missing required key 'objects' (the list of bodies in the scene)");
  const YAML::Node objs = top.get("objects");
  if (!objs.IsSequence()) c.fail("objects", "expected a list of objects, got " + describe(objs));
  if (objs.size() == 0) c.fail("objects", "must list at least one object");
  const std::string case_dir = fs::path(path).parent_path().string();
  for (std::size_t i = 0; i < objs.size(); ++i) {
    s.objects.push_back(parse_object(c, objs[i], cs::item("objects", i), i, case_dir));
    for (std::size_t j = 0; j < i; ++j)
      if (s.objects[j].name == s.objects[i].name)
        c.fail(cs::child(cs::item("objects", i), "name"),
               "'" + s.objects[i].name + "' is already the name of objects[" + std::to_string(j) + "]");
  }
  parse_springs(c, top, s);
  parse_stitches(c, top, s);
  return s;
}

}  // namespace

CaseSpec load_case_from_string(const std::string& text, const std::string& path,
                               const std::vector<std::string>& overrides) {
  Ctx c;
  c.file = path;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                     ": YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": cannot parse YAML: " + e.msg);
  }
  try {
    if (!overrides.empty()) {
      root = deep_copy_yaml(root);
      for (const std::string& a : overrides) c.overridden.emplace_back(apply_case_override(root, a, path), a);
    }
    return parse_case(root, c, path);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": " + e.msg);
  }
}

CaseSpec load_case(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path + ": case file not found");
  if (fs::is_directory(st)) throw InputError(path + ": is a directory, not a case file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the case file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_case_from_string(ss.str(), path, overrides);
}

TriMesh load_object_mesh(const CaseSpec& spec, std::size_t i) {
  const ObjectSpec& o = spec.objects.at(i);
  const std::string what = spec.path + ": objects[" + std::to_string(i) + "] (" + o.name + ") mesh" +
                           (o.mesh.file.empty() ? "" : " " + o.mesh.file);
  try {
    return build_object_mesh(o.mesh, o.transform, fs::path(spec.path).parent_path().string(), what,
                             mesh_use_of(o.kind));
  } catch (const InputError& e) {
    const std::string msg = e.what();
    if (msg.rfind(spec.path + ":", 0) == 0) throw;
    // Reader errors name the mesh file (and line); say which case object it belongs to.
    throw InputError(spec.path + ": objects[" + std::to_string(i) + "] (" + o.name + ") mesh: " + msg);
  }
}

}  // namespace weft
