// The simulated world as immutable data, built once from a case (io/scene_loader): whole
// on one rank, and on a run's other ranks the part each keeps or receives (rank 0 builds
// it and sends the parts, io/scene_parts; a method that reads the whole scene has it whole
// on every rank). Vertices are in SOLVER order: renumbered so rank r owns the
// contiguous block [vertex_range[r], vertex_range[r+1]), which is its PETSc ownership range.
// Elements keep the case's order and refer to solver-order vertex ids.
#pragma once
#include <string>
#include <vector>

#include "core/object_kind.hpp"
#include "core/paged_array.hpp"
#include "core/run_ints.hpp"
#include "core/types.hpp"
#include "energy/element_set.hpp"
#include "energy/tri_rest.hpp"
#include "io/case_spec.hpp"

namespace weft {

struct ObjectParams {
  std::string name;
  ObjectKind kind = ObjectKind::Shell;
  bool scripted = false;     // follows its motion as a whole (obstacle): may become an AL unknown
  double mu = 0, lambda = 0; // membrane Lame parameters
  bool stvk = false;         // membrane model: StVK instead of neo-Hookean
  double thickness = 0;
  double strain_limit = 0;   // 0 = none
  double strain_threshold = 1.0;
  // Orthotropic shells (material.model: orthotropic): stretch-ratio limits along warp and
  // weft (0 = none); the isotropic strain_limit above is then 0.
  double limit_warp = 0, limit_weft = 0;
  double offset = 0;
  double friction = 0;
  Vec3 initial_velocity = Vec3::Zero();  // of its free vertices at t = 0 (not an obstacle's)
  // Tearing (pbd/xpbd `tear_stretch` > 0, shells): spare vertices allocated up front, input
  // ids [spare_first, spare_first + spare_count) at the end of the object's range. They sit at
  // the object's first vertex, belong to no element and have no mass until a split takes one.
  int spare_first = -1;
  int spare_count = 0;
};

struct Scene {
  CaseSpec spec;                       // the validated case it came from
  int num_vertices = 0;
  std::vector<int> vertex_range;       // size ranks+1
  // (As runs of consecutive ids, core/run_ints.hpp: each rank's block ascends by input id.)
  IdRuns input_of_solver;              // solver id -> input id (case order)
  IdRuns solver_of_input;              // input id -> solver id
  int input_of(int solver) const { return input_of_solver[solver]; }
  int solver_of(int input) const { return solver_of_input[input]; }
  int partition_of(int v) const { return owner_of(v); }  // owning rank (solver ids are in rank blocks)
  std::string partitioner = "METIS";  // what split the mesh vertices: METIS or PT-Scotch

  // Per vertex, solver order: rest positions (placed in the world at t = 0) and lumped masses
  // (kg). Built whole (dense: one block, read as a flat array); a run on several ranks whose
  // method does not read the whole scene then keeps only its part (keep_vertex_part, issue
  // 20: no rank holds the whole scene), every other entry NaN.
  PagedArray<Vec3> rest;
  PagedArray<double> mass;
  bool vertex_part = false;  // (keep_vertex_part done)
  // Keeps rest and mass of [vbegin, vend) (one block) and of the listed vertices (`ghosts`:
  // the run driver's ghosts and contact neighbours) only; vertex_summary() is taken first
  // (the whole scene's).
  void keep_vertex_part(int vbegin, int vend, const std::vector<int>& ghosts);
  // Keeps the listed triangles only (ascending): every triangle with a vertex in the rank's
  // block (LocalView's contact support), what the stepper's setup and the result file read.
  void keep_triangle_part(std::vector<int> triangle_ids);
  // Over every vertex, in id order: the dynamic (not kinematic) vertices' count and mass sum
  // (IPC's barrier stiffness and the obstacles' AL springs are relative to their mean) and
  // the rest positions' bounding box. Computed by one pass over a whole scene; a part
  // returns what its whole scene gave (the same bits at every rank count).
  struct VertexSummary {
    double dynamic_mass_sum = 0.0, dynamic_count = 0.0;
    Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
  };
  VertexSummary vertex_summary() const;
  // A part received whole from another rank (io/scene_parts): its rest and mass are already
  // the part; `whole` is the whole scene's summary.
  void adopt_vertex_part(const VertexSummary& whole) {
    summary_ = whole;
    vertex_part = true;
  }
  // Per vertex (solver order), as runs (core/run_ints.hpp: a few runs per rank block and
  // object, not 4 bytes a vertex each on every rank).
  RunInts vertex_object;
  RunInts vertex_motion;               // index into motions, -1 = free dynamic vertex
  std::vector<MotionSpec> motions;     // scripted pins and obstacles

