#include "methods/cipc.hpp"

#include <petsclog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/motion.hpp"
#include "energy/registry.hpp"

namespace weft {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kArmijo = 1.0e-4;
constexpr int kMaxHalvings = 40;
constexpr double kEnergyNoise = 1.0e-12;  // relative rounding noise of a global energy sum
// Margin beyond the barrier support (in dhat) of the pairs a grown contact pattern takes in.
constexpr double kCouplingSlack = 3.0;
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

// RAII view of a ghosted Vec's local form (owned then ghost entries).
class LocalArray {
 public:
  explicit LocalArray(Vec v) : v_(v) {
    check(VecGhostGetLocalForm(v_, &local_), "VecGhostGetLocalForm");
    check(VecGetArray(local_, &a_), "VecGetArray");
  }
  ~LocalArray() {
    VecRestoreArray(local_, &a_);
    VecGhostRestoreLocalForm(v_, &local_);
  }
  double* data() { return a_; }

 private:
  Vec v_, local_ = nullptr;
  double* a_ = nullptr;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The terms' Hessian blocks into the linear system, at the slots cached per set.
class SystemSink final : public AssemblySink {
 public:
  SystemSink(double* g, const int* global_id, LinearSystem& sys, std::vector<LinearSystem::SlotCache>& slots)
      : AssemblySink(g, global_id), global_id_(global_id), sys_(sys), slots_(slots) {}
  void add_hessians(int set, int first, int count, int nv, const int* local, const double* H) override {
    int ids[8];
    const int n2 = 9 * nv * nv;
    for (int i = 0; i < count; ++i) {
      const int* l = local + nv * i;
      for (int a = 0; a < nv; ++a) ids[a] = global_id_[l[a]];
      // symmetric: column-major == row-major
      sys_.add_block(slots_[set], static_cast<size_t>(first + i), nv, ids, H + static_cast<size_t>(n2) * i);
    }
  }

