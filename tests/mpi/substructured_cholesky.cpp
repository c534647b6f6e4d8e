// SubstructuredCholesky at 1, 2 and 3 ranks: exact solves of coupled SPD systems (one
// sequential MUMPS factorisation per rank + the dense interface Schur complement), against
// a known solution and against the 1-rank answer; a rank without interior rows; negative
// pivots still solved exactly; a singular matrix failing on every rank with a message;
// LinearSystem uses it for a direct Cholesky of one cloth cut over ranks, also when no
// solver is given, and MUMPS's distributed factorisation (CG + GAMG by default) with
// -weft_substructure 0 or when the interface exceeds -weft_interface_max.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"
#include "parallel/local_view.hpp"
#include "solver/linear_system.hpp"
#include "solver/substructured_cholesky.hpp"

namespace {

// The 1-D chain with stiffness k and diagonal shift m, each scalar row also coupled to the
// row `far` places ahead (a "contact" across the chain): SPD when m > 0.
Mat chain_matrix(MPI_Comm comm, PetscInt local_rows, double m, double k, PetscInt far) {
  Mat A;
  MatCreateAIJ(comm, local_rows, local_rows, PETSC_DETERMINE, PETSC_DETERMINE, 5, nullptr, 5, nullptr, &A);
  PetscInt lo, hi, N;
  MatGetOwnershipRange(A, &lo, &hi);
  MatGetSize(A, &N, nullptr);
  for (PetscInt i = lo; i < hi; ++i) {
    double diag = m;
    auto couple = [&](PetscInt j, double kij) {
      if (j < 0 || j >= N) return;
      MatSetValue(A, i, j, -kij, INSERT_VALUES);
      diag += kij;
    };
    couple(i - 1, k);
    couple(i + 1, k);
    couple(i - far, 0.5 * k);
    couple(i + far, 0.5 * k);
    MatSetValue(A, i, i, diag, INSERT_VALUES);
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

// max |x - x_true| / max |x_true| for x_true_i = sin(i) + 2 after solving A x = A x_true.
double solve_error(weft::SubstructuredCholesky& sc, Mat A) {
  Vec xt, b, x;
  MatCreateVecs(A, &xt, &b);
  VecDuplicate(xt, &x);
  PetscInt lo, hi;
  VecGetOwnershipRange(xt, &lo, &hi);
  for (PetscInt i = lo; i < hi; ++i) VecSetValue(xt, i, std::sin(static_cast<double>(i)) + 2.0, INSERT_VALUES);
  VecAssemblyBegin(xt);
  VecAssemblyEnd(xt);
  MatMult(A, xt, b);
  sc.solve(b, x);
  VecAXPY(x, -1.0, xt);
  double e, n;
  VecNorm(x, NORM_INFINITY, &e);
  VecNorm(xt, NORM_INFINITY, &n);
  VecDestroy(&xt);
  VecDestroy(&b);
  VecDestroy(&x);
  return e / n;
}

}  // namespace

TEST(SubstructuredCholesky, SolvesACoupledChainExactly) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // 300 rows per rank, each row also coupled 7 rows away: the interface is the 8 rows on
  // either side of each cut (|B| = 2 * 8 * (ranks - 1) ... measured below, not assumed).
  Mat A = chain_matrix(MPI_COMM_WORLD, 300, 0.01, 1.0, 7);
  const long nb = weft::SubstructuredCholesky::interface_size(A, MPI_COMM_WORLD);
  EXPECT_EQ(nb, ranks == 1 ? 0 : 2L * 7 * (ranks - 1));  // rows within 7 of a cut, both sides
  weft::SubstructuredCholesky sc(MPI_COMM_WORLD);
  sc.factor(A, 1);
  EXPECT_EQ(sc.interface_dofs(), nb);
  EXPECT_LT(solve_error(sc, A), 1e-9);
  // New values, same pattern (no re-analysis): still exact.
  MatScale(A, 3.0);
  MatShift(A, 0.5);
  sc.factor(A, 1);
  EXPECT_LT(solve_error(sc, A), 1e-9);
  MatDestroy(&A);
}

TEST(SubstructuredCholesky, RanksWithoutInteriorRows) {
  // Rank 1 owns 3 rows, every one of them coupled to another rank: no local factorisation
  // there, its Schur block is its own diagonal block.
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Mat A = chain_matrix(MPI_COMM_WORLD, rank == 1 ? 3 : 200, 1.0, 10.0, 5);
  weft::SubstructuredCholesky sc(MPI_COMM_WORLD);
  sc.factor(A, 7);
  EXPECT_LT(solve_error(sc, A), 1e-10);
  MatDestroy(&A);
}

TEST(SubstructuredCholesky, IndefiniteMatrixIsStillSolvedExactly) {
  // Negative pivots, as rounding can leave in barrier-dominated Hessians: one deep inside the
  // last rank's rows (its local LDL^T goes through it, as MUMPS does on one rank) and, on
  // several ranks, one on an interface row, so the interface complement is indefinite and
  // is factored by Bunch-Kaufman LDL^T instead of Cholesky. The solves stay exact.
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Mat A = chain_matrix(MPI_COMM_WORLD, 100, 0.01, 1.0, 3);
  PetscInt lo, hi, N;
  MatGetOwnershipRange(A, &lo, &hi);
  MatGetSize(A, &N, nullptr);
  if (rank == ranks - 1) {
    MatSetValue(A, N - 50, N - 50, -100.0, INSERT_VALUES);
    if (ranks > 1) MatSetValue(A, lo, lo, -100.0, INSERT_VALUES);  // coupled to rank - 1
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  weft::SubstructuredCholesky sc(MPI_COMM_WORLD);
  sc.factor(A, 1);
  EXPECT_EQ(sc.ldlt_factorizations(), ranks > 1 ? 1 : 0);
  if (rank == ranks - 1) {
    EXPECT_GE(sc.negative_pivots(), 1);
  }
  EXPECT_LT(solve_error(sc, A), 1e-8);
  MatDestroy(&A);
}

TEST(SubstructuredCholesky, SingularMatrixFailsOnEveryRank) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Mat A = chain_matrix(MPI_COMM_WORLD, 100, 0.01, 1.0, 3);
  // Row and column N - 50 (inside the last rank's rows) emptied: a null pivot that only
  // that rank's factorisation sees, yet every rank must throw (and none may wait in a
  // collective).
  PetscInt lo, hi, N;
  MatGetOwnershipRange(A, &lo, &hi);
  MatGetSize(A, &N, nullptr);
  if (rank == ranks - 1) {
    for (PetscInt j = N - 53; j <= N - 47; ++j) {
      MatSetValue(A, N - 50, j, 0.0, INSERT_VALUES);
      MatSetValue(A, j, N - 50, 0.0, INSERT_VALUES);
    }
  }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  weft::SubstructuredCholesky sc(MPI_COMM_WORLD);
  try {
    sc.factor(A, 1);
    ADD_FAILURE() << "a singular matrix was factored";
  } catch (const weft::RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
  }
  MatDestroy(&A);
}

namespace {

// Mass + triangle-Laplacian stiffness over a cloth's element pattern (as in
// linear_system_reuse.cpp), stiffnesses scattered over three decades.
void assemble(weft::LinearSystem& sys, const weft::Scene& scene, const weft::LocalView& lv) {
  sys.begin_assembly();
  for (int v = lv.vbegin; v < lv.vend; ++v) {
    if (scene.kinematic(v)) continue;
    double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    sys.add_block(1, &v, M);
  }
  for (int t : lv.triangles) {
    int ids[3];
    for (int a = 0; a < 3; ++a) ids[a] = scene.kinematic(scene.triangles[t][a]) ? -1 : scene.triangles[t][a];
    const double kt = 1.0e3 * (1.0 + 1.0e3 * std::fmod(0.6180339887 * t, 1.0));
    double K[81] = {};
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int d = 0; d < 3; ++d) K[(3 * a + d) * 9 + 3 * b + d] = kt * (a == b ? 2.0 : -1.0);
    sys.add_block(3, ids, K);
  }
  sys.end_assembly();
}

// ||x||_2 and the relative residual of A x = 1.
std::pair<double, double> solve_ones(weft::LinearSystem& sys, MPI_Comm comm, int n_owned) {
  Vec b, x, r;
  VecCreateMPI(comm, 3 * n_owned, PETSC_DETERMINE, &b);
  VecDuplicate(b, &x);
  VecDuplicate(b, &r);
  VecSet(b, 1.0);
  sys.solve(b, x);
  MatMult(sys.matrix(), x, r);
  VecAXPY(r, -1.0, b);
  double rn, bn, xn;
  VecNorm(r, NORM_2, &rn);
  VecNorm(b, NORM_2, &bn);
  VecNorm(x, NORM_2, &xn);
  VecDestroy(&b);
  VecDestroy(&x);
  VecDestroy(&r);
  return {xn, rn / bn};
}

}  // namespace

