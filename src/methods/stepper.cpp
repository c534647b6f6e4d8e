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
};

// Every method this build has: a new stepper is one file plus one line here.
const std::vector<MethodEntry>& methods() {
  static const std::vector<MethodEntry> all = {
      {"cipc", [](const Scene& s, const LocalView& lv) -> std::unique_ptr<Stepper> {
         return std::make_unique<CipcStepper>(s, lv);
       }},
      {"mass_spring", &make_mass_spring_stepper},
      {"pd", &make_projective_dynamics_stepper},
      {"pbd", [](const Scene& s, const LocalView& lv) -> std::unique_ptr<Stepper> {
         return std::make_unique<PbdStepper>(s, lv, false);
       }},
      {"xpbd", [](const Scene& s, const LocalView& lv) -> std::unique_ptr<Stepper> {
         return std::make_unique<PbdStepper>(s, lv, true);
       }},
  };
  return all;
}

}  // namespace

std::vector<std::string> stepper_methods() {
  std::vector<std::string> out;
  for (const MethodEntry& m : methods()) out.push_back(m.name);
  return out;
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
