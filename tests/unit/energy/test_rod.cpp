// Rod kernels: stretching, the segment strain-limit barrier and bending (energy/rod_*.hpp,
// energy/strain_limit.hpp): exact values by hand, finite differences of gradient and
// Hessian, PSD projections, invariance, and the continuum limit of the bending energy.
#include <cmath>

#include "core/error.hpp"
#include "energy/rod_bending.hpp"
#include "energy/rod_stretch.hpp"
#include "energy/strain_limit.hpp"
#include "fd_util.hpp"

namespace weft {
namespace {

Vec6 segment(const Vec3& a, const Vec3& b) {
  Vec6 x;
  x << a, b;
  return x;
}

Vec9 polyline(const Vec3& a, const Vec3& b, const Vec3& c) {
  Vec9 x;
  x << a, b, c;
  return x;
}

// x0 - x1 - x2 with |e0| = l0, |e1| = l1 and turning angle phi, moved rigidly.
Vec9 bent(double l0, double l1, double phi, const Mat3& R, const Vec3& t) {
  const Vec3 x0(-l0, 0, 0), x1(0, 0, 0), x2(l1 * std::cos(phi), l1 * std::sin(phi), 0);
  return polyline(R * x0 + t, R * x1 + t, R * x2 + t);
}

TEST(RodStretch, ExactValueAndGradient) {
  const RodStretchRest r{1.0, 2.0};
  Vec6 g;
  Mat6 H;
  // |e| = 1.5 along z: Psi = 1/2 k L (0.5)^2 = 0.25, |dPsi/de| = k * 0.5 = 1.
  EXPECT_DOUBLE_EQ(rod_stretch(segment(Vec3(0, 0, 1), Vec3(0, 0, 2.5)), r, &g, &H, false), 0.25);
  EXPECT_NEAR((g.tail<3>() - Vec3(0, 0, 1)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((g.head<3>() + Vec3(0, 0, 1)).norm(), 0.0, 1e-15);
  // Along the segment the stiffness is k / L = 2; across it k (|e|/L - 1)/|e| = 2/3.
  EXPECT_NEAR(H(5, 5), 2.0, 1e-14);
  EXPECT_NEAR(H(3, 3), 2.0 / 3.0, 1e-14);
  EXPECT_NEAR(H(0, 3), -2.0 / 3.0, 1e-14);
  EXPECT_DOUBLE_EQ(segment_stretch(segment(Vec3(0, 0, 1), Vec3(0, 0, 2.5)), r), 1.5);
  // At rest length: zero energy, zero gradient.
  EXPECT_EQ(rod_stretch(segment(Vec3(1, 2, 3), Vec3(1, 3, 3)), r, &g, nullptr, false), 0.0);
  EXPECT_EQ(g.norm(), 0.0);
}

TEST(RodStretch, FiniteDifferencesAndProjection) {
  std::mt19937 rng(71);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const Vec6 x = segment(test::random_vec(rng), test::random_vec(rng));
    const RodStretchRest r{0.3 + 1.5 * std::abs(test::random_vec(rng)(0)), 7.0};  // stretched and compressed
    test::check_fd<6>([&](const Vec6& y, Vec6* g, Mat6* H) { return rod_stretch(y, r, g, H, false); }, x);
    Mat6 H, Hp;
    rod_stretch(x, r, nullptr, &H, false);
    rod_stretch(x, r, nullptr, &Hp, true);
    EXPECT_GE(test::min_eig_ratio<6>(Hp), -1e-12);
    if (segment_stretch(x, r) >= 1.0) {
      EXPECT_LE((H - Hp).cwiseAbs().maxCoeff(), 1e-12);  // already PSD
    }
  }
}

TEST(SegmentStrainLimit, InactiveBarrierAndInfeasible) {
  const StrainLimitParams p{1.1, 1.0, 1e3, 2e-6};
  Vec6 g;
  Mat6 H;
  EXPECT_EQ(segment_strain_limit(segment(Vec3(0, 0, 0), Vec3(0.99, 0, 0)), 1.0, p, &g, &H), 0.0);
  EXPECT_EQ(g.norm(), 0.0);
  EXPECT_TRUE(std::isinf(segment_strain_limit(segment(Vec3(0, 0, 0), Vec3(1.1, 0, 0)), 1.0, p, &g, &H)));
  EXPECT_TRUE(std::isinf(segment_strain_limit(segment(Vec3(0, 0, 0), Vec3(0, 2, 0)), 1.0, p, nullptr, nullptr)));
  // sigma = 1.05: y = -0.5, bhat = -0.25 ln(0.5); Psi = kappa V bhat.
  EXPECT_NEAR(segment_strain_limit(segment(Vec3(0, 0, 0), Vec3(0, 0, 1.05)), 1.0, p, nullptr, nullptr),
              1e3 * 2e-6 * (-0.25 * std::log(0.5)), 1e-15);
}

TEST(SegmentStrainLimit, FiniteDifferencesArePsd) {
  std::mt19937 rng(72);
  for (double sigma : {1.001, 1.03, 1.06, 1.09, 1.0999}) {
    SCOPED_TRACE("sigma " + std::to_string(sigma));
    const Vec3 d = test::random_vec(rng).normalized();
    const Vec3 a = test::random_vec(rng);
    const Vec6 x = segment(a, a + 0.7 * sigma * d);
    const StrainLimitParams p{1.1, 1.0, 5e2, 1e-5};
    test::check_fd<6>([&](const Vec6& y, Vec6* g, Mat6* H) { return segment_strain_limit(y, 0.7, p, g, H); }, x,
                      1e-8, 1e-4);
    Mat6 H;
    segment_strain_limit(x, 0.7, p, nullptr, &H);
    EXPECT_GE(test::min_eig_ratio<6>(H), -1e-12);
  }
}

TEST(RodBending, ExactValues) {
  EXPECT_DOUBLE_EQ(rod_bending_stiffness(2e9, 1e-3), 2e9 * M_PI * 1e-12 / 4);
  EXPECT_THROW(rod_bending_stiffness(1e9, 0.0), InputError);
  const RodBendRest straight = make_rod_bend_rest(Vec3(-1, 0, 0), Vec3(0, 0, 0), Vec3(2, 0, 0), 6.0);
  EXPECT_EQ(straight.kb, 0.0);
  EXPECT_DOUBLE_EQ(straight.weight, 2.0);  // EI / (|E0| + |E1|)
  std::mt19937 rng(73);
  for (double phi : {0.0, 0.25, M_PI / 2, 2.0, 3.0}) {
    const Vec9 x = bent(0.7, 1.3, phi, test::random_rotation(rng), test::random_vec(rng, 3.0));
    // |kb| = 2 tan(phi / 2); Psi = w |kb|^2 for a straight rest rod.
    EXPECT_NEAR(rod_curvature(x), 2 * std::tan(phi / 2), 1e-12 * (1 + std::tan(phi / 2)));
    EXPECT_NEAR(rod_bending(x, straight, nullptr, nullptr, false), 2.0 * 4 * std::pow(std::tan(phi / 2), 2),
                1e-11 * (1 + std::pow(std::tan(phi / 2), 2)));
  }
  // Folded back: infinite; a rest polyline folded back is refused.
  EXPECT_TRUE(std::isinf(rod_bending(bent(1, 1, M_PI, Mat3::Identity(), Vec3::Zero()), straight, nullptr, nullptr, false)));
  EXPECT_THROW(make_rod_bend_rest(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 0), 1.0), InputError);
  EXPECT_THROW(make_rod_bend_rest(Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), 1.0), InputError);
}

TEST(RodBending, RestIsAStationaryMinimum) {
  std::mt19937 rng(74);
  for (double phi0 : {0.0, 0.4, 1.9}) {
    const Vec9 X = bent(0.5, 0.8, phi0, test::random_rotation(rng), test::random_vec(rng));
    const RodBendRest r = make_rod_bend_rest(X.segment<3>(0), X.segment<3>(3), X.segment<3>(6), 3.0);
    EXPECT_NEAR(r.kb, 2 * std::tan(phi0 / 2), 1e-12);
    Vec9 g;
    Mat9 H;
    // Rigid motions of the rest shape: zero energy and gradient, PSD Hessian.
    const Vec9 x = bent(0.5, 0.8, phi0, test::random_rotation(rng), test::random_vec(rng, 5.0));
    EXPECT_NEAR(rod_bending(x, r, &g, &H, false), 0.0, 1e-20);
    EXPECT_LE(g.norm(), 1e-10);
    EXPECT_GE(test::min_eig_ratio<9>(H), -1e-9);
  }
}

TEST(RodBending, FiniteDifferencesAndProjection) {
  std::mt19937 rng(75);
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const double phi = 0.05 + 2.8 * (trial % 10) / 10.0, phi0 = (trial % 3) * 0.6;
    const Vec9 X = bent(0.6, 0.9, phi0, Mat3::Identity(), Vec3::Zero());
    const RodBendRest r = make_rod_bend_rest(X.segment<3>(0), X.segment<3>(3), X.segment<3>(6), 1.7);
    Vec9 x = bent(0.4 + 0.1 * (trial % 4), 1.1, phi, test::random_rotation(rng), test::random_vec(rng));
    for (int k = 0; k < 9; ++k) x(k) += 0.01 * test::random_vec(rng)(0);  // off-plane, unequal lengths
    test::check_fd<9>([&](const Vec9& y, Vec9* g, Mat9* H) { return rod_bending(y, r, g, H, false); }, x, 1e-6,
                      2e-5);
    Mat9 Hp;
    rod_bending(x, r, nullptr, &Hp, true);
    EXPECT_GE(test::min_eig_ratio<9>(Hp), -1e-12);
  }
  // Nearly straight, straight rest: smooth there (Psi = 4 w t).
  const RodBendRest r0{0.0, 1.0};
  const Vec9 x = bent(1.0, 1.0, 1e-3, test::random_rotation(rng), Vec3::Zero());
  test::check_fd<9>([&](const Vec9& y, Vec9* g, Mat9* H) { return rod_bending(y, r0, g, H, false); }, x, 1e-7,
                    1e-4, 1e-9);
}

