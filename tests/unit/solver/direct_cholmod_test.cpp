// DirectCholmod (solver/direct_cholmod.hpp): on a cloth-like SPD matrix (3x3 blocks on a
// grid, contact-like far couplings, the values not exactly symmetric in the last bit as
// assembled element blocks are not) it solves to rounding, gives the same factor as PETSc's
// CHOLMOD interface (the solution equal bit for bit), analyses again only when the pattern
// changes, and reports a matrix that is not positive definite.
#include <gtest/gtest.h>
#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "solver/direct_cholmod.hpp"

namespace weft {
namespace {

// g x g grid of vertices, 3 DOFs each, every vertex coupled to its 8 neighbours and, when
// far > 0, to vertex v + far (a "contact" across the cloth). Off-diagonal 3x3 blocks
// c * (a fixed pattern), diagonal blocks dominant: SPD when shift > 0. `skew` perturbs the
// upper triangle's entries by a relative 1e-16-ish amount, as rounding does.
Mat grid_matrix(int g, int far, double shift, double seed, bool skew) {
  const PetscInt nv = g * g, n = 3 * nv;
  Mat A;
  MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3 * 11, nullptr, &A);  // 8 neighbours, 2 far, itself
  auto blockval = [&](PetscInt a, PetscInt b, int i, int j) {
    const double s = std::sin(seed + 0.37 * static_cast<double>(a + b) + 1.3 * i + 0.7 * j + 0.11 * (i * j));
    return -0.08 * (1.0 + 0.5 * s);
  };
  std::vector<double> rowsum(n, 0.0);
  auto couple = [&](PetscInt a, PetscInt b) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        // symmetric: entry (3a+i, 3b+j) = entry (3b+j, 3a+i)
        const PetscInt lo = std::min(a, b), hi = std::max(a, b);
        const int li = a < b ? i : j, lj = a < b ? j : i;
        double v = blockval(lo, hi, li, lj);
        if (skew && a < b) v *= 1.0 + 2.2e-16 * ((li + lj) % 2 ? 1.0 : -1.0);
        MatSetValue(A, 3 * a + i, 3 * b + j, v, INSERT_VALUES);
        rowsum[3 * a + i] += std::abs(v);
      }
  };
  for (int y = 0; y < g; ++y)
    for (int x = 0; x < g; ++x) {
      const PetscInt v = y * g + x;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0) continue;
          const int xx = x + dx, yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= g || yy >= g) continue;
          couple(v, yy * g + xx);
        }
      if (far > 0) {
        if (v + far < nv) couple(v, v + far);
        if (v - far >= 0) couple(v, v - far);
      }
    }
  for (PetscInt r = 0; r < n; ++r) {
    const PetscInt v = r / 3, d = r % 3;
    for (int j = 0; j < 3; ++j)
      MatSetValue(A, r, 3 * v + j, j == d ? rowsum[r] + shift : 0.01 * std::cos(seed + v) * (j + d == 1), INSERT_VALUES);
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

// k x k x k lattice of 3-DOF nodes, each coupled to its 26 neighbours (a settled particle
// pile's contact graph), plus `extra` couplings v <-> v + 2 (contacts that appear
// during a step: next-but-one neighbours); diagonally dominant, so SPD.
Mat lattice_matrix(int k, int extra, double seed) {
  const PetscInt nv = k * k * k, n = 3 * nv;
  Mat A;
  MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3 * 29, nullptr, &A);
  std::vector<double> rowsum(n, 0.0);
  auto couple = [&](PetscInt a, PetscInt b) {
    const PetscInt lo = std::min(a, b), hi = std::max(a, b);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const int li = a < b ? i : j, lj = a < b ? j : i;
        const double v = -0.05 * (1.0 + 0.5 * std::sin(seed + 0.37 * static_cast<double>(lo + 2 * hi) + 1.3 * li + 0.7 * lj));
        MatSetValue(A, 3 * a + i, 3 * b + j, v, INSERT_VALUES);
        rowsum[3 * a + i] += std::abs(v);
      }
  };
  auto id = [k](int x, int y, int z) { return static_cast<PetscInt>((z * k + y) * k + x); };
  for (int z = 0; z < k; ++z)
    for (int y = 0; y < k; ++y)
      for (int x = 0; x < k; ++x)
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int xx = x + dx, yy = y + dy, zz = z + dz;
              if ((dx || dy || dz) && xx >= 0 && yy >= 0 && zz >= 0 && xx < k && yy < k && zz < k)
                couple(id(x, y, z), id(xx, yy, zz));
            }
  const PetscInt jump = 2;
  for (PetscInt v = 0; v < extra && v + jump < nv; ++v) {
    couple(v, v + jump);
    couple(v + jump, v);
  }
  for (PetscInt r = 0; r < n; ++r)
    MatSetValue(A, r, r, rowsum[r] + 0.05, INSERT_VALUES);
  for (PetscInt v = 0; v < nv; ++v)  // the diagonal block's off-diagonal entries
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        if (i != j) MatSetValue(A, 3 * v + i, 3 * v + j, 0.001 * (i + j), INSERT_VALUES);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

