#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "energy/hinge_bending.hpp"
#include "energy/psd.hpp"
#include "fd_util.hpp"

namespace weft {
namespace {

// Hinge with edge along x, wing A flat at +y, wing B rotated by phi about the edge from
// its flat position at -y (phi > 0 folds it down, away from the +z normals), then moved
// rigidly.
Vec12 folded_hinge(double phi, const Mat3& R, const Vec3& t) {
  Vec12 x;
  x << Vec3(0, 0, 0), Vec3(1.3, 0, 0), Vec3(0.4, 0.9, 0), Vec3(0.8, -1.1 * std::cos(phi), -1.1 * std::sin(phi));
  for (int a = 0; a < 4; ++a) x.segment<3>(3 * a) = R * x.segment<3>(3 * a) + t;
  return x;
}

Vec12 random_hinge(std::mt19937& rng) {
  for (;;) {
    Vec12 x;
    x << test::random_vec(rng), test::random_vec(rng), test::random_vec(rng), test::random_vec(rng);
    const Vec3 e = x.segment<3>(3) - x.segment<3>(0);
    const double a = e.cross(x.segment<3>(6) - x.segment<3>(0)).norm();
    const double b = e.cross(x.segment<3>(9) - x.segment<3>(0)).norm();
    const double l2 = e.squaredNorm();
    if (l2 > 0.2 && a > 0.2 * l2 && b > 0.2 * l2 && std::abs(dihedral_angle(x)) < 2.8) return x;
  }
}

TEST(HingeBending, KnownFoldAngleAndSign) {
  std::mt19937 rng(31);
  for (double phi : {0.0, 0.3, -0.3, 1.2, -1.2, 2.5, -2.5, 3.0, -3.0}) {
    const Vec12 x = folded_hinge(phi, test::random_rotation(rng), test::random_vec(rng, 4.0));
    EXPECT_NEAR(dihedral_angle(x), phi, 1e-12) << "phi = " << phi;
  }
  // Swapping the two wings (and the edge direction, keeping orientation) keeps theta.
  const Vec12 x = folded_hinge(0.7, Mat3::Identity(), Vec3::Zero());
  Vec12 y;
  y << x.segment<3>(3), x.segment<3>(0), x.segment<3>(9), x.segment<3>(6);
  EXPECT_NEAR(dihedral_angle(y), 0.7, 1e-12);
}

TEST(HingeBending, DihedralAngleFiniteDifferences) {
  std::mt19937 rng(32);
  for (int t = 0; t < 20; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    const Vec12 x = random_hinge(rng);
    test::check_fd<12>([](const Vec12& y, Vec12* g, Mat12* H) { return dihedral_angle(y, g, H); }, x);
  }
  // Exactly flat and exactly at +-pi/2.
  for (double phi : {0.0, 1.5707963267948966, -1.5707963267948966}) {
    const Vec12 x = folded_hinge(phi, test::random_rotation(rng), test::random_vec(rng));
    test::check_fd<12>([](const Vec12& y, Vec12* g, Mat12* H) { return dihedral_angle(y, g, H); }, x);
  }
}

TEST(HingeBending, GradientAloneIsTheGradientBesideTheHessianBitForBit) {
  // dihedral_angle without a Hessian (the Gauss-Newton assembly's call) takes a shorter
  // path than with one: the same bits, signed zeros included, flat and folded.
  std::mt19937 rng(35);
  for (int t = 0; t < 40; ++t) {
    const Vec12 x = t < 4 ? folded_hinge(0.5 * t, test::random_rotation(rng), test::random_vec(rng)) : random_hinge(rng);
    Vec12 g1, g2;
    Mat12 H;
    const double a = dihedral_angle(x, &g1, nullptr), b = dihedral_angle(x, &g2, &H);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "trial " << t;
    EXPECT_EQ(std::memcmp(g1.data(), g2.data(), sizeof(double) * 12), 0) << "trial " << t;
  }
}

TEST(HingeBending, EnergyFiniteDifferencesAndProjection) {
  std::mt19937 rng(33);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int t = 0; t < 20; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    const Vec12 x = random_hinge(rng);
    const HingeRest r{u(rng), 0.5 + std::abs(u(rng))};
    test::check_fd<12>([&](const Vec12& y, Vec12* g, Mat12* H) { return hinge_bending(y, r, g, H, false); }, x);
    Vec12 g, gp;
    Mat12 H, Hp;
    const double e = hinge_bending(x, r, &g, &H, false);
    const double ep = hinge_bending(x, r, &gp, &Hp, true);
    EXPECT_EQ(e, ep);
    EXPECT_EQ(g, gp);
    EXPECT_GE(test::min_eig_ratio<12>(Hp), -1e-8);
    // The projection annihilates translations, like the exact Hessian.
    for (int k = 0; k < 3; ++k) {
      Vec12 tr = Vec12::Zero();
      for (int a = 0; a < 4; ++a) tr(3 * a + k) = 1.0;
      EXPECT_LE((Hp * tr).norm(), 1e-10 * Hp.norm());
    }
  }
}

TEST(HingeBending, HessianModes) {
  std::mt19937 rng(36);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int t = 0; t < 20; ++t) {
    SCOPED_TRACE("trial " + std::to_string(t));
    const Vec12 x = random_hinge(rng);
    const HingeRest r{u(rng), 0.5 + std::abs(u(rng))};
    Vec12 g, gt;
    Mat12 He, Hgn, Hpe;
    const double e = hinge_bending(x, r, &g, &He, HingeHessian::Exact);
    EXPECT_EQ(hinge_bending(x, r, nullptr, &Hgn, HingeHessian::GaussNewton), e);
    EXPECT_EQ(hinge_bending(x, r, nullptr, &Hpe, HingeHessian::ProjectedExact), e);
    const double theta = dihedral_angle(x, &gt);
    // theta != theta0: the exact Hessian has >= 3 negative eigenvalues (never PSD).
    Eigen::SelfAdjointEigenSolver<Mat12> es(He);
    int neg = 0;
    for (int i = 0; i < 12; ++i) neg += es.eigenvalues()(i) < -1e-9 * es.eigenvalues().cwiseAbs().maxCoeff();
    if (std::abs(theta - r.theta0) > 1e-3) {
      EXPECT_GE(neg, 3);
    }
    // Gauss-Newton is 2w grad grad^T.
    EXPECT_LE((Hgn - 2.0 * r.weight * gt * gt.transpose()).cwiseAbs().maxCoeff(), 1e-12 * Hgn.cwiseAbs().maxCoeff());
    // ProjectedExact (8x8 in the complement of the analytic null space) = 12x12 clamp.
    Mat12 Href = He;
    project_psd<12>(Href);
    EXPECT_LE((Hpe - Href).cwiseAbs().maxCoeff(), 1e-9 * He.cwiseAbs().maxCoeff());
    EXPECT_GE(test::min_eig_ratio<12>(Hpe), -1e-8);
  }
}

