// One-rank sparse Cholesky by CHOLMOD's supernodal factorisation, called directly on the
// Newton matrix's own AIJ arrays (issue 21, point 2). PETSc's CHOLMOD interface, at every
// numeric factorisation, copies the upper triangle into fresh arrays and hands it over
// as lower-stored, and CHOLMOD then permutes it twice (triu(PAP') and its transpose) before
// the supernodal numeric phase: ~4 ms of a ~40 ms solve on the soft drape at 4K vertices.
// Here the fill-reducing ordering is computed once per nonzero pattern (CHOLMOD's own
// choice, AMD or METIS, on the same matrix PETSc would give it), together with the map
// from the AIJ value array to the permuted lower triangle tril(PAP'); each factorisation
// is then a gather through that map and cholmod_super_numeric, the same numeric phase
// cholmod_factorize runs on the same permuted matrix (so the factor is the same bit for
// bit). LinearSystem runs it as a PCSHELL, so -ksp_* / -pc_* / -log_view keep working and
// -pc_type cholesky -pc_factor_mat_solver_type cholmod still selects PETSc's interface.
#pragma once
#include <petscmat.h>

#include <memory>
#include <string>

namespace weft {

class DirectCholmod {
 public:
  DirectCholmod();
  ~DirectCholmod();
  DirectCholmod(const DirectCholmod&) = delete;
  DirectCholmod& operator=(const DirectCholmod&) = delete;

  // Whether this build has CHOLMOD (PETSc with SuiteSparse); without it factor throws.
  static bool available();

  // Numeric factorisation of the SeqAIJ matrix A (symmetric, both triangles stored, rows'
  // columns sorted, every diagonal entry stored). The symbolic analysis is redone only
  // when A is another object, its nonzero pattern changed or the value layout did. Throws
  // RuntimeFailure when A is not positive definite (naming the failing column) or CHOLMOD
  // fails. With `blocked`, A's value array holds its 3 x 3 blocks (each block row's three
  // scalar rows with the same columns) one after the other, row-major, in AIJ block order
  // (blocked_position), and only the blocks on and above the block diagonal are read.
  void factor(Mat A, bool blocked = false);
  // Where AIJ entry q of scalar row `row` (ia: the row starts) sits in the blocked layout:
  // block k of block row r = row / 3 starts at ia[3 r] + 9 k (its three rows' entries
  // before it are 9 per block), and the entry at row % 3, column q - ia[row] - 3 k.
  static PetscInt blocked_position(const PetscInt* ia, PetscInt row, PetscInt q) {
    const PetscInt pos = q - ia[row], j = pos % 3;
    return ia[row - row % 3] + 3 * (pos - j) + 3 * (row % 3) + j;
  }
  // The next analysis computes a fresh node ordering instead of keeping this step's.
  void new_time_step();
  // x = A^{-1} b with the last factor (sequential vectors of A's size).
  void solve(Vec b, Vec x);

  long analyses() const { return analyses_; }          // symbolic analyses so far
  long factorizations() const { return factorizations_; }
  std::string describe() const;                         // ordering and factor size
  double factor_flops() const;                          // of the current analysis (CHOLMOD's fl)
  bool node_ordering() const;                           // the ordering came from the 3-DOF node graph
  long kept_orderings() const;                          // analyses that kept the step's node ordering

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  long analyses_ = 0;
  long factorizations_ = 0;
};

}  // namespace weft
