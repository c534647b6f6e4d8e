// The projection helper with every kernel: momentum conservation (001 eqs. 1-2) with
// unequal masses, exact k = 1 projections, strain clamping, PBD's stiffness mapping, and
// XPBD's multiplier against hand-computed springs.
#include <gtest/gtest.h>

#include "constraint_test_util.hpp"
#include "constraints/collision.hpp"
#include "constraints/dihedral_bending.hpp"
#include "constraints/distance.hpp"
#include "constraints/edge_strain_limit.hpp"
#include "constraints/isometric_bending.hpp"
#include "constraints/pressure.hpp"
#include "constraints/rod_bending.hpp"
#include "core/error.hpp"

namespace weft {
namespace {

using test::expect_momentum_conserved;

// One PBD projection (k = 1) and one XPBD projection (alpha~ = 0.1, running lambda 0.3) of
// the kernel f at x with random unequal masses; both must conserve momentum.
template <int N, class F>
void check_momentum(F&& f, const Stencil3<N>& x, std::mt19937& rng) {
  const VecN<N> w = test::random_inverse_masses<N>(rng, x.cols());
  Stencil3<N> g(3, x.cols()), dx(3, x.cols());
  const double c = f(x, &g);
  pbd_project<N>(c, g, w, 1.0, ConstraintSense::Equality, &dx);
  expect_momentum_conserved<N>(x, dx, w);
  double lambda = 0.3;
  xpbd_project<N>(c, g, w, 0.1, &lambda, ConstraintSense::Equality, &dx);
  expect_momentum_conserved<N>(x, dx, w);
}

// The fused closed forms the PBD sweeps use (distance_fused, dihedral_bending_fused) give
// the kernels' C, gradient and sum w |grad|^2 up to rounding, and their projection
// dx_i = -s w_i grad_i conserves momentum; degenerate stencils are skipped.
TEST(ConstraintProjection, FusedKernelsMatchTheKernels) {
  std::mt19937 rng(5);
  for (int k = 0; k < 200; ++k) {
    const Stencil3<4> x = test::random_stencil<4>(rng);
    const VecN<4> w = test::random_inverse_masses<4>(rng);
    const double psi0 = std::uniform_real_distribution<double>(-3.0, 3.0)(rng);
    Stencil3<4> g;
    const double C = dihedral_bending_constraint(x, {psi0}, &g);
    DihedralFused f;
    ASSERT_TRUE(dihedral_bending_fused(x.col(0).data(), x.col(1).data(), x.col(2).data(), x.col(3).data(), psi0,
                                       w.data(), 0.0, f));
    const Eigen::Map<const Vec3> nA(f.nA), nB(f.nB);
    Stencil3<4> gf, dx;
    for (int i = 0; i < 4; ++i) gf.col(i) = f.cA[i] * nA + f.cB[i] * nB;
    // C away from the wrap at +-pi, where the two may land on either side.
    if (std::abs(C) < 3.1) {
      EXPECT_NEAR(f.C, C, 1e-12);
    }
    EXPECT_LE((gf - g).cwiseAbs().maxCoeff(), 1e-10 * g.cwiseAbs().maxCoeff());
    const double denom = weighted_gradient_norm2<4>(g, w);
    EXPECT_NEAR(f.denom, denom, 1e-10 * denom);
    EXPECT_NEAR(f.inv, 1.0 / denom, 1e-10 / denom);
    const double s = f.C * f.inv;
    for (int i = 0; i < 4; ++i) dx.col(i) = -s * w[i] * gf.col(i);
    test::expect_momentum_conserved<4>(x, dx, w);

    const Stencil3<2> y = test::random_stencil<2>(rng);
    Stencil3<2> gd;
    const double Cd = distance_constraint(y, 0.3, &gd);
    DistanceFused d;
    ASSERT_TRUE(distance_fused(y.col(0).data(), y.col(1).data(), 0.3, w[0], w[1], 0.5, d));
    EXPECT_EQ(d.inv, 1.0 / (w[0] + w[1] + 0.5));
    EXPECT_EQ(d.C, Cd);
    EXPECT_LE((Eigen::Map<const Vec3>(d.d) * d.inv_len - gd.col(1)).cwiseAbs().maxCoeff(), 1e-15);
  }
  // Zero edge, zero-area wing, coincident points: no gradient, skipped.
  Stencil3<4> bad = test::hinge_at(0.0, 0.4, 0.7);
  bad.col(1) = bad.col(0);
  DihedralFused f;
  const double w[4] = {1, 1, 1, 1};
  EXPECT_FALSE(dihedral_bending_fused(bad.col(0).data(), bad.col(1).data(), bad.col(2).data(), bad.col(3).data(), 0.0,
                                      w, 0.0, f));
  bad = test::hinge_at(0.0, 0.4, 0.7);
  bad.col(2) = bad.col(0);
  EXPECT_FALSE(dihedral_bending_fused(bad.col(0).data(), bad.col(1).data(), bad.col(2).data(), bad.col(3).data(), 0.0,
                                      w, 0.0, f));
  const Vec3 p(0.1, 0.2, 0.3);
  DistanceFused d;
  EXPECT_FALSE(distance_fused(p.data(), p.data(), 0.3, 1.0, 1.0, 0.0, d));
  EXPECT_EQ(d.C, -0.3);
}

TEST(ConstraintProjection, InternalConstraintsConserveMomentum) {
  std::mt19937 rng(21);
  for (int k = 0; k < 10; ++k) {
    check_momentum<2>([](const Stencil3<2>& x, Stencil3<2>* g) { return distance_constraint(x, 0.3, g); },
                      test::random_stencil<2>(rng), rng);
    check_momentum<2>([](const Stencil3<2>& x, Stencil3<2>* g) {
      return edge_strain_limit_constraint(x, 0.05, 0.9, 1.1, g);  // always stretched
    }, test::random_stencil<2>(rng), rng);
    check_momentum<4>([](const Stencil3<4>& x, Stencil3<4>* g) {
      return dihedral_bending_constraint(x, {0.2}, g);
    }, test::random_stencil<4>(rng), rng);
    const IsometricBendingRest ir = make_isometric_bending_rest(test::hinge_at(0.0, 0.4, 0.7));
    check_momentum<4>([&](const Stencil3<4>& x, Stencil3<4>* g) { return isometric_bending_constraint(x, ir, g); },
                      test::random_stencil<4>(rng), rng);
    check_momentum<4>([&](const Stencil3<4>& x, Stencil3<4>* g) {
      return isometric_bending_xpbd_constraint(x, ir, g);
    }, test::random_stencil<4>(rng), rng);
    check_momentum<3>([](const Stencil3<3>& x, Stencil3<3>* g) {
      return three_point_bending_constraint(x, {0.05}, g);
    }, test::random_stencil<3>(rng), rng);
    for (int side : {1, -1})
      check_momentum<4>([side](const Stencil3<4>& x, Stencil3<4>* g) {
        return point_triangle_collision_constraint(x, 0.2, side, g);
      }, test::random_stencil<4>(rng), rng);
    for (int side : {1, -1})
      check_momentum<4>([side](const Stencil3<4>& x, Stencil3<4>* g) {
        return edge_edge_collision_constraint(x, 0.2, side, g);
      }, test::random_stencil<4>(rng), rng);
  }
}

// Closed octahedron, outward triangles.
const std::vector<Tri> kOcta = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
Eigen::Matrix3Xd perturbed_octahedron(std::mt19937& rng) {
  Eigen::Matrix3Xd x(3, 6);
  x << 1, -1, 0, 0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 0, 0, 1, -1;
  for (int i = 0; i < 6; ++i) x.col(i) += test::random_vec(rng, 0.2);
  x.colwise() += Vec3(2.0, -1.0, 0.5);  // off the origin: invariance, not luck
  return x;
}

TEST(ConstraintProjection, PressureConservesMomentumAndInflates) {
  std::mt19937 rng(22);
  for (int k = 0; k < 5; ++k)
    check_momentum<Eigen::Dynamic>([](const Eigen::Matrix3Xd& x, Eigen::Matrix3Xd* g) {
      return pressure_constraint(x, kOcta, 10.0, g);
    }, perturbed_octahedron(rng), rng);
  // Balloon: k_pressure 1.5 on the rest volume; repeated projections (k = 1) reach it.
  Eigen::Matrix3Xd x = perturbed_octahedron(rng);
  const double target = 1.5 * closed_mesh_volume6(x, kOcta);
  const Eigen::VectorXd w = test::random_inverse_masses<Eigen::Dynamic>(rng, 6);
  Eigen::Matrix3Xd g, dx;
  int it = 0;
  for (; it < 50 && std::abs(pressure_constraint(x, kOcta, target, nullptr)) > 1e-12 * target; ++it) {
    const double c = pressure_constraint(x, kOcta, target, &g);
    pbd_project<Eigen::Dynamic>(c, g, w, 1.0, ConstraintSense::Equality, &dx);
    x += dx;
  }
  EXPECT_LE(std::abs(pressure_constraint(x, kOcta, target, nullptr)), 1e-12 * target);
  EXPECT_LE(it, 10);
  std::printf("pressure: k_pressure 1.5 reached to 1e-12 in %d projections\n", it);
}

TEST(ConstraintProjection, DistanceExactWithKOneAndPins) {
  std::mt19937 rng(23);
  for (int k = 0; k < 20; ++k) {
    Stencil3<2> x = test::random_stencil<2>(rng), g, dx;
    Vec2 w = test::random_inverse_masses<2>(rng);
    if (k % 4 == 0) w(0) = 0.0;  // pinned end
    const double L = 0.5;
    const double c = distance_constraint(x, L, &g);
    pbd_project<2>(c, g, w, 1.0, ConstraintSense::Equality, &dx);
    const Vec3 x0 = x.col(0);
    x += dx;
    EXPECT_NEAR((x.col(1) - x.col(0)).norm(), L, 4e-16 * std::max(1.0, std::abs(c)));
    if (w(0) == 0.0) {
      EXPECT_EQ(x.col(0), x0);
    }
    // eqs. 10-11: the split is w0 : w1.
    EXPECT_NEAR(dx.col(0).norm() * w(1), dx.col(1).norm() * w(0), 1e-15);
  }
}

TEST(ConstraintProjection, StrainLimitClampsExactly) {
  std::mt19937 rng(24);
  const double L = 0.8, smin = 0.95, smax = 1.05;
  for (int k = 0; k < 20; ++k) {
    Stencil3<2> x = test::random_stencil<2>(rng), g, dx;
    const double len0 = (x.col(1) - x.col(0)).norm();
    const Vec2 w = test::random_inverse_masses<2>(rng);
    const double c = edge_strain_limit_constraint(x, L, smin, smax, &g);
    pbd_project<2>(c, g, w, 1.0, ConstraintSense::Equality, &dx);
    x += dx;
    const double len = (x.col(1) - x.col(0)).norm();
    const double want = std::clamp(len0, smin * L, smax * L);
    EXPECT_NEAR(len, want, 4e-16 * std::max(1.0, len0)) << len0;
    if (len0 >= smin * L && len0 <= smax * L) {
      EXPECT_EQ(dx.cwiseAbs().maxCoeff(), 0.0);
    }
  }
}

TEST(ConstraintProjection, PbdStiffnessMapping) {
  // k' = 1 - (1 - k)^(1/n_s): n_s projections of one distance constraint leave 1 - k of
  // the initial error, whatever n_s (001 sec. 3.3).
  EXPECT_DOUBLE_EQ(pbd_stiffness(0.5, 2), 1.0 - std::sqrt(0.5));
  EXPECT_EQ(pbd_stiffness(1.0, 7), 1.0);
  EXPECT_EQ(pbd_stiffness(0.0, 7), 0.0);
  EXPECT_THROW(pbd_stiffness(1.5, 3), InputError);
  EXPECT_THROW(pbd_stiffness(0.5, 0), InputError);
  const double k = 0.3, L = 1.0;
  for (int ns : {1, 4, 10, 50}) {
    Stencil3<2> x, g, dx;
    x << 0, 1.6, 0, 1.2, 0, 0;  // |x1 - x0| = 2, error 1
    const double kp = pbd_stiffness(k, ns);
    for (int i = 0; i < ns; ++i) {
      const double c = distance_constraint(x, L, &g);
      pbd_project<2>(c, g, Vec2(1.0, 3.0), kp, ConstraintSense::Equality, &dx);
      x += dx;
    }
    EXPECT_NEAR(distance_constraint(x, L, nullptr), 1.0 - k, 1e-14) << ns;
  }
}

TEST(ConstraintProjection, BendingProjections) {
  std::mt19937 rng(25);
  // Three-point rod bending: linear along its gradient, so k = 1 gives C = 0.
  for (double h0 : {0.0, 0.1}) {
    Stencil3<3> x = test::random_stencil<3>(rng), g, dx;
    const Vec3 w = test::random_inverse_masses<3>(rng);
    const double c = three_point_bending_constraint(x, {h0}, &g);
    pbd_project<3>(c, g, w, 1.0, ConstraintSense::Equality, &dx);
    x += dx;
    EXPECT_NEAR(three_point_bending_constraint(x, {h0}, nullptr), 0.0, 1e-15);
  }
  // Isometric bending (quadratic C): one Newton projection halves K x exactly.
  const IsometricBendingRest r = make_isometric_bending_rest(test::hinge_at(0.0));
  Stencil3<4> x = test::hinge_at(0.8), g, dx;
  const Vec4 w = test::random_inverse_masses<4>(rng);
  const Vec3 kx0 = x * r.K;
  pbd_project<4>(isometric_bending_constraint(x, r, &g), g, w, 1.0, ConstraintSense::Equality, &dx);
  x += dx;
  EXPECT_NEAR((x * r.K - 0.5 * kx0).norm(), 0.0, 1e-15);
  // Dihedral: repeated projections converge to the rest angle, from either side of flat.
  for (double psi : {0.6, -0.6}) {
    Stencil3<4> y = test::hinge_at(psi);
    for (int i = 0; i < 20; ++i) {
      const double c = dihedral_bending_constraint(y, {0.1}, &g);
      pbd_project<4>(c, g, w, 1.0, ConstraintSense::Equality, &dx);
      y += dx;
    }
    EXPECT_NEAR(dihedral_bending_constraint(y, {0.1}, nullptr), 0.0, 1e-12) << psi;
  }
}

TEST(ConstraintProjection, CollisionUnilateral) {
  Stencil3<4> x, g, dx;
  x.col(0) = Vec3(0.2, 0.3, 0.05);
  x.col(1) = Vec3(0, 0, 0);
  x.col(2) = Vec3(1, 0, 0);
  x.col(3) = Vec3(0, 1, 0);
  // Obstacle triangle (w = 0): q alone is pushed to exactly h above it.
  const Vec4 w(1.0, 0.0, 0.0, 0.0);
  double c = point_triangle_collision_constraint(x, 0.1, 1, &g);
  pbd_project<4>(c, g, w, 1.0, ConstraintSense::Unilateral, &dx);
  x += dx;
  EXPECT_NEAR(point_triangle_collision_constraint(x, 0.1, 1, nullptr), 0.0, 1e-16);
  // Satisfied: nothing moves (PBD), and XPBD's multiplier stays at 0.
  x.col(0).z() = 0.5;
  c = point_triangle_collision_constraint(x, 0.1, 1, &g);
  EXPECT_EQ(pbd_project<4>(c, g, w, 1.0, ConstraintSense::Unilateral, &dx), 0.0);
  EXPECT_EQ(dx.cwiseAbs().maxCoeff(), 0.0);
  double lambda = 0.0;
  xpbd_project<4>(c, g, w, 1e-3, &lambda, ConstraintSense::Unilateral, &dx);
  EXPECT_EQ(lambda, 0.0);
  EXPECT_EQ(dx.cwiseAbs().maxCoeff(), 0.0);
  // Static obstacle, same rule.
  Vec3 p(0.0, -0.02, 0.0), gp;
  const double cs = static_obstacle_constraint(p, Vec3::Zero(), Vec3(0, 1, 0), 0.01, &gp);
  Stencil3<1> d1;
  pbd_project<1>(cs, Stencil3<1>(gp), VecN<1>(2.0), 1.0, ConstraintSense::Unilateral, &d1);
  EXPECT_NEAR(p.y() + d1(1), 0.01, 1e-17);
}

// XPBD, one distance constraint between a pinned particle at the origin and a particle of
// mass m at rest at (0, -L, 0), one step h under gravity: x~ = (0, -L - h^2 g, 0). With
// grad_1 C = (0, -1, 0) the step's equations (implicit Euler of the spring k = 1/alpha)
//   y - y~ = -w lambda,  C + alpha~ lambda = 0,  C = -y - L
// give y = (alpha~ y~ - w L) / (alpha~ + w), lambda = (y + L) / alpha~, and lambda / h^2 =
// -k C is the spring force.
TEST(ConstraintProjection, XpbdMultiplierHandComputed) {
  const double L = 1.0, m = 2.0, w1 = 1.0 / m, h = 0.01, alpha = 1e-3, g = 9.81;
  const double at = alpha / (h * h);
  const double yt = -L - h * h * g;
  const double y_want = (at * yt - w1 * L) / (at + w1);
  const double lambda_want = (y_want + L) / at;
  Stencil3<2> x, grad, dx;
  x << 0, 0, 0, yt, 0, 0;
  double lambda = 0.0;
  for (int it = 0; it < 3; ++it) {
    const double c = distance_constraint(x, L, &grad);
    xpbd_project<2>(c, grad, Vec2(0.0, w1), at, &lambda, ConstraintSense::Equality, &dx);
    x += dx;
  }
  EXPECT_NEAR(x(1, 1), y_want, 1e-15);
  EXPECT_NEAR(lambda, lambda_want, 1e-18);
  const double C = distance_constraint(x, L, nullptr);
  EXPECT_NEAR(lambda / (h * h), -C / alpha, 1e-12);  // the spring force of stiffness 1/alpha
  std::printf("xpbd one step: y = %.15g (hand %.15g), lambda = %.6e (hand %.6e)\n", x(1, 1), y_want,
              lambda, lambda_want);
}

// Two free particles of unequal mass pulled apart by a constant force f along a skew
// direction u; XPBD steps (velocities from positions, multipliers reset each step) settle,
// by implicit Euler's damping, at the static equilibrium, where the converged multiplier
// equals the spring force: lambda / h^2 = -f and C = f alpha.
TEST(ConstraintProjection, XpbdConvergedMultiplierIsSpringForce) {
  const Vec3 u = Vec3(1, 2, -2) / 3.0;
  const double L = 0.5, f = 3.0, alpha = 1e-3, h = 1.0 / 60, m0 = 1.0, m1 = 3.0;
  const Vec2 w(1.0 / m0, 1.0 / m1);
  const double at = alpha / (h * h);
  Stencil3<2> x, v = Stencil3<2>::Zero(), grad, dx;
  x.col(0) = Vec3(0.1, 0.2, 0.3);
  x.col(1) = x.col(0) + L * u;
  double lambda = 0.0;
  for (int step = 0; step < 1500; ++step) {
    Stencil3<2> p = x + h * v;
    p.col(0) += h * h * w(0) * (-f * u);
    p.col(1) += h * h * w(1) * (f * u);
    lambda = 0.0;
    for (int it = 0; it < 4; ++it) {
      const double c = distance_constraint(p, L, &grad);
      xpbd_project<2>(c, grad, w, at, &lambda, ConstraintSense::Equality, &dx);
      p += dx;
    }
    v = (p - x) / h;
    x = p;
  }
  const double C = distance_constraint(x, L, nullptr);
  EXPECT_NEAR(lambda / (h * h), -f, 1e-9 * f);
  EXPECT_NEAR(C, f * alpha, 1e-9 * f * alpha);
  EXPECT_NEAR(((x.col(1) - x.col(0)).normalized() - u).norm(), 0.0, 1e-12);
  std::printf("xpbd equilibrium: lambda/h^2 = %.12g (force -%g), stretch = %.12g (f alpha = %g)\n",
              lambda / (h * h), f, C, f * alpha);
}

}  // namespace
}  // namespace weft
