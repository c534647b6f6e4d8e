#include "methods/cipc.hpp"

#include <petsclog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <utility>

#include "core/error.hpp"
#include "core/motion.hpp"
#include "energy/registry.hpp"
#include "parallel/contact_halo.hpp"
#include "parallel/even_share.hpp"
#include "solver/ghosted_array.hpp"

namespace weft {
namespace {

// Augmented Lagrangian for kinematic obstacles (IPC section 4.3): start stiffness, cap,
// the progress below which the stiffness doubles (IPC's eta), the factor by which the
// worst deviation must shrink per update not to double it too, and the most outer
// (multiplier) updates per Newton solve (per friction lag) before the obstacle is left to
// lag behind its script.
constexpr double kAlKappa0 = 1.0e3;
constexpr double kAlKappaMax = 1.0e8;
constexpr double kAlProgress = 0.99;
constexpr double kAlShrink = 0.25;
constexpr int kAlMaxOuter = 30;

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in ") + what);
}

}  // namespace

CipcStepper::CipcStepper(const Scene& scene, const LocalView& lv, std::string method)
    : scene_(scene), lv_(lv), method_(std::move(method)), h_(scene.spec.dt) {
  sys_ = std::make_unique<LinearSystem>(scene, lv, scene.spec.linear);
  const int n_owned = lv.num_owned(), n_local = lv.num_local();
  int ranks = 1;
  MPI_Comm_size(lv.comm, &ranks);
  std::vector<PetscInt> ghosts(lv.ghosts.begin(), lv.ghosts.end());
  check(VecCreateGhostBlock(lv.comm, 3, 3 * n_owned, PETSC_DETERMINE, static_cast<PetscInt>(ghosts.size()),
                            ghosts.data(), &x_), "VecCreateGhostBlock");
  check(VecDuplicate(x_, &v_), "VecDuplicate");
  {
    LocalArray xa(x_), va(v_);
    for (int l = 0; l < n_local; ++l) {
      const int v = lv.global_of_local(l);
      for (int d = 0; d < 3; ++d) {
        xa.data()[3 * l + d] = scene.rest[v][d];
        va.data()[3 * l + d] = scene.velocity0(v)[d];
      }
    }
  }
  // Unknowns: one node per vertex (the identity NodeMap), fixed while kinematic.
  global_id_.resize(n_local);
  for (int l = 0; l < n_local; ++l) {
    const int v = lv.global_of_local(l);
    global_id_[l] = scene.kinematic(v) ? -1 : v;
    if (scene.kinematic(v)) kin_local_.push_back(l);
  }
  kin_target_.resize(3 * kin_local_.size());
  {
    // Obstacles have no mass of their own: their AL spring is weighted by the mean mass of
    // a dynamic vertex, so kappa_A is relative to the cloth's inertia.
    const Scene::VertexSummary sum = scene.vertex_summary();
    const double msum = sum.dynamic_mass_sum, mcount = sum.dynamic_count;
    al_mass_ = mcount > 0 && msum > 0 ? msum / mcount : 1.0;
  }
  x_hat_.resize(3 * n_owned);
  for (size_t s = 0; s < scene.element_sets.size(); ++s)
    terms_.push_back(scene.element_sets[s].term->make(scene, static_cast<int>(s), lv.sets[s]));
  if (scene.spec.contact_enabled && (!scene.triangles.empty() || scene.num_segments() > 0 || scene.num_points() > 0)) {
    std::vector<double> object_offset, object_friction;
    for (const ObjectParams& op : scene.objects) {
      object_offset.push_back(op.offset);
      object_friction.push_back(op.friction);
    }
    // On more ranks than one, each holds its share of the edges (issue 20: the edges it
    // owns; the contact halo adds those other ranks send it), numbered as a whole build,
    // built from the triangles with a vertex in its block (a scene part keeps just those).
    CollisionSurface surf;
    if (ranks > 1) {
      std::vector<int> listed;  // (a whole scene's: found here)
      if (!scene.triangle_part)
        for (size_t t = 0; t < scene.triangles.size(); ++t)
          for (int v : scene.triangles[t])
            if (v >= lv.vbegin && v < lv.vend) {
              listed.push_back(static_cast<int>(t));
              break;
            }
      surf = build_collision_surface_share(scene.triangles, scene.triangle_part ? scene.kept_triangles : listed,
                                           scene.triangle_object, object_offset, scene.num_vertices,
                                           SharedPrimitives{scene.segments,
                                                            scene.primitive_part ? &scene.segment_ids : nullptr,
                                                            scene.segment_object, scene.points,
                                                            scene.primitive_part ? &scene.point_ids : nullptr,
                                                            scene.point_object},
                                           rank_edge_share(lv.vbegin, lv.vend, lv.comm));
    } else {
      surf = build_collision_surface(BorrowedArray<Tri>::borrow(scene.triangles.whole()), scene.triangle_object,
                                     object_offset, scene.num_vertices, scene.segments, scene.segment_object,
                                     scene.points, scene.point_object);
    }
    if (!scene.stitches.empty()) {
      surf.twin.assign(static_cast<size_t>(scene.num_vertices), -1);
      for (const auto& p : scene.stitches) surf.twin.ref(p[0]) = p[1], surf.twin.ref(p[1]) = p[0];
    }
    contact_ = std::make_unique<ContactPotential>(scene, lv, *sys_, std::move(surf));
  }

  // The incremental potential: inertia (+ the AL springs, when obstacles are unknowns),
  // then h^2 times the elastic terms in set order, then contact.
  std::vector<int> fixed;
  for (int l : kin_local_)
    if (l < n_owned) fixed.push_back(l);
  // The owned masses: the scene's own block on one rank; a copy on more, whose scene keeps
  // its part in other storage after the setup (Scene::keep_vertex_part).
  const double* owned_mass = scene.mass.flat_data() + lv.vbegin;
  if (ranks > 1 || !scene.mass.flat_data()) {
    owned_mass_.resize(n_owned);
    for (int l = 0; l < n_owned; ++l) owned_mass_[l] = scene.mass[lv.vbegin + l];
    owned_mass = owned_mass_.data();
  }
  inertia_ = std::make_unique<InertiaTerm>(n_owned, std::move(fixed), owned_mass, x_hat_);
  al_ = std::make_unique<KinematicAl>(al_mass_, lv.comm);
  al_->settle_step = 0.1 * al_tolerance();
  NewtonMinimiser::Options opt;
  opt.tol = scene.spec.newton_tol;
  opt.residual_scale = h_;
  opt.max_iters = scene.spec.max_newton;
  opt.norm = scene.spec.newton_norm == "rms" ? NewtonMinimiser::Norm::kRms : NewtonMinimiser::Norm::kMax;
  newton_ = std::make_unique<NewtonMinimiser>(lv, *sys_, x_, global_id_, opt);
  newton_->add_group(1.0, {inertia_.get(), al_.get()});
  std::vector<LocalTerm*> elastic;
  for (const auto& t : terms_) {
    elastic_.push_back(std::make_unique<EnergyTermPart>(*t));
    elastic.push_back(elastic_.back().get());
  }
  if (!scene.stitches.empty()) {
    // The stitch springs are elastic energy (h^2 scale); their Hessians use a slot cache
    // past the element sets'.
    stitching_ = std::make_unique<Stitching>(scene, lv, static_cast<int>(scene.element_sets.size()));
    elastic.push_back(stitching_.get());
    newton_->set_ties(&stitching_->ties());
  }
  newton_->add_group(h_ * h_, std::move(elastic));
  if (contact_) newton_->add_global(contact_.get());
}

