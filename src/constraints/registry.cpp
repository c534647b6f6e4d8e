#include "constraints/registry.hpp"

#include "core/comma_list.hpp"
#include "core/error.hpp"
#include "core/scene.hpp"
#include "io/case_spec.hpp"

namespace weft {

// Defined in the builders' own files.
extern const ConstraintFactory kShellConstraints;
extern const ConstraintFactory kRodConstraints;
extern const ConstraintFactory kParticleConstraints;

ConstraintLists::ConstraintLists(const PbdSpec& spec) {
  stretch.type = ConstraintType::Stretch, stretch.arity = 2;
  bend.type = spec.bending == "isometric" ? ConstraintType::Isometric : ConstraintType::Dihedral, bend.arity = 4;
  rod_bend.type = ConstraintType::RodBend, rod_bend.arity = 3;
  clamp.type = ConstraintType::Clamp, clamp.arity = 2;
}

const std::vector<Tri>& ConstraintBuild::tris() const { return triangles ? *triangles : scene.triangles.whole(); }

const std::vector<const ConstraintFactory*>& constraint_registry() {
  static const std::vector<const ConstraintFactory*> all = {&kShellConstraints, &kRodConstraints,
                                                            &kParticleConstraints};
  return all;
}

bool constraint_serves(const ConstraintFactory& f, const std::string& method) { return in_comma_list(f.methods, method); }

std::vector<const ConstraintFactory*> constraints_for(ObjectKind kind, const std::string& method) {
  std::vector<const ConstraintFactory*> out;
  for (const ConstraintFactory* f : constraint_registry())
    if (f->kind == kind && constraint_serves(*f, method)) out.push_back(f);
  return out;
}

void require_constraints(const ConstraintBuild& b) {
  for (const ObjectParams& o : b.scene.objects)
    if (!o.scripted && constraints_for(o.kind, b.method()).empty())
      throw InputError(b.scene.spec.path + ": method: " + b.method() + " does not support kind '" +
                       to_string(o.kind) + "' (object '" + o.name + "') yet");
}

void build_constraints(const ConstraintBuild& b, ConstraintLists& out) {
  for (const ConstraintFactory* f : constraint_registry()) {
    if (!f->build || !constraint_serves(*f, b.method())) continue;
    for (size_t o = 0; o < b.scene.objects.size(); ++o)
      if (b.scene.objects[o].kind == f->kind && !b.scene.objects[o].scripted) f->build(b, static_cast<int>(o), out);
  }
}

}  // namespace weft
