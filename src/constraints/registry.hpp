// Which position-based constraints an object gets (issue 18): a registration per object
// kind and method, as energy/registry.hpp does for energy terms. A builder appends one
// object's constraints (in input vertex order, so the numbering and the colouring are the
// same at every rank count) to the lists below; the PBD/XPBD stepper only loops over the
// registrations and the resulting lists, and refuses an object that no registration serves.
// A new constraint builder is one file in constraints/ defining its ConstraintFactory plus
// one line in registry.cpp.
#pragma once
#include <string>
#include <vector>

#include "constraints/isometric_bending.hpp"
#include "core/object_kind.hpp"
#include "core/types.hpp"

namespace weft {

struct Scene;
struct PbdSpec;

// One fixed-size kernel of the stepper each. CoarseStretch: the unilateral distance
// constraints of hierarchical levels (constraints/hierarchy.hpp; C = L - |x1 - x0| >= 0),
// built by the stepper, not by a registration.
enum class ConstraintType { Stretch, Dihedral, Isometric, RodBend, Clamp, CoarseStretch };

// Constraints of one type, global (solver) vertex ids, arity per constraint.
struct ConstraintList {
  ConstraintType type = ConstraintType::Stretch;
  int arity = 2;
  std::vector<int> verts;
  std::vector<double> rest;        // L (stretch, clamp), psi0 (dihedral), h0 (rod bending), 0 (isometric)
  std::vector<IsometricBendingRest> iso;
  std::vector<double> alpha;       // XPBD compliance (m/N or its bending analogue)
  std::vector<double> alpha_e;     // the material's compliance, for the energy statistic (0: none)
  int size() const { return static_cast<int>(rest.size()); }
  void add(std::initializer_list<int> v, double r, double a, double ae) {
    for (int x : v) verts.push_back(x);
    rest.push_back(r), alpha.push_back(a), alpha_e.push_back(ae);
  }
};

// The pressure constraint of one closed shell (001 eq. 14): its triangles (solver ids, 3 per
// triangle) and target k V0 (6 x volume, constraints/pressure.hpp).
struct VolumeConstraint {
  int object;
  double target;
  std::vector<int> tris;
};

// Everything the builders produce, in the stepper's global numbering order: stretch, bend,
// rod_bend, clamp (then the volume constraints, projected on their own).
struct ConstraintLists {
  ConstraintList stretch, bend, rod_bend, clamp;
  std::vector<VolumeConstraint> volumes;
  explicit ConstraintLists(const PbdSpec& spec);
};

// What a builder reads: the scene, the method's block, and the rest positions by INPUT id.
struct ConstraintBuild {
  const Scene& scene;
  const PbdSpec& spec;
  bool xpbd;
  const std::vector<Vec3>& rest_input;
  // The current triangles (solver ids, case order) when tearing changed them (tearing.hpp);
  // null: the scene's.
  const std::vector<Tri>* triangles = nullptr;
  const char* method() const { return xpbd ? "xpbd" : "pbd"; }
  const std::vector<Tri>& tris() const;
};

struct ConstraintFactory {
  ObjectKind kind;
  const char* name;
  const char* methods;  // comma separated case `method:` values it serves
  // Appends object `object`'s constraints; null: the kind has no internal constraints
  // (free particles: gravity, damping and obstacle contact only).
  void (*build)(const ConstraintBuild& b, int object, ConstraintLists& out);
};

// Every registration, in the order the stepper builds them (shells, rods, particles: the
// order of the loops this replaced, so constraint numbers and results are unchanged).
const std::vector<const ConstraintFactory*>& constraint_registry();
bool constraint_serves(const ConstraintFactory& f, const std::string& method);
// The registrations serving `kind` under `method` (empty: no constraint moves such an object).
std::vector<const ConstraintFactory*> constraints_for(ObjectKind kind, const std::string& method);

// Throws InputError naming the case file and the object when a non-scripted object has no
// registration serving b.method() (scripted objects follow their motion and need none).
void require_constraints(const ConstraintBuild& b);

// Every registration serving b.method(), over the non-scripted objects of its kind, in
// registry order (the numbering order of the constraints, hence of the colouring).
void build_constraints(const ConstraintBuild& b, ConstraintLists& out);

}  // namespace weft
