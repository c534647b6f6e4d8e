// The distributed Newton system H p = -g on PETSc: an MPIAIJ matrix with block size 3
// (GAMG refuses BAIJ), exactly preallocated from the element stencils, solved by a KSP that
// PETSc options can reconfigure (-ksp_type, -pc_type, -pc_factor_mat_solver_type,
// -log_view ...). Element blocks of owned rows are added straight into the local AIJ value
// arrays at offsets found from this class's own block pattern (see add_block); blocks of
// rows owned elsewhere are sent to their owner at end_assembly and added there in a fixed
// order, so an assembly is reproducible bit for bit on any rank count.
#pragma once
#include <petscksp.h>

#include <memory>
#include <string>
#include <vector>

#include "core/scene.hpp"
#include "parallel/local_view.hpp"
#include "solver/direct_cholmod.hpp"
#include "solver/substructured_cholesky.hpp"

namespace weft {

// GAMG's near null space: the 6 rigid-body modes (orthonormal) over the rows flagged
// deformable (coords: 3 per owned row), zero elsewhere; null when no rank has a
// deformable row. Collective.
MatNullSpace rigid_body_modes(MPI_Comm comm, const std::vector<double>& coords, const std::vector<char>& deformable);

class LinearSystem {
 public:
  // Pattern = all element stencils touching owned rows. Kinematic vertices are rows of
  // the identity and columns that nobody writes (index -1), so their step is exactly 0.
  LinearSystem(const Scene& scene, const LocalView& lv, const LinearSpec& spec);
  ~LinearSystem();
  LinearSystem(const LinearSystem&) = delete;
  LinearSystem& operator=(const LinearSystem&) = delete;