 private:
  const int* global_id_;
  LinearSystem& sys_;
  std::vector<LinearSystem::SlotCache>& slots_;
};

}  // namespace

CipcStepper::CipcStepper(const Scene& scene, const LocalView& lv)
    : scene_(scene), lv_(lv), h_(scene.spec.dt) {
  sys_ = std::make_unique<LinearSystem>(scene, lv, scene.spec.linear);
  const int n_owned = lv.num_owned(), n_local = lv.num_local();
  std::vector<PetscInt> ghosts(lv.ghosts.begin(), lv.ghosts.end());
  check(VecCreateGhostBlock(lv.comm, 3, 3 * n_owned, PETSC_DETERMINE, static_cast<PetscInt>(ghosts.size()),
                            ghosts.data(), &x_), "VecCreateGhostBlock");
  check(VecDuplicate(x_, &v_), "VecDuplicate");
  check(VecDuplicate(x_, &p_), "VecDuplicate");
  check(VecDuplicate(x_, &g_), "VecDuplicate");
  check(VecCreateMPI(lv.comm, 3 * n_owned, PETSC_DETERMINE, &rhs_), "VecCreateMPI");
  {
    LocalArray xa(x_), va(v_);
    for (int l = 0; l < n_local; ++l) {
      const int v = lv.global_of_local(l);
      for (int d = 0; d < 3; ++d) {
        xa.data()[3 * l + d] = scene.rest[v][d];
        va.data()[3 * l + d] = scene.velocity0[v][d];
      }
    }
  }
  global_id_.resize(n_local);
  for (int l = 0; l < n_local; ++l) {
    const int v = lv.global_of_local(l);
    global_id_[l] = scene.kinematic(v) ? -1 : v;
  }
  {
    // Obstacles have no mass of their own: their AL spring is weighted by the mean mass of
    // a dynamic vertex, so kappa_A is relative to the cloth's inertia.
    double msum = 0.0, mcount = 0.0;
    for (int v = 0; v < scene.num_vertices; ++v)
      if (!scene.kinematic(v)) msum += scene.mass[v], mcount += 1;
    al_mass_ = mcount > 0 && msum > 0 ? msum / mcount : 1.0;
  }
  al_free_.assign(scene.num_vertices, 0);
  kin_target_.resize(3 * n_local);
  x_hat_.resize(3 * n_owned);
  x_prev_.resize(3 * n_local);
  trial_.resize(3 * n_local);
  for (size_t s = 0; s < scene.element_sets.size(); ++s)
    terms_.push_back(scene.element_sets[s].term->make(scene, static_cast<int>(s), lv.sets[s]));
  slots_.resize(terms_.size());
  triangle_pos_.assign(scene.triangles.size(), -1);
  for (size_t k = 0; k < lv.triangles.size(); ++k) triangle_pos_[lv.triangles[k]] = static_cast<int>(k);
  if (scene.spec.contact_enabled && (!scene.triangles.empty() || !scene.segments.empty() || !scene.points.empty())) {
    std::vector<double> object_offset, object_friction;
    for (const ObjectParams& op : scene.objects) {
      object_offset.push_back(op.offset);
      object_friction.push_back(op.friction);
    }
    CollisionSurface surf =
        build_collision_surface(scene.triangles, scene.triangle_object, object_offset, scene.num_vertices,
                                scene.segments, scene.segment_object, scene.points, scene.point_object);
    std::vector<char> kin(scene.num_vertices), point_owned(scene.num_vertices, 0), edge_owned(surf.edges.size(), 0);
    for (int v = 0; v < scene.num_vertices; ++v) {
      kin[v] = scene.kinematic(v);
      point_owned[v] = v >= lv.vbegin && v < lv.vend;
    }
    for (size_t e = 0; e < surf.edges.size(); ++e) edge_owned[e] = point_owned[surf.edges[e][0]];
    ContactParams cp;
    cp.dhat = scene.spec.dhat;
    cp.eps_v = scene.spec.epsilon_v;
    cp.dt = scene.spec.dt;
    contact_ = std::make_unique<ContactModel>(std::move(surf), scene.rest, std::move(kin), std::move(object_friction),
                                              std::move(point_owned), std::move(edge_owned), cp);
    // IPC's stiffness bounds from the average dynamic mass and the scene size.
    double msum = 0.0, mcount = 0.0;
    Vec3 lo = scene.rest[0], hi = scene.rest[0];
    for (int v = 0; v < scene.num_vertices; ++v) {
      lo = lo.cwiseMin(scene.rest[v]);
      hi = hi.cwiseMax(scene.rest[v]);
      if (!scene.kinematic(v)) msum += scene.mass[v], mcount += 1;
    }
    bbox_diagonal_ = (hi - lo).norm();
    kappa_bounds_ = barrier_stiffness_bounds(cp.dhat, contact_->max_offset(), mcount > 0 ? msum / mcount : 1.0,
                                             bbox_diagonal_);
    kappa_ = kappa_bounds_.min;
    halo_ = std::make_unique<ContactHalo>(contact_->surface(), scene.vertex_range, lv.comm, cp.dhat);
    halo_->set_timers(&contact_->timers());
    check(VecDuplicate(x_, &x_start_), "VecDuplicate");
  }
  PetscLogStageRegister("weft Contact", &stage_contact_);
  PetscLogStageRegister("weft Assembly", &stage_assembly_);
  PetscLogStageRegister("weft Solve", &stage_solve_);
  PetscLogStageRegister("weft LineSearch", &stage_line_search_);
}

CipcStepper::~CipcStepper() {
  VecDestroy(&x_);
  VecDestroy(&v_);
  VecDestroy(&p_);
  VecDestroy(&g_);
  VecDestroy(&rhs_);
  if (x_start_) VecDestroy(&x_start_);
}

double CipcStepper::local_energy(const double* xl) const {
  const double h2 = h_ * h_;
  double inertia = 0.0;
  for (int l = 0; l < lv_.num_owned(); ++l) {
    const int v = lv_.vbegin + l;
    if (scene_.kinematic(v)) continue;
    const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(x_hat_.data() + 3 * l);
    inertia += 0.5 * scene_.mass[v] * d.squaredNorm();
  }
  const double sqm = std::sqrt(al_mass_);
  for (size_t i = 0; i < al_owned_.size(); ++i) {
    const int l = al_owned_[i];
    const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(kin_target_.data() + 3 * l);
    inertia += 0.5 * kappa_al_ * al_mass_ * d.squaredNorm() - sqm * Eigen::Map<const Vec3>(&al_lambda_[3 * i]).dot(d);
  }
  double elastic = 0.0;
  for (const auto& term : terms_)
    if (!term->add_energy(xl, elastic)) return kInf;  // past a strain limit
  return inertia + h2 * elastic;
}

// The mean step of the dynamic vertices, used when it halves the summed box extent of all
// vertices (obstacles' boxes grow by |c|). Summed in fixed point (units of dhat / 2^20,
// saturated) so the shift, and with it every candidate set and the CCD bound, is the same
// bit for bit whatever the rank count and the order of the sums.
bool CipcStepper::swept_shift(Vec3& c) {
  const double unit = scene_.spec.dhat / 1048576.0;
  auto fix = [&](double v) {
    const double q = std::nearbyint(v / unit);
    return static_cast<long long>(std::max(-1e11, std::min(1e11, q)));
  };
  long long sum[4] = {0, 0, 0, 0};
  LocalArray pa(p_);
  const int n_owned = lv_.num_owned();
  for (int l = 0; l < n_owned; ++l) {
    if (scene_.kinematic(lv_.vbegin + l)) continue;
    for (int d = 0; d < 3; ++d) sum[d] += fix(pa.data()[3 * l + d]);
    ++sum[3];
  }
  MPI_Allreduce(MPI_IN_PLACE, sum, 4, MPI_LONG_LONG, MPI_SUM, lv_.comm);
  if (sum[3] == 0) return false;
  long long ci[3], ext[2] = {0, 0};
  for (int d = 0; d < 3; ++d) ci[d] = sum[d] / sum[3];
  for (int l = 0; l < n_owned; ++l)
    for (int d = 0; d < 3; ++d) {
      const long long q = fix(pa.data()[3 * l + d]);
      ext[0] += std::llabs(q);
      ext[1] += std::llabs(q - ci[d]);
    }
  MPI_Allreduce(MPI_IN_PLACE, ext, 2, MPI_LONG_LONG, MPI_SUM, lv_.comm);
  for (int d = 0; d < 3; ++d) c[d] = static_cast<double>(ci[d]) * unit;
  return 2 * ext[1] <= ext[0] && (ci[0] || ci[1] || ci[2]);
}

void CipcStepper::exchange_halo(Vec x, Vec p) {
  const PetscScalar *xa, *pa = nullptr;
  check(VecGetArrayRead(x, &xa), "VecGetArrayRead");
  if (p) check(VecGetArrayRead(p, &pa), "VecGetArrayRead");
  halo_->exchange(xa, pa, xf_, p ? &pf_ : nullptr);
  if (p) check(VecRestoreArrayRead(p, &pa), "VecRestoreArrayRead");
  check(VecRestoreArrayRead(x, &xa), "VecRestoreArrayRead");
}

double CipcStepper::global_energy(const double* xl, const std::vector<Vec3>& xf) const {
  double local = local_energy(xl), global = 0.0;
  if (contact_ && std::isfinite(local))
    local += contact_->barrier_energy(xf, kappa_) + contact_->friction_energy(xf);
  // Any rank's +inf (strain limit reached) makes the global energy +inf.
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
  return global;
}

double CipcStepper::assemble(const double* xl) {
  const double h2 = h_ * h_;
  sys_->begin_assembly();
  double energy = 0.0;
  {
    LocalArray ga(g_);
    double* g = ga.data();
    // Zero the ghost slots too (VecSet only touches owned entries): they are summed
    // into their owners below.
    std::fill(g, g + 3 * lv_.num_local(), 0.0);
    // Inertia: diagonal mass blocks of owned dynamic vertices.
    for (int l = 0; l < lv_.num_owned(); ++l) {
      const int v = lv_.vbegin + l;
      if (scene_.kinematic(v)) continue;
      const double m = scene_.mass[v];
      const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(x_hat_.data() + 3 * l);
      energy += 0.5 * m * d.squaredNorm();
      for (int k = 0; k < 3; ++k) g[3 * l + k] += m * d[k];
      const Mat3 M = m * Mat3::Identity();
      sys_->add_block(1, &v, M.data());
    }
    // AL springs of obstacle vertices that are unknowns this step.
    const double sqm = std::sqrt(al_mass_), k_al = kappa_al_ * al_mass_;
    for (size_t i = 0; i < al_owned_.size(); ++i) {
      const int l = al_owned_[i], v = lv_.vbegin + l;
      const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(kin_target_.data() + 3 * l);
      const Vec3 lam = Eigen::Map<const Vec3>(&al_lambda_[3 * i]);
      energy += 0.5 * k_al * d.squaredNorm() - sqm * lam.dot(d);
      for (int k = 0; k < 3; ++k) g[3 * l + k] += k_al * d[k] - sqm * lam[k];
      const Mat3 K = k_al * Mat3::Identity();
      sys_->add_block(1, &v, K.data());
    }
    // Elastic terms, one call per element set.
    SystemSink sink(g, global_id_.data(), *sys_, slots_);
    for (const auto& term : terms_) term->assemble(xl, h2, energy, sink);
  }
  // Ghost rows belong to their owners: sum them there.
  check(VecGhostUpdateBegin(g_, ADD_VALUES, SCATTER_REVERSE), "VecGhostUpdateBegin");
  check(VecGhostUpdateEnd(g_, ADD_VALUES, SCATTER_REVERSE), "VecGhostUpdateEnd");
  if (contact_) {
    // Contact pairs reach vertices anywhere: their gradient goes in by global index, summed
    // at the owner in a fixed order (LinearSystem::flush_rhs).
    ContactSink sink = [&](int nv, const int* ids, const double* ge, const double* He) {
      for (int a = 0; a < nv; ++a)
        if (ids[a] >= 0) sys_->add_rhs(ids[a], ge + 3 * a);
      sys_->add_block(nv, ids, He);
    };
    energy += contact_->assemble_barrier(xf_, kappa_, sink);
    energy += contact_->assemble_friction(xf_, sink);
    sys_->flush_rhs(g_);
  }
  sys_->end_assembly();
  double global = 0.0;
  MPI_Allreduce(&energy, &global, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
  return global;
}

void CipcStepper::move_toward(const std::vector<double>& target, const std::vector<char>& mask,
                              std::vector<double>& xl, StepStats& st) {
  // The move is cut to the ACCD bound of the moving vertices against everything else, then
  // halved while it would push a triangle past its strain limit, so it never causes an
  // intersection or an infinite energy.
  const int n_local = lv_.num_local();
  std::vector<double> start(xl), goal(xl);
  int any = 0;
  for (int l = 0; l < n_local; ++l) {
    if (!mask[l]) continue;
    for (int d = 0; d < 3; ++d) goal[3 * l + d] = target[3 * l + d];
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
    // The displacement as a step (zero elsewhere), through the halo so that every pair the
    // moving vertices could sweep into is seen.
    check(VecSet(p_, 0.0), "VecSet");
    {
      LocalArray pa(p_);
      for (int l = 0; l < lv_.num_owned(); ++l)
        for (int d = 0; d < 3; ++d) pa.data()[3 * l + d] = goal[3 * l + d] - start[3 * l + d];
    }
    exchange_halo(x_, p_);
    contact_->update_swept(xf_, pf_);
    beta = contact_->max_step(xf_, pf_, &st.ccd_queries);
    MPI_Allreduce(MPI_IN_PLACE, &beta, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
  }
  for (int k = 0; k < 30; ++k, beta *= 0.5) {
    for (size_t i = 0; i < xl.size(); ++i) xl[i] = start[i] + beta * (goal[i] - start[i]);
    if (contact_)
      for (int v = 0; v < scene_.num_vertices; ++v) xf_trial_[v] = xf_[v] + beta * pf_[v];
    if (std::isfinite(global_energy(xl.data(), contact_ ? xf_trial_ : xf_))) break;
  }
  if (!(beta > 0)) beta = 0.0;
  if (beta < 1.0 / (1 << 29)) {
    xl = start;
    beta = 0.0;
  }
  if (contact_)
    for (int v = 0; v < scene_.num_vertices; ++v) xf_[v] += beta * pf_[v];
}

void CipcStepper::clear_al() {
  if (al_count_ == 0) return;
  for (int l : al_owned_) global_id_[l] = -1;
  std::fill(al_free_.begin(), al_free_.end(), 0);
  al_owned_.clear();
  al_lambda_.clear();
  al_count_ = 0;
  kappa_al_ = 0.0;
  sys_->set_free_kinematic({});
  if (contact_) contact_->set_free_kinematic({});
}

void CipcStepper::move_kinematic(double t_next, std::vector<double>& xl, StepStats& st) {
  clear_al();
  const int n_local = lv_.num_local(), n_owned = lv_.num_owned();
  std::vector<char> mask(n_local, 0);
  for (int l = 0; l < n_local; ++l) {
    const int v = lv_.global_of_local(l);
    if (!scene_.kinematic(v)) continue;
    mask[l] = 1;
    const Vec3 p = scripted_position(scene_.motions[scene_.vertex_motion[v]], scene_.rest[v], t_next);
    for (int d = 0; d < 3; ++d) kin_target_[3 * l + d] = p[d];
  }
  move_toward(kin_target_, mask, xl, st);
  if (!contact_) return;  // only contact can hold an obstacle back

  // Obstacle vertices left behind by more than the tolerance become unknowns of this
  // step, pulled to their target by an AL spring while the barrier pushes what is in the
  // way (IPC section 4.3). Pins stay exact (they only lag).
  const double tol = al_tolerance();
  std::vector<int> mine;
  double sq0 = 0.0;
  for (int l = 0; l < n_owned; ++l) {
    const int v = lv_.vbegin + l;
    if (!mask[l] || !scene_.objects[scene_.vertex_object[v]].scripted) continue;
    const double lag2 = (Eigen::Map<const Vec3>(&kin_target_[3 * l]) - Eigen::Map<const Vec3>(&xl[3 * l])).squaredNorm();
    if (lag2 > tol * tol) {
      al_owned_.push_back(l);
      mine.push_back(v);
      sq0 += lag2;
    }
  }
  int n_mine = static_cast<int>(mine.size());
  std::vector<int> counts(lv_.ranks), displs(lv_.ranks, 0);
  MPI_Allgather(&n_mine, 1, MPI_INT, counts.data(), 1, MPI_INT, lv_.comm);
  int total = 0;
  for (int r = 0; r < lv_.ranks; ++r) displs[r] = total, total += counts[r];
  if (total == 0) return;
  std::vector<int> all(total);
  MPI_Allgatherv(mine.data(), n_mine, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, lv_.comm);
  for (int v : all) al_free_[v] = 1;
  MPI_Allreduce(MPI_IN_PLACE, &sq0, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
  al_count_ = total;
  al_sq0_ = sq0;

  // The other kinematic vertices (pins, obstacle vertices within the tolerance) were cut
  // with the same fraction; with the AL vertices held still they may go further.
  for (int l = 0; l < n_local; ++l) mask[l] = mask[l] && !al_free_[lv_.global_of_local(l)];
  move_toward(kin_target_, mask, xl, st);

  for (int l : al_owned_) global_id_[l] = lv_.vbegin + l;
  for (int l = n_owned; l < n_local; ++l)
    if (al_free_[lv_.global_of_local(l)]) global_id_[l] = lv_.global_of_local(l);
  al_lambda_.assign(3 * al_owned_.size(), 0.0);
  kappa_al_ = kAlKappa0;
  sys_->set_free_kinematic(mine);
  contact_->set_free_kinematic(al_free_);
}

int CipcStepper::solve_with_al(StepStats& st) {
  int its = 0;
  double prev_worst = std::numeric_limits<double>::infinity();
  for (int outer = 0;; ++outer) {
    st.converged = false;  // the step's verdict is that of its last solve
    its += newton(st);
    if (al_count_ == 0) break;
    // Constraint residual over the AL vertices (global).
    double r[2] = {0.0, 0.0};  // sum of squared deviations, -max deviation^2 (for MPI_MIN)
    std::vector<double> dev(3 * al_owned_.size());
    {
      LocalArray xa(x_);
      for (size_t i = 0; i < al_owned_.size(); ++i) {
        const int l = al_owned_[i];
        const Vec3 d = Eigen::Map<const Vec3>(xa.data() + 3 * l) - Eigen::Map<const Vec3>(&kin_target_[3 * l]);
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
    const double step = kappa_al_ * std::sqrt(al_mass_);
    for (size_t i = 0; i < al_lambda_.size(); ++i) al_lambda_[i] -= step * dev[i];
    if ((eta < kAlProgress || worst > kAlShrink * prev_worst) && 2 * kappa_al_ <= kAlKappaMax) kappa_al_ *= 2.0;
    prev_worst = worst;
    ++st.al_updates;
  }
  return its;
}

void CipcStepper::update_kappa(const double* xl) {
  for (const auto& term : terms_) term->update_stiffness(xl);
}

double CipcStepper::max_strain() {
  double worst = 0.0;
  LocalArray xa(x_);
  for (const auto& term : terms_) worst = std::max(worst, term->max_strain(xa.data()));
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
  return worst;
}

std::vector<double> CipcStepper::kappa_s() const {
  std::vector<double> out(lv_.triangles.size(), scene_.spec.kappa_s);
  for (const auto& term : terms_) {
    const std::vector<int>& tri = term->set().triangle;
    const std::vector<double>* k = term->stiffness();
    if (!k || tri.empty()) continue;
    for (int i = 0; i < term->stencils().size(); ++i) out[triangle_pos_[tri[term->stencils().element[i]]]] = (*k)[i];
  }
  return out;
}

void CipcStepper::set_kappa_s(const std::vector<double>& per_triangle) {
  for (const auto& term : terms_) {
    const std::vector<int>& tri = term->set().triangle;
    std::vector<double>* k = term->stiffness();
    if (!k || tri.empty()) continue;
    for (int i = 0; i < term->stencils().size(); ++i) (*k)[i] = per_triangle[triangle_pos_[tri[term->stencils().element[i]]]];
  }
}

StepStats CipcStepper::step(double t) {
  StepStats st;
  const int n_owned = lv_.num_owned(), n_local = lv_.num_local();
  const Vec3 grav = scene_.spec.gravity;
  sys_->new_time_step();
  for (const auto& term : terms_) term->begin_step();

  std::vector<double> xl(3 * n_local);
  {
    LocalArray xa(x_), va(v_);
    std::copy(xa.data(), xa.data() + 3 * n_local, x_prev_.begin());
    for (int l = 0; l < n_owned; ++l)
      for (int d = 0; d < 3; ++d)
        x_hat_[3 * l + d] = xa.data()[3 * l + d] + h_ * va.data()[3 * l + d] + h_ * h_ * grav[d];
    std::copy(xa.data(), xa.data() + 3 * n_local, xl.begin());
  }
  if (contact_) {
    check(VecCopy(x_, x_start_), "VecCopy");
    xf_trial_.resize(scene_.num_vertices);
  }
  move_kinematic(t + h_, xl, st);
  {
    LocalArray xa(x_);
    std::copy(xl.begin(), xl.end(), xa.data());
  }

  // Lagged friction (IPC): solve with normal forces and tangent frames frozen at the
  // start of the step, then re-lag from the solution friction_iterations - 1 times.
  const int lags = contact_ && scene_.spec.friction_iterations > 0 ? scene_.spec.friction_iterations : 1;
  for (int k = 0; k < lags; ++k) {
    if (contact_) {
      const auto t0 = std::chrono::steady_clock::now();
      exchange_halo(x_, nullptr);
      contact_->update_proximity(xf_);
      proximity_current_ = true;
      contact_->lag_friction(xf_, xf_, kappa_);
      // The friction stencils stay known for the whole lagged solve; their reference is
      // the start of the step, fetched from the owners.
      const std::vector<int> ids = contact_->friction_vertices();
      halo_->keep(ids);
      std::vector<Vec3> ref;
      {
        const PetscScalar* a;
        check(VecGetArrayRead(x_start_, &a), "VecGetArrayRead");
        halo_->fetch(a, ids, ref);
        check(VecRestoreArrayRead(x_start_, &a), "VecRestoreArrayRead");
      }
      contact_->set_friction_reference(std::move(ref));
      st.contact_s += seconds_since(t0);
    }
    st.newton_iters += solve_with_al(st);
  }

  // v = (x - x_n) / h, on owned and ghost entries alike (both are consistent).
  {
    LocalArray xa(x_), va(v_);
    for (int i = 0; i < 3 * n_local; ++i) va.data()[i] = (xa.data()[i] - x_prev_[i]) / h_;
  }
  st.max_strain = max_strain();
  {
    // How far the kinematic vertices ended from their script (pins cut by CCD, obstacles
    // still outside the AL tolerance).
    double lag = 0.0;
    LocalArray xa(x_);
    for (int l = 0; l < n_owned; ++l)
      if (scene_.kinematic(lv_.vbegin + l))
        lag = std::max(lag, (Eigen::Map<const Vec3>(&kin_target_[3 * l]) - Eigen::Map<const Vec3>(xa.data() + 3 * l)).norm());
    MPI_Allreduce(MPI_IN_PLACE, &lag, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
    st.kinematic_lag = lag;
    st.al_vertices = al_count_;
    st.al_kappa = kappa_al_;
  }
  if (contact_) {
    contact_->update_proximity(xf_);
    double gap = contact_->min_gap(xf_);
    MPI_Allreduce(MPI_IN_PLACE, &gap, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
    st.min_distance = gap;
    long pairs = static_cast<long>(contact_->num_candidates());
    MPI_Allreduce(MPI_IN_PLACE, &pairs, 1, MPI_LONG, MPI_SUM, lv_.comm);
    st.contact_pairs = static_cast<int>(pairs);
    st.kappa = kappa_;
  }
  return st;
}

int CipcStepper::newton(StepStats& st) {
  const int n_local = lv_.num_local();
  const double tol = scene_.spec.newton_tol;
  double prev_gap = std::numeric_limits<double>::infinity();
  rebuilt_last_ = false;
  int it = 0;
  for (; it < scene_.spec.max_newton; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    if (contact_) {
      PetscLogStagePush(stage_contact_);
      if (!proximity_current_) contact_->update_proximity(xf_);
      proximity_current_ = false;  // x moves in this iteration's line search
      {
        ContactScope scope(&contact_->timers(), ContactPhase::Couplings);
        std::vector<std::pair<int, int>> couplings;
        contact_->active_couplings(xf_, couplings);
        // Hysteresis: a rebuild (new preallocation, and a new symbolic factorisation) is
        // triggered by the look-ahead reach, but grows the pattern to the pairs within
        // kCouplingSlack dhat, so pairs closing in over the next iterations find their
        // blocks there (drape_default: 45 -> 24 rebuilds in 154 iterations, twin drapes
        // at 2 ranks 56 -> 25). Not right after a rebuild: a pattern that grows at every
        // iteration (a settling pile) is rebuilt anyway, and the slack would only add fill.
        if (!rebuilt_last_ && sys_->pattern_grows(couplings)) contact_->active_couplings(xf_, couplings, kCouplingSlack);
        rebuilt_last_ = sys_->set_contact_couplings(couplings);
        contact_->timers().pattern_rebuilds += rebuilt_last_;
      }
      PetscLogStagePop();
      st.contact_s += seconds_since(t0);
      t0 = std::chrono::steady_clock::now();
    }
    PetscLogStagePush(stage_assembly_);
    double E0;
    {
      LocalArray xa(x_);
      E0 = assemble(xa.data());
    }
    check(VecCopy(g_, rhs_), "VecCopy");  // global part of the ghosted g
    check(VecScale(rhs_, -1.0), "VecScale");
    PetscLogStagePop();
    st.assembly_s += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    PetscLogStagePush(stage_solve_);
    st.ksp_iters += sys_->solve(rhs_, p_);
    PetscLogStagePop();
    st.solve_s += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    PetscLogStagePush(stage_line_search_);
    check(VecGhostUpdateBegin(p_, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateBegin");
    check(VecGhostUpdateEnd(p_, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateEnd");
    double pinf = 0.0, gp = 0.0;
    check(VecNorm(p_, NORM_INFINITY, &pinf), "VecNorm");
    check(VecDot(g_, p_, &gp), "VecDot");
    st.final_residual = pinf / h_;
    st.energy = E0;
    // AL obstacle vertices must also come to rest well inside the AL tolerance, or the
    // multiplier updates would act on a point Newton stopped short of (|p| / h < tol can
    // still be a step larger than dhat / 10).
    bool al_settled = true;
    if (al_count_ > 0) {
      double al_pinf = 0.0;
      LocalArray pa(p_);
      for (int l : al_owned_)
        al_pinf = std::max(al_pinf, Eigen::Map<const Vec3>(pa.data() + 3 * l).lpNorm<Eigen::Infinity>());
      MPI_Allreduce(MPI_IN_PLACE, &al_pinf, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
      al_settled = al_pinf < 0.1 * al_tolerance();
    }
    if (pinf / h_ < tol && al_settled) {
      st.converged = true;
      PetscLogStagePop();
      st.line_search_s += seconds_since(t0);
      break;
    }
    // alpha starts at the ACCD bound (C-IPC section 5.4), the global minimum over ranks.
    double alpha = 1.0;
    if (contact_) {
      const auto tc = std::chrono::steady_clock::now();
      exchange_halo(x_, p_);
      Vec3 shift;
      const bool shifted = swept_shift(shift);
      contact_->update_swept(xf_, pf_, shifted ? &shift : nullptr);
      alpha = contact_->max_step(xf_, pf_, &st.ccd_queries);
      MPI_Allreduce(MPI_IN_PLACE, &alpha, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
      st.contact_s += seconds_since(tc);
    }
    // Then halve until every triangle is inside its strain limit (energy finite, section
    // 4.3) and the energy decreases enough (Armijo).
    bool accepted = false;
    {
      LocalArray xa(x_), pa(p_);
      for (int k = 0; k < kMaxHalvings; ++k, alpha *= 0.5) {
        for (int i = 0; i < 3 * n_local; ++i) trial_[i] = xa.data()[i] + alpha * pa.data()[i];
        if (contact_)
          for (int v = 0; v < scene_.num_vertices; ++v) xf_trial_[v] = xf_[v] + alpha * pf_[v];
        const double E1 = global_energy(trial_.data(), contact_ ? xf_trial_ : xf_);
        // Near the minimiser the predicted decrease falls below the rounding noise of the
        // summed energy; a feasible full step that does not raise E beyond that noise is
        // then taken rather than halved away.
        const bool at_noise_floor = k == 0 && -gp <= kEnergyNoise * std::abs(E0) &&
                                    E1 <= E0 + kEnergyNoise * std::abs(E0);
        if (std::isfinite(E1) && (E1 <= E0 + kArmijo * alpha * gp || at_noise_floor)) {
          accepted = true;
          break;
        }
      }
      if (accepted) {
        std::copy(trial_.begin(), trial_.end(), xa.data());
        if (contact_) xf_.swap(xf_trial_);
        update_kappa(xa.data());
      }
    }
    PetscLogStagePop();
    st.line_search_s += seconds_since(t0);
    if (!accepted) break;  // no descent left at double precision: the step ends here
    st.min_alpha = std::min(st.min_alpha, alpha);
    if (contact_) {
      // IPC: double kappa while the closest pair keeps closing in below eps_d.
      contact_->update_proximity(xf_);
      proximity_current_ = true;  // reused by the next iteration's assembly
      double gap = contact_->min_gap(xf_);
      MPI_Allreduce(MPI_IN_PLACE, &gap, 1, MPI_DOUBLE, MPI_MIN, lv_.comm);
      kappa_ = update_barrier_stiffness(kappa_, prev_gap, gap, kappa_bounds_, bbox_diagonal_);
      prev_gap = gap;
    }
  }
  return std::min(it + 1, scene_.spec.max_newton);
}

}  // namespace weft