TEST(SubstructuredCholesky, LinearSystemUsesItForOneClothOverRanks) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const weft::CaseSpec spec =
      weft::load_case(std::string(WEFT_TEST_DIR) + "/../cases/hang_two_corners.yaml",
                      {"objects.0.mesh.resolution=[64, 64]", "solver.linear.pc=cholesky", "contact.enabled=false"});
  const weft::Scene scene = weft::build_scene(spec, ranks);
  const weft::LocalView lv = weft::make_local_view(scene, MPI_COMM_WORLD);
  PetscOptionsSetValue(nullptr, "-weft_substructure", "0");
  {
    weft::LinearSystem plain(scene, lv, spec.linear);  // MUMPS distributed
    EXPECT_FALSE(plain.substructured_solve()) << plain.describe();
  }
  PetscOptionsSetValue(nullptr, "-weft_substructure", "1");  // forced: no |B| / sqrt(N) test
  weft::LinearSystem sys(scene, lv, spec.linear);
  sys.new_time_step();
  EXPECT_EQ(sys.substructured_solve(), ranks > 1) << sys.describe();
  EXPECT_EQ(sys.interface_dofs() > 0, ranks > 1);
  assemble(sys, scene, lv);
  const auto [norm, residual] = solve_ones(sys, lv.comm, lv.num_owned());
  EXPECT_LT(residual, 1e-10);

  // A contact coupling between two far-apart vertices on different ranks joins the
  // interface (new pattern, re-analysed): still exact, the same answer (its block is zero).
  int a = -1, b = -1;
  for (int v = 0; v < scene.num_vertices; ++v) {
    if (scene.kinematic(v)) continue;
    if (a < 0) a = v;
    if (scene.owner_of(v) != scene.owner_of(a) || ranks == 1) b = v;
  }
  ASSERT_TRUE(sys.set_contact_couplings({{a, b}, {b, a}}));
  const long before = sys.interface_dofs();
  EXPECT_EQ(sys.substructured_solve(), ranks > 1);
  assemble(sys, scene, lv);
  const auto [norm2, residual2] = solve_ones(sys, lv.comm, lv.num_owned());
  EXPECT_LT(residual2, 1e-10);
  EXPECT_NEAR(norm2, norm, 1e-10 * norm);
  EXPECT_GE(sys.interface_dofs(), before);

  if (rank == 0) {  // the 1-rank answer
    const weft::Scene scene1 = weft::build_scene(spec, 1);
    const weft::LocalView lv1 = weft::make_local_view(scene1, MPI_COMM_SELF);
    weft::LinearSystem sys1(scene1, lv1, spec.linear);
    sys1.new_time_step();
    assemble(sys1, scene1, lv1);
    EXPECT_NEAR(solve_ones(sys1, lv1.comm, lv1.num_owned()).first, norm, 1e-10 * norm);
  }

  // With the interface bound below this cloth's interface: MUMPS's distributed factorisation.
  PetscOptionsSetValue(nullptr, "-weft_interface_max", "1");
  {
    weft::LinearSystem sys2(scene, lv, spec.linear);
    sys2.new_time_step();
    EXPECT_FALSE(sys2.substructured_solve()) << sys2.describe();
    assemble(sys2, scene, lv);
    const auto [norm3, residual3] = solve_ones(sys2, lv.comm, lv.num_owned());
    EXPECT_LT(residual3, 1e-10);
    EXPECT_NEAR(norm3, norm, 1e-10 * norm);
  }
  PetscOptionsClearValue(nullptr, "-weft_interface_max");
  PetscOptionsClearValue(nullptr, "-weft_substructure");
}

