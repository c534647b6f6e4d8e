// Tet volume kernels (fixed-corotated, neo-Hookean): derivatives against central
// differences, closed-form projection, rest/rigid invariance, exact hand-made values.
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "energy/isotropic3.hpp"
#include "energy/psd.hpp"
#include "energy/tet_rest.hpp"
#include "energy/volume_fixed_corotated.hpp"
#include "energy/volume_neo_hookean.hpp"
#include "fd_util.hpp"

namespace weft {
namespace {

using Kernel = double (*)(const Vec12&, const TetRest&, const VolumeParams&, Vec12*, Mat12*, bool);
const VolumeParams kVol{3.0e4, 7.0e4};

struct Named {
  const char* name;
  Kernel k;
};
const Named kKernels[] = {{"fixed_corotated", volume_fixed_corotated}, {"neo_hookean", volume_neo_hookean}};

// A well-shaped random positive rest tet.
Vec12 random_rest_tet(std::mt19937& rng) {
  for (;;) {
    Vec12 X;
    X << test::random_vec(rng), test::random_vec(rng), test::random_vec(rng), test::random_vec(rng);
    const double v = tet_signed_volume(X.segment<3>(0), X.segment<3>(3), X.segment<3>(6), X.segment<3>(9));
    double l = 0;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) l = std::max(l, (X.segment<3>(3 * a) - X.segment<3>(3 * b)).norm());
    if (std::abs(v) > 0.05 * l * l * l) {
      if (v < 0) std::swap_ranges(X.data() + 3, X.data() + 6, X.data() + 6);  // swap x1, x2
      return X;
    }
  }
}

TetRest rest_of(const Vec12& X) {
  return make_tet_rest(X.segment<3>(0), X.segment<3>(3), X.segment<3>(6), X.segment<3>(9));
}

// Positions whose deformation gradient is exactly F (x0 given).
Vec12 positions_from_F(const Mat3& F, const Vec12& X, const Vec3& x0) {
  Vec12 x;
  for (int a = 0; a < 4; ++a) x.segment<3>(3 * a) = x0 + F * (X.segment<3>(3 * a) - X.segment<3>(0));
  return x;
}

// F = R1 diag(s) R2^T with random rotations.
Mat3 F_with_singular_values(const Vec3& s, std::mt19937& rng) {
  return test::random_rotation(rng) * s.asDiagonal() * test::random_rotation(rng).transpose();
}

void check_fd12(Kernel k, const TetRest& r, const Vec12& x, double h, double rtol) {
  // Absolute gradient floor for stationary points (rest): FD noise ~ eps |E| / h there.
  const double g_floor = 1e-3 * kVol.mu * std::cbrt(r.volume * r.volume);
  test::check_fd<12>([&](const Vec12& y, Vec12* g, Mat12* H) { return k(y, r, kVol, g, H, false); }, x, h, rtol,
                     g_floor);
}

TEST(TetRest, VolumeOrientationAndDegenerate) {
  const Vec3 o(0, 0, 0), ex(1, 0, 0), ey(0, 1, 0), ez(0, 0, 1);
  EXPECT_DOUBLE_EQ(tet_signed_volume(o, ex, ey, ez), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(tet_signed_volume(o, ey, ex, ez), -1.0 / 6.0);
  const TetRest r = make_tet_rest(o, 2 * ex, ey, ez);
  EXPECT_DOUBLE_EQ(r.volume, 1.0 / 3.0);
  EXPECT_THROW(make_tet_rest(o, ey, ex, ez), InputError);                         // inverted
  EXPECT_THROW(make_tet_rest(o, ex, ey, Vec3(0.3, 0.3, 1e-14)), InputError);    // flat
  EXPECT_THROW(make_tet_rest(o, ex, ey, Vec3(0, 0, std::nan(""))), InputError);  // not finite
  Vec12 x;
  x << o, 2 * ex, ey, ez;
  EXPECT_NEAR((deformation_gradient(x, r) - Mat3::Identity()).norm(), 0.0, 1e-15);
  x.segment<3>(9) = Vec3(0, 0, -0.5);  // x3 through the base: inverted, J = -1/2
  EXPECT_NEAR(tet_jacobian(x, r), -0.5, 1e-15);
}

TEST(Svd3, RotationVariantSignedSingularValues) {
  std::mt19937 rng(3);
  for (const Vec3& s : {Vec3(2, 1, 0.5), Vec3(1.5, 1, -0.3), Vec3(1, 1, 1), Vec3(1.2, 1.2, 1e-9)}) {
    const Mat3 F = F_with_singular_values(s, rng);
    const Svd3 d = svd3(F);
    EXPECT_NEAR(d.U.determinant(), 1.0, 1e-12);
    EXPECT_NEAR(d.V.determinant(), 1.0, 1e-12);
    EXPECT_NEAR((d.U * d.s.asDiagonal() * d.V.transpose() - F).norm(), 0.0, 1e-12);
    EXPECT_NEAR((d.s - s).norm(), 0.0, 1e-12);
  }
}

TEST(VolumeKernels, FiniteDifferencesRandom) {
  for (const Named& kn : kKernels) {
    SCOPED_TRACE(kn.name);
    std::mt19937 rng(21);
    for (int trial = 0; trial < 30; ++trial) {
      const Vec12 X = random_rest_tet(rng);
      const TetRest r = rest_of(X);
      std::uniform_real_distribution<double> u(0.5, 1.8);
      const Mat3 F = F_with_singular_values(Vec3(u(rng), u(rng), u(rng)), rng);
      SCOPED_TRACE("trial " + std::to_string(trial));
      check_fd12(kn.k, r, positions_from_F(F, X, test::random_vec(rng)), 1e-6, 1e-5);
    }
  }
}

// Equal and nearly equal singular values (the divided differences' closed forms) and a
// nearly flat tet (s3 -> 0), where the neo-Hookean ln J is steep: FD step scaled down.
TEST(VolumeKernels, FiniteDifferencesNearDegenerate) {
  for (const Named& kn : kKernels) {
    SCOPED_TRACE(kn.name);
    std::mt19937 rng(22);
    const Vec12 X = random_rest_tet(rng);
    const TetRest r = rest_of(X);
    const struct {
      Vec3 s;
      double h;
    } cases[] = {{Vec3(1, 1, 1), 1e-6},          {Vec3(1.3, 1.3, 1.3), 1e-6}, {Vec3(1.2, 1.2 + 1e-9, 0.7), 1e-6},
                 {Vec3(1.4, 0.9, 0.9), 1e-6},    {Vec3(1.1, 1.0, 0.02), 1e-7}, {Vec3(1.0, 1.0, 1e-3), 1e-9}};
    for (const auto& c : cases) {
      SCOPED_TRACE("s = " + std::to_string(c.s(0)) + " " + std::to_string(c.s(1)) + " " + std::to_string(c.s(2)));
      check_fd12(kn.k, r, positions_from_F(F_with_singular_values(c.s, rng), X, Vec3(0.1, -0.2, 0.3)), c.h, 2e-5);
    }
  }
}

// A rest tet that is itself nearly flat (height 1e-3 of its base): still exact.
TEST(VolumeKernels, FiniteDifferencesThinRestTet) {
  Vec12 X;
  X << 0, 0, 0, 1, 0, 0, 0.3, 1, 0, 0.4, 0.3, 1e-3;
  const TetRest r = rest_of(X);
  std::mt19937 rng(23);
  for (const Named& kn : kKernels) {
    SCOPED_TRACE(kn.name);
    const Mat3 F = F_with_singular_values(Vec3(1.3, 1.0, 0.8), rng);
    check_fd12(kn.k, r, positions_from_F(F, X, Vec3::Zero()), 1e-9, 1e-4);
  }
}

TEST(VolumeKernels, ZeroAtRestAndUnderRigidMotion) {
  std::mt19937 rng(24);
  for (const Named& kn : kKernels) {
    SCOPED_TRACE(kn.name);
    for (int trial = 0; trial < 5; ++trial) {
      const Vec12 X = random_rest_tet(rng);
      const TetRest r = rest_of(X);
      const Mat3 R = trial == 0 ? Mat3::Identity() : test::random_rotation(rng);
      const Vec12 x = positions_from_F(R, X, X.segment<3>(0) + test::random_vec(rng));
      Vec12 g;
      Mat12 H;
      const double e = kn.k(x, r, kVol, &g, &H, true);
      EXPECT_NEAR(e, 0.0, 1e-10 * kVol.mu * r.volume);
      EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-10 * kVol.mu * std::cbrt(r.volume * r.volume));
    }
  }
}

// At rest both energies are linear elasticity: u^T H u = 2 V (mu |eps|^2 + lambda/2 (tr eps)^2)
// with eps = sym(grad u), for every displacement u.
TEST(VolumeKernels, RestHessianIsLinearElasticity) {
  std::mt19937 rng(25);
  for (const Named& kn : kKernels) {
    SCOPED_TRACE(kn.name);
    const Vec12 X = random_rest_tet(rng);
    const TetRest r = rest_of(X);
    Vec12 g;
    Mat12 H, Hp;
    kn.k(X, r, kVol, &g, &H, false);
    kn.k(X, r, kVol, &g, &Hp, true);
    EXPECT_LE((H - Hp).cwiseAbs().maxCoeff(), 1e-12 * H.cwiseAbs().maxCoeff());  // exact Hessian PSD at rest
    for (int t = 0; t < 5; ++t) {
      Vec12 u;
      for (int a = 0; a < 4; ++a) u.segment<3>(3 * a) = test::random_vec(rng);
      const Mat3 Gu = deformation_gradient(u, r);  // grad u (linear in u; Ds(u) Dm^-1)
      const Mat3 eps = 0.5 * (Gu + Gu.transpose());
      const double expect = 2 * r.volume * (kVol.mu * eps.squaredNorm() + 0.5 * kVol.lambda * eps.trace() * eps.trace());
      EXPECT_NEAR(u.dot(H * u), expect, 1e-10 * std::abs(expect));
    }
  }
}

TEST(VolumeKernels, ProjectedHessianIsPsdAndExactWherePsd) {
  std::mt19937 rng(26);
  for (const Named& kn : kKernels) {
    SCOPED_TRACE(kn.name);
    int clamped = 0;
    for (int trial = 0; trial < 40; ++trial) {
      const Vec12 X = random_rest_tet(rng);
      const TetRest r = rest_of(X);
      std::uniform_real_distribution<double> u(0.1, 2.0);
      const Mat3 F = F_with_singular_values(Vec3(u(rng), u(rng), u(rng)), rng);
      const Vec12 x = positions_from_F(F, X, Vec3::Zero());
      Vec12 g;
      Mat12 H, Hp;
      kn.k(x, r, kVol, &g, &H, false);
      kn.k(x, r, kVol, &g, &Hp, true);
      EXPECT_GE(test::min_eig_ratio<12>(Hp), -1e-12);
      // x-space Hessian = B^T HF B, B of full row rank 9 (its null space: translations), so
      // H is PSD exactly when HF is, and then the projection must leave it unchanged.
      if (test::min_eig_ratio<12>(H) > -1e-12)
        EXPECT_LE((H - Hp).cwiseAbs().maxCoeff(), 1e-10 * H.cwiseAbs().maxCoeff());
      else
        ++clamped;
    }
    EXPECT_GT(clamped, 0);  // the sample does exercise the clamp
  }
}

// Uniaxial stretch F = diag(s, 1, 1), by hand: FCR psi = (mu + lambda/2)(s - 1)^2,
// P11 = (2 mu + lambda)(s - 1); neo-Hookean psi = mu/2 (s^2 - 1) - mu ln s + lambda/2 ln^2 s,
// P11 = mu s + (lambda ln s - mu)/s; P22 = P33 = lambda (J - 1) s (FCR), lambda ln s (NH),
// the lateral stress that keeps the cross-section from contracting. The gradient is V P c_a.
TEST(VolumeKernels, UniaxialStretchByHand) {
  Vec12 X;
  X << 0, 0, 0, 0.2, 0, 0, 0, 0.3, 0, 0, 0, 0.4;
  const TetRest r = rest_of(X);
  EXPECT_DOUBLE_EQ(r.volume, 0.2 * 0.3 * 0.4 / 6);
  const double mu = kVol.mu, lam = kVol.lambda;
  for (double s : {0.6, 0.95, 1.0, 1.3, 2.5}) {
    Mat3 F = Mat3::Identity();
    F(0, 0) = s;
    const Vec12 x = positions_from_F(F, X, Vec3::Zero());
    const double l = std::log(s);
    const double psi[2] = {(mu + 0.5 * lam) * (s - 1) * (s - 1), 0.5 * mu * (s * s - 1) - mu * l + 0.5 * lam * l * l};
    const double P11[2] = {(2 * mu + lam) * (s - 1), mu * s + (lam * l - mu) / s};
    const double P22[2] = {lam * (s - 1) * s, lam * l};
    for (int k = 0; k < 2; ++k) {
      SCOPED_TRACE(kKernels[k].name);
      Vec12 g;
      Mat12 H;
      const double e = kKernels[k].k(x, r, kVol, &g, &H, true);
      EXPECT_NEAR(e, r.volume * psi[k], 1e-12 * (r.volume * mu) + 1e-12 * std::abs(e));
      const Eigen::Matrix<double, 4, 3> c = tet_dF_coeffs(r);
      for (int a = 0; a < 4; ++a) {
        const Vec3 expect = r.volume * Vec3(P11[k] * c(a, 0), P22[k] * c(a, 1), P22[k] * c(a, 2));
        EXPECT_NEAR((g.segment<3>(3 * a) - expect).norm(), 0.0, 1e-9 * r.volume * mu);
      }
    }
  }
}

TEST(VolumeKernels, InversionAndCollapse) {
  Vec12 X;
  X << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  const TetRest r = rest_of(X);
  Vec12 x = X, g;
  Mat12 H;
  x(11) = 0.0;  // flat
  EXPECT_EQ(tet_jacobian(x, r), 0.0);
  EXPECT_TRUE(std::isinf(volume_neo_hookean(x, r, kVol, &g, &H, true)));
  EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
  // Fixed-corotated stays finite (the term refuses J <= 0), with a PSD projection.
  EXPECT_TRUE(std::isfinite(volume_fixed_corotated(x, r, kVol, &g, &H, true)));
  EXPECT_TRUE(H.allFinite());
  EXPECT_GE(test::min_eig_ratio<12>(H), -1e-12);
  x(11) = -0.3;  // inverted
  EXPECT_LT(tet_jacobian(x, r), 0.0);
  EXPECT_TRUE(std::isinf(volume_neo_hookean(x, r, kVol, nullptr, nullptr, false)));
  const double e = volume_fixed_corotated(x, r, kVol, &g, &H, true);
  EXPECT_NEAR(e, r.volume * (kVol.mu * (1.3 * 1.3) + 0.5 * kVol.lambda * 1.3 * 1.3), 1e-9 * e);  // s = (1,1,-0.3)
  EXPECT_GE(test::min_eig_ratio<12>(H), -1e-12);
  // Nearly collapsed: finite, huge, PSD after projection.
  x(11) = 1e-8;
  EXPECT_TRUE(std::isfinite(volume_neo_hookean(x, r, kVol, &g, &H, true)));
  EXPECT_TRUE(H.allFinite());
  EXPECT_GE(test::min_eig_ratio<12>(H), -1e-10);
}

}  // namespace
}  // namespace weft
