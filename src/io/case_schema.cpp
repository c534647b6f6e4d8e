#include "io/case_schema.hpp"

#include <map>

namespace weft::case_schema {

namespace {

using Keys = std::vector<std::string>;

const std::map<std::string, Keys>& table() {
  static const Keys motion = {"translate", "rotate", "start", "until"};
  static const Keys translate = {"velocity"};
  static const Keys rotate = {"axis", "center", "deg_per_s"};
  static const std::map<std::string, Keys> t = {
      {"", {"name", "time", "gravity", "method", "solver", "contact", "strain_limit_stiffness", "output", "objects",
           "mass_spring", "pd", "pbd", "xpbd", "stitches"}},
      {"stitches[]", {"a", "b"}},
      {"stitches[].a", {"object", "box"}},
      {"stitches[].b", {"object", "box"}},
      {"mass_spring", {"stretch_stiffness", "shear_stiffness", "bending_stiffness", "bending"}},
      {"pd", {"iterations", "tolerance"}},
      {"pbd", {"iterations", "substeps", "solver", "chebyshev", "levels", "damping", "stretch_stiffness",
               "bending_stiffness", "bending", "self_collision", "thickness", "restitution", "tear_stretch",
               "pressure", "strain_limit", "integrator"}},
      {"xpbd", {"iterations", "substeps", "solver", "chebyshev", "levels", "damping", "compliance",
                "bending_compliance", "bending", "self_collision", "thickness", "restitution", "tear_stretch",
                "pressure", "strain_limit", "integrator"}},
      {"time", {"dt", "frames"}},
      {"solver", {"newton_tol", "max_newton", "newton_norm", "linear"}},
      {"solver.linear", {"ksp", "pc", "rtol", "factor_reuse_its"}},
      {"contact", {"enabled", "dhat", "friction", "friction_iterations", "epsilon_v"}},
      {"output", {"file", "every", "checkpoint_every", "fields"}},
      {"objects[]",
       {"name", "kind", "mesh", "transform", "material", "strain_limit", "contact", "pins", "initial", "motion"}},
      {"objects[].mesh",
       {"generator", "file", "size", "resolution", "jitter", "radius", "height", "subdivisions", "seed", "capped",
        "top_radius", "bottom_radius", "length", "segments", "points", "pitch", "turns"}},
      {"objects[].transform", {"translate", "rotate", "scale"}},
      {"objects[].material",
       {"model", "density", "youngs", "poisson", "thickness", "bending_youngs", "radius", "vertex_mass", "a11", "a22",
        "a12", "g12"}},
      {"objects[].strain_limit", {"max", "threshold", "warp", "weft", "shear", "warp_direction"}},
      {"objects[].contact", {"offset", "friction"}},
      {"objects[].pins[]", {"box", "motion"}},
      {"objects[].initial", {"velocity"}},
      {"objects[].motion", motion},
      {"objects[].motion.translate", translate},
      {"objects[].motion.rotate", rotate},
      {"objects[].pins[].motion", motion},
      {"objects[].pins[].motion.translate", translate},
      {"objects[].pins[].motion.rotate", rotate},
  };
  return t;
}

}  // namespace

const std::vector<std::string>* keys(const std::string& pattern) {
  auto it = table().find(pattern);
  return it == table().end() ? nullptr : &it->second;
}

bool is_list_of_maps(const std::string& pattern) { return pattern == "objects" || pattern == "objects[].pins" || pattern == "stitches"; }

std::string pattern_of(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] == '[') {
      while (i + 1 < path.size() && path[i + 1] != ']') ++i;
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (std::size_t i = 0; i < words.size(); ++i) s += (i ? ", " : "") + words[i];
  return s;
}

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

std::string item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

}  // namespace weft::case_schema