struct Vecs {
  Vec xt, b, x;
};

Vecs rhs_for(Mat A) {
  Vecs v;
  MatCreateVecs(A, &v.xt, &v.b);
  VecDuplicate(v.xt, &v.x);
  PetscInt n;
  VecGetSize(v.xt, &n);
  for (PetscInt i = 0; i < n; ++i) VecSetValue(v.xt, i, std::sin(0.3 * i) + 2.0, INSERT_VALUES);
  VecAssemblyBegin(v.xt);
  VecAssemblyEnd(v.xt);
  MatMult(A, v.xt, v.b);
  return v;
}

void destroy(Vecs& v) {
  VecDestroy(&v.xt);
  VecDestroy(&v.b);
  VecDestroy(&v.x);
}

double rel_error(const Vecs& v) {
  Vec d;
  VecDuplicate(v.x, &d);
  VecWAXPY(d, -1.0, v.xt, v.x);
  PetscReal e, m;
  VecNorm(d, NORM_INFINITY, &e);
  VecNorm(v.xt, NORM_INFINITY, &m);
  VecDestroy(&d);
  return e / m;
}

// Factor A with ch and solve for a known solution: the relative error.
double factor_and_solve(DirectCholmod& ch, Mat A) {
  Vecs v = rhs_for(A);
  ch.factor(A);
  ch.solve(v.b, v.x);
  const double e = rel_error(v);
  destroy(v);
  return e;
}

// PETSc's own CHOLMOD interface (KSP preonly + PC Cholesky), for comparison.
void petsc_cholmod_solve(Mat A, Vec b, Vec x) {
  KSP ksp;
  PC pc;
  KSPCreate(PETSC_COMM_SELF, &ksp);
  KSPSetOperators(ksp, A, A);
  KSPSetType(ksp, KSPPREONLY);
  KSPGetPC(ksp, &pc);
  PCSetType(pc, PCCHOLESKY);
  PCFactorSetMatSolverType(pc, MATSOLVERCHOLMOD);
  KSPSolve(ksp, b, x);
  KSPDestroy(&ksp);
}

TEST(DirectCholmod, SolvesAndMatchesPetscsCholmodBitForBit) {
  if (!DirectCholmod::available()) GTEST_SKIP() << "no CHOLMOD in this build";
  Mat A = grid_matrix(24, 131, 0.05, 0.4, true);
  Vecs v = rhs_for(A);
  DirectCholmod ch;
  ch.factor(A);
  ch.solve(v.b, v.x);
  EXPECT_LT(rel_error(v), 1e-10);
  Vec y;
  VecDuplicate(v.x, &y);
  petsc_cholmod_solve(A, v.b, y);
  const PetscScalar *a, *c;
  PetscInt n;
  VecGetLocalSize(y, &n);
  VecGetArrayRead(v.x, &a);
  VecGetArrayRead(y, &c);
  long differ = 0;
  for (PetscInt i = 0; i < n; ++i) differ += a[i] != c[i];
  VecRestoreArrayRead(v.x, &a);
  VecRestoreArrayRead(y, &c);
  EXPECT_EQ(differ, 0) << "of " << n << " solution entries differ from PETSc's CHOLMOD interface";
  EXPECT_NE(ch.describe().find("cholmod"), std::string::npos);
  VecDestroy(&y);
  destroy(v);
  MatDestroy(&A);
}

