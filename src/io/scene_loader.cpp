#include "io/scene_loader.hpp"

#include <cmath>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "core/error.hpp"
#include "core/reserve_for_append.hpp"
#include "energy/registry.hpp"
#include "energy/warp_direction.hpp"
#include "io/case_loader.hpp"
#include "io/particle_parts.hpp"
#include "io/scene_parts.hpp"
#include "io/stitch_match.hpp"
#include "mesh/topology.hpp"
#include "partition/coordinate_bisection.hpp"
#include "partition/kinematic_owner.hpp"
#include "parallel/even_share.hpp"
#include "partition/metis_partition.hpp"

namespace weft {
bool in_pin_box(const Vec3& p, const PinSpec& pin) {
  return (p.array() >= pin.box_min.array()).all() && (p.array() <= pin.box_max.array()).all();
}

std::string pin_selects_nothing(const CaseSpec& spec, std::size_t o, std::size_t k) {
  return spec.path + ": objects[" + std::to_string(o) + "].pins[" + std::to_string(k) +
         "].box selects no vertex (boxes are in world coordinates, after the transform)";
}

void add_object(const CaseSpec& spec, size_t o, Scene& s, int* obstacle_motion, std::vector<int>* pin_motion) {
  const ObjectSpec& os = spec.objects[o];
  ObjectParams op;
  op.name = os.name;
  op.kind = os.kind;
  op.scripted = os.kind == ObjectKind::Obstacle;
  const double E = os.material.youngs, nu = os.material.poisson;
  op.mu = E / (2 * (1 + nu));
  op.lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  op.stvk = os.material.model == "stvk";
  op.thickness = os.material.thickness;
  op.strain_limit = os.strain_limit;
  op.strain_threshold = os.strain_threshold;
  op.limit_warp = os.material.aniso_limit.warp;
  op.limit_weft = os.material.aniso_limit.weft;
  op.offset = os.offset;
  op.friction = os.friction >= 0 ? os.friction : spec.friction;
  if (os.kind != ObjectKind::Obstacle) op.initial_velocity = os.initial_velocity;
  s.objects.push_back(op);

  *obstacle_motion = -1;
  if (os.kind == ObjectKind::Obstacle) {
    *obstacle_motion = static_cast<int>(s.motions.size());
    s.motions.push_back(os.motion);
  }
  pin_motion->assign(os.pins.size(), -1);
  for (size_t k = 0; k < os.pins.size(); ++k) {
    (*pin_motion)[k] = static_cast<int>(s.motions.size());
    s.motions.push_back(os.pins[k].motion);
  }
}

std::vector<int> stencils_touching(const ElementSet& set, int lo, int hi) {
  std::vector<int> mine;
  for (int k = 0; k < set.size(); ++k) {
    const int* v = set.stencil(k);
    for (int a = 0; a < set.arity; ++a)
      if (v[a] >= lo && v[a] < hi) {
        mine.push_back(k);
        break;
      }
  }
  return mine;
}

std::string empty_rank_message(const CaseSpec& spec, int rank, int ranks) {
  // (A rank owning no vertex would leave the others waiting in the first step's collectives.)
  return spec.path + ": the partition leaves rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
         " without a vertex (too few free vertices or particles to split over " + std::to_string(ranks) +
         " ranks): run on fewer ranks";
}

void cut_sets_to_rank(Scene& s, int rank) {
  for (ElementSet& set : s.element_sets) {
    set.keep(stencils_touching(set, s.vertex_range[rank], s.vertex_range[rank + 1]));
    set.shrink_to_fit();
  }
  s.sets_rank = rank;
}

namespace {

Scene build_whole_scene(const CaseSpec& spec, int ranks, const SceneOptions& options, PartsSender* sender) {
  Scene s;
  s.spec = spec;

  // 1. Objects in case order; vertices and triangles concatenated in INPUT order.
  std::vector<Vec3> X;
  std::vector<int> vobj, vmotion;
  std::vector<Tri> tris;
  std::vector<int> tobj;
  std::vector<Vec3> twarp;  // per triangle: orthotropic warp direction at rest, 0 = none
  // Codimensional primitives in input ids: rod segments and isolated vertices (particles).
  std::vector<Edge> segs;
  std::vector<int> sobj, pts, pobj;
  // Volume elements in input ids (issue 19): the tets of kind 'volume' objects.
  std::vector<std::array<int, 4>> tets;
  std::vector<int> tetobj;
  // One element set per registered term, filled in input ids (renumbered in step 4).
  const std::vector<const TermFactory*>& registry = term_registry();
  std::vector<ElementSet> sets(registry.size());
  for (size_t i = 0; i < registry.size(); ++i) sets[i].term = registry[i], sets[i].arity = registry[i]->arity;
  std::vector<TriMesh> meshes;  // per object, for the stitch boxes
  std::vector<int> bases;
  for (size_t o = 0; o < spec.objects.size(); ++o) {
    const ObjectSpec& os = spec.objects[o];
    TriMesh m = load_object_mesh(spec, o);
    const int base = static_cast<int>(X.size());
    bases.push_back(base);
    int obstacle_motion = -1;
    std::vector<int> pin_motion;
    add_object(spec, o, s, &obstacle_motion, &pin_motion);
    int pinned = 0;
    const bool spares = os.kind == ObjectKind::Shell && !m.triangles.empty() && s.tear_stretch() > 0;
    const std::size_t nv_object = m.vertices.size() * (spares ? 2 : 1);
    reserve_for_append(X, nv_object);
    reserve_for_append(vobj, nv_object);
    reserve_for_append(vmotion, nv_object);
    for (const Vec3& p : m.vertices) {
      X.push_back(p);
      vobj.push_back(static_cast<int>(o));
      int mo = obstacle_motion;
      for (size_t k = 0; k < os.pins.size() && mo < 0; ++k)
        if (in_pin_box(p, os.pins[k])) mo = pin_motion[k];
      if (mo >= 0 && os.kind != ObjectKind::Obstacle) ++pinned;
      vmotion.push_back(mo);
    }
    // Tearing: one spare per vertex of every shell (DESIGN.md "Tearing"), at the object's
    // first vertex, after its own vertices (the object stays one range of input ids).
    if (spares) {
      s.objects.back().spare_first = static_cast<int>(X.size());
      s.objects.back().spare_count = static_cast<int>(m.vertices.size());
      for (size_t k = 0; k < m.vertices.size(); ++k) {
        X.push_back(m.vertices[0]);
        vobj.push_back(static_cast<int>(o));
        vmotion.push_back(-1);
      }
    }
    for (size_t k = 0; k < os.pins.size(); ++k) {
      bool any = false;
      for (const Vec3& p : m.vertices) any = any || in_pin_box(p, os.pins[k]);
      if (!any) throw InputError(pin_selects_nothing(spec, o, k));
    }
    const size_t first_tri = tris.size();
    // Orthotropic shells: the warp axis projected into each rest triangle, exactly as
    // their membrane term's set builder does (energy/warp_direction.hpp), for the output.
    const bool orthotropic = os.kind == ObjectKind::Shell && os.material.model == "orthotropic";
    const bool textured = m.triangle_uv.size() == m.triangles.size() && !m.triangles.empty();
    reserve_for_append(tris, m.triangles.size());
    reserve_for_append(tobj, m.triangles.size());
    // (twarp holds the orthotropic objects' triangles, zeros before them: padded here and
    // after the last object, never filled for a scene without one, 48 bytes a vertex less.)
    if (orthotropic) twarp.resize(first_tri, Vec3::Zero());
    for (size_t k = 0; k < m.triangles.size(); ++k) {
      const Tri& t = m.triangles[k];
      tris.push_back({t[0] + base, t[1] + base, t[2] + base});
      tobj.push_back(static_cast<int>(o));
      if (orthotropic)
        twarp.push_back(orthotropic_warp(m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]], os.material.aniso_limit,
                                         textured ? &m.triangle_uv[k] : nullptr));
    }
    reserve_for_append(segs, m.segments.size());
    reserve_for_append(sobj, m.segments.size());
    for (const Edge& e : m.segments) {
      segs.push_back({e[0] + base, e[1] + base});
      sobj.push_back(static_cast<int>(o));
    }
    const size_t first_tet = tets.size();
    reserve_for_append(tets, m.tets.size());
    reserve_for_append(tetobj, m.tets.size());
    for (const auto& t : m.tets) {
      tets.push_back({t[0] + base, t[1] + base, t[2] + base, t[3] + base});
      tetobj.push_back(static_cast<int>(o));
    }
    {
      std::vector<char> used(m.vertices.size(), 0);
      for (const Tri& t : m.triangles)
        for (int v : t) used[v] = 1;
      for (const Edge& e : m.segments) used[e[0]] = used[e[1]] = 1;
      for (const auto& t : m.tets)  // interior vertices of a volume are not particles
        for (int v : t) used[v] = 1;
      for (size_t v = 0; v < used.size(); ++v)
        if (!used[v]) pts.push_back(base + static_cast<int>(v)), pobj.push_back(static_cast<int>(o));
    }
    // (The mesh's tets are in `tets` now; only the stitch matching reads the mesh again.)
    if (spec.stitches.empty()) std::vector<std::array<int, 4>>().swap(m.tets);
    // The object's stencils go to the sets of the terms registered for its (kind, model)
    // under the case's method.
    std::vector<const TermFactory*> terms = terms_for(os.kind, os.material.model, spec.method);
    if (!terms.empty()) {
      // The object's triangles and tets in input ids: the scene's lists themselves when the
      // object is their first (a copy only of a later object's: ~12 bytes a triangle and 16
      // a tet less at the build's peak for a one-object scene).
      std::vector<Tri> otris_copy;
      if (first_tri > 0) otris_copy.assign(tris.begin() + first_tri, tris.end());
      const std::vector<Tri>& otris = first_tri > 0 ? otris_copy : tris;
      // (The hinges moved out of the topology, whose other arrays are freed at once.)
      std::vector<std::array<int, 4>> ohinges = build_topology(m).hinges;
      for (auto& h : ohinges)
        for (int& v : h) v += base;
      std::vector<Edge> osegs;
      osegs.reserve(m.segments.size());
      for (const Edge& e : m.segments) osegs.push_back({e[0] + base, e[1] + base});
      std::vector<std::array<int, 4>> otets_copy;
      if (first_tet > 0) otets_copy.assign(tets.begin() + first_tet, tets.end());
      const std::vector<std::array<int, 4>>& otets = first_tet > 0 ? otets_copy : tets;
      const ObjectStencils stencils{static_cast<int>(o), os,     X,     otris, ohinges, osegs, otets,
                                    textured ? &m.triangle_uv : nullptr};
      for (const TermFactory* f : terms)
        f->build(stencils, sets[std::find(registry.begin(), registry.end(), f) - registry.begin()]);
    }
    if (!spec.stitches.empty()) meshes.push_back(std::move(m));
  }
  const int n = static_cast<int>(X.size());
  s.num_vertices = n;
  // Stitch pairs in input ids (box matching), refused on kinematic vertices: a pin or an
  // obstacle cannot be pulled to its partner.
  std::vector<int> stitch_of;
  const std::vector<std::array<int, 2>> stitch_pairs =
      spec.stitches.empty() ? std::vector<std::array<int, 2>>{}
                            : match_stitches(spec.path, spec.stitches, meshes, bases, &stitch_of);
  meshes.clear();
  for (size_t k = 0; k < stitch_pairs.size(); ++k)
    for (int v : stitch_pairs[k])
      if (vmotion[v] >= 0)
        throw InputError(spec.path + ": stitches[" + std::to_string(stitch_of[k]) + "]: vertex " + std::to_string(v) +
                         " of object '" + spec.objects[vobj[v]].name +
                         "' is pinned (a stitched vertex must be free to move)");

