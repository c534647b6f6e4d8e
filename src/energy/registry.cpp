#include "energy/registry.hpp"

namespace weft {

// Defined in the terms' own files.
extern const TermFactory kShellMembraneNeoHookean;
extern const TermFactory kShellMembraneStvk;
extern const TermFactory kShellHingeBending;
extern const TermFactory kRodStretch;
extern const TermFactory kRodBending;

const std::vector<const TermFactory*>& term_registry() {
  // Membranes before bending: the order elastic energies are summed in (kept from the
  // loops this replaced, so trajectories are unchanged). Rod terms after the shell terms.
  static const std::vector<const TermFactory*> all = {&kShellMembraneNeoHookean, &kShellMembraneStvk,
                                                      &kShellHingeBending, &kRodStretch, &kRodBending};
  return all;
}

std::vector<const TermFactory*> terms_for(ObjectKind kind, const std::string& model) {
  std::vector<const TermFactory*> out;
  for (const TermFactory* f : term_registry())
    if (f->kind == kind && (f->model[0] == '\0' || model == f->model)) out.push_back(f);
  return out;
}

}  // namespace weft
