#include "solver/substructured_cholesky.hpp"

#include <dmumps_c.h>
#include <petscblaslapack.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace weft {
namespace {

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in ") + what + " (code " + std::to_string(ierr) + ")");
}

constexpr int kSmallSystemVertices = 8192;  // AMF ordering up to here, as LinearSystem's

// The owned diagonal and off-diagonal parts of an AIJ matrix (off-diagonal null on one rank).
void local_parts(Mat A, Mat* Ad, Mat* Ao, const PetscInt** garray) {
  PetscBool is_mpi = PETSC_FALSE;
  check(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &is_mpi), "PetscObjectTypeCompare");
  if (is_mpi) {
    check(MatMPIAIJGetSeqAIJ(A, Ad, Ao, garray), "MatMPIAIJGetSeqAIJ");
  } else {
    *Ad = A;
    *Ao = nullptr;
    *garray = nullptr;
  }
}

// Scalar rows of the local part with an entry in the off-diagonal part (a column owned elsewhere).
std::vector<char> coupled_rows(Mat Ao, PetscInt n) {
  std::vector<char> out(n, 0);
  if (!Ao) return out;
  const PetscInt *ia = nullptr, *ja = nullptr;
  PetscInt m = 0;
  PetscBool done = PETSC_FALSE;
  check(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done), "MatGetRowIJ");
  if (!done || m != n) throw RuntimeFailure("SubstructuredCholesky: unexpected local matrix layout");
  for (PetscInt i = 0; i < n; ++i) out[i] = ia[i + 1] > ia[i];
  check(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done), "MatRestoreRowIJ");
  return out;
}

// -log_view events: where the substructured solve spends its time.
struct Events {
  PetscLogEvent analyse, local_factor, interface_factor, local_solve, interface_solve;
  Events() {
    PetscClassId id = 0;
    PetscClassIdRegister("weft substructured Cholesky", &id);
    PetscLogEventRegister("SubstrAnalyse", id, &analyse);
    PetscLogEventRegister("SubstrLocFactor", id, &local_factor);
    PetscLogEventRegister("SubstrIfcFactor", id, &interface_factor);
    PetscLogEventRegister("SubstrLocSolve", id, &local_solve);
    PetscLogEventRegister("SubstrIfcSolve", id, &interface_solve);
  }
};
const Events& events() {
  static const Events e;
  return e;
}

}  // namespace

struct SubstructuredCholesky::Mumps {
  DMUMPS_STRUC_C id{};
  bool live = false;
  std::vector<int> schur_list;  // 1-based local rows of the Schur (interface) variables
  std::vector<PetscInt> bb_at;  // local A_BB entries (row-major over b_rows_), -1: none
  void call(int job) {
    id.job = job;
    dmumps_c(&id);
  }
  void end() {
    if (live) call(-2);
    live = false;
  }
};

SubstructuredCholesky::SubstructuredCholesky(MPI_Comm comm) : mumps_(new Mumps), comm_(comm) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &ranks_);
}

SubstructuredCholesky::~SubstructuredCholesky() {
  mumps_->end();
  delete mumps_;
}

long SubstructuredCholesky::interface_size(Mat A, MPI_Comm comm) {
  Mat Ad, Ao;
  const PetscInt* garray;
  local_parts(A, &Ad, &Ao, &garray);
  PetscInt n = 0;
  check(MatGetLocalSize(A, &n, nullptr), "MatGetLocalSize");
  const std::vector<char> b = coupled_rows(Ao, n);
  long count = std::count(b.begin(), b.end(), 1);
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG, MPI_SUM, comm);
  return count;
}

int SubstructuredCholesky::local_ordering() const { return mumps_->live ? mumps_->id.infog[6] : 0; }

void SubstructuredCholesky::analyse(Mat A) {
  PetscLogEventBegin(events().analyse, 0, 0, 0, 0);
  analyse_unlogged(A);
  PetscLogEventEnd(events().analyse, 0, 0, 0, 0);
}