  Mat matrix() const { return A_; }
  // A caller that only solves with the matrix (never multiplies with it or reads it) says so:
  // with the one-rank direct CHOLMOD solve only its blocks on and above the block diagonal
  // are then assembled (upper_triangle()), all that solve reads. Off by default.
  void set_solve_only(bool on) { solve_only_ = on; }
  bool upper_triangle() const { return upper_capable_ && solve_only_; }
  // Since the last begin_assembly, matrix()'s value array holds the added blocks in
  // DirectCholmod's blocked layout (DirectCholmod::blocked_position), not as AIJ rows:
  // with upper_triangle() and direct_assembly(), where the matrix is read by that solve only.
  bool blocked_values() const { return blocked_; }
  void begin_assembly();                            // zero values, keep the pattern
  // Add an element block matrix over `nv` vertices given by their GLOBAL solver ids;
  // a negative id drops that vertex's rows and columns.
  void add_block(int nv, const int* global_ids, const double* values_row_major);
  // The same for element `element` of a fixed list (its ids the same at every assembly):
  // the positions of its owned blocks in the AIJ arrays are found once and kept in `cache`
  // until the pattern is rebuilt, instead of searched for at every assembly.
  struct SlotCache {
    std::vector<int> slot;  // block index per (element, a, b); -1: not looked up yet
    long version = -1;      // pattern_version_ the slots belong to
  };
  void add_block(SlotCache& cache, size_t element, int nv, const int* global_ids, const double* values_row_major);
  // add_block(1, &global_id, values) for a node's diagonal block (inertia, AL springs): its
  // position found once per pattern instead of searched for at every assembly.
  void add_diagonal_block(int global_id, const double* values);
  // The same for elements first .. first + count - 1 (ids: nv per element, values: one
  // 3 nv x 3 nv block each), added in that order (so bit for bit as count add_block calls).
  void add_blocks(SlotCache& cache, size_t first, int count, int nv, const int* global_ids, const double* values);
  // add_block in two halves, for a caller that keeps block positions itself (the contact
  // friction pairs, fixed through a lagged solve): locate_blocks gives the nv x nv blocks'
  // entries (row-major; -1 where the row is not owned here, an id is negative or the
  // pattern lacks the block), valid while pattern_version() stays; add_located(.., slots,
  // values) then adds exactly what add_block(nv, global_ids, values) adds (rows owned
  // elsewhere and blocks the pattern lacks, absorbed or not, as there).
  void locate_blocks(int nv, const int* global_ids, int* slots) const;
  void add_located(int nv, const int* global_ids, const int* slots, const double* values);
  long pattern_version() const { return pattern_version_; }
  void end_assembly();                              // kinematic identity rows + flush
  // Gradient entries (3 values of block row `row`, a global id, owned anywhere) added to g
  // by flush_rhs(g), collective, in the same fixed order as the matrix's off-rank blocks.
  void add_rhs(int row, const double* values3);
  void flush_rhs(Vec g);
  // Optional, before the add_rhs calls of an assembly: on one rank they then go straight
  // into g (in call order, as flush_rhs would add them) instead of through the buffers and
  // the exchange; flush_rhs(g) still ends them. Several ranks: no effect.
  void begin_rhs(Vec g);
  // Owned kinematic vertices that are unknowns until the next call (augmented-Lagrangian
  // obstacles): their rows get what is assembled instead of the identity. Local, not
  // collective; the diagonal block is always in the pattern.
  void set_free_kinematic(const std::vector<int>& owned_ids);
  // Owned vertices welded onto a stitch partner (the row a copy of the partner's unknown
  // no longer has): rows of the identity until the next call. Invalidates the block slot
  // caches and rebuilds GAMG's near null space without them: call it on every rank together
  // whenever any rank's ties change (ghost copies count). Collective.
  void set_tied(const std::vector<int>& owned_ids);
  // Contact couplings (row, col) of global vertex ids from this rank's pairs (rows may be
  // owned anywhere). Collective. Rebuilds the matrix when the pattern must grow; returns
  // whether it did.
  bool set_contact_couplings(const std::vector<std::pair<int, int>>& couplings);
  // Collective: whether set_contact_couplings(couplings) would rebuild the matrix.
  bool pattern_grows(const std::vector<std::pair<int, int>>& couplings);
  // Until the next call: an added block (r, c), r != c, that the pattern lacks is not an
  // error but goes onto the diagonal, as |B^T| = (B B^T)^(1/2) into block (r, r); its
  // transpose, added by row c, goes as |B| into (c, c). What this adds to the matrix,
  // [|B^T| -B; -B^T |B|] = [U; -V] S [U; -V]^T for B = U S V^T, is PSD, so the matrix
  // stays PSD and above the exact Hessian: a descent direction without growing the pattern
  // (ContactPotential's rebuild policy). Only with direct_assembly(). Local call.
  void set_absorb_missing(bool on) { absorb_missing_ = on; }
  long absorbed_blocks() const { return absorbed_blocks_; }  // blocks so absorbed, summed over calls
  // Solve A p = rhs; returns KSP iterations. Throws RuntimeFailure when the KSP diverges.
  int solve(Vec rhs, Vec p);
  // Call at the start of every time step: expensive preconditioner data (GAMG
  // interpolation) is reused within a step and rebuilt at the next, so a restart from a
  // checkpoint reproduces the uninterrupted run.
  void new_time_step();
  std::string describe() const;
  int fallbacks() const { return fallbacks_; }  // solves redone by Cholesky
  // The direct solve runs as one sequential Cholesky per rank (the matrix couples no two ranks).
  bool split_solve() const { return split_active_; }
  // One rank: the direct Cholesky runs as DirectCholmod (CHOLMOD on the AIJ arrays).
  bool direct_cholmod() const { return chol_active_; }
  // The direct solve runs substructured (SubstructuredCholesky): the ranks are coupled, but
  // through an interface small enough for a dense Schur complement.
  bool substructured_solve() const { return sub_active_; }
  long interface_dofs() const { return interface_dofs_; }
  // Numeric factorisations so far (factorisation preconditioners only): with a Krylov
  // KSP they are reused across Newton iterations, see solve().
  long factorizations() const { return factorizations_; }
  // Steps that kept the matrix, the KSP and the symbolic factorisation (new_time_step).
  int pattern_kept() const { return pattern_kept_; }
  // add_block writes owned rows straight into the AIJ arrays (false: through
  // MatSetValuesBlocked, when the local layout is not the one index_pattern expects).
  bool direct_assembly() const { return !block_ptr_.empty(); }

