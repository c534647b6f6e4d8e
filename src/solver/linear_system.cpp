#include "solver/linear_system.hpp"

#include "core/memory_usage.hpp"

#include <Eigen/Eigenvalues>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <cstdio>
#include <sstream>

#include "core/error.hpp"

namespace weft {
namespace {

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in ") + what + " (code " + std::to_string(ierr) + ")");
}

constexpr int kSmallSystemVertices = 8192;  // see configure_solver: MUMPS ordering
// The sequential sparse Cholesky (one rank; one block per rank when the ranks do not
// couple): CHOLMOD's supernodal factorisation where PETSc has SuiteSparse, with its own
// choice of AMD / METIS ordering, else MUMPS. Measured back to back at 1 rank (CPU per
// Newton iteration, the same iterations; bench/results/solver_choice.md): drape_default
// -10%, the soft drape -9%, hang_two_corners 128^2 -20%, a 10K particle column -58%
// (MUMPS orders with PORD in Debian's build: fill grows fast on a 3-D contact graph).
#if defined(PETSC_HAVE_SUITESPARSE)
constexpr const char* kSequentialCholesky = MATSOLVERCHOLMOD;
#else
constexpr const char* kSequentialCholesky = MATSOLVERMUMPS;
#endif
// Substructure a coupled direct solve up to this many interface DOFs (see direct_mode).
constexpr PetscInt kInterfaceMaxDofs = 8000;
constexpr double kInterfaceRatio = 8.0;  // ... and |B| <= this x sqrt(dynamic DOFs), unless forced

// A default the command line can still override.
void set_default_option(const char* name, const char* value) {
  PetscBool has = PETSC_FALSE;
  check(PetscOptionsHasName(nullptr, nullptr, name, &has), "PetscOptionsHasName");
  if (!has) check(PetscOptionsSetValue(nullptr, name, value), "PetscOptionsSetValue");
}

}  // namespace

MatNullSpace rigid_body_modes(MPI_Comm comm, const std::vector<double>& coords, const std::vector<char>& deformable) {
  const PetscInt n = static_cast<PetscInt>(deformable.size());
  long count = 0;
  for (char c : deformable) count += c != 0;
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG, MPI_SUM, comm);
  if (count == 0) return nullptr;
  // The 3 translations (already orthonormal: 1/sqrt(N) on the deformable rows) and the 3
  // rotations e_k x X, Gram-Schmidt orthonormalised against the modes before them.
  Vec vec[6];
  check(VecCreateMPI(comm, 3 * n, PETSC_DETERMINE, &vec[0]), "VecCreateMPI");
  check(VecSetBlockSize(vec[0], 3), "VecSetBlockSize");
  for (int i = 1; i < 6; ++i) check(VecDuplicate(vec[0], &vec[i]), "VecDuplicate");
  PetscScalar* v[6];
  for (int i = 0; i < 6; ++i) check(VecGetArray(vec[i], &v[i]), "VecGetArray");
  const double sN = 1.0 / std::sqrt(static_cast<double>(count));
  for (PetscInt r = 0; r < n; ++r) {
    const double* x = coords.data() + 3 * r;
    const double on = deformable[r] ? 1.0 : 0.0;
    for (int i = 0; i < 6; ++i) v[i][3 * r] = v[i][3 * r + 1] = v[i][3 * r + 2] = 0.0;
    if (!on) continue;
    for (int d = 0; d < 3; ++d) v[d][3 * r + d] = sN;
    v[3][3 * r + 0] = x[1], v[3][3 * r + 1] = -x[0];
    v[4][3 * r + 1] = -x[2], v[4][3 * r + 2] = x[1];
    v[5][3 * r + 0] = x[2], v[5][3 * r + 2] = -x[0];
  }
  for (int i = 0; i < 6; ++i) check(VecRestoreArray(vec[i], &v[i]), "VecRestoreArray");
  for (int i = 3; i < 6; ++i) {
    PetscScalar dots[5];
    check(VecMDot(vec[i], i, vec, dots), "VecMDot");
    for (int j = 0; j < i; ++j) dots[j] = -dots[j];
    check(VecMAXPY(vec[i], i, dots, vec), "VecMAXPY");
    check(VecNormalize(vec[i], nullptr), "VecNormalize");
  }
  MatNullSpace ns = nullptr;
  check(MatNullSpaceCreate(comm, PETSC_FALSE, 6, vec, &ns), "MatNullSpaceCreate");
  for (int i = 0; i < 6; ++i) VecDestroy(&vec[i]);
  return ns;
}

LinearSystem::LinearSystem(const Scene& scene, const LocalView& lv, const LinearSpec& spec)
    : scene_(scene), lv_(lv) {
  const int n_owned = lv.num_owned();
  // Block pattern of owned rows from every element, on any rank, that touches them: each
  // rank's element sets hold exactly those (Scene::element_sets), so no communication.
  std::vector<std::vector<int>> cols(n_owned);
  auto add_stencil = [&](const int* v, int nv) {
    for (int a = 0; a < nv; ++a) {
      if (v[a] < lv.vbegin || v[a] >= lv.vend || scene.kinematic(v[a])) continue;
      for (int b = 0; b < nv; ++b)
        if (!scene.kinematic(v[b])) cols[v[a] - lv.vbegin].push_back(v[b]);
    }
  };
  for (const ElementSet& set : scene.element_sets)
    for (int k = 0; k < set.size(); ++k) add_stencil(set.stencil(k), set.arity);
  if (!scene.stitches.empty()) {
    // Stitches: the spring couples a and b; once welded, b's stencils write a's rows and
    // columns (b becomes an identity row), so every stencil through b is also in the
    // pattern with a in b's place.
    PagedArray<int> tie(static_cast<size_t>(scene.num_vertices), -1);  // (paged: the copies' pages only)
    for (const auto& p : scene.stitches) {
      add_stencil(p.data(), 2);
      tie.ref(p[1]) = p[0];
    }
    // Pairs weld one by one, so each vertex of such a stencil may be itself or its partner,
    // independently of the others.
    for (const ElementSet& set : scene.element_sets)
      for (int k = 0; k < set.size(); ++k) {
        const int* v = set.stencil(k);
        bool any = false;
        for (int a = 0; a < set.arity; ++a) any = any || tie[v[a]] >= 0;
        if (!any) continue;
        for (int a = 0; a < set.arity; ++a)
          for (int b = 0; b < set.arity; ++b) {
            const int ra[2] = {v[a], tie[v[a]]}, cb[2] = {v[b], tie[v[b]]};
            for (int r : ra)
              for (int c : cb) {
                if (r < 0 || c < 0) continue;
                const int rc[2] = {r, c};
                add_stencil(rc, 2);
              }
          }
      }
  }
  for (int r = 0; r < n_owned; ++r) {
    auto& c = cols[r];
    c.push_back(lv.vbegin + r);  // diagonal always present (inertia / identity)
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    // A row collects every stencil's columns with repeats (~60 pushes for ~15 columns on
    // cloth with hinges); its grown capacity was ~0.5 KB per vertex kept for the run.
    c.shrink_to_fit();
    if (scene.kinematic(lv.vbegin + r)) kinematic_owned_.push_back(lv.vbegin + r);
  }
  base_cols_ = std::move(cols);
  release_free_heap();  // the rows' grown buffers, before the matrix's own allocation
  kinematic_all_ = kinematic_owned_;
  PetscInt imax = kInterfaceMaxDofs;
  PetscBool set = PETSC_FALSE, sub = PETSC_FALSE;
  check(PetscOptionsGetInt(nullptr, nullptr, "-weft_interface_max", &imax, &set), "PetscOptionsGetInt");
  check(PetscOptionsGetBool(nullptr, nullptr, "-weft_substructure", &sub, &set), "PetscOptionsGetBool");
  interface_max_ = (set && !sub) ? -1 : imax;
  substructure_forced_ = set && sub;
  create_matrix();

  // Rigid-body near null space for GAMG over the deformable nodes (today: the non-kinematic
  // vertices; a rigid body's 2 nodes and the identity rows of kinematic vertices are not
  // in it), from their rest positions.
  std::vector<double> coords(3 * n_owned);
  std::vector<char> deformable(n_owned);
  for (int r = 0; r < n_owned; ++r) {
    deformable[r] = !scene.kinematic(lv.vbegin + r);
    for (int d = 0; d < 3; ++d) coords[3 * r + d] = scene.rest[lv.vbegin + r][d];
  }
  nullspace_ = rigid_body_modes(lv.comm, coords, deformable);
  if (nullspace_) check(MatSetNearNullSpace(A_, nullspace_), "MatSetNearNullSpace");
  null_coords_ = std::move(coords);
  null_deformable_ = std::move(deformable);

  dynamic_vertices_ = 0;
  for (int v = lv.vbegin; v < lv.vend; ++v) dynamic_vertices_ += !scene.kinematic(v);
  local_dynamic_ = dynamic_vertices_;
  MPI_Allreduce(MPI_IN_PLACE, &dynamic_vertices_, 1, MPI_INT, MPI_SUM, lv.comm);
  spec_ = spec;
  configure_solver();
}

