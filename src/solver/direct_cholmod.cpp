#include "solver/direct_cholmod.hpp"

#include <petscpc.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "core/error.hpp"

#if defined(WEFT_HAVE_CHOLMOD)
#include <cholmod.h>
#endif

namespace weft {

namespace {

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in ") + what + " (code " + std::to_string(ierr) + ")");
}

}  // namespace

#if defined(WEFT_HAVE_CHOLMOD)

namespace {

// A symmetric matrix stored by its lower triangle in compressed columns (rows ascending),
// over caller-owned arrays; x null: the pattern only.
cholmod_sparse lower_csc(PetscInt n, std::vector<int>& p, std::vector<int>& i, double* x) {
  cholmod_sparse S{};
  S.nrow = S.ncol = static_cast<size_t>(n);
  S.nzmax = i.size();
  S.p = p.data();
  S.i = i.data();
  S.x = x;
  S.stype = -1;
  S.itype = CHOLMOD_INT;
  S.xtype = x ? CHOLMOD_REAL : CHOLMOD_PATTERN;
  S.dtype = CHOLMOD_DOUBLE;
  S.sorted = 1;
  S.packed = 1;
  return S;
}

}  // namespace

struct DirectCholmod::Impl {
  cholmod_common c;
  cholmod_factor* L = nullptr;
  // S = tril(P A P^T), compressed columns (stype -1), rows ascending in each column;
  // Sx[k] = the value at src[k] of A's value array (AIJ, or blocked: see factor).
  std::vector<int> Sp, Si;
  std::vector<double> Sx;
  std::vector<PetscInt> src;
  bool blocked = false;  // the layout src was made for
  cholmod_sparse S{};
  PetscInt n = -1;
  PetscObjectId id = 0;
  PetscObjectState nz_state = -1;
  cholmod_dense *X = nullptr, *Y = nullptr, *E = nullptr;  // cholmod_solve2's kept workspace
  PetscLogEvent ev_analyse = 0, ev_numeric = 0, ev_solve = 0;
  bool monitor = false;  // -weft_cholmod_monitor: one line per analysis (ordering, fill, flops)
  bool block_order = true;  // -weft_cholmod_block_order 0: always the scalar analysis
  double block_lnz = 0.0;
  const char* block_choice = nullptr;  // the node-graph ordering in use, if any
  std::vector<int> node_perm;  // ... expanded to DOFs, kept for this time step
  double node_fl = 0.0;        // its flop count when computed
  long reuses = 0;             // analyses on a kept ordering
  bool kept = false;           // the last analysis was one of them
  // A fresh METIS ordering of the node graph costs about what 25% more factorisation
  // flops do (particles_on_cloth, 50K, frame 60: 0.6-1.0 s against 2.7 s for 90 Gflop).
  double keep_slack = 1.25;  // -weft_cholmod_keep_slack

