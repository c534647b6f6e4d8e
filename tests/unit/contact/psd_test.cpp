// The fast PSD projections agree with the reference eigen-decomposition (project_to_psd):
// the 2 x 2 closed form on random symmetric matrices, and the translation-free projection
// (with its tridiagonal-QL eigen-solver) on random Hessians of K-point functions that are
// invariant under a common translation, as every contact potential is.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "contact/psd.hpp"

using namespace weft;

TEST(Psd, TwoByTwoClosedFormMatchesEigen) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> w(-1.0, 1.0);
  for (int k = 0; k < 20000; ++k) {
    Mat2 A;
    A << w(rng), w(rng), 0, w(rng);
    A(1, 0) = A(0, 1);
    if (k % 7 == 0) A *= 1e-8;
    if (k % 11 == 0) A(1, 1) = A(0, 1) * A(0, 1) / A(0, 0);  // singular
    const Mat2 got = project_to_psd_2x2(A), want = project_to_psd<2>(A);
    EXPECT_LE((got - want).norm(), 1e-12 * (1.0 + A.norm())) << A;
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Mat2>(got).eigenvalues().minCoeff(), -1e-14 * (1.0 + A.norm()));
  }
}

template <int K>
void check_points(unsigned seed) {
  constexpr int N = 3 * K;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> w(-1.0, 1.0);
  for (int k = 0; k < 2000; ++k) {
    // A = D^T S D with D the (3K - 3) x 3K differences to the first point: A t = 0 for
    // every common translation t; S symmetric indefinite with a wide range of scales.
    Eigen::Matrix<double, N - 3, N> D = Eigen::Matrix<double, N - 3, N>::Zero();
    for (int a = 1; a < K; ++a)
      for (int d = 0; d < 3; ++d) D(3 * (a - 1) + d, 3 * a + d) = 1.0, D(3 * (a - 1) + d, d) = -1.0;
    MatN<N - 3> S = MatN<N - 3>::NullaryExpr([&]() { return w(rng); });
    S = (S + S.transpose()).eval();
    if (k % 5 == 0) S *= 1e6;
    if (k % 3 == 0) S = (S * S.transpose()).eval();  // already PSD
    const MatN<N> A = D.transpose() * S * D;
    const MatN<N> got = project_points_to_psd<K>(A), want = project_to_psd<N>(A);
    EXPECT_LE((got - want).norm(), 1e-11 * A.norm()) << "K " << K << " case " << k;
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<MatN<N>>(got).eigenvalues().minCoeff(), -1e-12 * A.norm());
  }
}

TEST(Psd, TranslationFreeProjectionMatchesEigen) {
  check_points<2>(1);
  check_points<3>(2);
  check_points<4>(3);
}

template <int M>
void check_symmetric(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> w(-1.0, 1.0);
  for (int k = 0; k < 2000; ++k) {
    MatN<M> A = MatN<M>::NullaryExpr([&]() { return w(rng); });
    A = (A + A.transpose()).eval();
    if (k % 5 == 0) A *= 1e6;
    if (k % 3 == 0) A = (A * A.transpose()).eval();  // already PSD: returned as is
    const MatN<M> got = project_symmetric_to_psd<M>(A), want = project_to_psd<M>(A);
    EXPECT_LE((got - want).norm(), 1e-11 * A.norm()) << "M " << M << " case " << k;
    if (k % 3 == 0) {
      EXPECT_EQ(got, A);
    }
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<MatN<M>>(got).eigenvalues().minCoeff(), -1e-12 * A.norm());
  }
  // 1 x 1: the clamp itself.
  EXPECT_EQ(project_symmetric_to_psd<1>(MatN<1>::Constant(-2.0))(0, 0), 0.0);
  EXPECT_EQ(project_symmetric_to_psd<1>(MatN<1>::Constant(3.0))(0, 0), 3.0);
}

TEST(Psd, SymmetricProjectionMatchesEigen) {
  check_symmetric<3>(4);
  check_symmetric<6>(5);
  check_symmetric<9>(6);
}

// The QL stage on its own (psd.hpp, tridiagonal_ql): a tridiagonal matrix given in the
// identity basis, eigenpairs against the matrix itself and Eigen's eigenvalues.
TEST(Psd, TridiagonalQlMatchesEigen) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    double a[4][4] = {}, d[4], e[4];
    Eigen::Matrix4d T = Eigen::Matrix4d::Zero();
    for (int i = 0; i < 4; ++i) {
      a[i][i] = 1.0;
      d[i] = T(i, i) = trial % 3 == 0 && i == 0 ? 0.0 : u(rng);  // (a zero diagonal, as in the edge form)
      e[i] = 0.0;
      if (i < 3) e[i] = T(i, i + 1) = T(i + 1, i) = u(rng);
    }
    ASSERT_TRUE(detail::tridiagonal_ql<4>(a, d, e));
    Eigen::Vector4d got(d[0], d[1], d[2], d[3]);
    std::sort(got.data(), got.data() + 4);
    const Eigen::Vector4d want = Eigen::SelfAdjointEigenSolver<Eigen::Matrix4d>(T).eigenvalues();
    EXPECT_LE((got - want).norm(), 1e-13 * T.norm());
    for (int k = 0; k < 4; ++k) {
      const Eigen::Map<const Eigen::Vector4d> v(a[k]);
      EXPECT_NEAR(v.norm(), 1.0, 1e-14);
      EXPECT_LE((T * v - d[k] * v).norm(), 1e-13 * T.norm());
    }
  }
}

// The closed-form projection of [0 a 0; a b c; 0 c e] (psd.hpp, project_tridiagonal3_to_psd)
// against Eigen's eigenvalue clamp: random entries over several scales, small a or c (nearly
// decoupled blocks), b or e near zero, and near-double eigenvalues.
TEST(Psd, TridiagonalThreeClosedFormMatchesEigen) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int projected = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const double scale = std::pow(10.0, 6.0 * u(rng));
    double a = u(rng), b = u(rng), c = u(rng), e = u(rng);
    switch (trial % 6) {
      case 1: a *= 1e-7; break;
      case 2: c *= 1e-7; break;
      case 3: b *= 1e-9; break;
      case 4: e = std::abs(e) * 1e3; break;  // one large positive eigenvalue, as in the edge form
      case 5: b = e, c *= 1e-6; break;      // near-double
      default: break;
    }
    a *= scale, b *= scale, c *= scale, e *= scale;
    Mat3 T;
    T << 0.0, a, 0.0, a, b, c, 0.0, c, e;
    double P[3][3];
    if (!project_tridiagonal3_to_psd(a, b, c, e, P)) continue;
    ++projected;
    Eigen::SelfAdjointEigenSolver<Mat3> es(T);
    const Mat3 want = es.eigenvectors() * es.eigenvalues().cwiseMax(0.0).asDiagonal() * es.eigenvectors().transpose();
    Mat3 got;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) got(i, j) = P[i][j];
    EXPECT_LE((got - want).norm(), 1e-12 * T.norm()) << trial;
    EXPECT_LE((got - got.transpose()).norm(), 1e-14 * T.norm());
  }
  EXPECT_GE(projected, 3900);
}