void LinearSystem::configure_solver() {
  KSPDestroy(&ksp_);
  // Defaults: a sparse Cholesky on one rank (MUMPS), CG + GAMG on many; the case's
  // solver.linear and then the command line (KSPSetFromOptions) override them.
  check(KSPCreate(lv_.comm, &ksp_), "KSPCreate");
  check(KSPSetOperators(ksp_, A_, A_), "KSPSetOperators");
  PC pc;
  check(KSPGetPC(ksp_, &pc), "KSPGetPC");
  std::string ksp_type = spec_.ksp, pc_type = spec_.pc;
  const bool auto_solver = ksp_type.empty() && pc_type.empty();
  if (auto_solver) {
    // A fresh sparse Cholesky factor per Newton iteration. (Keeping the factor as a CG
    // preconditioner, see solve(), does not pay on the strain-limited and contact cases:
    // the barrier Hessians change too much between iterations, bench/README.md.) On
    // several ranks in one of the two deterministic forms below (split or substructured),
    // else CG + GAMG: MUMPS's own distributed factorisation is scheduled dynamically, so
    // two runs on 2+ ranks differ in the last bits and a restart could not reproduce its
    // run (measured: hang_two_corners, 2 ranks, 4 frames, run twice: 8721 positions
    // differ). Any of these is 5-10x faster per Newton iteration than CG + GAMG
    // (bench/results/newton_step.md).
    ksp_type = "preonly";
    pc_type = "cholesky";
  } else if (ksp_type.empty()) {
    ksp_type = (pc_type == "cholesky" || pc_type == "lu") ? "preonly" : "cg";
  } else if (pc_type.empty()) {
    pc_type = lv_.ranks == 1 ? "icc" : "gamg";
  }
  // A direct solve on several ranks whose matrix has no entry coupling two ranks (separate
  // objects, each whole on its rank: drape_twin at 2 ranks) is one independent system per
  // rank: block Jacobi with one block per rank and a sequential Cholesky per block solves it
  // exactly, with no distributed factorisation (MUMPS's 2-process factorisation, triangular
  // solves and rank-0 analysis cost drape_twin 20-35 ms per Newton iteration over one drape
  // on one rank), and deterministically, so a restart reproduces the run. create_matrix
  // re-decides whenever the pattern changes.
  split_eligible_ = lv_.ranks > 1 && pc_type == "cholesky" && ksp_type == "preonly";
  mode_for_ = split_eligible_ ? direct_mode() : -1;
  if (auto_solver && mode_for_ == 0) {  // interface too large for the dense Schur complement
    ksp_type = "cg";
    pc_type = "gamg";
  }
  split_active_ = mode_for_ == 1;
  const bool substructure = mode_for_ == 2;
  if (substructure) pc_type = PCSHELL;
  // One rank, a direct Cholesky: CHOLMOD called on the matrix's own arrays
  // (direct_cholmod.hpp: ordering and permutation map once per pattern, no copy or
  // transpose per factorisation), unless -weft_cholmod_direct 0 (then PETSc's CHOLMOD).
  PetscBool chol_direct_opt = PETSC_TRUE;
  check(PetscOptionsGetBool(nullptr, nullptr, "-weft_cholmod_direct", &chol_direct_opt, nullptr),
        "PetscOptionsGetBool");
  const bool chol_direct = lv_.ranks == 1 && pc_type == "cholesky" && ksp_type == "preonly" &&
                           DirectCholmod::available() && chol_direct_opt;
  if (chol_direct) pc_type = PCSHELL;
  if (split_active_) {
    pc_type = PCBJACOBI;
    set_default_option("-sub_ksp_type", "preonly");
    set_default_option("-sub_pc_type", "cholesky");
    set_default_option("-sub_pc_factor_mat_solver_type", kSequentialCholesky);
    set_default_option("-sub_mat_mumps_icntl_14", "100");
    // Each block's own size picks the ordering, as for the one-rank system below.
    set_default_option("-sub_mat_mumps_icntl_7", local_dynamic_ <= kSmallSystemVertices ? "2" : "5");
  }
  check(KSPSetType(ksp_, ksp_type.c_str()), "KSPSetType");
  check(PCSetType(pc, pc_type.c_str()), "PCSetType");
  if (substructure) {
    if (!sub_) sub_ = std::make_unique<SubstructuredCholesky>(lv_.comm);
    check(PCShellSetContext(pc, this), "PCShellSetContext");
    check(PCShellSetSetUp(pc, &LinearSystem::shell_setup), "PCShellSetSetUp");
    check(PCShellSetApply(pc, &LinearSystem::shell_apply), "PCShellSetApply");
    check(PCShellSetName(pc, "weft substructured Cholesky (MUMPS per rank + dense interface Schur complement)"),
          "PCShellSetName");
  }
  if (chol_direct) {
    if (!chol_) chol_ = std::make_unique<DirectCholmod>();
    check(PCShellSetContext(pc, this), "PCShellSetContext");
    check(PCShellSetSetUp(pc, &LinearSystem::shell_setup), "PCShellSetSetUp");
    check(PCShellSetApply(pc, &LinearSystem::shell_apply), "PCShellSetApply");
    check(PCShellSetName(pc, "weft direct CHOLMOD (supernodal Cholesky on the AIJ arrays)"), "PCShellSetName");
  }
  // One rank: the sequential Cholesky (kSequentialCholesky above: CHOLMOD, measured faster
  // than MUMPS on every scene of bench/results/solver_choice.md); several: MUMPS.
  if (pc_type == "cholesky" || pc_type == "lu")
    check(PCFactorSetMatSolverType(pc, pc_type == "cholesky" && lv_.ranks == 1 ? kSequentialCholesky : MATSOLVERMUMPS),
          "PCFactorSetMatSolverType");
  // MUMPS's automatic ordering picks nested dissection (METIS where MUMPS links it; PORD
  // in Debian's build, which has neither METIS nor SCOTCH, so ICNTL(7) = 5 falls back to
  // the automatic choice), whose analysis costs as much as a factorisation on small
  // systems, and contact re-analyses whenever the pattern grows: up to 8192
  // dynamic vertices the approximate minimum fill ordering (ICNTL(7) = 2) is cheaper to
  // compute and fills no more (drape_default 64^2: analysis 45 -> 6 ms, factorisation -7%);
  // above, nested dissection wins (hang 128^2: 0.48 vs 0.75 s per Newton iteration).
  // MUMPS reads ICNTL(7) from the options database when it initialises (at the symbolic
  // factorisation), so the default goes there; a value the user gave is left alone, and a
  // value this process set for an earlier, smaller system is withdrawn.
  static bool ordering_ours = false;
  PetscBool has7 = PETSC_FALSE;
  check(PetscOptionsHasName(nullptr, nullptr, "-mat_mumps_icntl_7", &has7), "PetscOptionsHasName");
  if ((pc_type == "cholesky" || pc_type == "lu") && (!has7 || ordering_ours)) {
    if (dynamic_vertices_ <= kSmallSystemVertices) {
      check(PetscOptionsSetValue(nullptr, "-mat_mumps_icntl_7", "2"), "PetscOptionsSetValue");
      ordering_ours = true;
    } else if (ordering_ours) {
      check(PetscOptionsClearValue(nullptr, "-mat_mumps_icntl_7"), "PetscOptionsClearValue");
      ordering_ours = false;
    }
  }
  // MUMPS sizes its work array from the analysis; the barrier Hessians' wide dynamic range
  // can make the numeric phase ask for more (INFOG(1) = -9). Give it room unless the
  // user chose otherwise on the command line.
  set_default_option("-mat_mumps_icntl_14", "100");
  // GAMG's Chebyshev smoothers otherwise reuse the eigenvalue estimate of the smoothed
  // aggregation step, which is wrong for the identity rows of kinematic vertices beside
  // mass-scaled rows and makes CG report an indefinite preconditioner.
  set_default_option("-pc_gamg_use_sa_esteig", "0");
  // ... and a short Lanczos estimate under-shoots lambda_max on these systems: a longer
  // one with a 1.2 safety factor keeps the smoother convergent (tested on the cases).
  set_default_option("-mg_levels_esteig_ksp_max_it", "30");
  set_default_option("-mg_levels_ksp_chebyshev_esteig", "0,0.2,0,1.2");
  check(KSPSetTolerances(ksp_, spec_.rtol, PETSC_DEFAULT, PETSC_DEFAULT, 10000), "KSPSetTolerances");
  check(KSPSetFromOptions(ksp_), "KSPSetFromOptions");
  // The command line may have changed either type: decide on what is actually set up.
  PetscBool is_factor = PETSC_FALSE, is_preonly = PETSC_FALSE;
  check(PetscObjectTypeCompareAny((PetscObject)pc, &is_factor, PCCHOLESKY, PCLU, ""), "PetscObjectTypeCompareAny");
  check(PetscObjectTypeCompare((PetscObject)ksp_, KSPPREONLY, &is_preonly), "PetscObjectTypeCompare");
  PetscBool is_bjacobi = PETSC_FALSE;
  check(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &is_bjacobi), "PetscObjectTypeCompare");
  split_active_ = split_active_ && is_bjacobi && is_preonly;
  PetscBool is_shell = PETSC_FALSE;
  check(PetscObjectTypeCompare((PetscObject)pc, PCSHELL, &is_shell), "PetscObjectTypeCompare");
  sub_active_ = substructure && is_shell && is_preonly;
  chol_active_ = chol_direct && is_shell && is_preonly;
  // -pc_type cholesky on the command line replaced the direct shell: CHOLMOD through PETSc,
  // as before the shell existed, unless a solver type was given too.
  PetscBool has_solver_type = PETSC_FALSE;
  check(PetscOptionsHasName(nullptr, nullptr, "-pc_factor_mat_solver_type", &has_solver_type), "PetscOptionsHasName");
  if (chol_direct && is_factor && !has_solver_type)
    check(PCFactorSetMatSolverType(pc, kSequentialCholesky), "PCFactorSetMatSolverType");
  factor_pc_ = is_factor || split_active_ || sub_active_ || chol_active_;
  // DirectCholmod reads the upper triangle of the rows (col >= row) and, under preonly,
  // nothing else in the solve reads the matrix, so for a caller that only solves with it
  // (set_solve_only: the Newton minimiser) the blocks below the block diagonal are not
  // added: half the element and contact block additions, whose scattered writes into the
  // AIJ values are most of an assembly's insertion cost (soft drape 64^2:
  // bench/results/newton_split.md, session 34). The blocks added are summed exactly as
  // before, so the factor is the same bit for bit. A matrix the user asks to see
  // (-mat_view, -ksp_view_mat) is assembled whole.
  PetscBool view_a = PETSC_FALSE, view_b = PETSC_FALSE;
  check(PetscOptionsHasName(nullptr, nullptr, "-mat_view", &view_a), "PetscOptionsHasName");
  check(PetscOptionsHasName(nullptr, nullptr, "-ksp_view_mat", &view_b), "PetscOptionsHasName");
  upper_capable_ = chol_active_ && !view_a && !view_b;
  reuse_factor_ = is_factor && !is_preonly && spec_.factor_reuse_its > 0;
  check(KSPGetTolerances(ksp_, &rtol_, &abstol_, &dtol_, &max_it_), "KSPGetTolerances");
}