  Impl() {
    cholmod_start(&c);
    c.print = 0;  // failures are reported by exception, with CHOLMOD's status
    // Always supernodal: the numeric phase below is cholmod_super_numeric. (CHOLMOD's
    // automatic choice picks it anyway for cloth systems; simplicial only for tiny ones.)
    c.supernodal = CHOLMOD_SUPERNODAL;
    // -weft_cholmod_ordering amd | metis | nesdis: that ordering only, instead of CHOLMOD's
    // default choice (cholmod: AMD, and METIS too when AMD fills much; what PETSc's
    // interface gets). On the soft drape at 4K vertices nnz(L) is 1.57M with AMD (the
    // default's pick), 1.51M with nesdis, whose analysis costs 6x AMD's, and METIS fills
    // more: measured, no ordering beats the default per Newton iteration there.
    char ord[32] = "cholmod";
    PetscOptionsGetString(nullptr, nullptr, "-weft_cholmod_ordering", ord, sizeof ord, nullptr);
    const std::string o(ord);
    if (o != "cholmod") {
      const int m = o == "amd" ? CHOLMOD_AMD : o == "metis" ? CHOLMOD_METIS : o == "nesdis" ? CHOLMOD_NESDIS : -1;
      if (m < 0) throw RuntimeFailure("-weft_cholmod_ordering: '" + o + "' is not cholmod, amd, metis or nesdis");
      c.nmethods = 1;
      c.method[0].ordering = m;
    }
    PetscBool mon = PETSC_FALSE;
    PetscOptionsGetBool(nullptr, nullptr, "-weft_cholmod_monitor", &mon, nullptr);
    monitor = mon;
    PetscBool blk = PETSC_TRUE;
    PetscOptionsGetBool(nullptr, nullptr, "-weft_cholmod_block_order", &blk, nullptr);
    block_order = blk;
    PetscOptionsGetReal(nullptr, nullptr, "-weft_cholmod_keep_slack", &keep_slack, nullptr);
    static PetscLogEvent events[3] = {0, 0, 0};
    if (!events[0]) {
      PetscLogEventRegister("WeftCholAnalyse", PC_CLASSID, &events[0]);
      PetscLogEventRegister("WeftCholNumeric", PC_CLASSID, &events[1]);
      PetscLogEventRegister("WeftCholSolve", PC_CLASSID, &events[2]);
    }
    ev_analyse = events[0];
    ev_numeric = events[1];
    ev_solve = events[2];
  }
  ~Impl() {
    cholmod_free_factor(&L, &c);
    cholmod_free_dense(&X, &c);
    cholmod_free_dense(&Y, &c);
    cholmod_free_dense(&E, &c);
    cholmod_finish(&c);
  }

  std::string status_text() const {
    switch (c.status) {
      case CHOLMOD_OUT_OF_MEMORY: return "out of memory";
      case CHOLMOD_TOO_LARGE: return "problem too large";
      case CHOLMOD_INVALID: return "invalid input";
      case CHOLMOD_NOT_POSDEF: return "matrix not positive definite";
      default: return "status " + std::to_string(c.status);
    }
  }

  // A fill-reducing ordering computed on the graph of 3-DOF nodes (the matrix is assembled
  // in full 3x3 blocks) instead of the scalar one: 1/3 the vertices and ~1/9 the edges, so
  // AMD and METIS cost a fraction of what they cost on the scalar graph, and a node's three
  // DOFs stay adjacent (they form one supernode column group anyway). Used only where
  // CHOLMOD's own rule would try METIS (AMD fills badly: fl / lnz >= 500 and
  // lnz / anz >= 5, here on the node graph, where a scalar L has ~9x the entries and ~27x
  // the flops: fl / lnz scaled by 3): a 3-D contact graph such as a settled particle pile,
  // where the pattern changes at every Newton iteration and the scalar analysis (AMD, then
  // METIS) took 1.6 s of a 4 s solve at 50K particles (issue 17). Then the better of AMD
  // and METIS on the node graph, by flops. Otherwise (every cloth case measured: AMD's
  // fill is good) false, and the scalar analysis runs exactly as before.
  bool block_ordering(const std::vector<int>& up, const std::vector<int>& uj, std::vector<int>& perm) {
    const int nb = static_cast<int>(n / 3);
    std::vector<int> bp(nb + 1, 0), bj, mark(nb, -1);
    bj.reserve(uj.size() / 9 + nb);
    for (int B = 0; B < nb; ++B) {
      for (int r = 3 * B; r < 3 * B + 3; ++r)
        for (int e = up[r]; e < up[r + 1]; ++e) {
          const int C = uj[e] / 3;
          if (mark[C] != B) {
            mark[C] = B;
            bj.push_back(C);
          }
        }
      std::sort(bj.begin() + bp[B], bj.end());
      bp[B + 1] = static_cast<int>(bj.size());
    }
    cholmod_sparse G = lower_csc(nb, bp, bj, nullptr);
    const int nmethods = c.nmethods, supernodal = c.supernodal;
    const cholmod_common::cholmod_method_struct m0 = c.method[0];
    c.nmethods = 1;
    c.supernodal = CHOLMOD_SIMPLICIAL;  // the orderings' statistics only
    auto order = [&](int method, double& fl) {
      c.method[0].ordering = method;
      cholmod_factor* F = cholmod_analyze(&G, &c);
      std::vector<int> p;
      if (F && c.status >= CHOLMOD_OK) {
        fl = c.fl;
        const int* P = static_cast<const int*>(F->Perm);
        p.assign(P, P + nb);
        block_lnz = c.lnz;
      }
      cholmod_free_factor(&F, &c);
      return p;
    };
    double fl_amd = 0.0, fl_metis = 0.0;
    std::vector<int> pb = order(CHOLMOD_AMD, fl_amd);
    const double lnz_amd = block_lnz, anz = static_cast<double>(bj.size());
    const bool heavy = !pb.empty() && 3.0 * fl_amd >= 500.0 * lnz_amd && lnz_amd >= 5.0 * anz;
    block_choice = "amd";
    if (heavy) {
      std::vector<int> pm = order(CHOLMOD_METIS, fl_metis);
      if (!pm.empty() && fl_metis < fl_amd) {
        pb.swap(pm);
        block_choice = "metis";
      }
    }
    c.nmethods = nmethods;
    c.supernodal = supernodal;
    c.method[0] = m0;
    if (!heavy) {
      block_choice = nullptr;
      return false;
    }
    perm.resize(n);
    for (int k = 0; k < nb; ++k)
      for (int j = 0; j < 3; ++j) perm[3 * k + j] = 3 * pb[k] + j;
    return true;
  }

