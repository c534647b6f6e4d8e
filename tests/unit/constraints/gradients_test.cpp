// Every constraint's gradient against central finite differences of C, on random
// configurations and near-degenerate ones (nearly flat and nearly folded hinges, nearly
// collinear rods, thin triangles, zero-volume starts).
#include <gtest/gtest.h>

#include "constraint_test_util.hpp"
#include "constraints/collision.hpp"
#include "constraints/dihedral_bending.hpp"
#include "constraints/distance.hpp"
#include "constraints/edge_strain_limit.hpp"
#include "constraints/isometric_bending.hpp"
#include "constraints/pressure.hpp"
#include "constraints/rod_bending.hpp"

namespace weft {
namespace {

using test::check_gradient;

TEST(ConstraintGradients, Distance) {
  std::mt19937 rng(1);
  auto f = [](double L) {
    return [L](const Stencil3<2>& x, Stencil3<2>* g) { return distance_constraint(x, L, g); };
  };
  for (int k = 0; k < 20; ++k) check_gradient<2>(f(0.7), test::random_stencil<2>(rng));
  // Nearly coincident points: |x1 - x0| = 1e-6, the step well below it.
  Stencil3<2> x;
  x << 0.3, 0.3 + 6e-7, -0.2, -0.2 + 8e-7, 0.1, 0.1;
  check_gradient<2>(f(1.0), x, 1e-10, 1e-5);
}

TEST(ConstraintGradients, EdgeStrainLimit) {
  auto f = [](const Stencil3<2>& x, Stencil3<2>* g) {
    return edge_strain_limit_constraint(x, 2.0, 0.9, 1.1, g);
  };
  Stencil3<2> x;
  for (double len : {1.0, 1.7, 2.5, 4.0}) {  // compressed, compressed, stretched, stretched
    x << 0, len * 0.6, 1, 1 + len * 0.8, 2, 2;
    check_gradient<2>(f, x);
  }
  // Inside the interval C = 0 identically and the gradient is zero.
  x << 0, 2.0 * 0.6, 0, 2.0 * 0.8, 0, 0;
  Stencil3<2> g;
  EXPECT_EQ(f(x, &g), 0.0);
  EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
}

auto dihedral_fn(double psi0) {
  return [psi0](const Stencil3<4>& x, Stencil3<4>* g) {
    return dihedral_bending_constraint(x, {psi0}, g);
  };
}

TEST(ConstraintGradients, DihedralRandom) {
  std::mt19937 rng(2);
  for (int k = 0; k < 30; ++k) {
    const Stencil3<4> x = test::random_stencil<4>(rng);
    // Keep away from the one discontinuity, psi - psi0 = +-pi.
    check_gradient<4>(dihedral_fn(signed_dihedral_angle(x, nullptr) - 0.4), x, 1e-6, 1e-6);
  }
}

TEST(ConstraintGradients, DihedralNearlyFlatAndFlat) {
  // The paper's acos form has a kink here; the signed angle is smooth through flat.
  for (double psi : {0.0, 1e-9, -1e-9, 1e-5, -1e-5}) {
    check_gradient<4>(dihedral_fn(0.0), test::hinge_at(psi), 1e-6, 1e-7);
    check_gradient<4>(dihedral_fn(0.3), test::hinge_at(psi, 1.7, -0.4), 1e-6, 1e-7);
  }
}

TEST(ConstraintGradients, DihedralNearlyFoldedShut) {
  // psi passes through +-pi (atan2 wraps); with a folded rest angle C stays continuous.
  for (double psi : {M_PI, M_PI - 1e-6, -M_PI + 1e-6, M_PI - 0.01})
    check_gradient<4>(dihedral_fn(M_PI - 0.2), test::hinge_at(psi, 0.5, 0.8), 1e-7, 1e-6);
}

TEST(ConstraintGradients, DihedralThinWing) {
  // Wing x2 at height 1e-3 over the edge: gradient ~ 1e3, still exact.
  Stencil3<4> x = test::hinge_at(0.7);
  x.col(2) = Vec3(0.4, 1e-3 * std::cos(0.7), -1e-3 * std::sin(0.7));
  check_gradient<4>(dihedral_fn(0.1), x, 1e-8, 1e-5);
}

TEST(ConstraintGradients, IsometricBending) {
  std::mt19937 rng(3);
  for (int k = 0; k < 20; ++k) {
    const IsometricBendingRest r = make_isometric_bending_rest(test::hinge_at(0.0, 0.4, 0.6));
    const Stencil3<4> x = test::random_stencil<4>(rng);
    check_gradient<4>([&](const Stencil3<4>& y, Stencil3<4>* g) { return isometric_bending_constraint(y, r, g); }, x);
    check_gradient<4>([&](const Stencil3<4>& y, Stencil3<4>* g) { return isometric_bending_xpbd_constraint(y, r, g); }, x);
  }
  // Nearly flat: C ~ 1e-12, gradient ~ 1e-6.
  const IsometricBendingRest r = make_isometric_bending_rest(test::hinge_at(0.0));
  check_gradient<4>([&](const Stencil3<4>& y, Stencil3<4>* g) { return isometric_bending_constraint(y, r, g); },
                    test::hinge_at(1e-6), 1e-6, 1e-6, 1e-12);
}

TEST(ConstraintGradients, IsometricBendingHessianIsQ) {
  // The energy's Hessian is the constant Q (x) I3 (003 eq. 5): central differences of the
  // gradient at a random point.
  std::mt19937 rng(4);
  const IsometricBendingRest r = make_isometric_bending_rest(test::hinge_at(0.0, 0.2, 0.9));
  const Mat4 Q = r.Q();
  const Stencil3<4> x = test::random_stencil<4>(rng);
  const double h = 1e-5;
  for (int j = 0; j < 4; ++j)
    for (int d = 0; d < 3; ++d) {
      Stencil3<4> xp = x, xm = x, gp, gm;
      xp(d, j) += h;
      xm(d, j) -= h;
      isometric_bending_constraint(xp, r, &gp);
      isometric_bending_constraint(xm, r, &gm);
      const Stencil3<4> col = (gp - gm) / (2 * h);
      for (int i = 0; i < 4; ++i)
        for (int e = 0; e < 3; ++e)
          EXPECT_NEAR(col(e, i), e == d ? Q(i, j) : 0.0, 1e-8 * Q.cwiseAbs().maxCoeff());
    }
}

TEST(ConstraintGradients, ThreePointRodBending) {
  std::mt19937 rng(5);
  for (int k = 0; k < 20; ++k) {
    const Stencil3<3> X = test::random_stencil<3>(rng), x = test::random_stencil<3>(rng);
    const ThreePointBendRest r = make_three_point_bend_rest(X);
    check_gradient<3>([&](const Stencil3<3>& y, Stencil3<3>* g) { return three_point_bending_constraint(y, r, g); }, x);
  }
  // Nearly collinear: turning angle 1e-5, |x1 - c| ~ 3e-6, step far below it.
  Stencil3<3> x;
  x << -1, 0, 1, 0, 0, 1e-5, 0, 0, 0;
  check_gradient<3>([](const Stencil3<3>& y, Stencil3<3>* g) { return three_point_bending_constraint(y, {0.0}, g); },
                    x, 1e-10, 1e-5);
}

// A closed octahedron, outward triangles.
Eigen::Matrix3Xd octahedron() {
  Eigen::Matrix3Xd x(3, 6);
  x << 1, -1, 0, 0, 0, 0,  //
      0, 0, 1, -1, 0, 0,   //
      0, 0, 0, 0, 1, -1;
  return x;
}
const std::vector<Tri> kOctaTris = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                    {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};

TEST(ConstraintGradients, Pressure) {
  std::mt19937 rng(6);
  auto f = [](double target) {
    return [target](const Eigen::Matrix3Xd& x, Eigen::Matrix3Xd* g) {
      return pressure_constraint(x, kOctaTris, target, g);
    };
  };
  for (int k = 0; k < 10; ++k) {
    Eigen::Matrix3Xd x = octahedron();
    for (int i = 0; i < 6; ++i) x.col(i) += test::random_vec(rng, 0.3);
    check_gradient<Eigen::Dynamic>(f(4.0), x, 1e-6, 1e-8);
  }
  // Zero-volume start: the octahedron squashed flat (z = 0) has C = -target and a
  // nonzero gradient.
  Eigen::Matrix3Xd flat = octahedron();
  flat.row(2).setZero();
  flat(0, 4) = 0.1;
  flat(1, 5) = -0.2;
  EXPECT_NEAR(closed_mesh_volume6(flat, kOctaTris), 0.0, 1e-15);
  Eigen::Matrix3Xd g;
  pressure_constraint(flat, kOctaTris, 8.0, &g);
  EXPECT_GT(g.norm(), 1.0);
  check_gradient<Eigen::Dynamic>(f(8.0), flat, 1e-6, 1e-8);
}

// A collision constraint's gradient at 20 random stencils and at one near-degenerate one,
// for both sides.
template <class F>
void check_collision_gradient(F&& constraint, unsigned seed, const Stencil3<4>& hard) {
  std::mt19937 rng(seed);
  for (int side : {1, -1}) {
    for (int k = 0; k < 20; ++k)
      check_gradient<4>([&](const Stencil3<4>& y, Stencil3<4>* g) { return constraint(y, 0.05, side, g); },
                        test::random_stencil<4>(rng), 1e-6, 1e-6);
    check_gradient<4>([&](const Stencil3<4>& y, Stencil3<4>* g) { return constraint(y, 0.01, side, g); }, hard,
                      1e-9, 1e-5);
  }
}

TEST(ConstraintGradients, PointTriangleCollision) {
  // Hard case: the point nearly in the plane, and a thin triangle (height 1e-4).
  Stencil3<4> x;
  x << 0.3, 0, 1, 0.2,  //
      0.2, 0, 0, 1e-4,  //
      1e-9, 0, 0.1, 0;
  check_collision_gradient(point_triangle_collision_constraint, 7, x);
}

TEST(ConstraintGradients, EdgeEdgeCollision) {
  // Hard case: nearly touching, nearly parallel (5 degrees) edges.
  Stencil3<4> x;
  x << 0, 1, 0, 0.9962,  //
      0, 0, 1e-9, 1e-9,  //
      0, 0, 0.2, 0.2 + 0.0872;
  check_collision_gradient(edge_edge_collision_constraint, 8, x);
}

TEST(ConstraintGradients, StaticObstacle) {
  const Vec3 qc(0.1, 0.2, 0.3), nc = Vec3(1, 2, 2) / 3.0;
  check_gradient<1>([&](const Stencil3<1>& p, Stencil3<1>* g) {
    Vec3 gv;
    const double c = static_obstacle_constraint(p.col(0), qc, nc, 0.01, g ? &gv : nullptr);
    if (g) g->col(0) = gv;
    return c;
  }, Stencil3<1>(Vec3(0.5, -0.4, 0.9)));
}

}  // namespace
}  // namespace weft
