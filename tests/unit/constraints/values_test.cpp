// Exact values on hand-made configurations, the relation of the dihedral constraint to
// the paper's acos form and appendix-A gradient, and rest-data validation.
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

TEST(ConstraintValues, Distance) {
  Stencil3<2> x, g;
  x << 0, 3, 0, 4, 0, 0;  // |x1 - x0| = 5
  EXPECT_DOUBLE_EQ(distance_constraint(x, 2.0, &g), 3.0);
  EXPECT_DOUBLE_EQ(g(0, 1), 0.6);
  EXPECT_DOUBLE_EQ(g(1, 1), 0.8);
  EXPECT_EQ(g.col(0), Vec3(-g.col(1)));
  x.col(1) = x.col(0);  // coincident: no direction
  EXPECT_DOUBLE_EQ(distance_constraint(x, 2.0, &g), -2.0);
  EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
}

TEST(ConstraintValues, EdgeStrainLimit) {
  Stencil3<2> x;
  auto at = [&](double len) {
    x << 0, 0, 0, len, 0, 0;
    return edge_strain_limit_constraint(x, 2.0, 0.9, 1.1, nullptr);
  };
  EXPECT_DOUBLE_EQ(at(3.0), 3.0 - 2.2);
  EXPECT_DOUBLE_EQ(at(1.5), 1.5 - 1.8);
  EXPECT_EQ(at(2.1), 0.0);
  EXPECT_EQ(at(1.8), 0.0);  // on the bound
  EXPECT_EQ(at(2.2), 0.0);
}

TEST(ConstraintValues, DihedralAgainstRotatedWing) {
  // hinge_at(beta) rotates wing x2 by beta about the edge: psi = beta exactly, the paper's
  // phi = acos(n1.n2) = pi - |beta|, and |grad_2| = 1 / (wing height 1).
  for (double beta : {0.0, 0.3, -0.3, 1.2, 2.0, -2.9, M_PI - 1e-6}) {
    const Stencil3<4> x = test::hinge_at(beta);
    Stencil3<4> g;
    EXPECT_NEAR(signed_dihedral_angle(x, &g), beta, 1e-14) << beta;
    EXPECT_NEAR(pbd_dihedral_angle(x), M_PI - std::abs(beta), 1e-7) << beta;
    EXPECT_NEAR(g.col(2).norm(), 1.0, 1e-14);
    EXPECT_NEAR(g.col(3).norm(), 1.0, 1e-14);
    EXPECT_NEAR(dihedral_bending_constraint(x, {0.25}, nullptr), std::remainder(beta - 0.25, 2 * M_PI), 1e-14);
  }
  // Wrap: psi = 3 (near folded shut) against rest -3 is 6 - 2 pi, not 6.
  EXPECT_NEAR(dihedral_bending_constraint(test::hinge_at(3.0), {-3.0}, nullptr), 6.0 - 2 * M_PI, 1e-13);
}

// Appendix A of 001 (p1 = origin), as an independent reference: its q_i are the gradients of
// -d, d = n1.n2 (with that sign its update dx_i = -w_i sqrt(1 - d^2) (acos d - phi0) q_i /
// sum_j w_j |q_j|^2 is eq. 9), so grad phi = grad acos(d) = q_i / sqrt(1 - d^2).
Stencil3<4> appendix_grad_phi(const Stencil3<4>& x) {
  const Vec3 p2 = x.col(1) - x.col(0), p3 = x.col(2) - x.col(0), p4 = x.col(3) - x.col(0);
  const Vec3 n1 = p2.cross(p3).normalized(), n2 = p2.cross(p4).normalized();
  const double d = n1.dot(n2);
  const double l23 = p2.cross(p3).norm(), l24 = p2.cross(p4).norm();
  Stencil3<4> q;
  q.col(2) = (p2.cross(n2) + n1.cross(p2) * d) / l23;
  q.col(3) = (p2.cross(n1) + n2.cross(p2) * d) / l24;
  q.col(1) = -(p3.cross(n2) + n1.cross(p3) * d) / l23 - (p4.cross(n1) + n2.cross(p4) * d) / l24;
  q.col(0) = -q.col(1) - q.col(2) - q.col(3);
  return q / std::sqrt(1 - d * d);
}

TEST(ConstraintValues, DihedralGradientMatchesPaperAppendix) {
  // Away from flat and folded (where the appendix is 0 * infinity), grad phi = -sign(psi) grad psi.
  std::mt19937 rng(11);
  int tested = 0;
  for (int k = 0; k < 50; ++k) {
    const Stencil3<4> x = test::random_stencil<4>(rng);
    Stencil3<4> g;
    const double psi = signed_dihedral_angle(x, &g);
    if (std::abs(psi) < 0.05 || std::abs(psi) > M_PI - 0.05) continue;
    const Stencil3<4> ref = appendix_grad_phi(x);
    EXPECT_LE((ref + (psi > 0 ? 1.0 : -1.0) * g).cwiseAbs().maxCoeff(), 1e-9 * ref.cwiseAbs().maxCoeff());
    ++tested;
  }
  EXPECT_GT(tested, 30);
}