  // CHOLMOD's analysis of U on the given permutation (then postordered).
  cholmod_factor* analyse_given(cholmod_sparse& U, std::vector<int>& perm) {
    const int nmethods = c.nmethods;
    const cholmod_common::cholmod_method_struct m0 = c.method[0];
    c.nmethods = 1;
    c.method[0].ordering = CHOLMOD_GIVEN;
    cholmod_factor* F = cholmod_analyze_p(&U, perm.data(), nullptr, 0, &c);
    c.nmethods = nmethods;
    c.method[0] = m0;
    if (F && c.status < CHOLMOD_OK) cholmod_free_factor(&F, &c);
    return F;
  }

  // Ordering + supernodal symbolic factorisation of A's pattern, and S's pattern and map.
  void analyse(Mat A) {
    PetscInt m = 0;
    const PetscInt *ia = nullptr, *ja = nullptr;
    PetscBool done = PETSC_FALSE;
    check(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done), "MatGetRowIJ");
    if (!done) throw RuntimeFailure("direct CHOLMOD: the matrix gives no row structure (not SeqAIJ?)");
    n = m;
    // The upper triangle of the (symmetric) rows, read as lower-stored compressed columns:
    // what PETSc's CHOLMOD interface hands over, so the ordering is the one it would get.
    std::vector<int> up(n + 1, 0), uj;
    std::vector<PetscInt> uq;
    uj.reserve(ia[n] / 2 + n);
    uq.reserve(ia[n] / 2 + n);
    for (PetscInt r = 0; r < n; ++r) {
      for (PetscInt q = ia[r]; q < ia[r + 1]; ++q)
        if (ja[q] >= r) {
          uj.push_back(static_cast<int>(ja[q]));
          uq.push_back(blocked ? DirectCholmod::blocked_position(ia, r, q) : q);
        }
      up[r + 1] = static_cast<int>(uj.size());
    }
    check(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done), "MatRestoreRowIJ");
    cholmod_sparse U = lower_csc(n, up, uj, nullptr);
    cholmod_free_factor(&L, &c);
    L = nullptr;
    kept = false;
    if (block_order && c.nmethods == 0 && n % 3 == 0) {
      // Within a time step the last node ordering is kept while its flops stay within
      // keep_slack of those it had when computed: the contact pattern changes a little at
      // every Newton iteration, and only the symbolic phase on the given order is redone.
      // A new step starts with a fresh ordering (new_time_step), so a restart from a
      // checkpoint factors exactly as the uninterrupted run.
      if (!node_perm.empty()) {
        L = analyse_given(U, node_perm);
        if (monitor) std::fprintf(stderr, "weft cholmod: kept ordering at %.3f x its flops when computed\n", c.fl / node_fl);
        if (L && c.fl <= keep_slack * node_fl) {
          ++reuses;
          kept = true;
        } else {
          cholmod_free_factor(&L, &c);
          node_perm.clear();
        }
      }
      std::vector<int> perm;
      if (!L && block_ordering(up, uj, perm)) {
        L = analyse_given(U, perm);
        node_perm.swap(perm);
        node_fl = c.fl;
      }
    }
    if (!L) {
      block_choice = nullptr;
      L = cholmod_analyze(&U, &c);
    }
    if (!L || c.status < CHOLMOD_OK) throw RuntimeFailure("direct CHOLMOD: analysis failed (" + status_text() + ")");
    if (!L->is_super) throw RuntimeFailure("direct CHOLMOD: analysis did not give a supernodal factor");
    // Entry (r, c), c >= r, of A sits at (max, min) of (ip[r], ip[c]) in P A P^T, P = L->Perm
    // (ordering and postorder). Bucketed by row, then by column in row order: rows ascend.
    const int* P = static_cast<const int*>(L->Perm);
    std::vector<int> ip(n);
    for (PetscInt k = 0; k < n; ++k) ip[P[k]] = static_cast<int>(k);
    const size_t nnz = uj.size();
    std::vector<int> ei(nnz), ej(nnz), row_start(n + 1, 0), by_row(nnz);
    for (PetscInt r = 0; r < n; ++r)
      for (int e = up[r]; e < up[r + 1]; ++e) {
        const int a = ip[r], b = ip[uj[e]];
        ei[e] = a > b ? a : b;
        ej[e] = a > b ? b : a;
        ++row_start[ei[e] + 1];
      }
    for (PetscInt i = 0; i < n; ++i) row_start[i + 1] += row_start[i];
    for (size_t e = 0; e < nnz; ++e) by_row[row_start[ei[e]]++] = static_cast<int>(e);
    Sp.assign(n + 1, 0);
    for (size_t e = 0; e < nnz; ++e) ++Sp[ej[e] + 1];
    for (PetscInt j = 0; j < n; ++j) Sp[j + 1] += Sp[j];
    std::vector<int> next(Sp.begin(), Sp.end() - 1);
    Si.resize(nnz);
    src.resize(nnz);
    Sx.assign(nnz, 0.0);
    for (int e : by_row) {
      const int k = next[ej[e]]++;
      Si[k] = ei[e];
      src[k] = uq[e];
    }
    S = lower_csc(n, Sp, Si, Sx.data());
  }
};

