// Which energy terms an object gets: a registration per term maps (kind, material model)
// to a set builder and a factory. A new energy is one file in energy/ defining its
// TermFactory plus one line in registry.cpp; the scene loader, LocalView, the matrix
// pattern, the partition graph and the stepper only loop over the resulting sets.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/object_kind.hpp"
#include "core/types.hpp"
#include "energy/term.hpp"

namespace weft {

struct Scene;
struct MaterialSpec;
struct ObjectSpec;

// The empty tet list ObjectStencils::tets refers to by default (objects without tets).
const std::vector<std::array<int, 4>>& no_tets();

// One object's mesh as the set builders see it: vertex ids of one id space (the loader's
// input order), rest positions indexed by them.
struct ObjectStencils {
  int object;                                    // scene object index
  const ObjectSpec& spec;
  const std::vector<Vec3>& rest;                 // all vertices
  const std::vector<Tri>& triangles;             // this object's triangles
  const std::vector<std::array<int, 4>>& hinges; // this object's interior edges (mesh/topology)
  const std::vector<Edge>& segments;             // this object's codimensional segments (rods), a -> b
  // This object's tetrahedra (volumes), positively oriented (tet_rest.hpp). Defaulted so an
  // initialisation that predates volumes still compiles (and gets no tets).
  const std::vector<std::array<int, 4>>& tets = no_tets();
  // Texture coordinates of this object's triangles (parallel to `triangles`; OBJ 'vt'),
  // null when the mesh has none.
  const std::vector<std::array<Vec2, 3>>* triangle_uv = nullptr;
};

struct TermFactory {
  ObjectKind kind;
  const char* model;  // the material.model it serves; "" = every model of the kind
  const char* name;
  int arity;          // vertices per stencil
  // Appends the object's stencils (ids as given), rest data and object index to `set`.
  void (*build)(const ObjectStencils& o, ElementSet& set);
  // The term evaluating scene.element_sets[set] over this rank's stencils.
  std::unique_ptr<EnergyTerm> (*make)(const Scene& scene, int set, const LocalStencils& local);
  // The methods (case `method:`) whose objects get this term, comma separated; "" = the
  // C-IPC constitutive terms (method cipc). So the method picks an object's energies
  // through the registry, and no stepper tests a kind.
  const char* methods = "";
  // Partition weight of one stencil (io/scene_loader.hpp, issue 19 point 4): its gradient +
  // projected Hessian assembly time in units of 10 ns, measured by bench-balance at a warm
  // (deformed) state on the 2-core CI machine; the ratios between terms are what matters.
  // 0 = arity^2 (its Hessian blocks).
  int cost = 0;
};

// True when `f` is registered for `method` ("" registrations serve cipc).
bool term_serves(const TermFactory& f, const std::string& method);

// Every registration, in the order sets are built and evaluated.
const std::vector<const TermFactory*>& term_registry();
// The registrations for an object of this kind and material model under `method`, in
// registry order.
std::vector<const TermFactory*> terms_for(ObjectKind kind, const std::string& model,
                                          const std::string& method = "cipc");

}  // namespace weft