 private:
  void configure_solver();
  void create_matrix();
  void index_pattern();  // block_* from the assembled matrix's local CSR structure
  const std::vector<int>& row_pattern(int r, std::vector<int>& scratch) const;

  // Where block (row r, column c) of an owned block row lives in the local AIJ arrays:
  // row r's sorted block columns are block_cols_[block_ptr_[r] .. block_ptr_[r + 1]); for
  // entry e, block_part_[e] is 0 (diagonal part, columns owned here) or 1 (off-diagonal
  // part), and the three values of scalar row 3 r + d sit at
  // block_at_[e].off + d * block_at_[e].len .. + 2 in that part's value array (the three
  // scalar rows of a block row are equally long in each part).
  struct BlockAt {
    PetscInt off, len;
  };
  std::vector<int> block_ptr_, block_cols_;
  std::vector<BlockAt> block_at_;
  std::vector<char> block_part_;
  PetscScalar* rhs_direct_ = nullptr;  // begin_rhs on one rank: g's array until flush_rhs
  std::vector<PetscInt> row_start_[2];
  // Contributions to rows owned elsewhere, per owner rank: (row, col) and 9 values per
  // block; (row) and 3 values per gradient entry. end_assembly / flush_rhs exchange them and
  // add them at the owner in a fixed order (source rank, then call order), not by PETSc's
  // stash, whose receive order follows message arrival: with 3 or more ranks a row summed
  // from two other ranks would round differently from run to run (and a restart would not
  // reproduce its run).
  std::vector<std::vector<int>> off_idx_, rhs_idx_;
  std::vector<std::vector<double>> off_val_, rhs_val_;
  void add_owned(int r, int col, const double* v, int stride);  // block (r local, col) += v (3 rows)
  int find_block(int r, int col) const;                           // entry e of block (r local, col)
  int locate_block(int r, int col) const;                         // ... or -1 when not in the pattern
  void absorb(int r, const double* v, int stride);                // a missing block onto the diagonal
  void absorb_if_missing(int r, int col, const double* v, int stride);  // a skipped lower block's part
  bool absorb_missing_ = false;
  long absorbed_blocks_ = 0;
  inline void add_at(int e, const double* v, int stride);         // block entry e += v
  // The direct insertion paths' walk over a stencil's rows (values: row-major 3 nv x 3 nv):
  // rows of negative ids skipped, rows owned elsewhere sent to their owner (add_off_rank),
  // each owned row handed to f(a, row, its 3 value rows, their stride).
  template <class F>
  void for_owned_rows(int nv, const int* ids, const double* values, F&& f) {
    const int stride = 3 * nv;
    for (int a = 0; a < nv; ++a) {
      const int row = ids[a];
      if (row < 0) continue;
      const double* va = values + 3 * a * stride;
      if (row < lv_.vbegin || row >= lv_.vend)
        add_off_rank(row, nv, ids, va, stride);
      else
        f(a, row, va, stride);
    }
  }
  void add_off_rank(int row, int nv, const int* ids, const double* va, int stride);  // row owned elsewhere
  long pattern_version_ = 0;  // bumped whenever the block positions change (index_pattern)
  std::vector<int> diag_block_;  // the diagonal block's entry per owned row (-1: not looked up)
  int diagonal_entry(int r);     // ... found once per pattern
  long diag_version_ = -1;       // the pattern_version_ of diag_block_
  void exchange(std::vector<std::vector<int>>& idx, std::vector<std::vector<double>>& val, int ints, int doubles,
                std::vector<int>& ridx, std::vector<double>& rval) const;
  Mat part_[2] = {nullptr, nullptr};           // the local SeqAIJ parts (borrowed from A_)
  PetscScalar* values_[2] = {nullptr, nullptr};  // their value arrays between begin/end_assembly

