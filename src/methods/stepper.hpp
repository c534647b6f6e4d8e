// A time stepper (DESIGN.md "Steppers"): what the run loop, the progress line, the result
// file and restart know of a method. `method:` in the case picks one through make_stepper:
// cipc (methods/cipc.hpp), mass_spring (mass_spring.hpp), pd (projective_dynamics.hpp);
// pbd and xpbd later, each one file plus a
// line in stepper.cpp's table.
#pragma once
#include <petscvec.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/named_values.hpp"
#include "core/types.hpp"

namespace weft {

struct Scene;
struct LocalView;

// What one step reports.
struct StepReport {
  NamedValues stats;        // per-step statistics, written to /frames/stats/<name>
  int iterations = 0;       // solver iterations of the step (the progress line)
  double max_strain = 0.0;  // largest principal stretch at the end of the step (progress)
  bool converged = true;
};

class Stepper {
 public:
  virtual ~Stepper() = default;

  // Advance from time t to t + dt. Collective.
  virtual StepReport step(double t) = 0;
  // State, solver vertex order: ghosted PETSc Vecs of 3 per local vertex (owned, then
  // ghosts), positions and velocities. Restart writes the checkpoint's x and v into them.
  virtual Vec positions() const = 0;
  virtual Vec velocities() const = 0;
  // Largest principal stretch over the strain-measuring terms at the current positions
  // (0 when none). Collective.
  virtual double max_strain() = 0;
  // The statistics of the initial state (frame 0): those with a meaning before any step.
  virtual NamedValues start_stats() = 0;
  // One line for the progress header (method, linear solver ...).
  virtual std::string describe() const = 0;
  // What StepReport::iterations counts, for the progress lines: the per-frame column's word,
  // the closing summary's words and the solver the not-converged warning names. Newton
  // iterations unless the method says otherwise.
  struct IterationName {
    const char* column = "newton";
    const char* words = "Newton iterations";
    const char* solver = "Newton";
  };
  virtual IterationName iteration_name() const { return {}; }

  // Checkpoint: every piece of state beyond x and v a restart needs to continue bit for bit
  // (adaptive stiffnesses ...), as named arrays in a rank-count-independent order: whole on
  // every rank, or distributed (each rank its entries, NamedArray::index). Collective.
  virtual NamedArrays save() const = 0;
  // The same arrays back (as save() gave them, possibly on another rank count); InputError
  // naming the array when one is missing or has the wrong size.
  virtual void load(const NamedArrays& arrays) = 0;
  // The entries of each distributed checkpoint array (NamedArray::index) that this rank's
  // load() reads, by name, ascending whole indices: a restart reads only those from the file
  // (issue 20 point 3), and the arrays not named whole. None by default.
  virtual std::vector<std::pair<std::string, std::vector<int>>> load_entries() const { return {}; }
  // This rank's totals over the run so far for the closing per-rank summary (e.g. contact
  // halo vertices received); none by default. Not collective.
  virtual NamedValues rank_totals() const { return {}; }
  // The current triangles (solver ids, case order, whole on every rank) when the method
  // changes the topology (PBD tearing), else null: the scene's triangles.
  virtual const std::vector<Tri>* triangles() const { return nullptr; }
};

// Whether the method's stepper reads the scene's vertex data (rest positions, masses) or
// triangles beyond a rank's owned, ghost and contact-support vertices and the triangles with
// a vertex in its block (PBD: its sweeps run over the whole mesh). When not, a run on several
// ranks keeps only its part of them (Scene::keep_vertex_part and keep_triangle_part, before
// the stepper is made): what a stepper's setup, terms, kinematic targets and output read.
bool method_reads_whole_scene(const std::string& method);

// The stepper of scene.spec.method; InputError (naming the case file, the key and the
// known methods) for a method this build does not have.
std::unique_ptr<Stepper> make_stepper(const Scene& scene, const LocalView& lv);
// The methods make_stepper knows, in table order.
std::vector<std::string> stepper_methods();

}  // namespace weft
