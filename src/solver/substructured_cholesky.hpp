// Exact sparse Cholesky of a distributed SPD matrix by non-overlapping substructuring:
// one sequential MUMPS factorisation per rank plus a small dense interface system.
//
// Each rank's owned rows split into interior rows (every column owned here) and interface
// rows (some column owned by another rank). Ordered interior first,
//
//     A = [A_II  A_IB]      A_II block diagonal over ranks (interior rows never reach
//         [A_BI  A_BB]      another rank), A_IB / A_BI local to each rank,
//
// so the interface Schur complement S = A_BB - sum_k A_BI^k (A_II^k)^-1 A_IB^k is the sum
// of one dense block per rank (MUMPS computes it during that rank's factorisation, with the
// interface variables ordered last: ICNTL(19)) plus the cross-rank entries of A_BB. S is
// gathered on every rank and factored there (LAPACK potrf); a solve is
//
//     S x_B = b_B - A_BI A_II^-1 b_I,   x_I = A_II^-1 (b_I - A_IB x_B):
//
// MUMPS's forward substitution condenses b onto the interface (ICNTL(26) = 1), the dense
// interface solve runs on every rank, the backward substitution expands x_B (ICNTL(26) = 2):
// one local triangular-solve pair, as a sequential solve. Against MUMPS's own
// distributed factorisation (same nested-dissection idea, dynamic scheduling over both
// processes) this does the same elimination with no communication inside the sparse part,
// is deterministic (a restart reproduces the run bit for bit on any rank count), and its
// solve phase has no distributed triangular solves (drape_pair at 2 ranks: MUMPS's
// distributed solve took longer than the 1-rank solve of the whole system). It pays while
// the interface is small: the dense S costs |B|^3 / 3 flops on every rank, so LinearSystem
// uses it up to a bound on |B| and falls back to the distributed MUMPS factorisation above.
#pragma once
#include <petscmat.h>

#include <string>
#include <vector>

namespace weft {

class SubstructuredCholesky {
 public:
  explicit SubstructuredCholesky(MPI_Comm comm);
  ~SubstructuredCholesky();
  SubstructuredCholesky(const SubstructuredCholesky&) = delete;
  SubstructuredCholesky& operator=(const SubstructuredCholesky&) = delete;

  // Interface DOFs of an (MPI)AIJ matrix's pattern, summed over ranks (collective): what
  // the dense interface system would cost before committing to it.
  static long interface_size(Mat A, MPI_Comm comm);

  // Numeric factorisation of A (collective). The pattern is analysed again (interface,
  // MUMPS ordering) when `pattern` differs from the last call's.
  void factor(Mat A, long pattern);
  // x = A^-1 b for the last factored A (collective). b and x may not alias.
  void solve(Vec b, Vec x);
  long interface_dofs() const { return n_interface_; }
  // Interface factorisations that needed LDL^T (S not positive definite to rounding), and
  // negative pivots of this rank's last local factorisation.
  long ldlt_factorizations() const { return ldlt_factorizations_; }
  int negative_pivots() const { return negative_pivots_; }
  int local_ordering() const;  // ICNTL(7) MUMPS used on this rank (INFOG(7))

 private:
  void analyse(Mat A);
  void analyse_unlogged(Mat A);
  void assemble_interface();
  void local_phase(int icntl26);  // a MUMPS solve phase on rhs_ / g_, see the .cpp
  struct Mumps;
  Mumps* mumps_ = nullptr;
  MPI_Comm comm_;
  int rank_ = 0, ranks_ = 1;
  long pattern_ = -1;
  std::string analysis_failure_;     // this rank's, until factor() reports it collectively
  // Local matrix = owned rows x owned columns (the diagonal part of an MPIAIJ matrix).
  PetscInt n_ = 0;                   // owned scalar rows
  std::vector<int> irn_, jcn_;       // its lower triangle for MUMPS (1-based)
  std::vector<PetscInt> val_at_;     // position of each triangle entry in the local value array
  std::vector<double> val_;          // the values handed to MUMPS
  std::vector<char> is_b_;           // owned row is an interface row
  std::vector<int> b_rows_;          // owned interface rows (local), ascending
  std::vector<int> b_index_;         // local row -> its position in b_rows_, or -1
  // Cross-rank interface entries of A_BB: (S row, S column) and position in the
  // off-diagonal part's value array.
  std::vector<int> cross_row_, cross_col_;
  std::vector<PetscInt> cross_at_;
  long n_interface_ = 0;
  int offset_ = 0;                   // this rank's first interface index in S
  std::vector<int> counts_, displs_; // per rank: doubles sent in the factor gather
  std::vector<int> b_counts_, b_displs_, x_counts_;  // per rank: interface rows, offsets
  std::vector<int> cross_counts_;    // per rank: cross entries
  std::vector<double> schur_;        // this rank's dense Schur block, then its gather buffer
  std::vector<double> send_, recv_;  // factor gather buffers
  std::vector<double> S_;            // the global interface matrix, its Cholesky factor after factor()
  bool interface_ldlt_ = false;      // ... or its Bunch-Kaufman LDL^T factor (pivots in ipiv_)
  std::vector<PetscBLASInt> ipiv_;
  std::vector<double> work_;
  long ldlt_factorizations_ = 0;
  int negative_pivots_ = 0;
  std::vector<double> rhs_, g_, gl_;  // local right-hand side / solution, interface ones
  std::vector<int> all_cross_row_, all_cross_col_;  // every rank's cross entries, in rank order
};

}  // namespace weft
