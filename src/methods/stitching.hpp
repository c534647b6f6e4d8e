// Stitching (issue 19 point 3; C-IPC sec. 6.7): the scene's stitch pairs (a, b) are pulled
// together by zero-rest-length springs (energy/stitch_spring.hpp) in the incremental
// potential (a local term at the elastic h^2 scale) whose stiffness doubles after every time
// step that ends with the pair farther apart than dhat, like the adaptive contact kappa;
// a pair that ends a step within dhat is welded: both vertices move to their mass-weighted
// mean position and velocity, and from then on b is a copy of a: one unknown (b's rows
// and columns go to a's, b's own row is the identity, b takes a's Newton step), one vertex
// to contact (the collision surface's twins, which also keep contact from repelling the
// seam while it closes). Each pair is owned by one rank (the scene loader puts b in a's
// part) and every rank that sees one copy sees both (LocalView), so all of this is local;
// the weld flags are made global by one reduction per step.
#pragma once
#include <array>
#include <vector>

#include "core/paged_array.hpp"

#include "core/scene.hpp"
#include "parallel/local_view.hpp"
#include "solver/newton_minimiser.hpp"

namespace weft {

class Stitching final : public LocalTerm {
 public:
  // set_slot: the AssemblySink set index its Hessians use (a slot-cache index past the
  // scene's element sets).
  Stitching(const Scene& scene, const LocalView& lv, int set_slot);

  bool add_energy(const double* xl, double& acc) const override;
  void assemble(const double* xl, double scale, double& acc, NodeSink& sink) override;
  int max_set_index() const override { return slot_; }

  // End of a time step (x, v: local forms, 3 per local vertex, consistent on ghosts): weld
  // the owned pairs within dhat (x and v of both set to the mass-weighted means, owned
  // entries only: the caller refreshes ghosts), double the stiffness of the others, and
  // agree on the weld flags (collective). Returns the number of pairs welded by this call.
  int end_step(double* x, double* v);
  // Largest distance of an unwelded pair at x (global; 0 when all are welded). Collective.
  double max_gap(const double* x) const;

  int welded_count() const;
  // Local (copy, node) pairs of the welded stitches seen by this rank (for the minimiser),
  // and the owned copies (identity rows).
  const std::vector<std::array<int, 2>>& ties() const { return ties_; }
  std::vector<int> owned_copies() const;
  // The global row of a vertex's unknown: per global vertex id, a for a welded b, -1 for a
  // vertex that is its own row.
  const PagedArray<int>& welded_partner() const { return welded_partner_; }

  // Checkpoint: per pair (case order) the stiffness and the weld flag, whole on every rank
  // (stiffness_all is collective).
  std::vector<double> stiffness_all() const;
  std::vector<double> welded_all() const;
  void load(const std::vector<double>& stiffness, const std::vector<double>& welded);

 private:
  void rebuild_ties();
  const Scene& scene_;
  const LocalView& lv_;
  int slot_;
  double dhat_;
  std::vector<int> owned_;                 // pair indices owned here (a owned), ascending
  std::vector<int> local_;                 // 2 local ids per owned pair
  std::vector<double> k_;                  // per pair (global), replicated
  std::vector<char> welded_;               // per pair (global), replicated
  std::vector<std::array<int, 2>> ties_;   // local (b, a) of welded pairs seen here
  // (paged: only the pages of welded copies are committed, issue 20; not 4 bytes a vertex
  // on every rank)
  PagedArray<int> welded_partner_;
};

}  // namespace weft
