// Position-based steppers (issue 18): PBD (Mueller et al. 2007, paper 001 sec. 3) and XPBD
// (paper 003 sec. 4.4, Algorithm 2), one class: XPBD differs only in the projection
// (compliance alpha~ = alpha / h^2 and a multiplier per constraint, reset per substep) and
// in where the constraint strengths come from (compliances vs stiffnesses in [0, 1]).
//
// Per substep of h = dt / substeps (DESIGN.md "Position-based methods"):
//   1. v* = v + h g; velocity damping that keeps rigid modes (001 sec. 3.5); p = x + h v*
//      (BDF2, 003 sec. 4.2.2: v* = 4/3 v - 1/3 v_old + 2/3 h g, p = 4/3 x - 1/3 x_old + 2/3 h v*);
//      pins and obstacles go to their script at the end of the substep (inverse mass 0);
//   2. obstacle collision constraints from the engine's broad phase (swept x -> p against
//      the obstacle triangles, 001 sec. 3.4);
//   3. `iterations` sweeps: Gauss-Seidel colour by colour, or Jacobi with averaging
//      (003 sec. 4.2.1), then the self-collision pairs (Jacobi with averaging), then the
//      obstacle constraints of each vertex;
//   4. v = (p - x) / h (BDF2: (3 p - 4 x + x_old) / (2 h)); restitution and friction on the
//      vertices in contact; x = p.
// Constraints come from the registrations of constraints/registry.hpp (one builder per
// kind: shells stretch on every mesh edge, bending (dihedral or isometric) on every
// interior edge, the edge strain clamp (002 sec. 12.2) when strain_limit is given; rods
// (Scene::segments) distance + three-point bending); an object no registration serves is
// refused, scripted objects (obstacles) need none. With `self_collision: true`, cloth
// self-collision pairs (001 sec. 4.3) from a spatial hash each substep; with
// `pressure: k` > 0 one volume constraint per closed shell (001 sec. 4.4, eq. 14), projected
// (k = 1, alpha = 0) after the other constraints of each sweep, its sum C and denominator
// sum w |grad C|^2 reduced over the ranks (MPI_Allreduce): identical to rounding at 1, 2, 3
// ranks, not bitwise.
//
// Distribution: constraints are numbered in INPUT order (edges and hinges of each object's
// mesh in input vertex ids), coloured once (greedy in index order, the same at every rank
// count). A rank projects every constraint that touches one of its dynamic vertices, and
// applies the corrections of its own vertices: a constraint across a partition border is
// evaluated, from identical inputs, by each rank it touches, so ghost positions only need
// a forward update (one VecGhostUpdate per colour in Gauss-Seidel, per sweep in Jacobi)
// and Jacobi's per-vertex sums run in the same order at every rank count. Positions are
// therefore bitwise identical at 1, 2, 3 ranks (with damping = 0: damping sums over each
// object are MPI reductions, identical to rounding).
#pragma once
#include <petscvec.h>

#include <memory>
#include <string>
#include <vector>

#include "constraints/patch_hierarchy.hpp"
#include "constraints/self_collision.hpp"
#include "constraints/tearing.hpp"
#include "contact/broad_phase.hpp"
#include "contact/surface.hpp"
#include "core/scene.hpp"
#include "methods/stepper.hpp"
#include "parallel/local_view.hpp"

namespace weft {

class PbdStepper final : public Stepper {
 public:
  PbdStepper(const Scene& scene, const LocalView& lv, bool xpbd);
  ~PbdStepper() override;
  PbdStepper(const PbdStepper&) = delete;
  PbdStepper& operator=(const PbdStepper&) = delete;

  StepReport step(double t) override;
  Vec positions() const override { return x_; }
  Vec velocities() const override { return v_; }
  double max_strain() override;
  NamedValues start_stats() override;
  std::string describe() const override;
  IterationName iteration_name() const override { return {"sweeps", "sweeps", "the sweeps"}; }
  // BDF2 keeps the previous substep's x and v ("bdf2.x_prev", "bdf2.v_prev", input order)
  // and whether it has one ("bdf2.history"); Euler has no state beyond x and v.
  NamedArrays save() const override;
  void load(const NamedArrays& arrays) override;

  // The current triangles (solver ids, case order) while tearing changes them, else null.
  const std::vector<Tri>* triangles() const override { return tear_ > 0 ? &tm_.triangles : nullptr; }

