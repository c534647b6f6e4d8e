#include "energy/psd.hpp"
#include "fd_util.hpp"

namespace weft {
namespace {

TEST(Psd, SymEig2) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int t = 0; t < 80; ++t) {
    // b == 0, a == c, and off-diagonals tiny against a - c of either sign (the half-angle
    // formulas' two branches near cos 2phi = +-1).
    const double a = u(rng), c = t % 7 == 0 ? a : u(rng);
    const double b = t % 5 == 0 ? 0.0 : t % 5 == 1 ? 1e-9 * u(rng) : t % 5 == 2 ? -0.0 : u(rng);
    const SymEig2 e = sym_eig2(a, b, c);
    Mat2 A;
    A << a, b, b, c;
    EXPECT_GE(e.values(0), e.values(1));
    EXPECT_NEAR(e.vecs.determinant(), 1.0, 1e-14);
    EXPECT_LE((e.vecs * e.values.asDiagonal() * e.vecs.transpose() - A).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LE((e.vecs.transpose() * e.vecs - Mat2::Identity()).cwiseAbs().maxCoeff(), 4e-16);
    EXPECT_GE(e.vecs(0, 0), 0.0);  // cos phi, phi in (-pi/2, pi/2]
    // The same rotation as the half-angle of atan2 (the closed form it replaces).
    const double phi = 0.5 * std::atan2(b, 0.5 * (a - c));
    if (b != 0.0 || a != c) {
      EXPECT_NEAR(e.vecs(0, 0), std::cos(phi), 1e-15);
      EXPECT_NEAR(e.vecs(1, 0), std::sin(phi), 1e-15);
    }
  }
  const SymEig2 e = sym_eig2(3.0, 0.0, 3.0);  // repeated eigenvalue: any basis, here I
  EXPECT_EQ(e.vecs, Mat2::Identity());
}

TEST(Psd, ClampsOnlyNegativeEigenvalues) {
  std::mt19937 rng(42);
  for (int t = 0; t < 20; ++t) {
    MatN<6> A = MatN<6>::Random();
    A = (A + A.transpose()).eval();
    const MatN<6> A0 = A;
    Eigen::SelfAdjointEigenSolver<MatN<6>> es(A0);
    const bool changed = project_psd<6>(A);
    EXPECT_EQ(changed, es.eigenvalues()(0) < 0.0);
    const MatN<6> ref = es.eigenvectors() * es.eigenvalues().cwiseMax(0.0).asDiagonal() *
                        es.eigenvectors().transpose();
    EXPECT_LE((A - ref).cwiseAbs().maxCoeff(), 1e-12 * A0.cwiseAbs().maxCoeff());
    Mat2 B = A0.topLeftCorner<2, 2>();
    Eigen::SelfAdjointEigenSolver<Mat2> es2(B);
    const Mat2 ref2 = es2.eigenvectors() * es2.eigenvalues().cwiseMax(0.0).asDiagonal() *
                      es2.eigenvectors().transpose();
    project_psd2(B);
    EXPECT_LE((B - ref2).cwiseAbs().maxCoeff(), 1e-13);
  }
  MatN<6> P = MatN<6>::Identity();
  EXPECT_FALSE(project_psd<6>(P));
  EXPECT_EQ(P, (MatN<6>::Identity()));
}

}  // namespace
}  // namespace weft