TEST(ConstraintValues, DihedralRestValidation) {
  EXPECT_NEAR(make_dihedral_rest(test::hinge_at(0.4)).psi0, 0.4, 1e-15);
  Stencil3<4> bad = test::hinge_at(0.4);
  bad.col(2) = Vec3(0.5, 0, 0);  // wing on the edge line
  EXPECT_THROW(make_dihedral_rest(bad), InputError);
  Stencil3<4> g;
  signed_dihedral_angle(bad, &g);
  EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
}

TEST(ConstraintValues, IsometricBending) {
  // Rest hinge: x0 = 0, x1 = (1,0,0), x2 = (0.5,1,0), x3 = (0.3,-1,0): cot weights
  // c01 = c03 = 0.5, c02 = 0.3, c04 = 0.7, so K = (1.2, 0.8, -1, -1); areas 0.5 + 0.5.
  const IsometricBendingRest r = make_isometric_bending_rest(test::hinge_at(0.0));
  EXPECT_NEAR((r.K - Vec4(1.2, 0.8, -1.0, -1.0)).cwiseAbs().maxCoeff(), 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(r.scale, 3.0);
  // Bending the wing by beta: K x = (0, 1 - cos beta, sin beta), C = 3/2 * 4 sin^2(beta/2).
  for (double beta : {0.1, 0.5, 1.5, 3.0}) {
    const Stencil3<4> x = test::hinge_at(beta);
    const double c = isometric_bending_constraint(x, r, nullptr);
    EXPECT_NEAR(c, 6.0 * std::pow(std::sin(beta / 2), 2), 1e-14);
    // Eq. 5 spelled out: 1/2 sum_ij Q_ij x_i . x_j.
    const Mat4 Q = r.Q();
    double sum = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) sum += 0.5 * Q(i, j) * x.col(i).dot(x.col(j));
    EXPECT_NEAR(c, sum, 1e-13);
    EXPECT_NEAR(isometric_bending_xpbd_constraint(x, r, nullptr), std::sqrt(2 * c), 1e-14);
  }
  // Zero for the rest hinge under any rigid motion.
  std::mt19937 rng(12);
  for (int k = 0; k < 5; ++k) {
    const Stencil3<4> x = test::rigidly_moved<4>(test::hinge_at(0.0), rng);
    EXPECT_NEAR(isometric_bending_constraint(x, r, nullptr), 0.0, 1e-28 + 1e-30);
  }
  Stencil3<4> bad = test::hinge_at(0.0);
  bad.col(3) = Vec3(2, 0, 0);
  EXPECT_THROW(make_isometric_bending_rest(bad), InputError);
}