// Owned block row r's columns: the element pattern, with the contact couplings merged in
// (into scratch) when it has any.
const std::vector<int>& LinearSystem::row_pattern(int r, std::vector<int>& scratch) const {
  if (extra_cols_.empty() || extra_cols_[r].empty()) return base_cols_[r];
  scratch.clear();
  std::set_union(base_cols_[r].begin(), base_cols_[r].end(), extra_cols_[r].begin(), extra_cols_[r].end(),
                 std::back_inserter(scratch));
  return scratch;
}

namespace {

// The CSR arrays a matrix is built on (MatCreateSeqAIJWithArrays / MatCreateMPIAIJWithSplitArrays
// use them as they are, without a copy); freed with the matrix, through a container
// composed on it, since a solver may hold the matrix past LinearSystem's next pattern.
struct MatrixArrays {
  std::vector<PetscInt> i[2], j[2];  // [0] the owned columns (local), [1] the others (global)
  std::vector<PetscScalar> a[2];
};

PetscErrorCode destroy_matrix_arrays(void* p) {
  delete static_cast<MatrixArrays*>(p);
  return 0;
}

}  // namespace

// The matrix of the element pattern plus the current contact couplings, built on weft's own
// CSR arrays (every block a full 3x3 of explicit zeros): the pattern is set and assembled
// in one pass, with no per-entry insertion and no copy of the structure (the copy a
// preallocation from CSR makes was the setup's peak: 117 column indices per cloth vertex),
// and slots that stay zero until a contact pair becomes active are kept.
void LinearSystem::create_matrix() {
  const int n_owned = lv_.num_owned();
  const bool mpi = lv_.ranks > 1;
  auto arrays = std::make_unique<MatrixArrays>();
  std::vector<int> merged;
  {
    // Exact sizes: the arrays are the matrix, so growth slack (up to 2x) would stay with it.
    size_t blocks[2] = {0, 0};
    for (int r = 0; r < n_owned; ++r)
      for (int col : row_pattern(r, merged)) ++blocks[col >= lv_.vbegin && col < lv_.vend ? 0 : 1];
    for (int p = 0; p < (mpi ? 2 : 1); ++p) {
      arrays->i[p].assign(3 * static_cast<size_t>(n_owned) + 1, 0);
      arrays->j[p].reserve(9 * blocks[p]);
      arrays->a[p].assign(9 * blocks[p], 0.0);
    }
  }
  int coupled = 0;  // a column owned by another rank (rows' columns are sorted)
  for (int r = 0; r < n_owned; ++r) {
    const std::vector<int>* c = &row_pattern(r, merged);
    coupled |= !c->empty() && (c->front() < lv_.vbegin || c->back() >= lv_.vend);
    for (int d = 0; d < 3; ++d) {
      for (int col : *c) {
        const bool own = col >= lv_.vbegin && col < lv_.vend;
        const PetscInt first = 3 * static_cast<PetscInt>(own ? col - lv_.vbegin : col);
        for (int e = 0; e < 3; ++e) arrays->j[own ? 0 : 1].push_back(first + e);
      }
      for (int p = 0; p < (mpi ? 2 : 1); ++p) arrays->i[p][3 * r + d + 1] = static_cast<PetscInt>(arrays->j[p].size());
    }
  }
  {
    // The type is fixed by the arrays: -mat_type may only name it.
    char type[64] = "";
    PetscBool has_type = PETSC_FALSE;
    check(PetscOptionsGetString(nullptr, nullptr, "-mat_type", type, sizeof type, &has_type), "PetscOptionsGetString");
    const std::string t = type;
    if (has_type && t != "aij" && t != "seqaij" && t != "mpiaij")
      throw RuntimeFailure("the Newton matrix must be AIJ (seqaij/mpiaij); -mat_type " + t + " is not supported");
  }
  MatDestroy(&A_);
  MatrixArrays& m = *arrays;
  if (mpi)
    check(MatCreateMPIAIJWithSplitArrays(lv_.comm, 3 * n_owned, 3 * n_owned, PETSC_DETERMINE, PETSC_DETERMINE,
                                         m.i[0].data(), m.j[0].data(), m.a[0].data(), m.i[1].data(), m.j[1].data(),
                                         m.a[1].data(), &A_),
          "MatCreateMPIAIJWithSplitArrays");
  else
    check(MatCreateSeqAIJWithArrays(lv_.comm, 3 * n_owned, 3 * n_owned, m.i[0].data(), m.j[0].data(), m.a[0].data(), &A_),
          "MatCreateSeqAIJWithArrays");
  {
    PetscContainer keep = nullptr;
    check(PetscContainerCreate(PETSC_COMM_SELF, &keep), "PetscContainerCreate");
    check(PetscContainerSetPointer(keep, arrays.release()), "PetscContainerSetPointer");
    check(PetscContainerSetUserDestroy(keep, destroy_matrix_arrays), "PetscContainerSetUserDestroy");
    check(PetscObjectCompose((PetscObject)A_, "weft_matrix_arrays", (PetscObject)keep), "PetscObjectCompose");
    PetscContainerDestroy(&keep);  // (the matrix holds it now)
  }
  check(MatSetBlockSize(A_, 3), "MatSetBlockSize");
  for (MatOption o : {MAT_NEW_NONZERO_ALLOCATION_ERR, MAT_SYMMETRIC, MAT_SYMMETRY_ETERNAL, MAT_SPD})
    check(MatSetOption(A_, o, PETSC_TRUE), "MatSetOption");
  if (nullspace_) check(MatSetNearNullSpace(A_, nullspace_), "MatSetNearNullSpace");
  index_pattern();
  // The owned diagonal block is SPD as well: a per-rank Cholesky (block Jacobi) then runs
  // MUMPS's SPD factorisation (no pivoting) rather than its symmetric indefinite one.
  if (part_[1]) check(MatSetOption(part_[0], MAT_SPD, PETSC_TRUE), "MatSetOption");
  MPI_Allreduce(MPI_IN_PLACE, &coupled, 1, MPI_INT, MPI_MAX, lv_.comm);  // a collective decision
  decoupled_ = lv_.ranks > 1 && !coupled;
  interface_dofs_ = lv_.ranks > 1 ? SubstructuredCholesky::interface_size(A_, lv_.comm) : 0;
  if (ksp_ && split_eligible_ && direct_mode() != mode_for_) configure_solver();
}

