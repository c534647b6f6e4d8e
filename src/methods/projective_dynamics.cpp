#include "methods/projective_dynamics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/motion.hpp"
#include "energy/registry.hpp"
#include "energy/spring.hpp"
#include "solver/ghosted_array.hpp"

namespace weft {
namespace {

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in pd: ") + what);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void ghost_forward(Vec v) {
  check(VecGhostUpdateBegin(v, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateBegin");
  check(VecGhostUpdateEnd(v, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateEnd");
}

}  // namespace

std::unique_ptr<Stepper> make_projective_dynamics_stepper(const Scene& scene, const LocalView& lv) {
  return std::make_unique<ProjectiveDynamicsStepper>(scene, lv);
}

ProjectiveDynamicsStepper::ProjectiveDynamicsStepper(const Scene& scene, const LocalView& lv)
    : scene_(scene), lv_(lv), h_(scene.spec.dt) {
  const auto t0 = std::chrono::steady_clock::now();
  const int n_owned = lv.num_owned(), n_local = lv.num_local();
  std::vector<PetscInt> ghosts(lv.ghosts.begin(), lv.ghosts.end());
  check(VecCreateGhostBlock(lv.comm, 3, 3 * n_owned, PETSC_DETERMINE, static_cast<PetscInt>(ghosts.size()),
                            ghosts.data(), &x_), "VecCreateGhostBlock");
  check(VecDuplicate(x_, &v_), "VecDuplicate");
  check(VecDuplicate(x_, &rhs_), "VecDuplicate");
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
  kinematic_.resize(n_local);
  for (int l = 0; l < n_local; ++l) kinematic_[l] = scene.kinematic(lv.global_of_local(l));
  mass_.resize(n_owned);
  for (int l = 0; l < n_owned; ++l) mass_[l] = scene.mass[lv.vbegin + l];
  y_.resize(3 * n_owned);

  // The springs: every set the registry gave the objects under method pd must be one.
  for (size_t s = 0; s < scene.element_sets.size(); ++s) {
    const ElementSet& set = scene.element_sets[s];
    if (!set.holds<SpringRest>())
      throw InputError(scene.spec.path + ": method: pd projects springs only, and term '" + set.term->name +
                       "' is not a spring");
    const std::vector<SpringRest>& rest = set.rest<SpringRest>();
    const LocalStencils& ls = lv.sets[s];
    for (int i = 0; i < ls.size(); ++i) {
      const int e = ls.element_at(i);
      const int* st = set.stencil(e);
      const int* l = ls.local_at(2 * i);
      springs_.push_back({l[0], l[1], rest[e].length, rest[e].stiffness,
                          (scene.rest[st[0]] - scene.rest[st[1]]).normalized()});
    }
    terms_.push_back(set.term->make(scene, static_cast<int>(s), ls));
  }

  // M/h^2 + L, one scalar row per owned vertex, from the rank's sets (they hold every spring
  // touching its rows, so no communication). Kinematic rows: identity; springs to
  // kinematic vertices add only their diagonal (the rest goes to the right-hand side).
  const double ih2 = 1.0 / (h_ * h_);
  std::vector<std::map<int, double>> rows(n_owned);
  for (int l = 0; l < n_owned; ++l) rows[l][lv.vbegin + l] = scene.kinematic(lv.vbegin + l) ? 1.0 : mass_[l] * ih2;
  for (const ElementSet& set : scene.element_sets) {
    const std::vector<SpringRest>& rest = set.rest<SpringRest>();
    for (int e = 0; e < set.size(); ++e) {
      const int* st = set.stencil(e);
      for (int side = 0; side < 2; ++side) {
        const int r = st[side], c = st[1 - side];
        if (r < lv.vbegin || r >= lv.vend || scene.kinematic(r)) continue;
        std::map<int, double>& row = rows[r - lv.vbegin];
        row[r] += rest[e].stiffness;
        if (!scene.kinematic(c)) row[c] -= rest[e].stiffness;
      }
    }
  }
  std::vector<PetscInt> d_nnz(n_owned, 0), o_nnz(n_owned, 0);
  for (int l = 0; l < n_owned; ++l)
    for (const auto& [c, v] : rows[l]) ++((c >= lv.vbegin && c < lv.vend) ? d_nnz[l] : o_nnz[l]);
  check(MatCreateAIJ(lv.comm, n_owned, n_owned, PETSC_DETERMINE, PETSC_DETERMINE, 0, d_nnz.data(), 0, o_nnz.data(),
                     &A_), "MatCreateAIJ");
  for (int l = 0; l < n_owned; ++l) {
    const PetscInt r = lv.vbegin + l;
    std::vector<PetscInt> cols;
    std::vector<PetscScalar> vals;
    for (const auto& [c, v] : rows[l]) cols.push_back(c), vals.push_back(v);
    check(MatSetValues(A_, 1, &r, static_cast<PetscInt>(cols.size()), cols.data(), vals.data(), INSERT_VALUES),
          "MatSetValues");
  }
  check(MatAssemblyBegin(A_, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(A_, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  check(MatSetOption(A_, MAT_SPD, PETSC_TRUE), "MatSetOption");
  for (int c = 0; c < 3; ++c) check(MatCreateVecs(A_, &s_[c], &b_[c]), "MatCreateVecs");

  // Factorised once here (KSPSetUp), reused by every solve: the operator never changes.
  PC pc;
  check(KSPCreate(lv.comm, &ksp_), "KSPCreate");
  check(KSPSetOperators(ksp_, A_, A_), "KSPSetOperators");
  check(KSPSetType(ksp_, KSPPREONLY), "KSPSetType");
  check(KSPGetPC(ksp_, &pc), "KSPGetPC");
  check(PCSetType(pc, PCCHOLESKY), "PCSetType");
  check(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS), "PCFactorSetMatSolverType");
  check(KSPSetOptionsPrefix(ksp_, "pd_"), "KSPSetOptionsPrefix");  // -pd_pc_type ... override
  // MUMPS factors the root front with ScaLAPACK by default (ICNTL(13) = 0); at 2 ranks that
  // factorisation returned non-finite values in 10 of 82 runs of hang_two_corners (4
  // frames), and in none of 40 with the root on one process (ICNTL(13) = 1). The root of
  // this sparse spring Laplacian is small, so nothing is lost. A user's -pd_mat_mumps_icntl_13
  // still wins.
  PetscBool has13 = PETSC_FALSE;
  check(PetscOptionsHasName(nullptr, nullptr, "-pd_mat_mumps_icntl_13", &has13), "PetscOptionsHasName");
  if (!has13) check(PetscOptionsSetValue(nullptr, "-pd_mat_mumps_icntl_13", "1"), "PetscOptionsSetValue");
  check(KSPSetFromOptions(ksp_), "KSPSetFromOptions");
  check(KSPSetUp(ksp_), "KSPSetUp");
  setup_s_ = seconds_since(t0);
}

ProjectiveDynamicsStepper::~ProjectiveDynamicsStepper() {
  KSPDestroy(&ksp_);
  MatDestroy(&A_);
  for (int c = 0; c < 3; ++c) VecDestroy(&b_[c]), VecDestroy(&s_[c]);
  VecDestroy(&x_);
  VecDestroy(&v_);
  VecDestroy(&rhs_);
}

double ProjectiveDynamicsStepper::energy(const double* xl) const {
  double springs = 0.0, inertia = 0.0;
  for (const auto& t : terms_) t->add_energy(xl, springs);
  for (int l = 0; l < lv_.num_owned(); ++l)
    if (!kinematic_[l])
      inertia += 0.5 * mass_[l] * (Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(&y_[3 * l])).squaredNorm();
  double e = inertia + h_ * h_ * springs;
  MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
  return e;
}

double ProjectiveDynamicsStepper::max_strain() {
  double worst = 0.0;
  LocalArray xa(x_);
  for (const auto& t : terms_) worst = std::max(worst, t->max_strain(xa.data()));
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
  return worst;
}

NamedValues ProjectiveDynamicsStepper::start_stats() { return {{"pd_iters", 0}, {"max_strain", max_strain()}}; }

std::string ProjectiveDynamicsStepper::describe() const {
  return "method pd (projective dynamics, up to " + std::to_string(scene_.spec.pd.iterations) +
         " local/global iterations, M/h^2 + L factorised once by MUMPS Cholesky; no contact)";
}

StepReport ProjectiveDynamicsStepper::step(double t) {
  const int n_owned = lv_.num_owned(), n_local = lv_.num_local();
  const double ih2 = 1.0 / (h_ * h_), t_next = t + h_;
  const Vec3 grav = scene_.spec.gravity;
  std::vector<double> x_prev(3 * n_local);
  double assembly_s = 0.0, solve_s = 0.0;
  energies.clear();

  // y = x + h v + h^2 g; the start x^(0) = y, pins at their scripted place at t + h.
  {
    LocalArray xa(x_), va(v_);
    std::copy(xa.data(), xa.data() + 3 * n_local, x_prev.begin());
    for (int l = 0; l < n_owned; ++l) {
      const int v = lv_.vbegin + l;
      for (int d = 0; d < 3; ++d) y_[3 * l + d] = xa.data()[3 * l + d] + h_ * va.data()[3 * l + d] + h_ * h_ * grav[d];
      const Vec3 p = kinematic_[l] ? scripted_position(scene_.motions[scene_.vertex_motion[v]], scene_.rest[v], t_next)
                                   : Vec3(Eigen::Map<const Vec3>(&y_[3 * l]));
      for (int d = 0; d < 3; ++d) xa.data()[3 * l + d] = p[d];
    }
  }
  ghost_forward(x_);
  if (record_energies) {
    LocalArray xa(x_);
    energies.push_back(energy(xa.data()));
  }

  int its = 0;
  double dx = 0.0;
  bool converged = false;
  const int max_its = scene_.spec.pd.iterations;
  while (its < max_its) {
    auto t0 = std::chrono::steady_clock::now();
    // Local step: each spring's projection z_e, straight into J z (plus k x_pin for the
    // eliminated pinned ends), accumulated over owned and ghost rows, then summed on owners.
    {
      LocalArray xa(x_), ra(rhs_);
      const double* x = xa.data();
      double* r = ra.data();
      std::fill(r, r + 3 * n_local, 0.0);
      for (const Spring& s : springs_) {
        const Vec3 d = Eigen::Map<const Vec3>(x + 3 * s.a) - Eigen::Map<const Vec3>(x + 3 * s.b);
        const double l = d.norm();
        const Vec3 kz = s.k * s.length * (l > 0 ? Vec3(d / l) : s.dir0);
        const bool ka = kinematic_[s.a], kb = kinematic_[s.b];
        if (!ka) Eigen::Map<Vec3>(r + 3 * s.a) += kz + (kb ? Vec3(s.k * Eigen::Map<const Vec3>(x + 3 * s.b)) : Vec3::Zero());
        if (!kb) Eigen::Map<Vec3>(r + 3 * s.b) += -kz + (ka ? Vec3(s.k * Eigen::Map<const Vec3>(x + 3 * s.a)) : Vec3::Zero());
      }
    }
    check(VecGhostUpdateBegin(rhs_, ADD_VALUES, SCATTER_REVERSE), "VecGhostUpdateBegin");
    check(VecGhostUpdateEnd(rhs_, ADD_VALUES, SCATTER_REVERSE), "VecGhostUpdateEnd");
    {
      const double* r;
      const double* x;
      check(VecGetArrayRead(rhs_, &r), "VecGetArrayRead");
      check(VecGetArrayRead(x_, &x), "VecGetArrayRead");
      double* b[3];
      for (int c = 0; c < 3; ++c) check(VecGetArray(b_[c], &b[c]), "VecGetArray");
      for (int l = 0; l < n_owned; ++l)
        for (int c = 0; c < 3; ++c)
          b[c][l] = kinematic_[l] ? x[3 * l + c] : mass_[l] * ih2 * y_[3 * l + c] + r[3 * l + c];
      for (int c = 0; c < 3; ++c) check(VecRestoreArray(b_[c], &b[c]), "VecRestoreArray");
      check(VecRestoreArrayRead(x_, &x), "VecRestoreArrayRead");
      check(VecRestoreArrayRead(rhs_, &r), "VecRestoreArrayRead");
    }
    assembly_s += seconds_since(t0);
    // Global step: three triangular solves with the one factorisation.
    t0 = std::chrono::steady_clock::now();
    for (int c = 0; c < 3; ++c) check(KSPSolve(ksp_, b_[c], s_[c]), "KSPSolve");
    solve_s += seconds_since(t0);
    ++its;
    {
      double* x;
      const double* s[3];
      check(VecGetArray(x_, &x), "VecGetArray");
      for (int c = 0; c < 3; ++c) check(VecGetArrayRead(s_[c], &s[c]), "VecGetArrayRead");
      dx = 0.0;
      for (int l = 0; l < n_owned; ++l)
        for (int c = 0; c < 3; ++c) {
          dx = std::max(dx, std::abs(s[c][l] - x[3 * l + c]));
          x[3 * l + c] = s[c][l];
        }
      for (int c = 0; c < 3; ++c) check(VecRestoreArrayRead(s_[c], &s[c]), "VecRestoreArrayRead");
      check(VecRestoreArray(x_, &x), "VecRestoreArray");
    }
    MPI_Allreduce(MPI_IN_PLACE, &dx, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
    ghost_forward(x_);
    if (record_energies) {
      LocalArray xa(x_);
      energies.push_back(energy(xa.data()));
    }
    if (dx < scene_.spec.pd.tolerance) {
      converged = true;
      break;
    }
  }

  double e = 0.0;
  {
    LocalArray xa(x_), va(v_);
    for (int i = 0; i < 3 * n_local; ++i) va.data()[i] = (xa.data()[i] - x_prev[i]) / h_;
    e = energy(xa.data());
  }
  StepReport rep;
  rep.iterations = its;
  rep.max_strain = max_strain();
  rep.converged = converged;
  rep.stats = {{"pd_iters", its},
               {"residual", dx},
               {"converged", converged ? 1.0 : 0.0},
               {"energy", e},
               {"assembly_s", assembly_s},
               {"solve_s", solve_s},
               {"max_strain", rep.max_strain}};
  return rep;
}

}  // namespace weft