void SubstructuredCholesky::analyse_unlogged(Mat A) {
  Mat Ad, Ao;
  const PetscInt* garray;
  local_parts(A, &Ad, &Ao, &garray);
  check(MatGetLocalSize(A, &n_, nullptr), "MatGetLocalSize");
  PetscInt rstart = 0;
  check(MatGetOwnershipRange(A, &rstart, nullptr), "MatGetOwnershipRange");
  is_b_ = coupled_rows(Ao, n_);
  b_rows_.clear();
  b_index_.assign(n_, -1);
  for (PetscInt i = 0; i < n_; ++i)
    if (is_b_[i]) b_index_[i] = static_cast<int>(b_rows_.size()), b_rows_.push_back(static_cast<int>(i));
  const int nb = static_cast<int>(b_rows_.size());

  // The interface numbering: ranks in order, each its interface rows ascending, so the
  // concatenation of global row numbers is sorted and a column finds its S index by search.
  b_counts_.assign(ranks_, 0);
  b_displs_.assign(ranks_ + 1, 0);
  MPI_Allgather(&nb, 1, MPI_INT, b_counts_.data(), 1, MPI_INT, comm_);
  for (int k = 0; k < ranks_; ++k) b_displs_[k + 1] = b_displs_[k] + b_counts_[k];
  n_interface_ = b_displs_[ranks_];
  offset_ = b_displs_[rank_];
  std::vector<PetscInt> mine(nb), all(n_interface_);
  for (int j = 0; j < nb; ++j) mine[j] = rstart + b_rows_[j];
  MPI_Allgatherv(mine.data(), nb, MPIU_INT, all.data(), b_counts_.data(), b_displs_.data(), MPIU_INT, comm_);

  // Cross-rank entries of A_BB: every off-diagonal-part entry of an interface row. Its column
  // is an interface row of its owner because the pattern is symmetric.
  cross_row_.clear();
  cross_col_.clear();
  cross_at_.clear();
  if (Ao) {
    const PetscInt *ia = nullptr, *ja = nullptr;
    PetscInt m = 0;
    PetscBool done = PETSC_FALSE;
    check(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done), "MatGetRowIJ");
    bool symmetric = true;
    for (int j = 0; j < nb; ++j) {
      const int i = b_rows_[j];
      for (PetscInt k = ia[i]; k < ia[i + 1]; ++k) {
        const PetscInt g = garray[ja[k]];
        const auto at = std::lower_bound(all.begin(), all.end(), g);
        if (at == all.end() || *at != g) {
          symmetric = false;
          continue;
        }
        cross_row_.push_back(offset_ + j);
        cross_col_.push_back(static_cast<int>(at - all.begin()));
        cross_at_.push_back(k);
      }
    }
    check(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done), "MatRestoreRowIJ");
    if (!symmetric) throw RuntimeFailure("SubstructuredCholesky: the matrix pattern is not symmetric");
  }
  const int nc = static_cast<int>(cross_row_.size());
  cross_counts_.assign(ranks_, 0);
  MPI_Allgather(&nc, 1, MPI_INT, cross_counts_.data(), 1, MPI_INT, comm_);
  std::vector<int> cdispl(ranks_ + 1, 0);
  for (int k = 0; k < ranks_; ++k) cdispl[k + 1] = cdispl[k] + cross_counts_[k];
  all_cross_row_.resize(cdispl[ranks_]);
  all_cross_col_.resize(cdispl[ranks_]);
  MPI_Allgatherv(cross_row_.data(), nc, MPI_INT, all_cross_row_.data(), cross_counts_.data(), cdispl.data(), MPI_INT,
                 comm_);
  MPI_Allgatherv(cross_col_.data(), nc, MPI_INT, all_cross_col_.data(), cross_counts_.data(), cdispl.data(), MPI_INT,
                 comm_);
  counts_.assign(ranks_, 0);
  displs_.assign(ranks_ + 1, 0);
  for (int k = 0; k < ranks_; ++k) {
    counts_[k] = b_counts_[k] * b_counts_[k] + cross_counts_[k];
    displs_[k + 1] = displs_[k] + counts_[k];
  }
  send_.resize(counts_[rank_]);
  recv_.resize(displs_[ranks_]);
  S_.resize(static_cast<size_t>(n_interface_) * n_interface_);
  g_.resize(nb);
  gl_.resize(n_interface_);

  // The local matrix for MUMPS: lower triangle (MUMPS sums both triangles of a symmetric
  // input, so only one is given), interface rows split out.
  Mumps& M = *mumps_;
  M.end();
  irn_.clear();
  jcn_.clear();
  val_at_.clear();
  M.bb_at.assign(static_cast<size_t>(nb) * nb, -1);
  {
    const PetscInt *ia = nullptr, *ja = nullptr;
    PetscInt m = 0;
    PetscBool done = PETSC_FALSE;
    check(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done), "MatGetRowIJ");
    if (!done || m != n_) throw RuntimeFailure("SubstructuredCholesky: unexpected local matrix layout");
    for (PetscInt i = 0; i < n_; ++i)
      for (PetscInt k = ia[i]; k < ia[i + 1]; ++k) {
        const PetscInt j = ja[k];
        if (is_b_[i] && is_b_[j]) M.bb_at[static_cast<size_t>(b_index_[i]) * nb + b_index_[j]] = k;
        if (j > i) continue;
        irn_.push_back(static_cast<int>(i) + 1);
        jcn_.push_back(static_cast<int>(j) + 1);
        val_at_.push_back(k);
      }
    check(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done), "MatRestoreRowIJ");
  }
  val_.resize(val_at_.size());
  schur_.resize(static_cast<size_t>(nb) * nb);
  if (n_ == nb) return;  // no interior rows here: nothing to factor locally

  M.id.comm_fortran = static_cast<MUMPS_INT>(MPI_Comm_c2f(MPI_COMM_SELF));
  M.id.par = 1;
  M.id.sym = 1;  // SPD: LDL^T without pivoting
  M.call(-1);
  M.live = true;
  M.id.icntl[0] = -1;  // no messages
  M.id.icntl[1] = -1;
  M.id.icntl[2] = -1;
  M.id.icntl[3] = 0;
  // Approximate minimum fill for small systems, MUMPS's automatic (nested-dissection)
  // choice above: as LinearSystem's one-rank default (cheaper analysis, no more fill).
  // Also for a nearly diagonal matrix (particles before they touch: under 2 stored
  // entries per row beyond the diagonal block), on which the automatic ordering of
  // Debian's MUMPS (PORD) was seen to run for more than 15 minutes at 1M particles,
  // where AMF takes seconds.
  const bool nearly_diagonal = irn_.size() < 4 * static_cast<size_t>(n_);
  M.id.icntl[6] = n_ / 3 <= kSmallSystemVertices || nearly_diagonal ? 2 : 7;
  M.id.icntl[13] = 100;  // workspace margin: barrier Hessians' dynamic range (INFOG(1) = -9)
  M.id.n = static_cast<MUMPS_INT>(n_);
  M.id.nnz = static_cast<MUMPS_INT8>(irn_.size());
  M.id.irn = irn_.data();
  M.id.jcn = jcn_.data();
  if (nb > 0) {
    M.schur_list.resize(nb);
    for (int j = 0; j < nb; ++j) M.schur_list[j] = b_rows_[j] + 1;
    M.id.icntl[18] = 1;  // ICNTL(19): Schur complement returned centralised, by rows
    M.id.size_schur = nb;
    M.id.listvar_schur = M.schur_list.data();
    M.id.schur = schur_.data();
  }
  M.call(1);
  if (M.id.infog[0] < 0) {  // reported by factor(), collectively
    analysis_failure_ = "MUMPS analysis failed (INFOG(1) = " + std::to_string(M.id.infog[0]) +
                        ", INFOG(2) = " + std::to_string(M.id.infog[1]) + ")";
    M.end();
  }
}