  const Scene& scene_;
  const LocalView& lv_;
  LinearSpec spec_;
  Mat A_ = nullptr;
  KSP ksp_ = nullptr;
  std::vector<int> kinematic_owned_;   // owned kinematic rows that are the identity
  std::vector<int> kinematic_all_;     // every owned kinematic vertex
  std::vector<int> tied_owned_;        // owned welded stitch copies (identity rows)
  std::vector<std::vector<int>> base_cols_;   // element pattern per owned block row
  std::vector<std::vector<int>> extra_cols_;  // contact couplings per owned block row
  std::vector<int> coupling_recv_;            // set_contact_couplings' (row, col) buffer
  // Sends each coupling to the owner of its row; this rank's ones land in coupling_recv_.
  void route_couplings(const std::vector<std::pair<int, int>>& couplings);
  // Whether coupling_recv_ holds a block the pattern lacks, on any rank (collective).
  bool grows();
  MatNullSpace nullspace_ = nullptr;
  std::vector<double> null_coords_;    // rest positions of the owned rows (near null space)
  std::vector<char> null_deformable_;  // owned rows in it before any stitch weld
  bool first_solve_in_step_ = true;
  int pattern_kept_ = 0;
  int dynamic_vertices_ = 0;    // global count, fixed: picks the MUMPS ordering (configure_solver)        // steps that kept matrix, KSP and symbolic factorisation
  int local_dynamic_ = 0;       // this rank's share of it (the per-rank Cholesky's ordering)
  bool decoupled_ = false;      // several ranks, no matrix entry couples two of them
  bool split_eligible_ = false; // a direct Cholesky was asked for on several ranks ...
  bool split_active_ = false;   // ... and runs as one sequential Cholesky per rank (block Jacobi)
  int mode_for_ = -1;           // the direct_mode() the solver was configured for
  // Direct solve on several ranks: 0 MUMPS distributed, 1 split (block Jacobi), 2 substructured.
  int direct_mode() const;
  long interface_dofs_ = 0;     // owned rows with a column owned elsewhere, summed over ranks
  long interface_max_ = 0;      // substructure up to this many interface DOFs (-weft_interface_max)
  bool sub_active_ = false;
  bool substructure_forced_ = false;  // -weft_substructure 1: no |B| / sqrt(N) test
  std::unique_ptr<SubstructuredCholesky> sub_;
  bool chol_active_ = false;    // one rank: DirectCholmod as a PCSHELL
  // Only the blocks on and above the block diagonal are added (the solve reads no other)
  // when both hold: the direct CHOLMOD solve is active and no option asks to view the
  // matrix (configure_solver), and the caller only solves with it (set_solve_only).
  bool upper_capable_ = false;
  bool solve_only_ = false;
  bool skip_lower(int row, int col) const { return upper_capable_ && solve_only_ && col < row; }
  // The blocks are added 9 contiguous values each (blocked_values()): an add then touches
  // one or two cache lines instead of three rows' (the adds are scattered: soft drape 64^2,
  // bench/results/newton_split.md, session 35).
  bool blocked_ = false;
  std::unique_ptr<DirectCholmod> chol_;
  std::string sub_error_;       // a failure inside the PETSc shell callbacks, rethrown by solve()
  static PetscErrorCode shell_setup(PC pc);
  static PetscErrorCode shell_apply(PC pc, Vec b, Vec x);
  bool factor_pc_ = false;      // PC is a (Cholesky/LU) factorisation
  bool reuse_factor_ = false;   // ... applied by a Krylov method, so an old factor still serves
  PetscReal rtol_ = 0, abstol_ = 0, dtol_ = 0;  // as configured (case, then command line)
  PetscInt max_it_ = 0;
  bool reuse_failed_ = false;  // a reused factor failed this step
  int reused_its_ = 0;          // Krylov iterations spent on the current factor since it was made
  int fallbacks_ = 0;
  long factorizations_ = 0;
};

}  // namespace weft