DirectCholmod::DirectCholmod() : impl_(std::make_unique<Impl>()) {}
DirectCholmod::~DirectCholmod() = default;
bool DirectCholmod::available() { return true; }
void DirectCholmod::new_time_step() { impl_->node_perm.clear(); }
double DirectCholmod::factor_flops() const { return impl_->L ? impl_->c.fl : 0.0; }
bool DirectCholmod::node_ordering() const { return impl_->block_choice != nullptr; }
long DirectCholmod::kept_orderings() const { return impl_->reuses; }

void DirectCholmod::factor(Mat A, bool blocked) {
  Impl& d = *impl_;
  PetscObjectId id = 0;
  PetscObjectState st = 0;
  check(PetscObjectGetId(reinterpret_cast<PetscObject>(A), &id), "PetscObjectGetId");
  check(MatGetNonzeroState(A, &st), "MatGetNonzeroState");
  if (!d.L || id != d.id || st != d.nz_state || blocked != d.blocked) {
    d.blocked = blocked;
    PetscLogEventBegin(d.ev_analyse, A, 0, 0, 0);
    const double t0 = MPI_Wtime();
    d.analyse(A);
    PetscLogEventEnd(d.ev_analyse, A, 0, 0, 0);
    if (d.monitor)
      std::fprintf(stderr, "weft cholmod analysis: n %ld nnz(A lower) %zu %s%s %.3f s\n", static_cast<long>(d.n),
                   d.src.size(), describe().c_str(), d.kept ? " (kept ordering)" : "", MPI_Wtime() - t0);
    d.id = id;
    d.nz_state = st;
    ++analyses_;
  }
  PetscLogEventBegin(d.ev_numeric, A, 0, 0, 0);
  const PetscScalar* av = nullptr;
  check(MatSeqAIJGetArrayRead(A, &av), "MatSeqAIJGetArrayRead");
  const size_t nnz = d.src.size();
  for (size_t k = 0; k < nnz; ++k) d.Sx[k] = av[d.src[k]];
  check(MatSeqAIJRestoreArrayRead(A, &av), "MatSeqAIJRestoreArrayRead");
  double beta[2] = {0.0, 0.0};
  // The numeric phase of cholmod_factorize, on the permuted lower triangle it would build.
  const int ok = cholmod_super_numeric(&d.S, nullptr, beta, d.L, &d.c);
  PetscLogEventEnd(d.ev_numeric, A, 0, 0, 0);
  ++factorizations_;
  if (d.c.status == CHOLMOD_NOT_POSDEF || (ok && d.L->minor < d.L->n))
    throw RuntimeFailure("direct CHOLMOD: the matrix is not positive definite (failure at column " +
                         std::to_string(d.L->minor) + ")");
  if (!ok || d.c.status < CHOLMOD_OK)
    throw RuntimeFailure("direct CHOLMOD: numeric factorisation failed (" + d.status_text() + ")");
}

