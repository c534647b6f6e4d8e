#include "methods/stepper.hpp"

#include "core/error.hpp"
#include "core/scene.hpp"
#include "methods/cipc.hpp"
#include "methods/mass_spring.hpp"
#include "methods/projective_dynamics.hpp"
#include "methods/pbd.hpp"
#include "parallel/local_view.hpp"

namespace weft {
namespace {

struct MethodEntry {
  const char* name;
  std::unique_ptr<Stepper> (*make)(const Scene& scene, const LocalView& lv);
  // Reads the scene's vertex data or triangles beyond the rank's own, ghosts and local
  // triangles (method_reads_whole_scene).
  bool whole_scene = false;
};

// Every method this build has: a new stepper is one file plus one line here.
const std::vector<MethodEntry>& methods() {
  static const std::vector<MethodEntry> all = {
      {"cipc", [](const Scene& s, const LocalView& lv) -> std::unique_ptr<Stepper> {
         return std::make_unique<CipcStepper>(s, lv);
       }},
      {"mass_spring", &make_mass_spring_stepper},
      {"pd", &make_projective_dynamics_stepper},
      // (PBD's sweeps, self-collision and tearing run over the whole mesh)
      {"pbd", [](const Scene& s, const LocalView& lv) -> std::unique_ptr<Stepper> {
         return std::make_unique<PbdStepper>(s, lv, false);
       }, true},
      {"xpbd", [](const Scene& s, const LocalView& lv) -> std::unique_ptr<Stepper> {
         return std::make_unique<PbdStepper>(s, lv, true);
       }, true},
  };
  return all;
}

}  // namespace

std::vector<std::string> stepper_methods() {
  std::vector<std::string> out;
  for (const MethodEntry& m : methods()) out.push_back(m.name);
  return out;
}

bool method_reads_whole_scene(const std::string& method) {
  for (const MethodEntry& m : methods())
    if (method == m.name) return m.whole_scene;
  return true;  // (unknown: make_stepper refuses it)
}

std::unique_ptr<Stepper> make_stepper(const Scene& scene, const LocalView& lv) {
  for (const MethodEntry& m : methods())
    if (scene.spec.method == m.name) return m.make(scene, lv);
  std::string known;
  for (const std::string& n : stepper_methods()) known += (known.empty() ? "" : ", ") + n;
  throw InputError(scene.spec.path + ": method: '" + scene.spec.method +
                   "' is not available in this version (known: " + known + ")");
}

}  // namespace weft