// A regular N-gon inscribed in a circle of radius R: the discrete energy tends to the
// continuum 1/2 EI (1/R)^2 2 pi R = pi EI / R.
TEST(RodBending, CircleMatchesTheKirchhoffRod) {
  const double R = 0.2, EI = rod_bending_stiffness(1e7, 2e-3);
  for (int N : {50, 400}) {
    std::vector<Vec3> p(N);
    for (int i = 0; i < N; ++i) p[i] = Vec3(R * std::cos(2 * M_PI * i / N), 0, R * std::sin(2 * M_PI * i / N));
    double total = 0;
    for (int i = 0; i < N; ++i) {
      // Straight rest: every vertex stores the bending of the circle.
      const Vec3 a = p[(i + N - 1) % N], b = p[i], c = p[(i + 1) % N];
      const double l = (b - a).norm();
      const RodBendRest r = make_rod_bend_rest(Vec3(-l, 0, 0), Vec3::Zero(), Vec3(l, 0, 0), EI);
      total += rod_bending(polyline(a, b, c), r, nullptr, nullptr, false);
    }
    // Second order: N tan^2(pi/N) / (pi sin(pi/N)) = 1 + 5/6 (pi/N)^2 + ...
    EXPECT_NEAR(total / (M_PI * EI / R), 1.0, std::pow(M_PI / N, 2)) << "N = " << N;
    EXPECT_GT(total / (M_PI * EI / R), 1.0);
  }
}

}  // namespace
}  // namespace weft