TEST(HingeBending, RestAndRankOneAtRestAngle) {
  std::mt19937 rng(34);
  for (int t = 0; t < 5; ++t) {
    const Vec12 X = random_hinge(rng);
    const HingeRest r = make_hinge_rest(X.segment<3>(0), X.segment<3>(3), X.segment<3>(6), X.segment<3>(9), 0.01);
    Vec12 g, gt;
    Mat12 H, Hp;
    EXPECT_EQ(hinge_bending(X, r, &g, &H, false), 0.0);
    EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
    hinge_bending(X, r, nullptr, &Hp, true);
    // At theta == theta0 the Hessian is 2w grad grad^T: already PSD, kept as is.
    dihedral_angle(X, &gt);
    const Mat12 Hgn = 2.0 * r.weight * gt * gt.transpose();
    EXPECT_LE((H - Hgn).cwiseAbs().maxCoeff(), 1e-12 * Hgn.cwiseAbs().maxCoeff());
    EXPECT_LE((Hp - Hgn).cwiseAbs().maxCoeff(), 1e-12 * Hgn.cwiseAbs().maxCoeff());
  }
}

TEST(HingeBending, RestDataAndStiffness) {
  EXPECT_NEAR(bending_stiffness(1e6, 0.3, 1e-3), 1e6 * 1e-9 / (24 * (1 - 0.09)), 1e-18);
  EXPECT_THROW(bending_stiffness(1e6, 0.6, 1e-3), InputError);
  EXPECT_THROW(bending_stiffness(1e6, 0.3, 0.0), InputError);
  EXPECT_THROW(bending_stiffness(-1.0, 0.3, 1e-3), InputError);
  const Vec12 X = folded_hinge(0.4, Mat3::Identity(), Vec3::Zero());
  const HingeRest r = make_hinge_rest(X.segment<3>(0), X.segment<3>(3), X.segment<3>(6), X.segment<3>(9), 2.0);
  const double A1 = 0.5 * 1.3 * 0.9, A2 = 0.5 * 1.3 * 1.1;
  EXPECT_NEAR(r.theta0, 0.4, 1e-14);
  EXPECT_NEAR(r.weight, 2.0 * 3.0 * 1.69 / (A1 + A2), 1e-12);
  EXPECT_THROW(make_hinge_rest(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0), Vec3(0, -1, 0), 1.0), InputError);
  EXPECT_THROW(make_hinge_rest(Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0), 1.0), InputError);
}

