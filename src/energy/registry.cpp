#include "energy/registry.hpp"

#include "core/comma_list.hpp"

namespace weft {

// Defined in the terms' own files.
extern const TermFactory kShellMembraneNeoHookean;
extern const TermFactory kShellMembraneStvk;
extern const TermFactory kShellHingeBending;
extern const TermFactory kRodStretch;
extern const TermFactory kRodBending;
extern const TermFactory kVolumeFixedCorotated;
extern const TermFactory kVolumeNeoHookean;
extern const TermFactory kShellOrthotropic;
extern const TermFactory kSpringStructural;
extern const TermFactory kRodSpringStructural;
extern const TermFactory kSpringShear;
extern const TermFactory kSpringBending;
extern const TermFactory kRodSpringBending;
extern const TermFactory kSpringDihedral;

const std::vector<std::array<int, 4>>& no_tets() {
  static const std::vector<std::array<int, 4>> none;
  return none;
}

const std::vector<const TermFactory*>& term_registry() {
  // Membranes before bending: the order elastic energies are summed in (kept from the
  // loops this replaced, so trajectories are unchanged). Later terms are appended, so the
  // sets of the older ones keep their indices.
  static const std::vector<const TermFactory*> all = {
      &kShellMembraneNeoHookean, &kShellMembraneStvk, &kShellHingeBending, &kRodStretch,
      &kRodBending,              &kVolumeFixedCorotated, &kVolumeNeoHookean, &kShellOrthotropic,
      // mass_spring and pd (issue 18): springs, then bending.
      &kSpringStructural, &kRodSpringStructural, &kSpringShear, &kSpringBending, &kRodSpringBending,
      &kSpringDihedral};
  return all;
}

bool term_serves(const TermFactory& f, const std::string& method) {
  if (f.methods[0] == '\0') return method == "cipc";
  return in_comma_list(f.methods, method);
}

std::vector<const TermFactory*> terms_for(ObjectKind kind, const std::string& model, const std::string& method) {
  std::vector<const TermFactory*> out;
  for (const TermFactory* f : term_registry())
    if (f->kind == kind && (f->model[0] == '\0' || model == f->model) && term_serves(*f, method)) out.push_back(f);
  return out;
}

}  // namespace weft