// How a direct Cholesky runs on several ranks. Ranks not coupled at all: one sequential
// factorisation each (split). Coupled through at most -weft_interface_max interface DOFs:
// substructured, one sequential factorisation each plus the interface's dense Schur
// complement (|B|^3 / 3 flops and 16 |B|^2 bytes on every rank: at 8000 DOFs 171 Gflop,
// ~3 s on one core at the 55 Gflop/s potrf reached at 262K, and 1 GB), unless
// -weft_substructure 0. Both are exact and deterministic. Otherwise MUMPS's distributed
// factorisation (CG + GAMG when no solver was asked for, 5-10x slower per Newton
// iteration on cloth, hence the generous bound: hang_two_corners 512^2 at 2 ranks has
// 6165 interface DOFs and runs substructured at 16.2 s per Newton iteration over its first
// step, against 11.2 s with MUMPS distributed and 17.3 s on one rank, two-step means). Against MUMPS distributed the
// substructured solve wins where the cut is short against the subdomains (drape_pair, two
// drapes side by side in one cloth, 627 interface DOFs: 66 -> 59 ms per factorisation and
// 13.1 -> 7.3 ms per solve at 2 ranks) and loses on a square cloth cut in two
// (hang_two_corners 128^2 / 256^2: 13% / 33% slower per Newton iteration; both sides of
// METIS's zigzag cut are interface, and every front along it carries that boundary).
// Unless forced (-weft_substructure 1), also only while the dense interface work stays
// below the sparse work: for a 2-D cloth of N DOFs the sparse factorisation costs ~N^1.5
// and the dense interface |B|^3, so the ratio |B| / sqrt(N) decides. Measured: drape_default
// 5.3, drape_pair 4.0, rotating_sphere <= 6.7, pinned_poke <= 7.3, hang_two_corners 256^2
// 5.5 and 512^2 7.0 (substructured: 1.1-7x faster than CG + GAMG); funnel ~41 (three
// crumpled panels in a small funnel, nearly every row on the interface: 3x slower than
// MUMPS distributed) and cloth_stack up to 95.
int LinearSystem::direct_mode() const {
  if (decoupled_) return 1;
  const bool small = substructure_forced_ ||
                     interface_dofs_ <= kInterfaceRatio * std::sqrt(3.0 * std::max(1, dynamic_vertices_));
  return interface_dofs_ <= interface_max_ && small ? 2 : 0;
}

PetscErrorCode LinearSystem::shell_setup(PC pc) {
  void* ctx = nullptr;
  PCShellGetContext(pc, &ctx);
  auto* self = static_cast<LinearSystem*>(ctx);
  // No exception may cross PETSc's C frames: a failure is kept for solve() to rethrow
  // (the factorisation agrees on failure collectively, so every rank sees one).
  try {
    self->sub_error_.clear();
    if (self->chol_active_)
      self->chol_->factor(self->A_, self->blocked_);
    else
      self->sub_->factor(self->A_, self->pattern_version_);
  } catch (const std::exception& e) {
    self->sub_error_ = e.what();
  }
  return 0;
}

PetscErrorCode LinearSystem::shell_apply(PC pc, Vec b, Vec x) {
  void* ctx = nullptr;
  PCShellGetContext(pc, &ctx);
  auto* self = static_cast<LinearSystem*>(ctx);
  if (!self->sub_error_.empty()) return VecSet(x, 0.0);
  try {
    if (self->chol_active_)
      self->chol_->solve(b, x);
    else
      self->sub_->solve(b, x);
  } catch (const std::exception& e) {
    self->sub_error_ = e.what();
    return VecSet(x, 0.0);
  }
  return 0;
}