void DirectCholmod::solve(Vec b, Vec x) {
  Impl& d = *impl_;
  if (!d.L) throw RuntimeFailure("direct CHOLMOD: solve before factor");
  PetscLogEventBegin(d.ev_solve, b, x, 0, 0);
  const PetscScalar* bv = nullptr;
  check(VecGetArrayRead(b, &bv), "VecGetArrayRead");
  cholmod_dense B{};
  B.nrow = B.d = B.nzmax = static_cast<size_t>(d.n);
  B.ncol = 1;
  B.x = const_cast<PetscScalar*>(bv);
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  const int ok = cholmod_solve2(CHOLMOD_A, d.L, &B, nullptr, &d.X, nullptr, &d.Y, &d.E, &d.c);
  check(VecRestoreArrayRead(b, &bv), "VecRestoreArrayRead");
  if (!ok) throw RuntimeFailure("direct CHOLMOD: solve failed (" + d.status_text() + ")");
  PetscScalar* xv = nullptr;
  check(VecGetArray(x, &xv), "VecGetArray");
  std::memcpy(xv, d.X->x, sizeof(double) * static_cast<size_t>(d.n));
  check(VecRestoreArray(x, &xv), "VecRestoreArray");
  PetscLogEventEnd(d.ev_solve, b, x, 0, 0);
}

std::string DirectCholmod::describe() const {
  const Impl& d = *impl_;
  std::ostringstream os;
  os << "cholmod supernodal, direct";
  if (d.L) {
    static const char* names[] = {"natural", "given", "amd", "metis", "nesdis", "colamd", "postordered"};
    const int o = d.L->ordering;
    if (d.block_choice)
      os << ", " << d.block_choice << " ordering of the 3-DOF node graph";
    else
      os << ", " << (o >= 0 && o <= 6 ? names[o] : "?") << " ordering";
    os << ", nnz(L) " << static_cast<long>(d.c.lnz)
       << ", " << d.c.fl / 1e9 << " Gflop per factorisation, " << d.L->nsuper << " supernodes";
  }
  return os.str();
}

#else  // no CHOLMOD in this build

struct DirectCholmod::Impl {};
DirectCholmod::DirectCholmod() : impl_(std::make_unique<Impl>()) {}
DirectCholmod::~DirectCholmod() = default;
bool DirectCholmod::available() { return false; }
void DirectCholmod::new_time_step() {}
double DirectCholmod::factor_flops() const { return 0.0; }
bool DirectCholmod::node_ordering() const { return false; }
long DirectCholmod::kept_orderings() const { return 0; }
void DirectCholmod::factor(Mat) { throw RuntimeFailure("direct CHOLMOD: not in this build"); }
void DirectCholmod::solve(Vec, Vec) { throw RuntimeFailure("direct CHOLMOD: not in this build"); }
std::string DirectCholmod::describe() const { return "cholmod direct (not in this build)"; }

#endif

}  // namespace weft