TEST(ConstraintValues, ThreePointRodBending) {
  Stencil3<3> x;
  x << 0, 1, 2, 0, 1, 0, 0, 0, 0;  // c = (1, 1/3, 0), x1 - c = (0, 2/3, 0)
  Stencil3<3> g;
  EXPECT_NEAR(three_point_bending_constraint(x, {0.0}, &g), 2.0 / 3.0, 1e-15);
  EXPECT_NEAR((g.col(1) - Vec3(0, 2.0 / 3.0, 0)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((g.col(0) - Vec3(0, -1.0 / 3.0, 0)).norm(), 0.0, 1e-15);
  // Equal segments l with turning angle phi: |x1 - c| = (2 l / 3) sin(phi / 2).
  for (double phi : {0.0, 0.2, 1.0, 2.5}) {
    const double l = 0.7;
    x.col(1) = Vec3(0, 0, 0);
    x.col(0) = Vec3(-l, 0, 0);
    x.col(2) = l * Vec3(std::cos(phi), std::sin(phi), 0);
    EXPECT_NEAR(make_three_point_bend_rest(x).h0, 2 * l / 3 * std::sin(phi / 2), 1e-15);
  }
  x.col(2) = x.col(1);
  EXPECT_THROW(make_three_point_bend_rest(x), InputError);
}

TEST(ConstraintValues, PressureVolume) {
  // Unit cube, outward triangles: the sum is 6 x volume = 6, whatever the translation.
  Eigen::Matrix3Xd x(3, 8);
  for (int i = 0; i < 8; ++i) x.col(i) = Vec3(i & 1, (i >> 1) & 1, (i >> 2) & 1);
  const std::vector<Tri> cube = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                 {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  EXPECT_NEAR(closed_mesh_volume6(x, cube), 6.0, 1e-14);
  x.colwise() += Vec3(3.0, -7.0, 11.0);
  EXPECT_NEAR(closed_mesh_volume6(x, cube), 6.0, 1e-12);
  // k_pressure 1.5: C = 6 - 1.5 * 6.
  EXPECT_NEAR(pressure_constraint(x, cube, 1.5 * 6.0, nullptr), -3.0, 1e-12);
  // Tetrahedron (0, e1, e2, e3): 6 V = 1; the single-triangle term is the triple product.
  Stencil3<3> t, g;
  t << 1, 0, 0, 0, 1, 0, 0, 0, 1;
  EXPECT_DOUBLE_EQ(triangle_volume_term(t, &g), 1.0);
  EXPECT_EQ(g.col(0), Vec3(1, 0, 0));  // e2 x e3
}

TEST(ConstraintValues, Collision) {
  Stencil3<4> x, g;
  x.col(0) = Vec3(0.2, 0.2, 0.3);  // q
  x.col(1) = Vec3(0, 0, 0);
  x.col(2) = Vec3(1, 0, 0);
  x.col(3) = Vec3(0, 1, 0);  // normal +z
  EXPECT_NEAR(point_triangle_collision_constraint(x, 0.1, +1, &g), 0.2, 1e-15);
  EXPECT_EQ(g.col(0), Vec3(0, 0, 1));
  EXPECT_NEAR(g.rowwise().sum().norm(), 0.0, 1e-15);  // translation free
  EXPECT_NEAR(point_triangle_collision_constraint(x, 0.1, -1, &g), -0.4, 1e-15);
  EXPECT_EQ(g.col(0), Vec3(0, 0, -1));
  // Degenerate triangle: C = -h, no gradient.
  x.col(3) = Vec3(2, 0, 0);
  EXPECT_EQ(point_triangle_collision_constraint(x, 0.1, 1, &g), -0.1);
  EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
  // Edge-edge: a along x at z = 0.3, b along y through the origin: N = x cross y = +z, r = a0
  // - b0 = (-0.5, -0.5, 0.3) - (0, -0.5, 0) so the lines are 0.3 apart, a above b.
  x.col(0) = Vec3(-0.5, -0.5, 0.3);
  x.col(1) = Vec3(0.5, -0.5, 0.3);
  x.col(2) = Vec3(0, -0.5, 0);
  x.col(3) = Vec3(0, 0.5, 0);
  EXPECT_NEAR(edge_edge_collision_constraint(x, 0.1, +1, &g), 0.2, 1e-15);
  // Closest points: a's midpoint over b's start (s = 1/2, t = 0): the gradient splits the
  // push by those weights, +z on a, -z on b.
  EXPECT_NEAR((g.col(0) - Vec3(0, 0, 0.5)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((g.col(1) - Vec3(0, 0, 0.5)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((g.col(2) - Vec3(0, 0, -1)).norm(), 0.0, 1e-15);
  EXPECT_NEAR(g.col(3).norm(), 0.0, 1e-15);
  double s = 0, t = 0;
  ASSERT_TRUE(edge_edge_line_parameters(x.col(0), x.col(1), x.col(2), x.col(3), &s, &t));
  EXPECT_DOUBLE_EQ(s, 0.5);
  EXPECT_DOUBLE_EQ(t, 0.0);
  EXPECT_NEAR(edge_edge_collision_constraint(x, 0.1, -1, &g), -0.4, 1e-15);
  // Swapping the edges leaves the signed distance unchanged (r and N both flip).
  Stencil3<4> y;
  y << x.col(2), x.col(3), x.col(0), x.col(1);
  EXPECT_NEAR(edge_edge_collision_constraint(y, 0.1, +1, nullptr), 0.2, 1e-15);
  // Parallel edges: no common normal, C = -h and no gradient.
  x.col(3) = Vec3(1, -0.5, 0);
  EXPECT_EQ(edge_edge_collision_constraint(x, 0.1, 1, &g), -0.1);
  EXPECT_EQ(g.cwiseAbs().maxCoeff(), 0.0);
  EXPECT_FALSE(edge_edge_line_parameters(x.col(0), x.col(1), x.col(2), x.col(3), &s, &t));
  Vec3 gp;
  EXPECT_DOUBLE_EQ(static_obstacle_constraint(Vec3(1, 2, 3), Vec3(0, 0, 1), Vec3(0, 0, 1), 0.5, &gp), 1.5);
  EXPECT_EQ(gp, Vec3(0, 0, 1));
}

}  // namespace
}  // namespace weft