// The assembled local parts store every block as three consecutive columns in each of its
// three rows (the explicit zeros above), rows sorted by column, the off-diagonal part's
// columns numbered in the order of their global index. So block k of a part's row r starts
// at row_start + 3 k in each scalar row, k counted among that part's blocks. Checked against
// the CSR column indices here; add_block then needs no search in PETSc.
void LinearSystem::index_pattern() {
  ++pattern_version_;
  const int n_owned = lv_.num_owned();
  PetscBool is_mpi = PETSC_FALSE;
  check(PetscObjectTypeCompare((PetscObject)A_, MATMPIAIJ, &is_mpi), "PetscObjectTypeCompare");
  const PetscInt* garray = nullptr;
  if (is_mpi) {
    check(MatMPIAIJGetSeqAIJ(A_, &part_[0], &part_[1], &garray), "MatMPIAIJGetSeqAIJ");
  } else {
    part_[0] = A_;
    part_[1] = nullptr;
  }
  const PetscInt* ia[2] = {nullptr, nullptr};
  const PetscInt* ja[2] = {nullptr, nullptr};
  for (int p = 0; p < 2; ++p) {
    row_start_[p].assign(3 * n_owned + 1, 0);
    if (!part_[p]) continue;
    PetscInt n = 0;
    PetscBool done = PETSC_FALSE;
    check(MatGetRowIJ(part_[p], 0, PETSC_FALSE, PETSC_FALSE, &n, &ia[p], &ja[p], &done), "MatGetRowIJ");
    if (!done || n != 3 * n_owned) throw RuntimeFailure("LinearSystem: unexpected local matrix layout");
    std::copy(ia[p], ia[p] + n + 1, row_start_[p].begin());
  }
  block_ptr_.assign(n_owned + 1, 0);
  block_cols_.clear();
  block_at_.clear();
  block_part_.clear();
  std::vector<int> merged;
  {
    size_t blocks = 0;  // exact sizes: these three are kept until the next rebuild
    for (int r = 0; r < n_owned; ++r) blocks += row_pattern(r, merged).size();
    block_cols_.reserve(blocks);
    block_at_.reserve(blocks);
    block_part_.reserve(blocks);
  }
  bool ok = true;
  for (int r = 0; r < n_owned && ok; ++r) {
    const std::vector<int>* c = &row_pattern(r, merged);
    int k[2] = {0, 0};
    for (int col : *c) {
      const int p = (col >= lv_.vbegin && col < lv_.vend) ? 0 : 1;
      const int pos = 3 * k[p]++;
      for (int d = 0; d < 3 && ok; ++d) {
        const PetscInt row = 3 * r + d, at = row_start_[p][row] + pos;
        if (!part_[p] || at + 2 >= row_start_[p][row + 1]) {
          ok = false;
          break;
        }
        for (int e = 0; e < 3; ++e) {
          const PetscInt want = p == 0 ? 3 * (col - lv_.vbegin) + e : 3 * col + e;
          const PetscInt have = p == 0 ? ja[p][at + e] : garray[ja[p][at + e]];
          ok = ok && have == want;
        }
      }
      block_cols_.push_back(col);
      block_at_.push_back(ok ? BlockAt{row_start_[p][3 * r] + pos, row_start_[p][3 * r + 1] - row_start_[p][3 * r]}
                             : BlockAt{0, 0});
      block_part_.push_back(static_cast<char>(p));
    }
    for (int p = 0; p < 2 && ok; ++p)
      for (int d = 0; d < 3; ++d)
        ok = ok && row_start_[p][3 * r + d + 1] - row_start_[p][3 * r + d] == 3 * k[p];
    block_ptr_[r + 1] = static_cast<int>(block_cols_.size());
  }
  for (int p = 0; p < 2; ++p) {
    if (!part_[p]) continue;
    PetscInt n = 0;
    PetscBool done = PETSC_FALSE;
    check(MatRestoreRowIJ(part_[p], 0, PETSC_FALSE, PETSC_FALSE, &n, &ia[p], &ja[p], &done), "MatRestoreRowIJ");
  }
  // A layout other than the one described keeps the plain MatSetValuesBlocked path, on
  // every rank (end_assembly's exchange is collective).
  int all_ok = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, lv_.comm);
  if (!all_ok) block_ptr_.clear();
}

bool LinearSystem::pattern_grows(const std::vector<std::pair<int, int>>& couplings) {
  route_couplings(couplings);
  return grows();
}

bool LinearSystem::set_contact_couplings(const std::vector<std::pair<int, int>>& couplings) {
  route_couplings(couplings);
  if (!grows()) return false;
  const std::vector<int>& rbuf = coupling_recv_;
  const size_t n = rbuf.size();
  for (size_t i = 0; i + 1 < n; i += 2) extra_cols_[rbuf[i] - lv_.vbegin].push_back(rbuf[i + 1]);
  for (auto& e : extra_cols_) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
  }
  create_matrix();
  return true;
}

void LinearSystem::route_couplings(const std::vector<std::pair<int, int>>& couplings) {
  // Couplings arrive for any row; each goes to the rank owning the row (on one rank: all
  // of them, as they are). rbuf: this rank's (row, col) pairs, flat.
  std::vector<int>& rbuf = coupling_recv_;
  if (lv_.ranks == 1) {
    rbuf.resize(2 * couplings.size());
    for (size_t i = 0; i < couplings.size(); ++i) rbuf[2 * i] = couplings[i].first, rbuf[2 * i + 1] = couplings[i].second;
  } else {
    std::vector<int> scount(lv_.ranks, 0), rcount(lv_.ranks), sdisp(lv_.ranks + 1, 0), rdisp(lv_.ranks, 0);
    for (const auto& rc : couplings) scount[scene_.owner_of(rc.first)] += 2;
    for (int k = 0; k < lv_.ranks; ++k) sdisp[k + 1] = sdisp[k] + scount[k];
    std::vector<int> sbuf(sdisp[lv_.ranks]), fill(sdisp.begin(), sdisp.end() - 1);
    for (const auto& [r, c] : couplings) {
      int& at = fill[scene_.owner_of(r)];
      sbuf[at++] = r;
      sbuf[at++] = c;
    }
    MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, lv_.comm);
    int total = 0;
    for (int k = 0; k < lv_.ranks; ++k) rdisp[k] = total, total += rcount[k];
    rbuf.resize(total);
    MPI_Alltoallv(sbuf.data(), scount.data(), sdisp.data(), MPI_INT, rbuf.data(), rcount.data(), rdisp.data(),
                  MPI_INT, lv_.comm);
  }
}

// Rebuild only when some owned row gains a column the matrix lacks (its block pattern,
// block_cols_, or base + extra when that index is not kept); dropping couplings keeps the
// larger pattern (explicit zeros) until the next time step. Collective.
bool LinearSystem::grows() {
  const std::vector<int>& rbuf = coupling_recv_;
  if (extra_cols_.empty()) extra_cols_.resize(lv_.num_owned());
  auto in_pattern = [&](int r, int c) {
    if (!block_ptr_.empty())
      return std::binary_search(block_cols_.begin() + block_ptr_[r], block_cols_.begin() + block_ptr_[r + 1], c);
    return std::binary_search(base_cols_[r].begin(), base_cols_[r].end(), c) ||
           std::binary_search(extra_cols_[r].begin(), extra_cols_[r].end(), c);
  };
  int grow = 0;
  const size_t n = rbuf.size();
  for (size_t i = 0; i + 1 < n && !grow; i += 2) grow = !in_pattern(rbuf[i] - lv_.vbegin, rbuf[i + 1]);
  MPI_Allreduce(MPI_IN_PLACE, &grow, 1, MPI_INT, MPI_MAX, lv_.comm);
  return grow != 0;
}

LinearSystem::~LinearSystem() {
  MatNullSpaceDestroy(&nullspace_);
  KSPDestroy(&ksp_);
  MatDestroy(&A_);
}

void LinearSystem::begin_assembly() {
  // Only DirectCholmod reads the values (upper_triangle()), and one rank has one part.
  blocked_ = upper_triangle() && !block_ptr_.empty() && !part_[1];
  if (!blocked_) check(MatZeroEntries(A_), "MatZeroEntries");
  if (block_ptr_.empty()) return;
  for (int p = 0; p < 2; ++p)
    if (part_[p]) check(MatSeqAIJGetArray(part_[p], &values_[p]), "MatSeqAIJGetArray");
  if (blocked_) {  // only what is added and read: each block row's blocks from its diagonal on
    const int n = lv_.num_owned();
    for (int r = 0; r < n; ++r) {
      const int* first = block_cols_.data() + block_ptr_[r];
      const int* last = block_cols_.data() + block_ptr_[r + 1];
      const PetscInt from = std::lower_bound(first, last, lv_.vbegin + r) - block_cols_.data();
      std::fill(values_[0] + 9 * from, values_[0] + 9 * static_cast<PetscInt>(block_ptr_[r + 1]), 0.0);
    }
  }
}