TEST(DirectCholmod, AnalysesOnlyWhenThePatternChanges) {
  if (!DirectCholmod::available()) GTEST_SKIP() << "no CHOLMOD in this build";
  DirectCholmod ch;
  Mat A = grid_matrix(12, 0, 0.05, 0.1, false);
  ch.factor(A);
  EXPECT_EQ(ch.analyses(), 1);
  // New values, same pattern: the analysis is kept, the solution is still exact.
  Mat B = grid_matrix(12, 0, 0.2, 0.9, false);
  MatCopy(B, A, SAME_NONZERO_PATTERN);
  Vecs v = rhs_for(A);
  ch.factor(A);
  ch.solve(v.b, v.x);
  EXPECT_EQ(ch.analyses(), 1);
  EXPECT_EQ(ch.factorizations(), 2);
  EXPECT_LT(rel_error(v), 1e-10);
  destroy(v);
  // A grown pattern (contact couplings: another matrix) is analysed afresh.
  Mat C = grid_matrix(12, 37, 0.05, 0.3, false);
  EXPECT_LT(factor_and_solve(ch, C), 1e-10);
  EXPECT_EQ(ch.analyses(), 2);
  MatDestroy(&A);
  MatDestroy(&B);
  MatDestroy(&C);
}

// A 3-D contact graph (AMD fills badly): the ordering is computed on the node graph, fills
// no more than CHOLMOD's scalar choice, and solves exactly; a cloth grid (AMD fills well)
// keeps the scalar analysis (the bit-for-bit test above).
TEST(DirectCholmod, NodeGraphOrderingOnA3dContactGraph) {
  if (!DirectCholmod::available()) GTEST_SKIP() << "no CHOLMOD in this build";
  Mat A = lattice_matrix(18, 0, 0.3);
  DirectCholmod ch;
  EXPECT_LT(factor_and_solve(ch, A), 1e-10);
  EXPECT_TRUE(ch.node_ordering()) << ch.describe();
  PetscOptionsSetValue(nullptr, "-weft_cholmod_block_order", "0");
  DirectCholmod scalar;
  PetscOptionsClearValue(nullptr, "-weft_cholmod_block_order");
  scalar.factor(A);
  EXPECT_FALSE(scalar.node_ordering()) << scalar.describe();
  EXPECT_LE(ch.factor_flops(), 1.05 * scalar.factor_flops()) << ch.describe() << " against " << scalar.describe();
  Mat G = grid_matrix(24, 131, 0.05, 0.4, true);
  DirectCholmod cloth;
  cloth.factor(G);
  EXPECT_FALSE(cloth.node_ordering()) << cloth.describe();
  MatDestroy(&A);
  MatDestroy(&G);
}

// Within a time step a changed pattern keeps the node ordering (symbolic analysis only);
// after new_time_step the next analysis orders afresh, as a restart would.
TEST(DirectCholmod, NodeOrderingKeptWithinAStep) {
  if (!DirectCholmod::available()) GTEST_SKIP() << "no CHOLMOD in this build";
  DirectCholmod ch;
  Mat A = lattice_matrix(18, 0, 0.3);
  ch.factor(A);
  ASSERT_TRUE(ch.node_ordering());
  EXPECT_EQ(ch.kept_orderings(), 0);
  Mat B = lattice_matrix(18, 4, 0.5);  // a few new couplings
  EXPECT_LT(factor_and_solve(ch, B), 1e-10);
  EXPECT_EQ(ch.analyses(), 2);
  EXPECT_EQ(ch.kept_orderings(), 1);
  ch.new_time_step();
  ch.factor(A);
  EXPECT_EQ(ch.analyses(), 3);
  EXPECT_EQ(ch.kept_orderings(), 1);
  EXPECT_TRUE(ch.node_ordering());
  MatDestroy(&A);
  MatDestroy(&B);
}

TEST(DirectCholmod, NotPositiveDefiniteIsReported) {
  if (!DirectCholmod::available()) GTEST_SKIP() << "no CHOLMOD in this build";
  Mat A = grid_matrix(6, 0, 0.05, 0.2, false);
  MatSetValue(A, 40, 40, -5.0, INSERT_VALUES);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  DirectCholmod ch;
  try {
    ch.factor(A);
    ADD_FAILURE() << "an indefinite matrix was factored";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
  MatDestroy(&A);
}

}  // namespace
}  // namespace weft