void SubstructuredCholesky::factor(Mat A, long pattern) {
  if (pattern != pattern_) {
    analyse(A);
    pattern_ = analysis_failure_.empty() ? pattern : -1;
  }
  Mat Ad, Ao;
  const PetscInt* garray;
  local_parts(A, &Ad, &Ao, &garray);
  Mumps& M = *mumps_;
  const int nb = static_cast<int>(b_rows_.size());
  const PetscScalar* va = nullptr;
  check(MatSeqAIJGetArrayRead(Ad, &va), "MatSeqAIJGetArrayRead");
  for (size_t e = 0; e < val_at_.size(); ++e) val_[e] = va[val_at_[e]];
  if (n_ == nb) {
    // All rows are interface rows: the Schur block is the local matrix itself.
    for (size_t e = 0; e < schur_.size(); ++e) schur_[e] = M.bb_at[e] >= 0 ? va[M.bb_at[e]] : 0.0;
  }
  check(MatSeqAIJRestoreArrayRead(Ad, &va), "MatSeqAIJRestoreArrayRead");

  // The local factorisation may fail on one rank only: agree before the collective gather.
  std::string failure;
  failure.swap(analysis_failure_);
  PetscLogEventBegin(events().local_factor, 0, 0, 0, 0);
  if (M.live && failure.empty()) {
    M.id.a = val_.data();
    for (int attempt = 0;; ++attempt) {
      M.call(2);
      // Workspace too small (the barrier's dynamic range moves pivots): give it more.
      if ((M.id.infog[0] == -8 || M.id.infog[0] == -9) && attempt < 4) {
        M.id.icntl[13] *= 2;
        continue;
      }
      break;
    }
    // SYM = 1 factors without pivoting and, like the one-rank MUMPS factorisation of the
    // same (SPD-flagged) matrix, goes on through a negative pivot (a Hessian whose barrier
    // terms span many decades can show one to rounding); it counts them (INFOG(12)). A
    // null pivot stops it.
    negative_pivots_ = M.id.infog[0] >= 0 ? M.id.infog[11] : 0;
    if (M.id.infog[0] == -10)
      failure = "local Cholesky factorisation: matrix numerically singular (MUMPS INFOG(1) = -10)";
    else if (M.id.infog[0] < 0)
      failure = "MUMPS factorisation failed (INFOG(1) = " + std::to_string(M.id.infog[0]) +
                ", INFOG(2) = " + std::to_string(M.id.infog[1]) + ")";
    // For a symmetric matrix MUMPS returns the lower triangle of the Schur complement, by
    // rows (ICNTL(19) = 1); the rest of the array holds leftovers of the root front, not
    // zeros (checked against a column-by-column reference: exact below the diagonal,
    // wrong above). Mirror it.
    for (int i = 0; i < nb && failure.empty(); ++i)
      for (int j = 0; j < i; ++j) schur_[static_cast<size_t>(j) * nb + i] = schur_[static_cast<size_t>(i) * nb + j];
  }
  PetscLogEventEnd(events().local_factor, 0, 0, 0, 0);
  // Every rank throws the first failing rank's message.
  int who = failure.empty() ? ranks_ : rank_;
  MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, comm_);
  if (who < ranks_) {
    int len = static_cast<int>(failure.size());
    MPI_Bcast(&len, 1, MPI_INT, who, comm_);
    failure.resize(len);
    MPI_Bcast(failure.data(), len, MPI_CHAR, who, comm_);
    throw RuntimeFailure(failure + (ranks_ > 1 ? " on rank " + std::to_string(who) : std::string()));
  }
  if (n_interface_ == 0) return;

  // Gather every rank's Schur block and cross entries; every rank assembles and factors S.
  PetscLogEventBegin(events().interface_factor, 0, 0, 0, 0);
  std::copy(schur_.begin(), schur_.end(), send_.begin());
  if (Ao && !cross_at_.empty()) {
    const PetscScalar* vo = nullptr;
    check(MatSeqAIJGetArrayRead(Ao, &vo), "MatSeqAIJGetArrayRead");
    for (size_t e = 0; e < cross_at_.size(); ++e) send_[schur_.size() + e] = vo[cross_at_[e]];
    check(MatSeqAIJRestoreArrayRead(Ao, &vo), "MatSeqAIJRestoreArrayRead");
  }
  MPI_Allgatherv(send_.data(), counts_[rank_], MPI_DOUBLE, recv_.data(), counts_.data(), displs_.data(), MPI_DOUBLE,
                 comm_);
  assemble_interface();
  PetscBLASInt n = static_cast<PetscBLASInt>(n_interface_), info = 0;
  LAPACKpotrf_("L", &n, S_.data(), &n, &info);
  interface_ldlt_ = info > 0;
  if (interface_ldlt_) {
    // Not positive definite to rounding: the interface Schur complement subtracts large
    // barrier terms from large barrier terms (pinned_poke at 2 ranks: potrf stops at pivot
    // 144 of 495). Factor it again by symmetric Bunch-Kaufman LDL^T, which goes through
    // such pivots, as the one-rank MUMPS factorisation of the whole matrix does.
    assemble_interface();
    ipiv_.resize(n_interface_);
    PetscBLASInt lwork = -1;
    double query = 0;
    LAPACKsytrf_("L", &n, S_.data(), &n, ipiv_.data(), &query, &lwork, &info);
    lwork = std::max<PetscBLASInt>(1, static_cast<PetscBLASInt>(query));
    work_.resize(lwork);
    LAPACKsytrf_("L", &n, S_.data(), &n, ipiv_.data(), work_.data(), &lwork, &info);
    ++ldlt_factorizations_;
  }
  PetscLogEventEnd(events().interface_factor, 0, 0, 0, 0);
  if (info != 0)  // the same on every rank: every rank factors the same S
    throw RuntimeFailure("interface Schur complement singular (LAPACK sytrf info " + std::to_string(info) + ")");
}