// (Defined before its callers and inline: it is the innermost step of every insertion path.)
inline void LinearSystem::add_at(int e, const double* v, int stride) {
  // Block e's three rows: 9 values in a row when blocked (every block row's blocks are 9
  // values each), else at its offset in its part, a scalar row apart.
  PetscScalar* q;
  PetscInt row_step;
  if (blocked_) {
    q = values_[0] + 9 * static_cast<PetscInt>(e);
    row_step = 3;
  } else {
    const BlockAt at = block_at_[e];
    q = values_[static_cast<int>(block_part_[e])] + at.off;
    row_step = at.len;
  }
  for (int d = 0; d < 3; ++d, q += row_step) {
    const double* vd = v + d * stride;
#ifdef __SSE2__
    // Two of a row's three sums in one packed add (each lane the same IEEE sum as a scalar
    // add): a third fewer loads, adds and stores (GCC does not pack these itself).
    _mm_storeu_pd(q, _mm_add_pd(_mm_loadu_pd(q), _mm_loadu_pd(vd)));
#else
    q[0] += vd[0];
    q[1] += vd[1];
#endif
    q[2] += vd[2];
  }
}

void LinearSystem::add_block(int nv, const int* ids, const double* values) {
  PetscInt idx[8];
  for (int a = 0; a < nv; ++a) idx[a] = ids[a];
  if (!values_[0]) {
    check(MatSetValuesBlocked(A_, nv, idx, nv, idx, values, ADD_VALUES), "MatSetValuesBlocked");
    return;
  }
  for_owned_rows(nv, ids, values, [&](int a, int row, const double* va, int stride) {
    for (int b = 0; b < nv; ++b) {
      if (ids[b] < 0) continue;
      if (skip_lower(row, ids[b])) {
        absorb_if_missing(row - lv_.vbegin, ids[b], va + 3 * b, stride);
        continue;
      }
      add_owned(row - lv_.vbegin, ids[b], va + 3 * b, stride);
    }
  });
}

// A lower block that is not added (skip_lower) still goes onto its row's diagonal when it
// is missing from the pattern and missing blocks are absorbed: the diagonal block is read.
void LinearSystem::absorb_if_missing(int r, int col, const double* v, int stride) {
  if (absorb_missing_ && locate_block(r, col) < 0) absorb(r, v, stride);
}

void LinearSystem::add_block(SlotCache& c, size_t k, int nv, const int* ids, const double* values) {
  if (!values_[0]) {
    add_block(nv, ids, values);
    return;
  }
  if (c.version != pattern_version_) {
    std::fill(c.slot.begin(), c.slot.end(), -1);
    c.version = pattern_version_;
  }
  const size_t base = k * nv * nv;
  if (c.slot.size() < base + nv * nv) c.slot.resize(base + nv * nv, -1);  // first assemblies only
  for_owned_rows(nv, ids, values, [&](int a, int row, const double* va, int stride) {
    const int r = row - lv_.vbegin;
    int* slot = c.slot.data() + base + a * nv;
    for (int b = 0; b < nv; ++b) {
      if (ids[b] < 0 || skip_lower(row, ids[b])) continue;  // (element blocks are in the pattern)
      if (slot[b] < 0) slot[b] = find_block(r, ids[b]);
      add_at(slot[b], va + 3 * b, stride);
    }
  });
}

void LinearSystem::add_diagonal_block(int id, const double* values) {
  if (!values_[0] || id < lv_.vbegin || id >= lv_.vend) {  // (negative ids too)
    add_block(1, &id, values);
    return;
  }
  add_at(diagonal_entry(id - lv_.vbegin), values, 3);
}

int LinearSystem::diagonal_entry(int r) {
  if (diag_version_ != pattern_version_) {
    diag_block_.assign(lv_.num_owned(), -1);
    diag_version_ = pattern_version_;
  }
  int& e = diag_block_[r];
  if (e < 0) e = find_block(r, lv_.vbegin + r);  // (always in the pattern)
  return e;
}

void LinearSystem::locate_blocks(int nv, const int* ids, int* slots) const {
  for (int a = 0; a < nv; ++a) {
    const int row = ids[a];
    for (int b = 0; b < nv; ++b)
      slots[a * nv + b] = block_ptr_.empty() || row < lv_.vbegin || row >= lv_.vend || ids[b] < 0
                              ? -1
                              : locate_block(row - lv_.vbegin, ids[b]);
  }
}

void LinearSystem::add_located(int nv, const int* ids, const int* slots, const double* values) {
  if (!values_[0]) {
    add_block(nv, ids, values);
    return;
  }
  for_owned_rows(nv, ids, values, [&](int a, int row, const double* va, int stride) {
    for (int b = 0; b < nv; ++b) {
      if (ids[b] < 0) continue;
      const int e = slots[a * nv + b];
      if (e >= 0) {
        if (!skip_lower(row, ids[b])) add_at(e, va + 3 * b, stride);
      } else {
        add_owned(row - lv_.vbegin, ids[b], va + 3 * b, stride);  // absorbed, or the error
      }
    }
  });
}

// Owned elsewhere: sent to its owner at end_assembly.
void LinearSystem::add_off_rank(int row, int nv, const int* ids, const double* va, int stride) {
  const int owner = scene_.owner_of(row);
  if (off_idx_.empty()) off_idx_.resize(lv_.ranks), off_val_.resize(lv_.ranks);
  for (int b = 0; b < nv; ++b) {
    if (ids[b] < 0) continue;
    off_idx_[owner].push_back(row);
    off_idx_[owner].push_back(ids[b]);
    for (int d = 0; d < 3; ++d)
      off_val_[owner].insert(off_val_[owner].end(), va + d * stride + 3 * b, va + d * stride + 3 * b + 3);
  }
}

int LinearSystem::locate_block(int r, int col) const {
  // Branch-free binary search (the halving step a conditional move, not a jump): a contact
  // block's column is unpredictable, and rows with self-contact couplings are long
  // (cloth_stack: std::lower_bound's mispredicted branches were ~18 % of an assembly).
  const int* base = block_cols_.data() + block_ptr_[r];
  int n = block_ptr_[r + 1] - block_ptr_[r];
  if (n <= 0) return -1;
  while (n > 1) {
    const int half = n / 2;
    base = base[half] <= col ? base + half : base;
    n -= half;
  }
  return *base == col ? static_cast<int>(base - block_cols_.data()) : -1;
}

int LinearSystem::find_block(int r, int col) const {
  const int e = locate_block(r, col);
  if (e < 0)
    throw RuntimeFailure("LinearSystem: block (" + std::to_string(lv_.vbegin + r) + ", " + std::to_string(col) +
                         ") is not in the preallocated pattern");
  return e;
}

void LinearSystem::add_owned(int r, int col, const double* v, int stride) {
  // The diagonal block's entry is kept per row (always in the pattern): a contact pair's
  // diagonal blocks, all of a point on an obstacle's, need no search.
  if (col == lv_.vbegin + r) {
    add_at(diagonal_entry(r), v, stride);
    return;
  }
  if (absorb_missing_) {
    const int e = locate_block(r, col);
    if (e >= 0)
      add_at(e, v, stride);
    else
      absorb(r, v, stride);
    return;
  }
  add_at(find_block(r, col), v, stride);
}

// Block B of row r (3 rows of v, `stride` apart) is missing from the pattern: add
// (B B^T)^(1/2) to the diagonal block instead (see set_absorb_missing). B B^T is symmetric
// PSD; its square root from the eigen-decomposition, eigenvalues clamped at 0.
void LinearSystem::absorb(int r, const double* v, int stride) {
  Eigen::Matrix3d B;
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 3; ++k) B(d, k) = v[d * stride + k];
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(B * B.transpose());
  const Eigen::Vector3d s = es.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  const Eigen::Matrix3d S = es.eigenvectors() * s.asDiagonal() * es.eigenvectors().transpose();
  double rowmajor[9];
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 3; ++k) rowmajor[3 * d + k] = 0.5 * (S(d, k) + S(k, d));
  add_at(diagonal_entry(r), rowmajor, 3);
  ++absorbed_blocks_;
}