  // 2. METIS on the vertex graph: the mesh triangles (obstacles join the cloth beside them
  // through it) + every set's stencils (the Hessian's pattern).
  // One rank needs no graph: every vertex is its own (the graph and its element list were
  // the largest transient arrays of a one-rank build, ~0.9 KB per cloth vertex).
  // The partition is computed on ONE rank while the graph fits there (issue 20 point 2):
  // rank 0 builds the graph and runs METIS, the particles' bisection and the obstacles'
  // placement, and broadcasts the parts; the other ranks never hold the graph. Beyond
  // kParallelPartitionAbove dynamic vertices (or when asked) every rank takes part in
  // PT-Scotch instead. A dynamic vertex here is one METIS weighs: free, neither a particle
  // nor a tearing spare.
  long dynamic_count = 0;
  {
    std::vector<char> counted(n, 0);
    for (int i = 0; i < n; ++i) counted[i] = vmotion[i] < 0;
    for (int v : pts) counted[v] = 0;
    for (const ObjectParams& op : s.objects)
      for (int k = 0; k < op.spare_count; ++k) counted[op.spare_first + k] = 0;
    for (int i = 0; i < n; ++i) dynamic_count += counted[i];
  }
  const bool ptscotch =
      ranks > 1 && (options.partitioner == Partitioner::ptscotch ||
                    (options.partitioner == Partitioner::automatic && dynamic_count > kParallelPartitionAbove));
  if (ptscotch) s.partitioner = "PT-Scotch";
  const bool from_rank0 = ranks > 1 && !ptscotch && options.comm != MPI_COMM_NULL && !sender;
  int comm_rank = 0;
  if (from_rank0) MPI_Comm_rank(options.comm, &comm_rank);
  // What one rank hands the partitioner: its slice of the graph's rows (all rows for METIS,
  // on one rank), and the vertex weights computed with that slice's degrees.
  struct Slice {
    VertexGraphRows g;
    std::vector<int> weight;  // every vertex (a row outside the slice counts no degree)
    long mesh_dynamic = 0;    // sum of the weights
  };
  std::vector<char> is_point(n, 0);
  for (int v : pts) is_point[v] = 1;
  auto make_slice = [&](int slice_rank, int slice_size) {
    // The graph's elements, visited in place (no flat copy of them all).
    const ElementSource elements = [&](const ElementVisitor& visit) {
      for (const Tri& t : tris) visit(t.data(), 3);
      for (const ElementSet& set : sets)
        for (int k = 0; k < set.size(); ++k) visit(set.stencil(k), set.arity);
      // Stitch pairs are graph edges: the two panels are one garment to the partitioner.
      for (const auto& p : stitch_pairs) visit(p.data(), 2);
    };
    Slice sl;
    VertexGraphRows& g = sl.g;
    if (ranks > 1)
      g = build_vertex_graph_rows(n, partition_slice_first(n, slice_rank, slice_size),
                                  partition_slice_first(n, slice_rank + 1, slice_size), elements);
    const int g_first = g.first, g_last = g.first + g.rows.num_vertices();
    auto degree = [&](int i) { return i >= g_first && i < g_last ? g.rows.xadj[i - g_first + 1] - g.rows.xadj[i - g_first] : 0; };
    // Balance the DYNAMIC vertices: they carry the Newton rows, the elastic elements and most
    // contact pairs; a kinematic vertex (obstacle, pin) costs next to nothing. Unweighted, a
    // rank could get a whole obstacle and the other rank most of the cloth.
    // By work (issue 19 point 4): a tet vertex leads ~5 tets, a cloth vertex ~2 triangles and
    // ~3 hinges, a rod vertex a segment and a triple, and their kernels cost 0.09 (rod
    // segment) to 1.4 us (rod triple) each (TermFactory::cost, measured), so equal vertex
    // counts are not equal work once kinds mix. Hessian blocks alone (arity^2) balanced the
    // blocks of all_in exactly but left its measured local assembly time 1.45x imbalanced
    // (bench/results/balance.md): the cost per block differs 100x between terms.
    std::vector<int>& weight = sl.weight;
    weight.resize(n);
    if (options.weights == PartitionWeights::work) {
      std::vector<long> work(n, 0);
      for (const ElementSet& set : sets)
        for (int k = 0; k < set.size(); ++k)
          work[set.stencil(k)[0]] += set.term->cost > 0 ? set.term->cost : static_cast<long>(set.arity) * set.arity;
      // (A vertex outside this rank's rows counts no degree: PT-Scotch reads only the rows.)
      for (int i = 0; i < n; ++i) work[i] += 1 + degree(i);
      for (int i = 0; i < n; ++i) weight[i] = vmotion[i] >= 0 ? 0 : static_cast<int>(std::min<long>(work[i], 1 << 20));
    } else {
      for (int i = 0; i < n; ++i) weight[i] = vmotion[i] >= 0 ? 0 : 1;
    }
    // Particles weigh 0 for METIS (they are split by coordinates, below); spares follow
    // their vertex (below): no weight of their own.
    for (const ObjectParams& op : s.objects)
      for (int k = 0; k < op.spare_count; ++k) weight[op.spare_first + k] = 0;
    for (int i = 0; i < n; ++i) {
      if (is_point[i]) weight[i] = 0;
      sl.mesh_dynamic += weight[i];
    }
    return sl;
  };
  auto compute_parts = [&]() -> std::vector<int> {
    // METIS (on one rank) takes the whole graph; PT-Scotch takes each rank's slice of its
    // rows, so no rank builds the whole graph (at 4.2M vertices it and its build
    // workspace were the largest arrays of a rank's scene build). Under a sender (rank 0
    // builds alone and sends the parts) rank 0 builds every rank's slice in turn and sends
    // it, keeping only the loose kinematic vertices found among its rows.
    int slice_rank = 0, slice_size = 1;
    if (ptscotch && options.comm != MPI_COMM_NULL) {
      MPI_Comm_rank(options.comm, &slice_rank);
      MPI_Comm_size(options.comm, &slice_size);
    }
    std::vector<char> kinematic;
    if (ranks > 1) {
      kinematic.resize(n);
      for (int i = 0; i < n; ++i) kinematic[i] = vmotion[i] >= 0;
    }
    std::vector<int> loose_of_others;  // (sender, PT-Scotch: ranks 1.. in rank order)
    if (ptscotch && sender) {
      // A scene of particles alone (beside obstacles) is split by coordinates only: no
      // graph partition to join (a vertex weighs > 0 exactly when it is dynamic, neither a
      // particle nor a spare, whatever the slice).
      std::vector<char> weighs(n);
      for (int i = 0; i < n; ++i) weighs[i] = vmotion[i] < 0 && !is_point[i];
      for (const ObjectParams& op : s.objects)
        for (int k = 0; k < op.spare_count; ++k) weighs[op.spare_first + k] = 0;
      const bool partition = pts.empty() || std::find(weighs.begin(), weighs.end(), 1) != weighs.end();
      std::vector<char>().swap(weighs);
      if (partition) sender->start_partition();
      for (int r = 1; r < slice_size; ++r) {
        Slice other = make_slice(r, slice_size);
        const std::vector<int> w(other.weight.begin() + other.g.first,
                                 other.weight.begin() + other.g.first + other.g.rows.num_vertices());
        if (partition) sender->send_slice(r, other.g, w);
        const std::vector<int> l = loose_kinematic_vertices(other.g.rows, other.g.first, kinematic);
        loose_of_others.insert(loose_of_others.end(), l.begin(), l.end());
      }
    }
    Slice own = make_slice(slice_rank, slice_size);
    const VertexGraphRows& g = own.g;
    const int g_first = g.first, g_last = g.first + g.rows.num_vertices();
    // Particles have no edges: METIS would scatter them over the parts. They are split by
    // recursive coordinate bisection instead (compact slabs), particle part p going to rank
    // p; METIS balances the other dynamic vertices (particles weigh 0 there), RCB the
    // particles, so each rank's dynamic count is balanced as a sum of two balanced splits.
    // Deterministic (RCB orders by (coordinate, id)): the same parts however it is run.
    std::vector<int> slice_weight;
    if (ptscotch) slice_weight.assign(own.weight.begin() + g_first, own.weight.begin() + g_last);
    const long mesh_dynamic = own.mesh_dynamic;
    std::vector<int> part =
        ranks == 1 || (mesh_dynamic == 0 && !pts.empty())
            ? std::vector<int>(n, 0)
            : ptscotch ? partition_graph_parallel(g, ranks, &slice_weight,
                                                  options.comm == MPI_COMM_NULL ? MPI_COMM_SELF : options.comm)
                       : partition_graph(g.rows, ranks, &own.weight);
    if (!pts.empty() && ranks > 1) {
      std::vector<Vec3> px;
      std::vector<double> pw;
      for (int v : pts) px.push_back(X[v]), pw.push_back(vmotion[v] >= 0 ? 0.0 : 1.0);
      const std::vector<int> ppart = partition_coordinates(px, ranks, &pw);
      for (size_t k = 0; k < pts.size(); ++k) part[pts[k]] = ppart[k];
      if (mesh_dynamic == 0) {
        // Particles alone (beside obstacles): the obstacles are placed below, by proximity.
        for (int i = 0; i < n; ++i)
          if (!is_point[i]) part[i] = 0;
      }
    }
    // ... and an obstacle goes with the cloth beside it, not wherever METIS put a
    // zero-weight component (partition/kinematic_owner.hpp).
    if (ranks > 1) {
      // Under PT-Scotch each rank finds the loose vertices among its rows; all of them are
      // gathered (obstacle vertices only: few).
      std::vector<int> loose = loose_kinematic_vertices(g.rows, g_first, kinematic);
      if (ptscotch && sender)
        loose.insert(loose.end(), loose_of_others.begin(), loose_of_others.end());
      else if (ptscotch && options.comm != MPI_COMM_NULL)
        loose = allgather_ints(loose, options.comm);
      attach_kinematic_to_nearest(loose, X, kinematic, part);
    }
    return part;
  };
  // Rank 0's failure (e.g. more ranks than vertices) reaches every rank as the same error,
  // so none waits for parts that never come.
  auto parts_from_rank0 = [&]() -> std::vector<int> {
    std::vector<int> part;
    int failure[2] = {0, 0};  // 1 input error, 2 other; message length
    std::string message;
    if (comm_rank == 0) {
      try {
        part = compute_parts();
      } catch (const InputError& e) {
        failure[0] = 1, message = e.what();
      } catch (const std::exception& e) {
        failure[0] = 2, message = e.what();
      }
      failure[1] = static_cast<int>(message.size());
    }
    MPI_Bcast(failure, 2, MPI_INT, 0, options.comm);
    if (failure[0]) {
      message.resize(failure[1]);
      MPI_Bcast(message.data(), failure[1], MPI_CHAR, 0, options.comm);
      if (failure[0] == 1) throw InputError(message);
      throw RuntimeFailure(message);
    }
    part.resize(n);
    MPI_Bcast(part.data(), n, MPI_INT, 0, options.comm);
    return part;
  };
  std::vector<int> part;
  try {
    part = from_rank0 ? parts_from_rank0() : compute_parts();
  } catch (const InputError& e) {  // (e.g. more ranks than vertices: name the case)
    const std::string what = e.what();
    if (what.rfind(spec.path, 0) == 0) throw;
    throw InputError(spec.path + ": " + what);
  }