TEST(SubstructuredCholesky, DefaultSolverOnSeveralRanks) {
  // No solver in the case: a sparse Cholesky on one rank, the substructured one on several
  // while the interface is small (|B| <= 8 sqrt(dynamic DOFs): true for this cloth cut in
  // two), CG + GAMG when it is not (-weft_interface_max, or the ratio at 3 ranks).
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const weft::CaseSpec spec = weft::load_case(std::string(WEFT_TEST_DIR) + "/../cases/hang_two_corners.yaml",
                                              {"objects.0.mesh.resolution=[24, 24]", "contact.enabled=false"});
  ASSERT_TRUE(spec.linear.ksp.empty() && spec.linear.pc.empty());
  const weft::Scene scene = weft::build_scene(spec, ranks);
  const weft::LocalView lv = weft::make_local_view(scene, MPI_COMM_WORLD);
  int dynamic = 0;
  for (int v = 0; v < scene.num_vertices; ++v) dynamic += !scene.kinematic(v);
  {
    weft::LinearSystem sys(scene, lv, spec.linear);
    sys.new_time_step();
    const bool small = sys.interface_dofs() <= 8.0 * std::sqrt(3.0 * dynamic);
    if (ranks == 2) {
      EXPECT_TRUE(small) << sys.interface_dofs();
    }
    EXPECT_EQ(sys.substructured_solve(), ranks > 1 && small) << sys.describe();
    EXPECT_NE(sys.describe().find(ranks == 1 ? "cholesky" : small ? "substructured" : "gamg"), std::string::npos)
        << sys.describe();
    assemble(sys, scene, lv);
    const double residual = solve_ones(sys, lv.comm, lv.num_owned()).second;  // collective
    if (ranks == 1 || small) {
      EXPECT_LT(residual, 1e-10);  // a direct solve
    }
  }
  PetscOptionsSetValue(nullptr, "-weft_interface_max", "1");
  {
    weft::LinearSystem sys(scene, lv, spec.linear);
    sys.new_time_step();
    EXPECT_FALSE(sys.substructured_solve());
    EXPECT_NE(sys.describe().find(ranks > 1 ? "gamg" : "cholesky"), std::string::npos) << sys.describe();
  }
  PetscOptionsClearValue(nullptr, "-weft_interface_max");
}