void LinearSystem::add_blocks(SlotCache& c, size_t first, int count, int nv, const int* ids, const double* values) {
  const size_t n2 = static_cast<size_t>(9 * nv * nv);
  if (!values_[0]) {
    for (int i = 0; i < count; ++i) add_block(nv, ids + nv * i, values + n2 * i);
    return;
  }
  // (A prefetch of the next batch's destinations was tried here: as __builtin_prefetch for
  // writing it compiled to nothing without -mprfchw, and forced in it gained nothing,
  // bench/results/newton_split.md session 34.)
  for (int i = 0; i < count; ++i) add_block(c, first + i, nv, ids + nv * i, values + n2 * i);
}

// Sends each owner its records (ints + doubles per record, in call order) and returns what
// this rank received, concatenated in source-rank order. Collective.
void LinearSystem::exchange(std::vector<std::vector<int>>& idx, std::vector<std::vector<double>>& val, int ints,
                            int doubles, std::vector<int>& ridx, std::vector<double>& rval) const {
  const int R = lv_.ranks;
  if (idx.empty()) idx.resize(R), val.resize(R);
  std::vector<int> sc(R), rc(R), sd(R + 1, 0), rd(R + 1, 0);
  for (int k = 0; k < R; ++k) sc[k] = static_cast<int>(idx[k].size()) / ints;  // records
  MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, lv_.comm);
  std::vector<int> sbi, sci(R), sdi(R), rci(R), rdi(R);
  std::vector<double> sbd;
  std::vector<int> scd(R), sdd(R), rcd(R), rdd(R);
  for (int k = 0, ti = 0, td = 0, ri = 0, rdv = 0; k < R; ++k) {
    sdi[k] = ti, sci[k] = sc[k] * ints, ti += sci[k];
    sdd[k] = td, scd[k] = sc[k] * doubles, td += scd[k];
    rdi[k] = ri, rci[k] = rc[k] * ints, ri += rci[k];
    rdd[k] = rdv, rcd[k] = rc[k] * doubles, rdv += rcd[k];
    sbi.insert(sbi.end(), idx[k].begin(), idx[k].end());
    sbd.insert(sbd.end(), val[k].begin(), val[k].end());
    idx[k].clear();
    val[k].clear();
  }
  ridx.resize(rdi[R - 1] + rci[R - 1]);
  rval.resize(rdd[R - 1] + rcd[R - 1]);
  MPI_Alltoallv(sbi.data(), sci.data(), sdi.data(), MPI_INT, ridx.data(), rci.data(), rdi.data(), MPI_INT, lv_.comm);
  MPI_Alltoallv(sbd.data(), scd.data(), sdd.data(), MPI_DOUBLE, rval.data(), rcd.data(), rdd.data(), MPI_DOUBLE,
                lv_.comm);
}

void LinearSystem::begin_rhs(Vec g) {
  if (lv_.ranks == 1 && !rhs_direct_) check(VecGetArray(g, &rhs_direct_), "VecGetArray");
}

void LinearSystem::add_rhs(int row, const double* v) {
  if (rhs_direct_) {  // one rank: every row is owned, added in call order as flush_rhs would
    PetscScalar* a = rhs_direct_ + 3 * (row - lv_.vbegin);
    a[0] += v[0];
    a[1] += v[1];
    a[2] += v[2];
    return;
  }
  if (rhs_idx_.empty()) rhs_idx_.resize(lv_.ranks), rhs_val_.resize(lv_.ranks);
  const int owner = (row >= lv_.vbegin && row < lv_.vend) ? lv_.rank : scene_.owner_of(row);
  rhs_idx_[owner].push_back(row);
  rhs_val_[owner].insert(rhs_val_[owner].end(), v, v + 3);
}

void LinearSystem::flush_rhs(Vec g) {
  if (rhs_direct_) {
    check(VecRestoreArray(g, &rhs_direct_), "VecRestoreArray");
    rhs_direct_ = nullptr;
    return;
  }
  std::vector<int> ridx;
  std::vector<double> rval;
  exchange(rhs_idx_, rhs_val_, 1, 3, ridx, rval);  // (this rank's own entries come back in rank order)
  PetscScalar* a = nullptr;
  check(VecGetArray(g, &a), "VecGetArray");
  for (size_t i = 0; i < ridx.size(); ++i)
    for (int d = 0; d < 3; ++d) a[3 * (ridx[i] - lv_.vbegin) + d] += rval[3 * i + d];
  check(VecRestoreArray(g, &a), "VecRestoreArray");
}

void LinearSystem::set_free_kinematic(const std::vector<int>& owned_ids) {
  std::vector<int> free(owned_ids);
  std::sort(free.begin(), free.end());
  kinematic_owned_.clear();
  for (int v : kinematic_all_)
    if (!std::binary_search(free.begin(), free.end(), v)) kinematic_owned_.push_back(v);
}

void LinearSystem::set_tied(const std::vector<int>& owned_ids) {
  tied_owned_ = owned_ids;
  std::sort(tied_owned_.begin(), tied_owned_.end());
  // GAMG's near null space: a welded copy's row is the identity, like a kinematic row, so
  // the rigid modes leave it out (collective: every rank calls set_tied together).
  if (nullspace_) {
    std::vector<char> deformable = null_deformable_;
    for (int v : tied_owned_) deformable[v - lv_.vbegin] = 0;
    MatNullSpaceDestroy(&nullspace_);
    nullspace_ = rigid_body_modes(lv_.comm, null_coords_, deformable);
    if (nullspace_) check(MatSetNearNullSpace(A_, nullspace_), "MatSetNearNullSpace");
  }
  // The tied copies' stencils (owned or ghost copies) now write their partners' blocks: the
  // cached block slots (SlotCache) of every element are looked up again.
  ++pattern_version_;
}

