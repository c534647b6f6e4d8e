// The vertex -> node seam (solver/node_map.hpp): a stencil's vertex gradient and Hessian
// pulled back to nodes through a hand-made linear map equal J^T g and J^T H J computed
// densely; and GAMG's near null space over the deformable rows only.
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscmat.h>

#include <Eigen/Dense>

#include "solver/linear_system.hpp"
#include "solver/node_map.hpp"

namespace weft {
namespace {

// 4 local vertices over 3 local nodes: vertex 0 is node 0; vertex 1 mixes nodes 0 and 1;
// vertex 2 is a rotation-like map of node 2; vertex 3 mixes nodes 1 and 2.
NodeMap hand_made_map(Eigen::MatrixXd& J) {
  auto m = [](double a, double b, double c, double d, double e, double f, double g, double h, double i) {
    Mat3 M;
    M << a, b, c, d, e, f, g, h, i;
    return M;
  };
  std::vector<int> ptr = {0, 1, 3, 4, 6}, node = {0, 0, 1, 2, 1, 2};
  std::vector<Mat3> blocks = {Mat3::Identity(),
                              m(0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5),
                              m(0.5, 0.1, 0, -0.1, 0.5, 0, 0, 0, 0.5),
                              m(0, -1, 0, 1, 0, 0, 0, 0, 1),
                              m(1, 2, 0, 0, 1, 3, -1, 0, 1),
                              m(0.2, 0, 0.3, 0, -0.7, 0, 0.1, 0, 0.9)};
  J = Eigen::MatrixXd::Zero(12, 9);
  for (int v = 0; v < 4; ++v)
    for (int k = ptr[v]; k < ptr[v + 1]; ++k) J.block<3, 3>(3 * v, 3 * node[k]) += blocks[k];
  return NodeMap(3, ptr, node, blocks);
}

TEST(NodeMap, IdentityByDefault) {
  const NodeMap id;
  EXPECT_TRUE(id.identity());
  const int v[2] = {5, 2};
  const double g[6] = {1, 2, 3, 4, 5, 6};
  int nodes[2];
  double gn[6];
  ASSERT_EQ(id.pull_back(2, v, g, nullptr, nodes, gn, nullptr), 2);
  EXPECT_EQ(nodes[0], 5);
  EXPECT_EQ(nodes[1], 2);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(gn[i], g[i]);
}

TEST(NodeMap, StencilPullBackIsJTgAndJTHJ) {
  Eigen::MatrixXd J;
  const NodeMap map = hand_made_map(J);
  ASSERT_FALSE(map.identity());
  // A stencil over vertices 3, 1, 2 (it reaches nodes 1, 2, 0 in order of appearance).
  const int verts[3] = {3, 1, 2};
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(9, 12);  // stencil dofs <- all vertex dofs
  for (int a = 0; a < 3; ++a) S.block<3, 3>(3 * a, 3 * verts[a]).setIdentity();
  Eigen::VectorXd ge(9);
  Eigen::MatrixXd A(9, 9);
  for (int i = 0; i < 9; ++i) {
    ge[i] = 0.3 * i - 1.1;
    for (int j = 0; j < 9; ++j) A(i, j) = std::sin(1.0 + i + 2.0 * j);
  }
  const Eigen::MatrixXd He = A * A.transpose();  // symmetric
  int nodes[NodeMap::kMaxStencilNodes];
  double gn[3 * NodeMap::kMaxStencilNodes], Hn[9 * NodeMap::kMaxStencilNodes * NodeMap::kMaxStencilNodes];
  Eigen::Matrix<double, 9, 9, Eigen::RowMajor> Hrow = He;
  const int nn = map.pull_back(3, verts, ge.data(), Hrow.data(), nodes, gn, Hn);
  ASSERT_EQ(nn, 3);
  EXPECT_EQ(nodes[0], 1);
  EXPECT_EQ(nodes[1], 2);
  EXPECT_EQ(nodes[2], 0);
  // Dense reference over all nodes, then picked in the stencil's node order.
  const Eigen::MatrixXd Js = S * J;  // stencil dofs <- node dofs
  const Eigen::VectorXd g_ref = Js.transpose() * ge;
  const Eigen::MatrixXd H_ref = Js.transpose() * He * Js;
  for (int a = 0; a < nn; ++a)
    for (int d = 0; d < 3; ++d) {
      EXPECT_NEAR(gn[3 * a + d], g_ref[3 * nodes[a] + d], 1e-12);
      for (int b = 0; b < nn; ++b)
        for (int e = 0; e < 3; ++e)
          EXPECT_NEAR(Hn[(3 * a + d) * 3 * nn + 3 * b + e], H_ref(3 * nodes[a] + d, 3 * nodes[b] + e),
                      1e-10 * (1 + std::abs(H_ref(3 * nodes[a] + d, 3 * nodes[b] + e))));
    }
  // The energy view: for E(y) = 1/2 x^T He x + ge^T x with x = S J y, the node gradient at
  // y = 0 is J^T S^T ge, which a finite difference of E along each node dof confirms.
  auto E = [&](const Eigen::VectorXd& y) {
    const Eigen::VectorXd x = Js * y;
    return 0.5 * x.dot(He * x) + ge.dot(x);
  };
  for (int i = 0; i < 9; ++i) {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(9);
    const double h = 1e-6;
    y[i] = h;
    const double fd = (E(y) - E(-y)) / (2 * h);
    EXPECT_NEAR(fd, g_ref[i], 1e-6);
  }
}

TEST(NodeMap, WholeGradientPullBack) {
  Eigen::MatrixXd J;
  const NodeMap map = hand_made_map(J);
  Eigen::VectorXd gv(12);
  for (int i = 0; i < 12; ++i) gv[i] = std::cos(0.7 * i);
  Eigen::VectorXd gn = Eigen::VectorXd::Constant(9, 1.0);  // added into
  map.pull_back_gradient(gv.data(), gn.data());
  const Eigen::VectorXd ref = J.transpose() * gv + Eigen::VectorXd::Constant(9, 1.0);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(gn[i], ref[i], 1e-13);
}

TEST(NodeMap, RejectsInconsistentMaps) {
  EXPECT_THROW(NodeMap(1, {0, 2}, {0}, {Mat3::Identity()}), std::invalid_argument);
}

// Near null space: orthonormal, zero on rows that are not deformable nodes, and each mode a
// rigid motion of the deformable rows (translations, and rotations about the origin up to
// the translations Gram-Schmidt removed).
TEST(RigidBodyModes, DeformableRowsOnly) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_SELF, &rank);
  const std::vector<double> coords = {0, 0, 0, 1, 0, 0, 0, 2, 0, 5, 5, 5, 0, 0, 1};
  const std::vector<char> deformable = {1, 1, 1, 0, 1};
  MatNullSpace ns = rigid_body_modes(MPI_COMM_SELF, coords, deformable);
  ASSERT_NE(ns, nullptr);
  PetscBool has_const = PETSC_TRUE;
  PetscInt n = 0;
  const Vec* vecs = nullptr;
  ASSERT_EQ(MatNullSpaceGetVecs(ns, &has_const, &n, &vecs), 0);
  ASSERT_EQ(n, 6);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      PetscScalar d = 0;
      VecDot(vecs[i], vecs[j], &d);
      EXPECT_NEAR(d, i == j ? 1.0 : 0.0, 1e-12) << i << " " << j;
    }
    const PetscScalar* a;
    VecGetArrayRead(vecs[i], &a);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(a[3 * 3 + d], 0.0) << "mode " << i << " on the kinematic row";
    // A rigid motion u(X) = t + w x X: fit t, w from rows 0 (X = 0) and check the others.
    const Vec3 t(a[0], a[1], a[2]);
    for (int r : {1, 2, 4}) {
      const Vec3 X(coords[3 * r], coords[3 * r + 1], coords[3 * r + 2]);
      const Vec3 u(a[3 * r], a[3 * r + 1], a[3 * r + 2]);
      EXPECT_NEAR((u - t).dot(X), 0.0, 1e-12) << "mode " << i << " row " << r;  // w x X is orthogonal to X
    }
    VecRestoreArrayRead(vecs[i], &a);
  }
  MatNullSpaceDestroy(&ns);
  EXPECT_EQ(rigid_body_modes(MPI_COMM_SELF, coords, std::vector<char>(5, 0)), nullptr);
}

}  // namespace
}  // namespace weft