// S from the gathered Schur blocks and cross-rank entries, in rank order (the same bits on
// every rank), column-major for LAPACK.
void SubstructuredCholesky::assemble_interface() {
  const size_t N = static_cast<size_t>(n_interface_);
  std::fill(S_.begin(), S_.end(), 0.0);
  for (int k = 0, c = 0; k < ranks_; ++k) {
    const int nk = b_counts_[k], o = b_displs_[k];
    const double* blk = recv_.data() + displs_[k];
    for (int i = 0; i < nk; ++i)
      for (int j = 0; j < nk; ++j) S_[(o + j) * N + o + i] = blk[static_cast<size_t>(i) * nk + j];
    const double* cv = blk + static_cast<size_t>(nk) * nk;
    for (int e = 0; e < cross_counts_[k]; ++e, ++c) S_[all_cross_col_[c] * N + all_cross_row_[c]] += cv[e];
  }
}

// One MUMPS solve phase on the local factor; ICNTL(26) = 1 condenses the right-hand side
// onto the interface (forward elimination only, the reduced right-hand side
// b_B - A_BI A_II^-1 b_I in g_), 2 expands an interface solution in g_ to the whole local
// solution (backward substitution), 0 solves a system without interface.
void SubstructuredCholesky::local_phase(int icntl26) {
  Mumps& M = *mumps_;
  M.id.icntl[25] = icntl26;
  M.id.nrhs = 1;
  M.id.lrhs = static_cast<MUMPS_INT>(n_);
  M.id.rhs = rhs_.data();
  if (icntl26 != 0) {
    M.id.redrhs = g_.data();
    M.id.lredrhs = static_cast<MUMPS_INT>(g_.size());
  }
  PetscLogEventBegin(events().local_solve, 0, 0, 0, 0);
  M.call(3);
  PetscLogEventEnd(events().local_solve, 0, 0, 0, 0);
  if (M.id.infog[0] < 0)
    throw RuntimeFailure("MUMPS solve failed (INFOG(1) = " + std::to_string(M.id.infog[0]) + ")");
}