TEST(HingeBending, RigidMotionInvariance) {
  std::mt19937 rng(35);
  for (int t = 0; t < 5; ++t) {
    const Vec12 x = random_hinge(rng);
    const Mat3 R = test::random_rotation(rng);
    Vec12 xr;
    for (int a = 0; a < 4; ++a) xr.segment<3>(3 * a) = R * x.segment<3>(3 * a) + Vec3(3, -1, 2);
    const HingeRest r{0.2, 1.0};
    Vec12 g, gr;
    EXPECT_NEAR(hinge_bending(x, r, &g, nullptr, false), hinge_bending(xr, r, &gr, nullptr, false), 1e-12);
    for (int a = 0; a < 4; ++a)
      EXPECT_LE((R * g.segment<3>(3 * a) - gr.segment<3>(3 * a)).norm(), 1e-10 * g.norm());
  }
}

TEST(HingeBending, DegenerateWingIsHarmless) {
  Vec12 x;
  x << Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0), Vec3(0.5, -1, 0);  // wing A collapsed
  Vec12 g;
  Mat12 H;
  const double e = hinge_bending(x, HingeRest{0.1, 1.0}, &g, &H, true);
  EXPECT_TRUE(std::isfinite(e));
  EXPECT_TRUE(g.allFinite());
  EXPECT_TRUE(H.allFinite());
}

TEST(HingeBending, ScaledGaussNewtonKernelIsTheOldPathBitForBit) {
  // hinge_bending_gauss_newton (the assembly's kernel, issue 21) against hinge_bending(..,
  // true) followed by g *= scale, H *= scale: every value the same bits.
  auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  std::mt19937 rng(77);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int k = 0; k < 2000; ++k) {
    const Vec12 x = random_hinge(rng);
    const HingeRest r{u(rng), std::exp(u(rng))};
    const double scale = k % 3 == 0 ? 1.0 : std::exp(2.0 * u(rng));
    Vec12 g0, g1;
    Mat12 H0, H1;
    const double e0 = scale * hinge_bending(x, r, &g0, &H0, true);
    g0 *= scale;
    H0 *= scale;
    const double e1 = hinge_bending_gauss_newton(x, r, scale, g1, H1);
    ASSERT_TRUE(same(e0, e1)) << k;
    for (int i = 0; i < 12; ++i) {
      ASSERT_TRUE(same(g0(i), g1(i))) << k;
      for (int j = 0; j < 12; ++j) ASSERT_TRUE(same(H0(i, j), H1(i, j))) << k << " " << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace weft