  int colours() const { return num_colours_; }
  long constraints() const { return num_constraints_; }

  // One constraint type (fixed arity), the part this rank projects, sorted by (colour,
  // global index); offsets per colour.
  struct Group;

 private:
  void build_constraints();
  void build_collision_surface_();
  void build_self_();
  void separate_split_(const std::vector<TearSplit>& splits, const std::vector<Vec3>& x);
  // Tearing (constraints/tearing.hpp): a pass at the start of every substep; after splits,
  // the spares take their vertex's state and everything built from the topology is rebuilt.
  void tear_pass_(bool hold_sent_back);
  void rebuild_();
  const std::vector<Tri>& tris() const { return tear_ > 0 ? tm_.triangles : scene_.triangles.whole(); }
  VertexSpan<Vec3> rest() const { return tear_ > 0 ? VertexSpan<Vec3>(tm_.rest) : VertexSpan<Vec3>(scene_.rest); }
  double mass(int v) const { return tear_ > 0 ? tm_.mass[v] : scene_.mass[v]; }
  void ghost_update(Vec v);
  void damp(std::vector<double>& vel);
  void find_collisions(double t0, double t1, const std::vector<double>& p);
  void solve(double inv_h2);
  void project_collisions(double* x);
  double measure(const double* x, double* max_rel, double* elastic) const;  // max strain
  void project_pressure(double* x);
  double pressure_error();                  // max over balloons of |C| / |k V0|

  const Scene& scene_;
  const LocalView& lv_;
  const bool xpbd_;
  const PbdSpec& spec_;
  int n_owned_ = 0, n_local_ = 0;           // n_local_: lv's local vertices + extra ghosts
  std::vector<int> ghosts_;                 // lv.ghosts, then the extra ghosts
  std::vector<int> local_of_global_;
  std::vector<double> xs_, vs_;             // storage of x_, v_ (local form)
  Vec x_ = nullptr, v_ = nullptr;
  std::vector<double> w_;                   // inverse mass per local vertex (0: kinematic)
  std::vector<double> inv_count_;           // Jacobi: 1 / constraints at each owned vertex
  std::vector<std::unique_ptr<Group>> groups_;
  int num_colours_ = 0;
  long num_constraints_ = 0;
  double k_stretch_ = 1.0, k_bend_ = 1.0;   // PBD per-iteration stiffnesses k'

  // BDF2 history (local, 3 per vertex)
  std::vector<double> x_old_, v_old_;
  std::vector<double> x_old_step_;          // owned positions at the start of the substep
  bool history_ = false;

  // Tearing (`tear_stretch` > 0): the topology, masses and rest positions (solver ids; the
  // spare pools from the scene), checkpointed as "tear.*". Every vertex is local on every rank
  // (extra ghosts), so each rank runs the same pass on the same positions.
  double tear_ = 0.0;
  TearMesh tm_;
  // The scene's solver -> input id map, plain (the sort keys of the self-collision pairs,
  // edges and hierarchy: read per comparison every step; PBD holds the whole mesh anyway).
  std::vector<int> input_key_;
  std::vector<int> solver_of_input_;  // and its inverse (the per-step input-order shift sum)
  bool tear_warned_ = false;
  long torn() const;

  // Obstacle collisions
  bool has_obstacles_ = false;
  double collision_thickness_ = 0.0, collision_margin_ = 0.0;
  CollisionSurface surface_;
  BroadPhase broad_;
  std::vector<char> kinematic_, point_filter_;
  struct Contact {
    int l;            // local (owned) vertex
    Vec3 a, b, c;     // the obstacle face at the end of the substep
    Vec3 n;           // its unit normal
    Vec3 v_obs;       // obstacle velocity at the contact
    double friction;
    double vn_pre;    // normal velocity of the prediction, relative to the obstacle
    bool hit = false;
  };
  std::vector<Contact> contacts_;
  std::vector<int> object_of_local_;
  std::vector<double> acc_;                 // Jacobi accumulator
  std::vector<double> lambda_;              // XPBD multipliers, per group concatenated

  // Pressure (001 eq. 14): per closed shell, the triangles touching an owned vertex
  // (solver ids while building, then local ids), whether this rank counts each in C (its
  // first vertex owned here) and the target k V0 (6 x volume, see constraints/pressure.hpp).
  struct Balloon {
    int object;
    double target;
    std::vector<int> tris;
    std::vector<char> counted;
  };
  std::vector<Balloon> balloons_;
  std::vector<int> balloon_of_object_;      // -1: no pressure constraint
  std::vector<double> pgrad_;               // 3 per local vertex

