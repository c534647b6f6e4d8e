#include <cmath>
#include <cstring>

#include <Eigen/Eigenvalues>

#include "energy/membrane_neo_hookean.hpp"
#include "energy/membrane_stvk.hpp"
#include "energy/strain_limit.hpp"
#include "fd_util.hpp"
#include "membrane_checks.hpp"

namespace weft {
namespace {

const StrainLimitParams kSL{1.1, 1.0, 1.0e3, 1e-3 * 0.5};

double eval(double s1, double s2, unsigned seed, Vec9* g = nullptr, Mat9* H = nullptr,
            bool project = false) {
  std::mt19937 rng(seed);
  const Vec9 X = test::random_rest_triangle(rng);
  const TriRest r = test::rest_of(X);
  const Vec9 x = test::positions_from_F(test::F_with_singular_values(s1, s2, rng), r, test::random_vec(rng));
  return strain_limit(x, r, kSL, g, H, project);
}

TEST(StrainLimit, FiniteDifferences) {
  // (s1, s2): one active, both active, equal, nearly equal, active near the limit.
  const double cases[][2] = {{1.05, 0.9},  {1.03, 1.01},   {1.06, 1.06},     {1.04, 1.04 - 1e-9},
                             {1.09, 1.02}, {1.098, 1.097}, {1.02, 0.5},      {1.001, 0.999}};
  unsigned seed = 100;
  for (const auto& c : cases) {
    std::mt19937 rng(++seed);
    const Vec9 X = test::random_rest_triangle(rng);
    const TriRest r = test::rest_of(X);
    const Vec9 x = test::positions_from_F(test::F_with_singular_values(c[0], c[1], rng), r,
                                          test::random_vec(rng));
    SCOPED_TRACE("s = " + std::to_string(c[0]) + ", " + std::to_string(c[1]));
    // Keep the FD stencil inside (s_hat, s_max) in sigma: a small step near the limit.
    const double h = c[0] > 1.09 ? 1e-7 : 1e-6;
    test::check_fd<9>([&](const Vec9& y, Vec9* g, Mat9* H) { return strain_limit(y, r, kSL, g, H, false); },
                      x, h);
    Mat9 H, Hp;
    strain_limit(x, r, kSL, nullptr, &H, false);
    strain_limit(x, r, kSL, nullptr, &Hp, true);
    EXPECT_GE(test::min_eig_ratio<9>(Hp), -1e-8);
    // The barrier Hessian is PSD already (bhat convex and decreasing): projection is a no-op.
    EXPECT_LE((H - Hp).cwiseAbs().maxCoeff(), 1e-12 * H.cwiseAbs().maxCoeff());
  }
}

// shell_membrane_term.cpp's path: membrane and strain limit from one SVD through
// isotropic_pair_grad_hess. Unprojected: the sum of the two kernels' exact gradients and
// Hessians (and finite differences of the summed energy). Projected: the sum of the two
// kernels' projected Hessians, PSD, and unchanged where the exact sum is PSD.
TEST(StrainLimit, SharedSvdWithTheMembrane) {
  // (s1, s2): stretched past s_hat in one direction, compressed (membrane indefinite) or not.
  const double cases[][2] = {{1.05, 0.7}, {1.08, 0.95}, {1.04, 1.02}, {1.06, 1.06}};
  unsigned seed = 300;
  int indefinite = 0;
  for (const bool stvk : {false, true}) {
    for (const auto& c : cases) {
      std::mt19937 rng(++seed);
      const Vec9 X = test::random_rest_triangle(rng);
      const TriRest r = test::rest_of(X);
      const Vec9 x = test::positions_from_F(test::F_with_singular_values(c[0], c[1], rng), r, test::random_vec(rng));
      SCOPED_TRACE(std::string(stvk ? "stvk" : "neo_hookean") + ", s = " + std::to_string(c[0]) + ", " +
                   std::to_string(c[1]));
      const StrainLimitParams sp{kSL.s_max, kSL.s_hat, kSL.kappa, r.area * test::kMembrane.thickness};
      auto derivs = [&](const Vec9& y, Svd32& sy, IsoDerivs& dm, IsoDerivs& ds) {
        const Mat32 Fy = deformation_gradient(y, r);
        sy = svd32(Fy);
        ds = IsoDerivs{};
        const double em = stvk ? membrane_stvk_derivs(Fy, sy, r, test::kMembrane, dm)
                               : membrane_neo_hookean_derivs(Fy, sy, r, test::kMembrane, dm);
        return em + strain_limit_add_derivs(Fy, sy, sp, ds);
      };
      Svd32 svd;
      IsoDerivs dm, ds;
      const double e = derivs(x, svd, dm, ds);
      Vec9 g, gm, gs;
      Mat9 H, Hp, Hm, Hs, Hmp, Hsp;
      isotropic_pair_grad_hess(svd, dm, ds, r, &g, &H, false);
      isotropic_pair_grad_hess(svd, dm, ds, r, nullptr, &Hp, true);
      auto membrane = [&](Vec9* gg, Mat9* HH, bool project) {
        return stvk ? membrane_stvk(x, r, test::kMembrane, gg, HH, project)
                    : membrane_neo_hookean(x, r, test::kMembrane, gg, HH, project);
      };
      const double es = strain_limit(x, r, sp, &gs, &Hs, false);
      ASSERT_GT(es, 0.0);
      EXPECT_NEAR(e, membrane(&gm, &Hm, false) + es, 1e-14 * std::abs(e));
      const double hn = (Hm + Hs).cwiseAbs().maxCoeff();
      EXPECT_LE((g - gm - gs).cwiseAbs().maxCoeff(), 1e-12 * (gm + gs).cwiseAbs().maxCoeff());
      EXPECT_LE((H - Hm - Hs).cwiseAbs().maxCoeff(), 1e-12 * hn);
      test::check_fd<9>(
          [&](const Vec9& y, Vec9* gg, Mat9* HH) {
            Svd32 sy;
            IsoDerivs a, b;
            const double ey = derivs(y, sy, a, b);
            if (gg || HH) isotropic_pair_grad_hess(sy, a, b, r, gg, HH, false);
            return ey;
          },
          x, 1e-6);
      membrane(nullptr, &Hmp, true);
      strain_limit(x, r, sp, nullptr, &Hsp, true);
      EXPECT_LE((Hp - Hmp - Hsp).cwiseAbs().maxCoeff(), 1e-12 * hn);
      const Eigen::SelfAdjointEigenSolver<Mat9> ep(Hp), ex(H);
      EXPECT_GE(ep.eigenvalues().minCoeff(), -1e-10 * hn);
      if (ex.eigenvalues().minCoeff() < -1e-6 * hn)
        ++indefinite;
      else
        EXPECT_LE((Hp - H).cwiseAbs().maxCoeff(), 1e-12 * hn);
    }
  }
  EXPECT_GE(indefinite, 2);  // the compressed cases exercise the clamp
}

TEST(StrainLimit, ZeroBelowThreshold) {
  // Strictly below s_hat: exactly zero, with zero gradient/Hessian.
  for (auto s : {std::pair{0.999, 0.999}, std::pair{0.5, 0.2}, std::pair{0.99, 0.7}}) {
    Vec9 g;
    Mat9 H;
    EXPECT_EQ(eval(s.first, s.second, 7, &g, &H, true), 0.0);
    EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ(H.cwiseAbs().maxCoeff(), 0.0);
  }
  // At rest (s_hat = 1, sigma = 1 up to round-off): zero to round-off, also rigidly moved.
  std::mt19937 rng(70);
  for (int t = 0; t < 10; ++t) {
    const Vec9 X = test::random_rest_triangle(rng);
    const TriRest r = test::rest_of(X);
    const Mat3 R = test::random_rotation(rng);
    Vec9 x;
    for (int a = 0; a < 3; ++a) x.segment<3>(3 * a) = R * X.segment<3>(3 * a) + Vec3(1, 2, 3);
    Vec9 g;
    Mat9 H;
    EXPECT_LE(strain_limit(x, r, kSL, &g, &H, true), 1e-30);
    EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-20);
    EXPECT_LE(H.cwiseAbs().maxCoeff(), 1e-8);
  }
  // C^2 activation: just above s_hat, energy ~ y^3, gradient ~ y^2, Hessian ~ y.
  Vec9 g;
  Mat9 H;
  const double e = eval(1.0 + 1e-6, 0.9, 7, &g, &H);
  EXPECT_GT(e, 0.0);
  EXPECT_LT(e, 1e-14);
  EXPECT_LT(g.norm(), 1e-6);
  EXPECT_LT(H.norm(), 1e-1);
}

TEST(StrainLimit, InfiniteAtLimitAndGrowing) {
  EXPECT_TRUE(std::isinf(eval(1.1, 1.0, 8)));
  EXPECT_TRUE(std::isinf(eval(1.2, 1.2, 8)));
  double prev = 0.0;
  for (double s : {1.01, 1.05, 1.09, 1.099, 1.0999, 1.09999999}) {
    const double e = eval(s, 1.0, 8);
    EXPECT_GT(e, prev);
    prev = e;
  }
  // Log barrier: energy ~ -kappa V ln(1+y) near the limit, y -> -1.
  const double e = eval(1.1 - 1e-10, 1.0, 8);
  EXPECT_NEAR(e / (kSL.kappa * kSL.volume), -std::log(1e-10 / 0.1), 1e-3);
}

TEST(StrainLimit, EnergyFormula) {
  // Two active singular values: the sum of eq. 7 over both, times kappa V (eq. 6).
  const double s1 = 1.07, s2 = 1.02;
  const double e = eval(s1, s2, 9);
  auto b = [](double s) {
    const double y = (1.0 - s) / 0.1;
    return -y * y * std::log(1.0 + y);
  };
  EXPECT_NEAR(e, kSL.kappa * kSL.volume * (b(s1) + b(s2)), 1e-9 * e);
}

TEST(StrainLimit, UniformStretchGradientIsRadial) {
  // Uniform stretch by s: gradient = kappa V dbhat/ds * d(s1 + s2)/dx, pointing outward.
  std::mt19937 rng(10);
  const Vec9 X = test::random_rest_triangle(rng);
  const TriRest r = test::rest_of(X);
  const double s = 1.05;
  Vec9 g;
  strain_limit(s * X, r, kSL, &g, nullptr, false);
  // Energy decreases when shrinking uniformly: g . x_centered > 0.
  Vec9 xc = s * X;
  const Vec3 c = (xc.segment<3>(0) + xc.segment<3>(3) + xc.segment<3>(6)) / 3.0;
  for (int a = 0; a < 3; ++a) xc.segment<3>(3 * a) -= c;
  EXPECT_GT(g.dot(xc), 0.0);
  // d/ds of E(s X) = g . X = 2 kappa V bhat'(y) * (-1/w).
  const double y = (1.0 - s) / 0.1;
  const double db = -2.0 * y * std::log1p(y) - y * y / (1.0 + y);
  EXPECT_NEAR(g.dot(X), 2.0 * kSL.kappa * kSL.volume * db * (-1.0 / 0.1), 1e-9 * std::abs(g.dot(X)));
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(StrainLimit, SvdGivesSingularValuesBitForBit) {
  // The membrane assembly takes the strain limit's singular values (and the neo-Hookean J)
  // from svd32 instead of forming them again (issue 21): svd32's s1, min(s2, s1) (0 when
  // s1 is not > 0) and J must be singular_values(F) and |f1 x f2| bit for bit, for any F:
  // stretched, compressed, nearly rank one, rank one, zero, tiny and huge.
  std::mt19937 rng(2034);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Mat32> Fs;
  for (int k = 0; k < 20000; ++k) {
    Mat32 F;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) F(i, j) = u(rng);
    const int kind = k % 5;
    if (kind == 1) F.col(1) = F.col(0) * u(rng) + 1e-9 * F.col(1);  // nearly rank one
    if (kind == 2) F *= std::pow(10.0, 12.0 * u(rng));                 // tiny to huge
    if (kind == 3) F = test::F_with_singular_values(1.0 + 0.1 * u(rng), 1.0 + 0.1 * u(rng), rng);  // near rest
    Fs.push_back(F);
  }
  Mat32 F0 = Mat32::Zero(), F1 = Mat32::Zero();
  F1.col(0) = Vec3(1, 2, 3);
  F1.col(1) = 2.0 * F1.col(0);  // rank one exactly
  Fs.push_back(F0);
  Fs.push_back(F1);
  for (const Mat32& F : Fs) {
    const Vec2 s = singular_values(F);
    const Svd32 svd = svd32(F);
    const Vec2 t(svd.s(0), svd.s(0) > 0.0 ? std::min(svd.s(1), svd.s(0)) : 0.0);
    ASSERT_TRUE(same_bits(s(0), t(0)) && same_bits(s(1), t(1))) << F;
    const Vec3 f1 = F.col(0), f2 = F.col(1);
    ASSERT_TRUE(same_bits(svd.J, f1.cross(f2).norm())) << F;
  }
}

TEST(StrainLimit, AssemblyDerivativesMatchTheEnergyPathsBitForBit) {
  // With the singular values and J from svd32, the assembly's energies (derivs) must still be
  // the energy-only paths' (singular_values, |f1 x f2|) bit for bit, barrier active or not.
  for (unsigned seed = 1; seed <= 400; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const Vec9 X = test::random_rest_triangle(rng);
    const TriRest r = test::rest_of(X);
    const double s1 = 0.8 + 0.299 * u(rng), s2 = 0.6 + (s1 - 0.6) * u(rng);
    const Vec9 x = test::positions_from_F(test::F_with_singular_values(s1, s2, rng), r, test::random_vec(rng));
    const Mat32 F = deformation_gradient(x, r);
    const Svd32 svd = svd32(F);
    IsoDerivs dm, ds{};
    const double em = membrane_neo_hookean_derivs(F, svd, r, test::kMembrane, dm);
    ASSERT_TRUE(same_bits(em, membrane_neo_hookean(x, r, test::kMembrane, nullptr, nullptr, false))) << seed;
    const double es = strain_limit_add_derivs(F, svd, kSL, ds);
    ASSERT_TRUE(same_bits(es, strain_limit(x, r, kSL, nullptr, nullptr, false))) << seed;
  }
}

}  // namespace
}  // namespace weft