  // A spare goes with the vertex it shadows (spare k of an object: its vertex k): the
  // spares are spread as the object is, and a split often keeps the new vertex's rank.
  for (const ObjectParams& op : s.objects)
    for (int k = 0; k < op.spare_count; ++k) part[op.spare_first + k] = part[op.spare_first - op.spare_count + k];

  // A stitch pair lives on one rank (b goes to a's part): its spring, its weld test and,
  // once welded, its one unknown are then local to that rank.
  for (const auto& p : stitch_pairs) part[p[1]] = part[p[0]];
  if (ranks > 1) {
    std::vector<int> sizes(ranks, 0);
    for (int p : part) ++sizes[p];
    for (int r = 0; r < ranks; ++r)
      if (sizes[r] == 0) throw InputError(empty_rank_message(spec, r, ranks));
  }

  // 3. Renumber: solver id ordered by (part, input id), so each part is one block.
  // (Plain while the scene is built; the Scene keeps them as runs of consecutive ids.)
  std::vector<int> input_of_solver(n), solver_of_input(n);
  std::iota(input_of_solver.begin(), input_of_solver.end(), 0);
  std::stable_sort(input_of_solver.begin(), input_of_solver.end(), [&](int a, int b) { return part[a] < part[b]; });
  for (int i = 0; i < n; ++i) solver_of_input[input_of_solver[i]] = i;
  s.vertex_range.assign(ranks + 1, 0);
  for (int p : part) ++s.vertex_range[p + 1];
  std::partial_sum(s.vertex_range.begin(), s.vertex_range.end(), s.vertex_range.begin());