void CipcStepper::apply_ties() {
  if (!stitching_) return;
  // A welded copy's unknown is its partner's: its derivatives go to the partner's rows, its
  // own row is the identity (LinearSystem::set_tied), the minimiser gives it the partner's
  // step (set_ties), and contact writes its pairs into the partner's rows.
  for (const auto& [copy, node] : stitching_->ties()) global_id_[copy] = global_id_[node];
  sys_->set_tied(stitching_->owned_copies());
  if (contact_) contact_->set_rows(stitching_->welded_count() > 0 ? &stitching_->welded_partner() : nullptr);
}

CipcStepper::~CipcStepper() {
  newton_.reset();
  contact_.reset();
  VecDestroy(&x_);
  VecDestroy(&v_);
}

void CipcStepper::move_toward(const std::vector<char>& use, std::vector<double>& xl) {
  // The move is cut to the ACCD bound of the moving vertices against everything else, then
  // halved while it would push a triangle past its strain limit, so it never causes an
  // intersection or an infinite energy.
  std::vector<double> start(xl), goal(xl);
  int any = 0;
  for (size_t i = 0; i < kin_local_.size(); ++i) {
    if (!use[i]) continue;
    const int l = kin_local_[i];
    for (int d = 0; d < 3; ++d) goal[3 * l + d] = kin_target_[3 * i + d];
    any = any || (Eigen::Map<const Vec3>(&goal[3 * l]) - Eigen::Map<const Vec3>(&start[3 * l])).squaredNorm() > 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, lv_.comm);
  if (!any) return;
  double beta = 1.0;
  if (contact_) {
    {
      LocalArray xa(x_);  // the halo reads x_: bring it to the current xl
      std::copy(xl.begin(), xl.end(), xa.data());
    }
    // The displacement as a step (zero elsewhere, ghost slots too), through the halo so
    // that every pair the moving vertices could sweep into is seen; in the minimiser's
    // scratch Vec (not read between its solves), not a Vec of its own.
    Vec move = newton_->scratch();
    {
      LocalArray pa(move);
      std::fill(pa.data(), pa.data() + 3 * lv_.num_local(), 0.0);
      for (int l = 0; l < lv_.num_owned(); ++l)
        for (int d = 0; d < 3; ++d) pa.data()[3 * l + d] = goal[3 * l + d] - start[3 * l + d];
    }
    beta = contact_->move_bound(x_, move);
    MPI_Allreduce(MPI_IN_PLACE, &beta, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
  }
  for (int k = 0; k < 30; ++k, beta *= 0.5) {
    for (size_t i = 0; i < xl.size(); ++i) xl[i] = start[i] + beta * (goal[i] - start[i]);
    if (std::isfinite(newton_->global_energy(xl.data(), beta))) break;
  }
  if (!(beta > 0)) beta = 0.0;
  if (beta < 1.0 / (1 << 29)) {
    xl = start;
    beta = 0.0;
  }
  if (contact_) contact_->advance(beta);
}

void CipcStepper::clear_al() {
  if (al_->count == 0) return;
  for (int l : al_->owned) global_id_[l] = -1;
  al_free_.clear();
  al_->owned.clear();
  al_->target.clear();
  al_->lambda.clear();
  al_->count = 0;
  al_->kappa = 0.0;
  sys_->set_free_kinematic({});
  if (contact_) contact_->set_free_kinematic({});
}

void CipcStepper::move_kinematic(double t_next, std::vector<double>& xl, StepStats& st) {
  clear_al();
  const int n_local = lv_.num_local(), n_owned = lv_.num_owned();
  std::vector<char> use(kin_local_.size(), 1);
  for (size_t i = 0; i < kin_local_.size(); ++i) {
    const int v = lv_.global_of_local(kin_local_[i]);
    const Vec3 p = scripted_position(scene_.motions[scene_.vertex_motion[v]], scene_.rest[v], t_next);
    for (int d = 0; d < 3; ++d) kin_target_[3 * i + d] = p[d];
  }
  move_toward(use, xl);
  if (!contact_) return;  // only contact can hold an obstacle back

  // Obstacle vertices left behind by more than the tolerance become unknowns of this
  // step, pulled to their target by an AL spring while the barrier pushes what is in the
  // way (IPC section 4.3). Pins stay exact (they only lag).
  const double tol = al_tolerance();
  std::vector<int> mine;
  double sq0 = 0.0;
  for (size_t i = 0; i < kin_local_.size() && kin_local_[i] < n_owned; ++i) {
    const int l = kin_local_[i], v = lv_.vbegin + l;
    if (!scene_.objects[scene_.vertex_object[v]].scripted) continue;
    const double lag2 = (Eigen::Map<const Vec3>(&kin_target_[3 * i]) - Eigen::Map<const Vec3>(&xl[3 * l])).squaredNorm();
    if (lag2 > tol * tol) {
      al_->owned.push_back(l);
      al_->target.insert(al_->target.end(), &kin_target_[3 * i], &kin_target_[3 * i] + 3);
      mine.push_back(v);
      sq0 += lag2;
    }
  }
  const std::vector<int> all = allgather_ints(mine, lv_.comm);
  const int total = static_cast<int>(all.size());
  if (total == 0) return;
  al_free_ = all;
  std::sort(al_free_.begin(), al_free_.end());  // (already so: rank blocks in rank order)
  MPI_Allreduce(MPI_IN_PLACE, &sq0, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
  al_->count = total;
  al_sq0_ = sq0;

  // The other kinematic vertices (pins, obstacle vertices within the tolerance) were cut
  // with the same fraction; with the AL vertices held still they may go further. The AL
  // term is already on its vertices (kappa still 0): its multipliers must exist for the
  // energy evaluations of this move.
  al_->lambda.assign(3 * al_->owned.size(), 0.0);
  for (size_t i = 0; i < kin_local_.size(); ++i) use[i] = !al_free(lv_.global_of_local(kin_local_[i]));
  move_toward(use, xl);

  for (int l : al_->owned) global_id_[l] = lv_.vbegin + l;
  for (int l = n_owned; l < n_local; ++l)
    if (al_free(lv_.global_of_local(l))) global_id_[l] = lv_.global_of_local(l);
  al_->lambda.assign(3 * al_->owned.size(), 0.0);
  al_->kappa = kAlKappa0;
  sys_->set_free_kinematic(mine);
  contact_->set_free_kinematic(al_free_);
}

int CipcStepper::solve_with_al(StepStats& st) {
  int its = 0;
  double prev_worst = std::numeric_limits<double>::infinity();
  for (int outer = 0;; ++outer) {
    st.converged = false;  // the step's verdict is that of its last solve
    its += newton_->minimise(st);
    if (al_->count == 0) break;
    // Constraint residual over the AL vertices (global).
    double r[2] = {0.0, 0.0};  // sum of squared deviations, -max deviation^2 (for MPI_MIN)
    std::vector<double> dev(3 * al_->owned.size());
    {
      LocalArray xa(x_);
      for (size_t i = 0; i < al_->owned.size(); ++i) {
        const int l = al_->owned[i];
        const Vec3 d = Eigen::Map<const Vec3>(xa.data() + 3 * l) - Eigen::Map<const Vec3>(&al_->target[3 * i]);
        for (int k = 0; k < 3; ++k) dev[3 * i + k] = d[k];
        r[0] += d.squaredNorm();
        r[1] = std::min(r[1], -d.squaredNorm());
      }
    }
    double sum = 0.0, negmax = 0.0;
    MPI_Allreduce(&r[0], &sum, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
    MPI_Allreduce(&r[1], &negmax, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
    const double tol = al_tolerance(), worst = std::sqrt(-negmax);
    if (worst <= tol || outer >= kAlMaxOuter) break;
    // Method of multipliers: lambda moves by the constraint force kappa_A sqrt(m) (x - x_t)
    // after every converged solve (IPC section 4.3). kappa_A doubles, up to its cap, while
    // the penalty makes too little progress (IPC: eta < 0.99) or the worst deviation
    // shrinks by less than kAlShrink since the last update: a stiff barrier in the way
    // then makes multiplier updates alone converge slowly.
    const double eta = 1.0 - std::sqrt(sum / al_sq0_);
    const double step = al_->kappa * std::sqrt(al_mass_);
    for (size_t i = 0; i < al_->lambda.size(); ++i) al_->lambda[i] -= step * dev[i];
    if ((eta < kAlProgress || worst > kAlShrink * prev_worst) && 2 * al_->kappa <= kAlKappaMax) al_->kappa *= 2.0;
    prev_worst = worst;
    ++st.al_updates;
  }
  return its;
}

double CipcStepper::max_strain() {
  double worst = 0.0;
  LocalArray xa(x_);
  for (const auto& term : terms_) worst = std::max(worst, term->max_strain(xa.data()));
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
  return worst;
}

NamedValues CipcStepper::start_stats() {
  NamedValues v = {{"newton_iters", 0}, {"max_strain", max_strain()}};
  if (stitching_) {
    LocalArray xa(x_);
    v.push_back({"welded", double(stitching_->welded_count())});
    v.push_back({"stitch_gap", stitching_->max_gap(xa.data())});
  }
  return v;
}

NamedValues CipcStepper::rank_totals() const {
  if (!contact_) return {};
  const ContactTimers& t = contact_->timers();
  return {{"halo_vertices", double(t.halo_vertices)},
          {"broad_primitives_max", double(t.broad_primitives_max)},
          {"position_entries_max", double(t.position_entries_max)},
          {"surface_primitives", double(contact_->surface_primitives())},
          {"contact_vertex_arrays_kB", double(contact_->vertex_array_bytes()) / 1024.0},
          {"surface_edges_kB", double(contact_->surface_edge_bytes()) / 1024.0}};
}

std::string CipcStepper::describe() const {
  return "method " + method_ + " (projected Newton), linear solver " + sys_->describe();
}

namespace {
std::string stiffness_name(const EnergyTerm& term) { return std::string("stiffness.") + term.set().term->name; }

// The whole-set index of each of a term's stencils on this rank (ascending, as the rank's
// stencils are).
std::vector<int> whole_indices(const EnergyTerm& term) {
  std::vector<int> index;
  index.reserve(term.stencils().size());
  for (int i = 0; i < term.stencils().size(); ++i) index.push_back(term.set().global_of(term.stencils().element_at(i)));
  return index;
}
}  // namespace

NamedArrays CipcStepper::save() const {
  NamedArrays out;
  for (const auto& term : terms_) {
    const std::vector<double>* k = term->stiffness();
    if (!k) continue;
    // Each stencil is evaluated on one rank: a distributed array of its stencils' values
    // at their whole-set indices.
    out.push_back({stiffness_name(*term), *k, whole_indices(*term), term->set().whole_size()});
  }
  if (contact_) out.push_back({"contact_kappa", {contact_->kappa()}});
  if (stitching_) {
    out.push_back({"stitch.stiffness", stitching_->stiffness_all()});
    out.push_back({"stitch.welded", stitching_->welded_all()});
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<int>>> CipcStepper::load_entries() const {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  for (const auto& term : terms_)
    if (term->stiffness()) out.emplace_back(stiffness_name(*term), whole_indices(*term));
  return out;
}

void CipcStepper::load(const NamedArrays& arrays) {
  auto array = [&](const std::string& name, size_t size) -> const NamedArray& {
    const NamedArray* a = find_array(arrays, name);
    if (!a) throw InputError("checkpoint array '" + name + "' missing");
    if (a->distributed() && a->values.size() != a->index.size())
      throw InputError("checkpoint array '" + name + "' has " + std::to_string(a->values.size()) + " values for " +
                       std::to_string(a->index.size()) + " entries");
    if (a->length() != static_cast<long>(size))
      throw InputError("checkpoint array '" + name + "' has " + std::to_string(a->length()) +
                       " values but the case has " + std::to_string(size));
    return *a;
  };
  auto get = [&](const std::string& name, size_t size) { return &array(name, size).values; };
  for (const auto& term : terms_) {
    std::vector<double>* k = term->stiffness();
    if (!k) continue;
    const ElementSet& set = term->set();
    const NamedArray& a = array(stiffness_name(*term), set.whole_size());
    for (int i = 0; i < term->stencils().size(); ++i) {
      const int g = set.global_of(term->stencils().element_at(i));
      if (!a.distributed()) {
        (*k)[i] = a.values[g];
        continue;
      }
      // (a distributed array as this rank saved it: its own stencils, ascending)
      const auto it = std::lower_bound(a.index.begin(), a.index.end(), g);
      if (it == a.index.end() || *it != g)
        throw InputError("checkpoint array '" + a.name + "' lacks stencil " + std::to_string(g) + " on this rank");
      (*k)[i] = a.values[it - a.index.begin()];
    }
  }
  if (contact_) contact_->set_kappa((*get("contact_kappa", 1))[0]);
  if (stitching_) {
    const size_t S = scene_.stitches.size();
    stitching_->load(*get("stitch.stiffness", S), *get("stitch.welded", S));
    apply_ties();
  }
}

StepReport CipcStepper::step(double t) {
  last_ = run_step(t);
  const StepStats& st = last_;
  StepReport r;
  r.iterations = st.newton_iters;
  r.max_strain = st.max_strain;
  r.converged = st.converged;
  r.stats = {{"newton_iters", st.newton_iters},
             {"ksp_iters", st.ksp_iters},
             {"max_strain", st.max_strain},
             {"min_alpha", st.min_alpha},
             {"residual", st.residual},
             {"converged", st.converged ? 1.0 : 0.0},
             {"energy", st.energy},
             {"assembly_s", st.assembly_s},
             {"solve_s", st.solve_s},
             {"line_search_s", st.line_search_s},
             {"contact_s", st.contact_s},
             {"ccd_queries", double(st.ccd_queries)},
             {"min_distance", st.min_distance},
             {"contact_pairs", double(st.contact_pairs)},
             {"kappa", st.kappa},
             {"kinematic_lag", st.kinematic_lag},
             {"al_vertices", double(st.al_vertices)},
             {"al_updates", double(st.al_updates)},
             {"al_kappa", st.al_kappa}};
  if (stitching_) {
    r.stats.push_back({"welded", double(st.welded)});
    r.stats.push_back({"stitch_gap", st.stitch_gap});
  }
  return r;
}

StepStats CipcStepper::run_step(double t) {
  StepStats st;
  const int n_owned = lv_.num_owned(), n_local = lv_.num_local();
  const Vec3 grav = scene_.spec.gravity;
  sys_->new_time_step();
  for (const auto& term : terms_) term->begin_step();
  if (contact_) contact_->ccd_queries = 0, contact_->seconds = 0.0;

  std::vector<double> xl(3 * n_local);
  {
    // x_hat from x_n and v_n; then v_ holds x_n (owned and ghost entries) until the
    // velocity update below: nothing reads the velocities during a step, and a separate
    // copy of x_n would be 24 bytes a vertex (issue 20).
    LocalArray xa(x_), va(v_);
    for (int l = 0; l < n_owned; ++l)
      for (int d = 0; d < 3; ++d)
        x_hat_[3 * l + d] = xa.data()[3 * l + d] + h_ * va.data()[3 * l + d] + h_ * h_ * grav[d];
    std::copy(xa.data(), xa.data() + 3 * n_local, va.data());
    std::copy(xa.data(), xa.data() + 3 * n_local, xl.begin());
  }
  if (contact_) contact_->begin_step(v_);  // (x_n, until the velocity update)
  move_kinematic(t + h_, xl, st);
  {
    LocalArray xa(x_);
    std::copy(xl.begin(), xl.end(), xa.data());
  }

  // Lagged friction (IPC): solve with normal forces and tangent frames frozen at the
  // start of the step, then re-lag from the solution friction_iterations - 1 times.
  const int lags = contact_ && scene_.spec.friction_iterations > 0 ? scene_.spec.friction_iterations : 1;
  for (int k = 0; k < lags; ++k) {
    if (contact_) contact_->lag_friction(x_);
    st.newton_iters += solve_with_al(st);
  }

  // v = (x - x_n) / h, on owned and ghost entries alike (both are consistent); v_ holds x_n.
  {
    LocalArray xa(x_), va(v_);
    for (int i = 0; i < 3 * n_local; ++i) va.data()[i] = (xa.data()[i] - va.data()[i]) / h_;
  }
  if (stitching_) {
    // Pairs within dhat weld (x, v of both to their mass-weighted mean), the others pull
    // harder next step.
    int welded_now = 0;
    {
      LocalArray xa(x_), va(v_);
      welded_now = stitching_->end_step(xa.data(), va.data());
    }
    if (welded_now > 0) {
      for (Vec w : {x_, v_}) {
        check(VecGhostUpdateBegin(w, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateBegin");
        check(VecGhostUpdateEnd(w, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateEnd");
      }
      apply_ties();
    }
    LocalArray xa(x_);
    st.welded = stitching_->welded_count();
    st.stitch_gap = stitching_->max_gap(xa.data());
  }
  st.max_strain = max_strain();
  {
    // How far the kinematic vertices ended from their script (pins cut by CCD, obstacles
    // still outside the AL tolerance).
    double lag = 0.0;
    LocalArray xa(x_);
    for (size_t i = 0; i < kin_local_.size() && kin_local_[i] < n_owned; ++i)
      lag = std::max(lag, (Eigen::Map<const Vec3>(&kin_target_[3 * i]) -
                           Eigen::Map<const Vec3>(xa.data() + 3 * kin_local_[i])).norm());
    MPI_Allreduce(MPI_IN_PLACE, &lag, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
    st.kinematic_lag = lag;
    st.al_vertices = al_->count;
    st.al_kappa = al_->kappa;
  }
  if (contact_) {
    contact_->end_step(st.min_distance, st.contact_pairs);
    st.kappa = contact_->kappa();
    st.ccd_queries = contact_->ccd_queries;
    st.contact_s = contact_->seconds;
  }
  return st;
}

}  // namespace weft