void LinearSystem::end_assembly() {
  if (values_[0]) {
    // Blocks of rows owned here that other ranks computed, in source-rank order.
    std::vector<int> ridx;
    std::vector<double> rval;
    exchange(off_idx_, off_val_, 2, 9, ridx, rval);
    for (size_t i = 0; 2 * i < ridx.size(); ++i) add_owned(ridx[2 * i] - lv_.vbegin, ridx[2 * i + 1], &rval[9 * i], 3);
  }
  static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (blocked_) {  // the identity rows below, into the blocked layout (the same sums)
    for (int v : tied_owned_) add_at(find_block(v - lv_.vbegin, v), I3, 3);
    for (int v : kinematic_owned_) add_at(find_block(v - lv_.vbegin, v), I3, 3);
  }
  for (int p = 0; p < 2; ++p)
    if (values_[p]) check(MatSeqAIJRestoreArray(part_[p], &values_[p]), "MatSeqAIJRestoreArray");
  values_[0] = values_[1] = nullptr;
  if (!blocked_) {
    for (int v : tied_owned_) {  // welded stitch copies: their unknown is their partner's
      PetscInt i = v;
      check(MatSetValuesBlocked(A_, 1, &i, 1, &i, I3, ADD_VALUES), "MatSetValuesBlocked");
    }
    for (int v : kinematic_owned_) {
      PetscInt i = v;
      check(MatSetValuesBlocked(A_, 1, &i, 1, &i, I3, ADD_VALUES), "MatSetValuesBlocked");
    }
  }
  check(MatAssemblyBegin(A_, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(A_, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
}

void LinearSystem::new_time_step() {
  // A direct solve (preonly + Cholesky/LU) whose matrix kept the element pattern all step
  // (no contact couplings) keeps matrix and KSP: the next step's pattern is the same, so the
  // factorisation's ordering and symbolic analysis (sequential in MUMPS) are reused. They
  // are deterministic functions of the pattern, so a restart, which analyses afresh,
  // reproduces the run bit for bit. The direct CHOLMOD's node ordering, kept across a
  // step's pattern changes, is recomputed at the next (direct_cholmod.cpp) for the same reason.
  if (chol_) chol_->new_time_step();
  int had_couplings = std::any_of(extra_cols_.begin(), extra_cols_.end(),
                                  [](const std::vector<int>& e) { return !e.empty(); });
  MPI_Allreduce(MPI_IN_PLACE, &had_couplings, 1, MPI_INT, MPI_MAX, lv_.comm);  // a collective decision
  if (factor_pc_ && !reuse_factor_ && !had_couplings && ksp_) {
    first_solve_in_step_ = true;
    ++pattern_kept_;
    return;
  }
  // Otherwise a fresh matrix per step: GAMG composes its graph and aggregates on the Mat
  // object, and the contact pattern restarts from this step's pairs.
  for (auto& e : extra_cols_) e.clear();
  create_matrix();
  // A fresh KSP per step: preconditioner state (GAMG hierarchy, Chebyshev eigenvalue
  // estimates seeded from a random stream that advances with every setup) then depends
  // only on this step's matrices, so a restarted run reproduces the uninterrupted one.
  configure_solver();
  first_solve_in_step_ = true;
}

int LinearSystem::solve(Vec rhs, Vec p) {
  PC pc;
  check(KSPGetPC(ksp_, &pc), "KSPGetPC");
  PetscBool is_gamg = PETSC_FALSE;
  check(PetscObjectTypeCompare((PetscObject)pc, PCGAMG, &is_gamg), "PetscObjectTypeCompare");
  if (is_gamg) check(PCGAMGSetReuseInterpolation(pc, first_solve_in_step_ ? PETSC_FALSE : PETSC_TRUE), "reuse");
  // Factorisation reuse (modified Newton on the preconditioner only): the factor of an
  // earlier Hessian of this step preconditions CG on the current one until it has cost
  // factor_reuse_its iterations; a solve it cannot finish within what is left of that
  // budget is redone on a fresh factor, and the step's later iterations factor afresh.
  // Decisions count iterations, never time, so a run
  // and its restart make the same ones.
  if (first_solve_in_step_) reuse_failed_ = false;
  const bool reuse = reuse_factor_ && !first_solve_in_step_ && !reuse_failed_ && reused_its_ < spec_.factor_reuse_its;
  first_solve_in_step_ = false;
  check(KSPSetOperators(ksp_, A_, A_), "KSPSetOperators");
  if (reuse_factor_) {
    check(KSPSetReusePreconditioner(ksp_, reuse ? PETSC_TRUE : PETSC_FALSE), "KSPSetReusePreconditioner");
    const PetscInt left = spec_.factor_reuse_its - reused_its_;
    check(KSPSetTolerances(ksp_, rtol_, abstol_, dtol_, reuse ? std::min<PetscInt>(left, max_it_) : max_it_),
          "KSPSetTolerances");
  }
  if (factor_pc_ && !reuse) ++factorizations_;
  check(KSPSolve(ksp_, rhs, p), "KSPSolve");
  if ((sub_active_ || chol_active_) && !sub_error_.empty()) throw RuntimeFailure("linear solve failed: " + sub_error_);
  KSPConvergedReason reason;
  check(KSPGetConvergedReason(ksp_, &reason), "KSPGetConvergedReason");
  PetscInt its = 0;
  check(KSPGetIterationNumber(ksp_, &its), "KSPGetIterationNumber");
  if (reuse_factor_) reused_its_ = reuse ? reused_its_ + static_cast<int>(its) : static_cast<int>(its);
  if (reuse && reason < 0) {
    // The old factor no longer captures this Hessian: factor it and solve again, and
    // factor afresh for the rest of this step (the Hessian is changing fast).
    reuse_failed_ = true;
    check(KSPSetReusePreconditioner(ksp_, PETSC_FALSE), "KSPSetReusePreconditioner");
    check(KSPSetTolerances(ksp_, rtol_, abstol_, dtol_, max_it_), "KSPSetTolerances");
    ++factorizations_;
    check(KSPSolve(ksp_, rhs, p), "KSPSolve");
    check(KSPGetConvergedReason(ksp_, &reason), "KSPGetConvergedReason");
    PetscInt its2 = 0;
    check(KSPGetIterationNumber(ksp_, &its2), "KSPGetIterationNumber");
    reused_its_ = static_cast<int>(its2);
    its += its2;
  }
  if (reason >= 0) return static_cast<int>(its);
  // An iterative solve that breaks down (an indefinite smoother on a badly conditioned
  // barrier Hessian) does not end the run: this Newton step is solved again by a sparse
  // Cholesky factorisation, and the fallback is counted and reported.
  PetscBool is_factor = PETSC_FALSE;
  check(PetscObjectTypeCompareAny((PetscObject)pc, &is_factor, PCCHOLESKY, PCLU, ""), "PetscObjectTypeCompareAny");
  if (is_factor) throw RuntimeFailure(std::string("linear solve failed: ") + KSPConvergedReasons[reason]);
  if (fallbacks_ == 0 && lv_.rank == 0)
    std::fprintf(stderr, "weft: note: %s stopped with %s; solving such steps by sparse Cholesky instead\n",
                 describe().c_str(), KSPConvergedReasons[reason]);
  ++fallbacks_;
  KSP direct;
  PC dpc;
  check(KSPCreate(lv_.comm, &direct), "KSPCreate");
  check(KSPSetOperators(direct, A_, A_), "KSPSetOperators");
  check(KSPSetType(direct, KSPPREONLY), "KSPSetType");
  check(KSPGetPC(direct, &dpc), "KSPGetPC");
  check(PCSetType(dpc, PCCHOLESKY), "PCSetType");
  check(PCFactorSetMatSolverType(dpc, MATSOLVERMUMPS), "PCFactorSetMatSolverType");
  check(KSPSolve(direct, rhs, p), "KSPSolve");
  check(KSPGetConvergedReason(direct, &reason), "KSPGetConvergedReason");
  KSPDestroy(&direct);
  if (reason < 0) throw RuntimeFailure(std::string("linear solve failed, also by Cholesky: ") + KSPConvergedReasons[reason]);
  return static_cast<int>(its);
}

std::string LinearSystem::describe() const {
  KSPType kt;
  PCType pt;
  PC pc;
  KSPGetType(ksp_, &kt);
  KSPGetPC(ksp_, &pc);
  PCGetType(pc, &pt);
  std::ostringstream os;
  os << kt << "+" << pt;
  MatSolverType st = nullptr;
  if (split_active_) {
    // The blocks' solver as set up (the command line may have chosen another).
    KSP* sub = nullptr;
    PetscInt nsub = 0;
    MatSolverType sst = nullptr;
    // (Before the first solve the blocks are not set up: PETSc's refusal is expected, and
    // silenced, not printed to the user as an error.)
    PetscPushErrorHandler(PetscIgnoreErrorHandler, nullptr);
    const PetscErrorCode ierr = PCBJacobiGetSubKSP(pc, &nsub, nullptr, &sub);
    PetscPopErrorHandler();
    if (ierr == 0 && nsub > 0) {
      PC spc;
      KSPGetPC(sub[0], &spc);
      PCFactorGetMatSolverType(spc, &sst);
    }
    os << "(cholesky(" << (sst ? sst : kSequentialCholesky) << ") per rank: no coupling between ranks)";
  }
  if (chol_active_) os << "(cholesky: " << chol_->describe() << ")";
  if (sub_active_) os << "(substructured cholesky: mumps per rank, " << interface_dofs_ << " interface dofs)";
  if (pt && (std::string(pt) == "cholesky" || std::string(pt) == "lu")) {
    PCFactorGetMatSolverType(pc, &st);
    if (st) os << "(" << st << ")";
  }
  return os.str();
}

}  // namespace weft