  s.rest.assign(n, Vec3::Zero(), true);
  for (int i = 0; i < n; ++i) s.rest.ref(solver_of_input[i]) = X[i];
  for (int v = 0; v < n; ++v) {
    const int i = input_of_solver[v];
    s.vertex_object.push_back(vobj[i]);
    s.vertex_motion.push_back(vmotion[i]);
  }
  s.input_of_solver = IdRuns(input_of_solver);
  std::vector<int>().swap(input_of_solver);
  s.vertex_object.compact();
  s.vertex_motion.compact();
  // The input-order copies are done with (one copy of each per-vertex array at a time).
  std::vector<Vec3>().swap(X);
  std::vector<int>().swap(vobj);
  std::vector<int>().swap(vmotion);
  std::vector<int>().swap(part);

  // 4. Elements in solver ids, rest data and lumped masses.
  s.mass.assign(n, 0.0, true);
  // A volume's mass is lumped from its tets (below); its boundary triangles carry none.
  std::vector<char> lumped_by_volume(spec.objects.size(), 0);
  for (int o : tetobj) lumped_by_volume[o] = 1;
  std::vector<Tri> scene_tris;
  scene_tris.reserve(tris.size());
  twarp.resize(twarp.empty() ? 0 : tris.size(), Vec3::Zero());  // (zeros after the last orthotropic object)
  const bool any_warp = std::any_of(twarp.begin(), twarp.end(), [](const Vec3& w) { return w.squaredNorm() > 0; });
  std::vector<Vec3> warp;
  if (any_warp) warp.reserve(tris.size());
  for (size_t t = 0; t < tris.size(); ++t) {
    Tri tri{solver_of_input[tris[t][0]], solver_of_input[tris[t][1]], solver_of_input[tris[t][2]]};
    scene_tris.push_back(tri);
    s.triangle_object.push_back(tobj[t]);
    if (any_warp) warp.push_back(twarp[t]);
    // (also the check that no rest triangle is degenerate: make_tri_rest throws)
    const double area = make_tri_rest(s.rest[tri[0]], s.rest[tri[1]], s.rest[tri[2]]).area;
    const MaterialSpec& mat = spec.objects[tobj[t]].material;
    if (lumped_by_volume[tobj[t]]) continue;
    const double m3 = mat.density * mat.thickness * area / 3.0;
    for (int v : tri) s.mass.ref(v) += m3;
  }
  s.triangle_object.compact();
  s.triangles = PagedArray<Tri>::adopt(std::move(scene_tris));
  if (any_warp) s.triangle_warp = PagedArray<Vec3>::adopt(std::move(warp));
  std::vector<Tri>().swap(tris);
  std::vector<int>().swap(tobj);
  std::vector<Vec3>().swap(twarp);
  // Rods: rho pi r^2 per unit length, each segment's mass half to each end; particles:
  // rho 4/3 pi r^3 each.
  const double pi = 3.14159265358979323846;
  s.segments.reserve(segs.size());
  s.points.reserve(pts.size());
  for (size_t k = 0; k < segs.size(); ++k) {
    const Edge e{solver_of_input[segs[k][0]], solver_of_input[segs[k][1]]};
    s.segments.push_back(e);
    s.segment_object.push_back(sobj[k]);
    const MaterialSpec& mat = spec.objects[sobj[k]].material;
    const double half = 0.5 * mat.density * pi * mat.radius * mat.radius * (s.rest[e[1]] - s.rest[e[0]]).norm();
    s.mass.ref(e[0]) += half;
    s.mass.ref(e[1]) += half;
  }
  for (size_t k = 0; k < pts.size(); ++k) {
    const int v = solver_of_input[pts[k]];
    s.points.push_back(v);
    s.point_object.push_back(pobj[k]);
    const MaterialSpec& mat = spec.objects[pobj[k]].material;
    s.mass.ref(v) += mat.density * 4.0 / 3.0 * pi * mat.radius * mat.radius * mat.radius;
  }
  std::vector<Edge>().swap(segs);
  std::vector<int>().swap(sobj);
  std::vector<int>().swap(pts);
  std::vector<int>().swap(pobj);
  // Volumes: rho V / 4 to each vertex of a tet of rest volume V.
  s.tets.reserve(tets.size());
  for (size_t k = 0; k < tets.size(); ++k) {
    std::array<int, 4> t;
    for (int a = 0; a < 4; ++a) t[a] = solver_of_input[tets[k][a]];
    s.tets.push_back(t);
    s.tet_object.push_back(tetobj[k]);
    const Vec3& x0 = s.rest[t[0]];
    const double V = (s.rest[t[1]] - x0).dot((s.rest[t[2]] - x0).cross(s.rest[t[3]] - x0)) / 6.0;
    const double quarter = spec.objects[tetobj[k]].material.density * V / 4.0;
    for (int v : t) s.mass.ref(v) += quarter;
  }
  std::vector<std::array<int, 4>>().swap(tets);
  std::vector<int>().swap(tetobj);
  for (RunInts* objects : {&s.segment_object, &s.point_object, &s.tet_object}) objects->compact();
  // material.vertex_mass replaces the lumped masses (tests, comparisons with other codes).
  for (int v = 0; v < n; ++v) {
    const double vm = spec.objects[s.vertex_object[v]].material.vertex_mass;
    if (vm > 0 && spec.objects[s.vertex_object[v]].kind != ObjectKind::Obstacle && !s.is_spare(v)) s.mass.ref(v) = vm;
  }
  // Under a run's communicator each rank keeps only the stencils touching a vertex it owns:
  // its matrix rows, its LocalView (stencils it leads, and their ghosts) and its terms need
  // no others, and the sets are most of the scene's bytes (issue 20).
  // (A sender keeps the whole sets until every rank has its part: cut_sets_to_rank after.)
  int my_rank = -1;
  if (ranks > 1 && options.comm != MPI_COMM_NULL && !sender) {
    int comm_size = 0;
    MPI_Comm_size(options.comm, &comm_size);
    if (comm_size == ranks) MPI_Comm_rank(options.comm, &my_rank);
  }
  for (ElementSet& set : sets) {
    if (set.size() == 0) continue;  // no object for this term
    for (int& v : set.vertices) v = solver_of_input[v];
    if (my_rank >= 0) set.keep(stencils_touching(set, s.vertex_range[my_rank], s.vertex_range[my_rank + 1]));
    set.shrink_to_fit();
    s.element_sets.push_back(std::move(set));
  }
  s.sets_rank = my_rank;
  // Stitch springs start at a quarter of the pair's inertia stiffness m / dt^2 (m the mean
  // of the two masses): the first step closes about a fifth of a free seam's gap, gently,
  // and the doubling after every step that ends farther apart than dhat
  // (methods/stitching.hpp) overtakes the cloth's own resistance within a few steps more.
  for (const auto& p : stitch_pairs) {
    s.stitches_input.push_back(p);
    s.stitches.push_back({solver_of_input[p[0]], solver_of_input[p[1]]});
    const double m = 0.5 * (s.mass[s.stitches.back()[0]] + s.mass[s.stitches.back()[1]]);
    s.stitch_stiffness0.push_back(0.25 * m / (spec.dt * spec.dt));
  }
  s.solver_of_input = IdRuns(solver_of_input);
  std::vector<int>().swap(solver_of_input);
  for (int v = 0; v < n; ++v)
    if (!s.kinematic(v) && !s.is_spare(v) && !(s.mass[v] > 0))
      throw InputError(spec.path + ": vertex " + std::to_string(s.input_of_solver[v]) +
                       " of object '" + s.objects[s.vertex_object[v]].name + "' has no mass (unreferenced?)");
  return s;
}

}  // namespace

Scene build_scene(const CaseSpec& spec, int ranks, const SceneOptions& options) {
  int rank = 0;
  const bool send = options.send_parts && ranks > 1 && options.comm != MPI_COMM_NULL;
  if (send) MPI_Comm_rank(options.comm, &rank);
  if (!send) return build_whole_scene(spec, ranks, options, nullptr);
  // A particle scene: every rank builds its own part (io/particle_parts.hpp).
  if (builds_particle_parts(spec)) return build_particle_part(spec, options);
  if (rank != 0) return receive_scene_part(spec, options.comm);
  // Rank 0: its failure reaches every rank as the same error (they wait for their parts).
  PartsSender sender(options.comm);
  Scene s;
  try {
    s = build_whole_scene(spec, ranks, options, &sender);
  } catch (const InputError& e) {
    sender.fail(PartsSender::kInputError, e.what());
    throw;
  } catch (const std::exception& e) {
    sender.fail(PartsSender::kFailure, e.what());
    throw;
  }
  sender.send_parts(s);
  cut_sets_to_rank(s, 0);
  return s;
}

}  // namespace weft