  // Cloth self-collision (001 sec. 4.3; `self_collision: true`): the triangles and vertices
  // of every object that is not scripted, the pairs found at each substep (sorted by input
  // vertex id, triangle), projected with k = 1 after the other constraints of each sweep,
  // Jacobi with averaging over the pairs from the same positions at every rank (ranks > 1:
  // the positions of all vertices gathered, xg_). Corrections apply to owned vertices.
  void find_self_collisions(bool vertex_pairs);  // true: vertex-triangle pairs (prediction); false: edge pairs
  int project_self(double* x, bool last_sweep);  // active pairs here
  void settle_self(double* x);
  void failsafe_self(double* x);
  void self_friction_(const std::vector<double>& vstar);
  std::vector<char> sc_hit_vt_, sc_hit_ee_;  // per pair: projected in this substep
  std::vector<double> sc_vg_, sc_pg_;      // velocities (then gathered), predictions gathered
  std::vector<std::array<int, 2>> sc_crossings_;
  std::vector<char> sc_reverted_;           // per vertex (solver ids): sent back this substep
  long self_reverted_ = 0;                  // vertices sent back, summed over substeps
  bool self_ = false, any_self_pairs_ = false;
  std::vector<Tri> sc_tris_;
  VertexRings sc_rings_;
  std::vector<int> sc_root_;  // per vertex: its untorn-mesh vertex (tear_roots), empty without tearing
  std::vector<int> sc_tri_all_, sc_tri_own_, sc_verts_all_, sc_verts_own_;
  std::vector<double> w_global_, xg0_, xg_;  // global (solver ids), 3 per vertex
  std::vector<int> gather_counts_, gather_displs_;
  std::vector<SelfCollisionPair> self_pairs_;
  std::vector<Edge> sc_edges_;       // the self-colliding sheets' edges, in input order
  PatchHierarchy sc_patches_;        // over sc_tris_ / sc_edges_: the final check's culling
  std::vector<int> sc_edge_own_;     // those with a vertex on this rank
  std::vector<SelfCollisionEdgePair> edge_pairs_;
  std::vector<double> sc_acc_;
  std::vector<int> sc_cnt_;
  long self_contacts_ = 0;                  // active pairs at the last sweep, summed over substeps

  // Chebyshev acceleration of the Jacobi sweeps (`chebyshev:`, 002 sec. 12.1 after Wang
  // 2015): x^(k+1) = omega_(k+1) (x^ - x^(k-1)) + x^(k-1) on the owned moving vertices, x^
  // the averaged Jacobi iterate, omega_1 = 1, omega_2 = 2 / (2 - rho^2), omega_(k+1) =
  // 4 / (4 - rho^2 omega_k); the obstacle, pressure and self-collision projections follow,
  // and a vertex a contact moved in the previous sweep is not extrapolated.
  // rho given, or estimated once from the plain sweeps of the first substep as the mean
  // ratio of successive max-norm updates over its second half (max-norms reduce exactly:
  // the same rho at every rank count). Checkpointed ("chebyshev.rho").
  double rho_ = 0.0;                        // 0: not known yet (plain sweeps)

  // Hierarchical PBD (`levels` > 1; 003 sec. 4.3, constraints/hierarchy.hpp): per coarse
  // level (coarsest last) its unilateral distance constraints, coloured on their own, and
  // the prolongation to the finer level's particles it left out (owned moving ones, local
  // ids): x_child += sum_parents w (x_p - x_p at the start of the level's sweeps).
  struct CoarseLevel {
    std::vector<std::unique_ptr<Group>> groups;
    int colours = 0;
    std::vector<double> inv_count;
    std::vector<int> child, parent_start{0}, parent;
    std::vector<double> weight;
  };
  std::vector<CoarseLevel> levels_;
  std::vector<double> x_level_;
  void solve_level(CoarseLevel& level, double* x, double inv_h2);
  std::vector<double> cheb_prev_, cheb_cur_;  // owned x^(k-1), x^k
  std::vector<char> cheb_contact_;          // owned: moved by a contact in the last sweep (not extrapolated)
};

}  // namespace weft