  // The mesh: every object's triangles (collision surface, output), case order, solver ids.
  // Built whole (adopted: `triangles.whole()` is the vector, for the start's check and the
  // methods that read the whole mesh); then a rank on several ranks keeps those with a vertex
  // in its block only (keep_triangle_part: `kept_triangles`, ascending), every other entry
  // {-1, -1, -1}. A whole scene's kept_triangles is empty.
  PagedArray<Tri> triangles;
  std::vector<int> kept_triangles;
  bool triangle_part = false;  // (keep_triangle_part done)
  RunInts triangle_object;             // (runs: one an object)
  // Triangle t's rest data, from the rest positions (make_tri_rest, the same bits as the
  // build computed; not stored: 40 bytes a triangle, ~80 per cloth vertex, on every rank).
  TriRest triangle_rest(size_t t) const {
    return make_tri_rest(rest[triangles[t][0]], rest[triangles[t][1]], rest[triangles[t][2]]);
  }
  // Per triangle, the warp direction of an orthotropic shell in the rest frame (unit, in the
  // rest triangle's plane, as its membrane term uses it); zero for every other triangle.
  // Empty when the scene has no orthotropic shell (warp_of is then zero everywhere). A part
  // holds its kept triangles' entries only (keep_triangle_part), as `triangles`.
  PagedArray<Vec3> triangle_warp;
  Vec3 warp_of(size_t t) const { return triangle_warp.empty() ? Vec3::Zero() : triangle_warp[t]; }
  // Codimensional primitives (C-IPC sec. 3), case order, solver ids: rod segments (edges on
  // no triangle) and isolated particle vertices, each with its object. With the triangles
  // they make the collision surface and the result file's /mesh/segments, /mesh/points.
  // Volume elements (kind: volume), case order, solver ids, positively oriented: the result
  // file's /mesh/tets (their boundary faces are among the triangles).
  // Built whole: entry k is case-order primitive k. A rank on several then keeps those
  // with a vertex in its block only (keep_primitive_part, issue 20: no rank holds a
  // whole-scene list), entry k being primitive segment_index(k) (`segment_ids`, ascending,
  // as runs of consecutive indices: a rank's rods, particle slab or tets are mostly a few
  // stretches of case order). The objects are per case-order primitive, as runs (one an
  // object), so their sizes are the whole scene's counts (num_segments(), ...).
  std::vector<Edge> segments;
  IdRuns segment_ids;
  RunInts segment_object;
  std::vector<int> points;
  IdRuns point_ids;
  RunInts point_object;
  std::vector<std::array<int, 4>> tets;
  IdRuns tet_ids;
  RunInts tet_object;
  bool primitive_part = false;  // (keep_primitive_part done, or a part received as such)
  size_t num_segments() const { return segment_object.size(); }
  size_t num_points() const { return point_object.size(); }
  size_t num_tets() const { return tet_object.size(); }
  int segment_index(size_t k) const { return primitive_part ? segment_ids[k] : static_cast<int>(k); }
  int point_index(size_t k) const { return primitive_part ? point_ids[k] : static_cast<int>(k); }
  int tet_index(size_t k) const { return primitive_part ? tet_ids[k] : static_cast<int>(k); }
  // Keeps the listed primitives only (case-order indices, ascending: every one with a vertex
  // in the rank's block, LocalView's contact support).
  void keep_primitive_part(const std::vector<int>& segment_keep, const std::vector<int>& point_keep,
                           const std::vector<int>& tet_keep);
  // The bytes the segments, points and tets hold with their indices and objects (reports).
  std::size_t primitive_bytes() const;
  // What the energy terms evaluate, one set per registered term (energy/registry.hpp), in
  // registry order. Built under a run's communicator, each rank's sets hold only the
  // stencils touching a vertex it owns (sets_rank: that rank; -1: the whole sets, as tools
  // and tests build them); ElementSet::global_of gives a stencil's index in the whole set.
  std::vector<ElementSet> element_sets;
  int sets_rank = -1;

  std::vector<ObjectParams> objects;

  // Stitches (issue 19 point 3): vertex pairs (a, b) in solver ids, case order
  // (io/stitch_match.hpp), both owned by one rank (the scene loader puts b in a's part);
  // the same pairs in input ids for the result file, and per pair the zero-rest-length
  // spring's starting stiffness (N/m, a quarter of m / dt^2; methods/stitching.hpp doubles
  // it until the pair welds).
  std::vector<std::array<int, 2>> stitches;
  std::vector<std::array<int, 2>> stitches_input;
  std::vector<double> stitch_stiffness0;

  int owner_of(int v) const;           // rank owning solver vertex v
  // Stencils of the sets evaluated by the term registered under this name, over every rank
  // (reports).
  long count_stencils(const char* term) const;
  bool kinematic(int v) const { return vertex_motion[v] >= 0; }
  // Velocity at t = 0: the object's initial velocity for a free vertex; zero for pinned,
  // obstacle and spare vertices (a function, not a per-vertex array: 24 bytes a vertex).
  Vec3 velocity0(int v) const {
    return kinematic(v) || is_spare(v) ? Vec3::Zero() : objects[vertex_object[v]].initial_velocity;
  }
  // A tearing spare (ObjectParams::spare_first), used or not.
  bool is_spare(int v) const {
    const ObjectParams& o = objects[vertex_object[v]];
    return o.spare_count > 0 && input_of_solver[v] >= o.spare_first;
  }
  // The tear threshold of the case's method (pbd/xpbd `tear_stretch`; 0 = off).
  double tear_stretch() const;

 private:
  VertexSummary summary_;  // (a part's: its whole scene's vertex_summary)
};

}  // namespace weft