void SubstructuredCholesky::solve(Vec b, Vec x) {
  Mumps& M = *mumps_;
  const int nb = static_cast<int>(b_rows_.size());
  const PetscScalar* bb = nullptr;
  check(VecGetArrayRead(b, &bb), "VecGetArrayRead");
  rhs_.assign(bb, bb + n_);
  check(VecRestoreArrayRead(b, &bb), "VecRestoreArrayRead");
  // Condense: g = b_B - A_BI A_II^-1 b_I (all of b_B where there are no interior rows).
  if (M.live && nb > 0)
    local_phase(1);
  else if (M.live)
    local_phase(0);  // no interface rows here: the local solve is the whole answer
  else
    for (int j = 0; j < nb; ++j) g_[j] = rhs_[b_rows_[j]];
  if (n_interface_ > 0) {
    PetscLogEventBegin(events().interface_solve, 0, 0, 0, 0);
    MPI_Allgatherv(g_.data(), nb, MPI_DOUBLE, gl_.data(), b_counts_.data(), b_displs_.data(), MPI_DOUBLE, comm_);
    PetscBLASInt n = static_cast<PetscBLASInt>(n_interface_), one = 1, info = 0;
    if (interface_ldlt_)
      LAPACKsytrs_("L", &n, &one, S_.data(), &n, ipiv_.data(), gl_.data(), &n, &info);
    else
      LAPACKpotrs_("L", &n, &one, S_.data(), &n, gl_.data(), &n, &info);
    PetscLogEventEnd(events().interface_solve, 0, 0, 0, 0);
    if (info != 0) throw RuntimeFailure("interface solve failed (LAPACK potrs info " + std::to_string(info) + ")");
    std::copy(gl_.begin() + offset_, gl_.begin() + offset_ + nb, g_.begin());
  }
  // Expand: x_I = A_II^-1 (b_I - A_IB x_B).
  if (M.live && nb > 0) local_phase(2);
  PetscScalar* xx = nullptr;
  check(VecGetArray(x, &xx), "VecGetArray");
  for (PetscInt i = 0; i < n_; ++i) xx[i] = is_b_[i] ? g_[b_index_[i]] : rhs_[i];
  check(VecRestoreArray(x, &xx), "VecRestoreArray");
}

}  // namespace weft
