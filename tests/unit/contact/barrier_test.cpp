// Log barrier, its thickness-offset form, the per-pair barrier potentials and adaptive kappa.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <cmath>
#include <random>

#include "contact/adaptive_kappa.hpp"
#include "contact/barrier.hpp"
#include "contact/mollifier.hpp"
#include "contact/pair_potential.hpp"
#include "fd_util.hpp"

using namespace weft;
using namespace weft::test;

TEST(Barrier, ScalarDerivatives) {
  const double dhat = 0.3;
  for (double d : {1e-4, 0.01, 0.1, 0.2, 0.29}) {
    const double h = 1e-7 * d;
    EXPECT_NEAR(barrier_first_derivative(d, dhat), (barrier(d + h, dhat) - barrier(d - h, dhat)) / (2 * h),
                1e-6 * std::max(1.0, std::abs(barrier_first_derivative(d, dhat))));
    EXPECT_NEAR(barrier_second_derivative(d, dhat),
                (barrier_first_derivative(d + h, dhat) - barrier_first_derivative(d - h, dhat)) / (2 * h),
                1e-5 * std::max(1.0, barrier_second_derivative(d, dhat)));
    EXPECT_GT(barrier(d, dhat), 0.0);
    EXPECT_LT(barrier_first_derivative(d, dhat), 0.0);
    EXPECT_GT(barrier_second_derivative(d, dhat), 0.0);
  }
  // C^2-ish at dhat, zero beyond, infinite at contact.
  EXPECT_EQ(barrier(dhat, dhat), 0.0);
  EXPECT_EQ(barrier(2 * dhat, dhat), 0.0);
  EXPECT_NEAR(barrier(dhat * (1 - 1e-9), dhat), 0.0, 1e-20);
  EXPECT_NEAR(barrier_first_derivative(dhat * (1 - 1e-9), dhat), 0.0, 1e-9);
  EXPECT_TRUE(std::isinf(barrier(0.0, dhat)));
  EXPECT_TRUE(std::isinf(barrier(-1.0, dhat)));
  // Hand value: b(dhat/e, dhat) = (dhat - dhat/e)^2.
  EXPECT_DOUBLE_EQ(barrier(dhat / M_E, dhat), std::pow(dhat - dhat / M_E, 2));
}

TEST(Barrier, OffsetFormEq12) {
  const double xi = 1e-3, dhat = 2e-3;
  EXPECT_DOUBLE_EQ(offset_barrier_threshold(xi, dhat), 2 * xi * dhat + dhat * dhat);
  // Diverges at d = xi, vanishes from d = xi + dhat on.
  EXPECT_TRUE(std::isinf(offset_barrier(xi * xi, xi, dhat)));
  EXPECT_EQ(offset_barrier(std::pow(xi + dhat, 2) * (1 + 1e-12), xi, dhat), 0.0);
  EXPECT_GT(offset_barrier(std::pow(xi + 0.5 * dhat, 2), xi, dhat), 0.0);
  const double d2 = std::pow(xi + 0.3 * dhat, 2);
  EXPECT_DOUBLE_EQ(offset_barrier(d2, xi, dhat), barrier(d2 - xi * xi, 2 * xi * dhat + dhat * dhat));
  EXPECT_DOUBLE_EQ(offset_barrier_first_derivative(d2, xi, dhat),
                   barrier_first_derivative(d2 - xi * xi, 2 * xi * dhat + dhat * dhat));
  EXPECT_DOUBLE_EQ(offset_barrier_second_derivative(d2, xi, dhat),
                   barrier_second_derivative(d2 - xi * xi, 2 * xi * dhat + dhat * dhat));
  // Force magnitude = -d/dd (kappa b_xi(d^2)).
  const double kappa = 5.0, d = xi + 0.4 * dhat, h = 1e-9;
  const double fd = -(kappa * offset_barrier((d + h) * (d + h), xi, dhat) - kappa * offset_barrier((d - h) * (d - h), xi, dhat)) /
                    (2 * h);
  EXPECT_NEAR(barrier_force_magnitude(d * d, xi, dhat, kappa), fd, 1e-6 * std::abs(fd));
  EXPECT_EQ(barrier_force_magnitude(std::pow(xi + 2 * dhat, 2), xi, dhat, kappa), 0.0);
  EXPECT_TRUE(std::isinf(barrier_force_magnitude(0.25 * xi * xi, xi, dhat, kappa)));
  EXPECT_TRUE(std::isinf(barrier_force_magnitude(0.0, 0.0, dhat, kappa)));
}

namespace {

// A check of one pair potential: FD gradient and Hessian (unprojected), PSD after projection,
// the energy-only function agrees.
template <int N, class Full, class Energy>
void check_pair(const VecN<N>& x, const Full& full, const Energy& energy, double h, const char* what) {
  BarrierParams raw;
  auto f = [&](const VecN<N>& y) { return full(y, false).value; };
  auto g = [&](const VecN<N>& y) { return VecN<N>(full(y, false).gradient); };
  const LocalEnergy<N> e = full(x, false);
  ASSERT_TRUE(e.active) << what;
  ASSERT_TRUE(e.feasible) << what;
  EXPECT_GT(e.value, 0.0) << what;
  EXPECT_NEAR(energy(x), e.value, 1e-12 * e.value) << what;
  EXPECT_TRUE(near_rel(e.gradient, fd_gradient<N>(f, x, h), 1e-6)) << what;
  EXPECT_TRUE(near_rel(e.hessian, fd_jacobian<N>(g, x, h), 1e-5)) << what;
  const LocalEnergy<N> p = full(x, true);
  EXPECT_EQ(p.value, e.value);
  EXPECT_EQ(p.gradient, e.gradient);
  Eigen::SelfAdjointEigenSolver<MatN<N>> es(p.hessian);
  EXPECT_GE(es.eigenvalues().minCoeff(), -1e-9 * std::max(1.0, p.hessian.norm())) << what;
  // The projection only removes negative curvature: H_proj - H is PSD.
  Eigen::SelfAdjointEigenSolver<MatN<N>> ed(MatN<N>(p.hessian - e.hessian));
  EXPECT_GE(ed.eigenvalues().minCoeff(), -1e-9 * std::max(1.0, p.hessian.norm())) << what;
}

BarrierParams params(bool project) {
  BarrierParams bp;
  bp.kappa = 10.0;
  bp.dhat = 0.1;
  bp.xi = 0.05;
  bp.project_psd = project;
  return bp;
}

}  // namespace

TEST(PairPotential, PointPoint) {
  VecN<6> x;
  x << 0.1, 0.2, 0.3, 0.1 + 0.06, 0.2 + 0.05, 0.3 + 0.04;  // |d| ~ 0.088 in (xi, xi + dhat)
  check_pair<6>(
      x, [](const VecN<6>& y, bool pr) { return point_point_barrier(y.head<3>(), y.tail<3>(), params(pr)); },
      [](const VecN<6>& y) { return point_point_barrier_energy(y.head<3>(), y.tail<3>(), params(true)); }, 1e-7, "PP");
}

TEST(PairPotential, PointEdge) {
  Vec9 x;
  x << 0.4, 0.08, 0.02, 0, 0, 0, 1, 0.01, 0;
  auto P = [](const Vec9& y, int i) { return Vec3(y.segment<3>(3 * i)); };
  check_pair<9>(
      x, [&](const Vec9& y, bool pr) { return point_edge_barrier(P(y, 0), P(y, 1), P(y, 2), params(pr)); },
      [&](const Vec9& y) { return point_edge_barrier_energy(P(y, 0), P(y, 1), P(y, 2), params(true)); }, 1e-7, "PE");
}

// The rod and particle pairs (issue 17 point 2): the point-edge potential in an endpoint
// region, its typed overload (what ContactModel calls with the cached type and distance), and
// exact values with an offset: d = 1/4, xi = 1/8, dhat = 1/4 give s = d^2 - xi^2 = 3/64 and
// S = 2 xi dhat + dhat^2 = 1/8, so b = -(s - S)^2 ln(s / S) = -(5/64)^2 ln(3/8).
TEST(PairPotential, PointEdgeEndpointTypedAndExactValues) {
  Vec9 x;
  x << -0.05, 0.06, 0.01, 0, 0, 0, 1, 0.01, 0;  // closest to e0
  auto P = [](const Vec9& y, int i) { return Vec3(y.segment<3>(3 * i)); };
  ASSERT_EQ(classify_point_edge(P(x, 0), P(x, 1), P(x, 2)), PointEdgeType::P_E0);
  check_pair<9>(
      x, [&](const Vec9& y, bool pr) { return point_edge_barrier(P(y, 0), P(y, 1), P(y, 2), params(pr)); },
      [&](const Vec9& y) { return point_edge_barrier_energy(P(y, 0), P(y, 1), P(y, 2), params(true)); }, 1e-7,
      "PE endpoint");
  for (const Vec3& p : {Vec3(-0.05, 0.06, 0.01), Vec3(0.4, 0.08, 0.02), Vec3(1.03, 0.05, 0.0)}) {
    const PointEdgeType t = classify_point_edge(p, P(x, 1), P(x, 2));
    const LocalEnergy<9> a = point_edge_barrier(p, P(x, 1), P(x, 2), params(true));
    const LocalEnergy<9> b =
        point_edge_barrier(p, P(x, 1), P(x, 2), t, point_edge_distance_sq(p, P(x, 1), P(x, 2), t), params(true));
    EXPECT_EQ(a.value, b.value);
    EXPECT_EQ(a.gradient, b.gradient);
    EXPECT_EQ(a.hessian, b.hessian);
  }
  BarrierParams bp;
  bp.kappa = 1.0;
  bp.dhat = 0.25;
  bp.xi = 0.125;
  const double exact = -(5.0 / 64) * (5.0 / 64) * std::log(3.0 / 8);
  EXPECT_NEAR(point_point_barrier_energy(Vec3(0, 0, 0), Vec3(0.25, 0, 0), bp), exact, 1e-15);
  EXPECT_NEAR(point_point_barrier(Vec3(0, 0, 0), Vec3(0.25, 0, 0), bp).value, exact, 1e-15);
  EXPECT_NEAR(point_edge_barrier_energy(Vec3(0.5, 0.25, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), bp), exact, 1e-15);
  EXPECT_NEAR(point_edge_barrier(Vec3(0.5, 0.25, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), bp).value, exact, 1e-15);
  // At the offset: infeasible; at xi + dhat: inactive.
  EXPECT_TRUE(std::isinf(point_point_barrier_energy(Vec3(0, 0, 0), Vec3(0.125, 0, 0), bp)));
  EXPECT_FALSE(point_edge_barrier(Vec3(0.5, 0.125, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), bp).feasible);
  EXPECT_EQ(point_point_barrier_energy(Vec3(0, 0, 0), Vec3(0.375, 0, 0), bp), 0.0);
  EXPECT_FALSE(point_edge_barrier(Vec3(0.5, 0.375, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), bp).active);
}

TEST(PairPotential, PointTriangleFaceAndEdgeRegions) {
  Vec12 x;
  x << 0.3, 0.3, 0.09, 0, 0, 0, 1, 0, 0.01, 0, 1, -0.01;  // face region
  auto full = [](const Vec12& y, bool pr) {
    return point_triangle_barrier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), params(pr));
  };
  auto en = [](const Vec12& y) {
    return point_triangle_barrier_energy(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), params(true));
  };
  ASSERT_EQ(classify_point_triangle(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3)), PointTriangleType::P_T);
  check_pair<12>(x, full, en, 1e-7, "PT face");
  x.head<3>() = Vec3(0.5, -0.05, 0.06);  // edge region of t0-t1
  ASSERT_EQ(classify_point_triangle(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3)), PointTriangleType::P_EAB);
  check_pair<12>(x, full, en, 1e-7, "PT edge");
  x.head<3>() = Vec3(-0.05, -0.05, 0.04);  // vertex region of t0
  ASSERT_EQ(classify_point_triangle(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3)), PointTriangleType::P_A);
  check_pair<12>(x, full, en, 1e-7, "PT vertex");
}

TEST(PairPotential, EdgeEdgeCrossingAndMollified) {
  Vec12 x;
  x << -1, 0, 0, 1, 0.02, 0, 0.1, -1, 0.08, -0.05, 1, 0.09;  // crossing edges, gap ~0.085
  ASSERT_EQ(classify_edge_edge(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3)), EdgeEdgeType::EA_EB);
  const double eps_x = edge_edge_mollifier_threshold(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3));
  auto full = [eps_x](const Vec12& y, bool pr) {
    return edge_edge_barrier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), eps_x, params(pr));
  };
  auto en = [eps_x](const Vec12& y) {
    return edge_edge_barrier_energy(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), eps_x, params(true));
  };
  check_pair<12>(x, full, en, 1e-7, "EE crossing");

  // Nearly parallel edges: the mollifier is active (rest = a crossing configuration).
  Vec12 y;
  y << 0, 0, 0, 1, 0, 0, 0.3, 0.02, 0.08, 0.8, 0.025, 0.081;
  const double eps_rest = edge_edge_mollifier_threshold(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.5, -0.5, 0), Vec3(0.5, 0.5, 0));
  ASSERT_TRUE(edge_edge_mollifier_active(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), eps_rest));
  auto fullm = [eps_rest](const Vec12& z, bool pr) {
    return edge_edge_barrier(pt(z, 0), pt(z, 1), pt(z, 2), pt(z, 3), eps_rest, params(pr));
  };
  auto enm = [eps_rest](const Vec12& z) {
    return edge_edge_barrier_energy(pt(z, 0), pt(z, 1), pt(z, 2), pt(z, 3), eps_rest, params(true));
  };
  const EdgeEdgeType t = classify_edge_edge(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3));
  SCOPED_TRACE(to_string(t));
  check_pair<12>(y, fullm, enm, 1e-8, "EE mollified");
  // The mollified energy is smaller than the raw one.
  EXPECT_LT(fullm(y, true).value, edge_edge_barrier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), 0.0, params(true)).value);
}

// With obstacle points (BarrierParams::fixed_points) the projected Hessian is the
// projection of the raw Hessian's block over the free points, zero elsewhere; value and
// gradient do not change.
TEST(PairPotential, FixedPointsProjectTheFreeBlock) {
  Vec12 x;
  x << 0.3, 0.3, 0.09, 0, 0, 0, 1, 0, 0.01, 0, 1, -0.01;  // PT face region
  Vec12 y;
  y << -1, 0, 0, 1, 0.02, 0, 0.1, -1, 0.08, -0.05, 1, 0.09;  // EE crossing
  auto pt_pair = [&](unsigned fixed, bool pr) {
    BarrierParams bp = params(pr);
    bp.fixed_points = fixed;
    return point_triangle_barrier(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3), bp);
  };
  auto ee_pair = [&](unsigned fixed, bool pr) {
    BarrierParams bp = params(pr);
    bp.fixed_points = fixed;
    return edge_edge_barrier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), 0.0, bp);
  };
  // Nearly parallel edges crossing in projection, inside the mollifier's range.
  Vec12 z;
  z << -1, 0, 0, 1, 0.001, 0, -0.9, 0.1, 0.025, 0.9, 0.1, -0.025;
  auto ee_mollified = [&](unsigned fixed, bool pr) {
    BarrierParams bp = params(pr);
    bp.fixed_points = fixed;
    return edge_edge_barrier(pt(z, 0), pt(z, 1), pt(z, 2), pt(z, 3), 1e-3 * 4.0 * 3.6, bp);
  };
  ASSERT_EQ(classify_edge_edge(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)), EdgeEdgeType::EA_EB);
  ASSERT_EQ(classify_edge_edge(pt(z, 0), pt(z, 1), pt(z, 2), pt(z, 3)), EdgeEdgeType::EA_EB);
  ASSERT_TRUE(edge_edge_mollifier_active(pt(z, 0), pt(z, 1), pt(z, 2), pt(z, 3), 1e-3 * 4.0 * 3.6));
  for (int which = 0; which < 3; ++which) {
    for (unsigned fixed = 0; fixed < 16; ++fixed) {
      SCOPED_TRACE(testing::Message() << (which == 2 ? "EE mollified" : which ? "EE" : "PT") << " fixed mask " << fixed);
      auto pair = [&](unsigned f, bool pr) {
        return which == 2 ? ee_mollified(f, pr) : which ? ee_pair(f, pr) : pt_pair(f, pr);
      };
      const LocalEnergy<12> raw = pair(fixed, false);
      const LocalEnergy<12> got = pair(fixed, true);
      ASSERT_TRUE(raw.active);
      EXPECT_EQ(got.value, raw.value);
      EXPECT_EQ(got.gradient, raw.gradient);
      int free_pts[4], n = 0;
      for (int a = 0; a < 4; ++a)
        if (!((fixed >> a) & 1u)) free_pts[n++] = a;
      // Reference: the free block by the general eigen-solver.
      Eigen::MatrixXd B(3 * n, 3 * n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) B.block<3, 3>(3 * i, 3 * j) = raw.hessian.block<3, 3>(3 * free_pts[i], 3 * free_pts[j]);
      Eigen::MatrixXd P = Eigen::MatrixXd::Zero(3 * n, 3 * n);
      if (n > 0) {
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(B);
        const Eigen::VectorXd lam = es.eigenvalues().cwiseMax(0.0);
        P = es.eigenvectors() * lam.asDiagonal() * es.eigenvectors().transpose();
      }
      Mat12 want = Mat12::Zero();
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) want.block<3, 3>(3 * free_pts[i], 3 * free_pts[j]) = P.block<3, 3>(3 * i, 3 * j);
      EXPECT_LE((got.hessian - want).norm(), 1e-9 * raw.hessian.norm());
    }
  }
}

// Coordinates c + s * U(-1, 1), reproducible from the seed.
struct Jitter {
  explicit Jitter(unsigned seed) : rng(seed) {}
  double operator()(double c, double s) { return c + s * u(rng); }
  std::mt19937 rng;
  std::uniform_real_distribution<double> u{-1.0, 1.0};
};

// got against Eigen's eigenvalue clamp of B; whether B had a negative eigenvalue.
template <int N>
bool expect_clamp_of(const MatN<N>& B, const MatN<N>& got) {
  const double bn = B.norm();
  Eigen::SelfAdjointEigenSolver<MatN<N>> es(B);
  const MatN<N> want = es.eigenvectors() * es.eigenvalues().cwiseMax(0.0).asDiagonal() * es.eigenvectors().transpose();
  EXPECT_LE((got - want).norm(), 1e-9 * bn);
  return es.eigenvalues()(0) < -1e-9 * bn;
}

// An edge crossing a fixed edge, no mollifier: the free 6 x 6 block of the raw Hessian
// vanishes along the fixed edge's direction at both points and along
// z = (alpha t, -(1 - alpha) t) (pair_potential.cpp, project_line_line_one_edge_fixed: t the
// free edge's direction across the fixed one, alpha the fixed line's foot on it), and the
// projection through the remaining 3 x 3 equals the eigen-clamp of the 6 x 6 block.
TEST(PairPotential, FixedEdgeProjectionIsAThreeByThree) {
  Jitter j(7);
  int tested = 0, clamped = 0;
  for (int k = 0; k < 200 && tested < 60; ++k) {
    // Edge a along ~x, edge b along ~y, a gap in z inside xi + dhat.
    Vec12 y;
    y << j(-1, 0.3), j(0, 0.3), j(0, 0.02), j(1, 0.3), j(0, 0.3), j(0, 0.02), j(0, 0.5), j(-1, 0.3), j(0.1, 0.04),
        j(0, 0.5), j(1, 0.3), j(0.1, 0.04);
    if (classify_edge_edge(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)) != EdgeEdgeType::EA_EB) continue;
    for (const unsigned fixed : {0xCu, 0x3u}) {
      BarrierParams bp = params(false);
      bp.fixed_points = fixed;
      const LocalEnergy<12> raw = edge_edge_barrier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), 0.0, bp);
      if (!raw.active || !raw.feasible) continue;
      bp.project_psd = true;
      const LocalEnergy<12> got = edge_edge_barrier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), 0.0, bp);
      ++tested;
      const int f0 = fixed == 0xCu ? 0 : 2, g0 = 2 - f0;  // first free / first fixed point
      const MatN<6> B = raw.hessian.block<6, 6>(3 * f0, 3 * f0);
      // The predicted null directions.
      const Vec3 e = (pt(y, g0 + 1) - pt(y, g0)).normalized();
      const Vec3 p0 = pt(y, f0), p1 = pt(y, f0 + 1), c = pt(y, g0);
      auto across = [&](const Vec3& v) { return Vec3(v - v.dot(e) * e); };
      const Vec3 dq = across(p1 - p0);
      const double alpha = across(c - p0).dot(dq) / dq.squaredNorm();
      const Vec3 t = dq.normalized();
      VecN<6> z, ze0, ze1;
      z << alpha * t, -(1.0 - alpha) * t;
      ze0 << e, Vec3::Zero();
      ze1 << Vec3::Zero(), e;
      const double bn = B.norm();
      EXPECT_LE((B * z).norm(), 1e-9 * bn);
      EXPECT_LE((B * ze0).norm(), 1e-9 * bn);
      EXPECT_LE((B * ze1).norm(), 1e-9 * bn);
      clamped += expect_clamp_of<6>(B, got.hessian.block<6, 6>(3 * f0, 3 * f0));
      EXPECT_EQ((got.hessian.block<6, 6>(3 * g0, 3 * g0).norm()), 0.0);
    }
  }
  EXPECT_GE(tested, 40);
  EXPECT_GE(clamped, 10);  // the projection is exercised, not only the PSD early return
}

// The closed form of that projection (pair_potential.cpp, line_line_fixed_edge_hessian) over
// random orientations, foot parameters from near one end to near the other, short and long
// gaps, both edges in turn fixed: value and gradient are the unprojected potential's bit for
// bit, the free block is the eigen-clamp of the raw 6 x 6 block, the fixed block is zero.
TEST(PairPotential, FixedEdgeClosedFormMatchesTheProjection) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-1.0, 1.0), f(0.02, 0.98), g(0.01, 0.99);
  int tested = 0, clamped = 0;
  for (int k = 0; k < 2000 && tested < 300; ++k) {
    // A random frame: edge a along ex through the origin, edge b along a random direction in
    // the plane z = gap, crossing a's line above a point of a.
    const Mat3 R = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
    const double la = 0.5 + f(rng), lb = 0.5 + f(rng), ang = 0.2 + 2.7 * g(rng);
    const double sa = f(rng), sb = f(rng);
    const BarrierParams base = params(false);
    const double gap = base.xi + (0.02 + 0.97 * g(rng)) * base.dhat;
    const Vec3 ea0 = Vec3::Zero(), ea1(la, 0, 0);
    const Vec3 dir(std::cos(ang), std::sin(ang), 0.0);
    const Vec3 foot(sa * la, 0, gap);
    const Vec3 eb0 = foot - sb * lb * dir, eb1 = foot + (1.0 - sb) * lb * dir;
    const Vec3 shift(u(rng), u(rng), u(rng));
    const Vec3 x[4] = {R * ea0 + shift, R * ea1 + shift, R * eb0 + shift, R * eb1 + shift};
    if (classify_edge_edge(x[0], x[1], x[2], x[3]) != EdgeEdgeType::EA_EB) continue;
    for (const unsigned fixed : {0xCu, 0x3u}) {
      BarrierParams bp = base;
      bp.fixed_points = fixed;
      const LocalEnergy<12> raw = edge_edge_barrier(x[0], x[1], x[2], x[3], 0.0, bp);
      if (!raw.active || !raw.feasible) continue;
      bp.project_psd = true;
      const LocalEnergy<12> got = edge_edge_barrier(x[0], x[1], x[2], x[3], 0.0, bp);
      ++tested;
      EXPECT_EQ(got.value, raw.value);
      EXPECT_TRUE(got.gradient == raw.gradient);
      EXPECT_TRUE(got.active && got.feasible);
      const int f0 = fixed == 0xCu ? 0 : 2, g0 = 2 - f0;
      clamped += expect_clamp_of<6>(raw.hessian.block<6, 6>(3 * f0, 3 * f0), got.hessian.block<6, 6>(3 * f0, 3 * f0));
      EXPECT_EQ((got.hessian.block<6, 6>(3 * g0, 3 * g0).norm()), 0.0);
      EXPECT_EQ((got.hessian.block<6, 6>(3 * f0, 3 * g0).norm()), 0.0);
      EXPECT_EQ((got.hessian.block<6, 6>(3 * g0, 3 * f0).norm()), 0.0);
    }
  }
  EXPECT_GE(tested, 300);
  EXPECT_GE(clamped, 250);  // the zero diagonal of the reduced form: nearly always indefinite
}

// A fixed point over a free triangle (P_T): the free 9 x 9 block of the raw Hessian
// vanishes on in-plane displacements with sum_i beta_i u_i = 0 (beta: the foot's
// barycentric coordinates; pair_potential.cpp, project_plane_fixed_point), and the
// projection through the remaining 5 x 5 equals the eigen-clamp of the 9 x 9 block.
TEST(PairPotential, FixedPointPlaneProjectionIsAFiveByFive) {
  Jitter j(11);
  int tested = 0, clamped = 0;
  for (int k = 0; k < 300 && tested < 60; ++k) {
    Vec12 y;  // the point above the triangle
    y << j(0, 0.3), j(0, 0.3), j(0.1, 0.04), j(-0.8, 0.2), j(-0.6, 0.2), j(0, 0.05), j(0.9, 0.2), j(-0.5, 0.2),
        j(0, 0.05), j(0, 0.1), j(0.9, 0.2), j(0, 0.05);
    if (classify_point_triangle(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)) != PointTriangleType::P_T) continue;
    BarrierParams bp = params(false);
    bp.fixed_points = 0x1u;
    const LocalEnergy<12> raw = point_triangle_barrier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), bp);
    if (!raw.active || !raw.feasible) continue;
    bp.project_psd = true;
    const LocalEnergy<12> got = point_triangle_barrier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), bp);
    ++tested;
    const MatN<9> B = raw.hessian.block<9, 9>(3, 3);
    const Vec3 t0 = pt(y, 1), t1 = pt(y, 2), t2 = pt(y, 3), n = (t1 - t0).cross(t2 - t0).normalized();
    // Barycentric coordinates of the point's foot, by least squares on the edge vectors.
    Eigen::Matrix<double, 3, 2> E;
    E << t1 - t0, t2 - t0;
    const Vec2 b12 = E.colPivHouseholderQr().solve(Vec3(pt(y, 0) - t0));
    const double beta[3] = {1.0 - b12(0) - b12(1), b12(0), b12(1)};
    const Vec3 ex = (t1 - t0).normalized(), ey = n.cross(ex);
    const double bn = B.norm();
    for (const Vec3& dir : {ex, ey}) {  // sum_i beta_i u_i = 0: u = (beta1, -beta0, 0) dir, ...
      VecN<9> z1, z2;
      z1 << beta[1] * dir, -beta[0] * dir, Vec3::Zero();
      z2 << Vec3::Zero(), beta[2] * dir, -beta[1] * dir;
      EXPECT_LE((B * z1).norm(), 1e-9 * bn);
      EXPECT_LE((B * z2).norm(), 1e-9 * bn);
    }
    clamped += expect_clamp_of<9>(B, got.hessian.block<9, 9>(3, 3));
    EXPECT_EQ((got.hessian.block<3, 3>(0, 0).norm()), 0.0);
  }
  EXPECT_GE(tested, 40);
  EXPECT_GE(clamped, 10);  // the projection is exercised, not only the PSD early return
}

// The closed form of that projection (pair_potential.cpp, plane_fixed_point_hessian) over
// random triangles, orientations, feet anywhere inside and gaps across the support: value and
// gradient are the unprojected potential's bit for bit, the free block is the eigen-clamp of
// the raw 9 x 9 block, the fixed point's rows and columns are zero.
TEST(PairPotential, FixedPointPlaneClosedFormMatchesTheProjection) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> u(-1.0, 1.0), f(0.0, 1.0);
  int tested = 0, clamped = 0;
  for (int k = 0; k < 2000 && tested < 300; ++k) {
    const Mat3 R = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
    const Vec3 t0(0, 0, 0), t1(0.5 + f(rng), 0.3 * u(rng), 0), t2(0.4 * u(rng), 0.5 + f(rng), 0);
    double b1 = 0.02 + 0.96 * f(rng), b2 = 0.02 + 0.96 * f(rng);
    if (b1 + b2 > 0.98) b1 = 0.98 - b1, b2 = 0.98 - b2;
    const BarrierParams base = params(false);
    const double gap = (u(rng) < 0 ? -1.0 : 1.0) * (base.xi + (0.02 + 0.97 * f(rng)) * base.dhat);
    const Vec3 p = (1.0 - b1 - b2) * t0 + b1 * t1 + b2 * t2 + Vec3(0, 0, gap);
    const Vec3 shift(u(rng), u(rng), u(rng));
    const Vec3 x[4] = {R * p + shift, R * t0 + shift, R * t1 + shift, R * t2 + shift};
    if (classify_point_triangle(x[0], x[1], x[2], x[3]) != PointTriangleType::P_T) continue;
    BarrierParams bp = base;
    bp.fixed_points = 0x1u;
    const LocalEnergy<12> raw = point_triangle_barrier(x[0], x[1], x[2], x[3], bp);
    if (!raw.active || !raw.feasible) continue;
    bp.project_psd = true;
    const LocalEnergy<12> got = point_triangle_barrier(x[0], x[1], x[2], x[3], bp);
    ++tested;
    EXPECT_EQ(got.value, raw.value);
    EXPECT_TRUE(got.gradient == raw.gradient);
    EXPECT_TRUE(got.active && got.feasible);
    clamped += expect_clamp_of<9>(raw.hessian.block<9, 9>(3, 3), got.hessian.block<9, 9>(3, 3));
    EXPECT_EQ((got.hessian.block<3, 12>(0, 0).norm()), 0.0);
    EXPECT_EQ((got.hessian.block<12, 3>(0, 0).norm()), 0.0);
  }
  EXPECT_GE(tested, 300);
  EXPECT_GE(clamped, 250);  // the zero in-plane block: nearly always indefinite
}

// A free point against a fixed triangle, edge or point (pair_potential.cpp,
// free_point_barrier): over every distance type, value and gradient are the unprojected
// potential's bit for bit and the point's block is the eigen-clamp of the raw 3 x 3 block
// (rank one), the fixed points' rows and columns zero.
TEST(PairPotential, FreePointProjectionIsRankOne) {
  std::mt19937 rng(37);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Vec3 t0(0, 0, 0), t1(1, 0, 0), t2(0, 1, 0);
  int tested[3] = {0, 0, 0};
  for (int k = 0; k < 3000; ++k) {
    const BarrierParams base = params(false);
    // Points around the triangle's plane, inside its support at some distance type.
    const Vec3 q(0.5 + 0.9 * u(rng), 0.5 + 0.9 * u(rng), 0.0);
    const double reach = base.xi + base.dhat;
    const Vec3 p = q + Vec3(0.3 * reach * u(rng), 0.3 * reach * u(rng), reach * u(rng));
    BarrierParams bp = base;
    auto check = [&](const auto& raw, const auto& got, int which) {
      if (!raw.active || !raw.feasible) return;
      ++tested[which];
      EXPECT_EQ(got.value, raw.value);
      EXPECT_TRUE(got.gradient == raw.gradient);
      expect_clamp_of<3>(raw.hessian.template topLeftCorner<3, 3>(), got.hessian.template topLeftCorner<3, 3>());
      const int n = static_cast<int>(raw.gradient.size());
      EXPECT_EQ((got.hessian.bottomRows(n - 3).norm()), 0.0);
      EXPECT_EQ((got.hessian.rightCols(n - 3).norm()), 0.0);
    };
    bp.fixed_points = 0xEu;
    bp.project_psd = false;
    const LocalEnergy<12> rt = point_triangle_barrier(p, t0, t1, t2, bp);
    bp.project_psd = true;
    check(rt, point_triangle_barrier(p, t0, t1, t2, bp), 0);
    bp.fixed_points = 0x6u;
    bp.project_psd = false;
    const LocalEnergy<9> re = point_edge_barrier(p, t1, t2, bp);
    bp.project_psd = true;
    check(re, point_edge_barrier(p, t1, t2, bp), 1);
    bp.fixed_points = 0x2u;
    bp.project_psd = false;
    const LocalEnergy<6> rp = point_point_barrier(p, t0, bp);
    bp.project_psd = true;
    check(rp, point_point_barrier(p, t0, bp), 2);
  }
  EXPECT_GE(tested[0], 300);
  EXPECT_GE(tested[1], 30);
  EXPECT_GE(tested[2], 5);
}

// A fixed point against the line of a free edge (pair_potential.cpp,
// fixed_point_segment_hessian), as the point-edge distance of the point-edge, point-triangle
// and edge-edge potentials: value and gradient are the unprojected potential's bit for bit,
// the free 6 x 6 block is the eigen-clamp of the raw one, every other entry is zero.
TEST(PairPotential, FixedPointFreeSegmentClosedForm) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-1.0, 1.0), f(0.05, 0.95);
  const BarrierParams base = params(false);
  int tested[3] = {0, 0, 0}, clamped = 0;
  auto check = [&](const auto& raw, const auto& got, int i0, int i1) {
    const int n = static_cast<int>(raw.gradient.size()) / 3;
    EXPECT_EQ(got.value, raw.value);
    EXPECT_TRUE(got.gradient == raw.gradient);
    MatN<6> B, G;
    const int id[2] = {i0, i1};
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        B.block<3, 3>(3 * a, 3 * b) = raw.hessian.template block<3, 3>(3 * id[a], 3 * id[b]);
        G.block<3, 3>(3 * a, 3 * b) = got.hessian.template block<3, 3>(3 * id[a], 3 * id[b]);
      }
    clamped += expect_clamp_of<6>(B, G);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if ((a != i0 && a != i1) || (b != i0 && b != i1)) {
          EXPECT_EQ((got.hessian.template block<3, 3>(3 * a, 3 * b).norm()), 0.0);
        }
  };
  for (int k = 0; k < 3000; ++k) {
    const Mat3 R = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
    const Vec3 shift(u(rng), u(rng), u(rng));
    // Free segment along x, the point off its interior at a distance inside the support.
    const double len = 0.5 + f(rng), at = f(rng) * len, ang = 3.14159 * u(rng);
    const double gap = base.xi + (0.02 + 0.96 * f(rng)) * base.dhat;
    const Vec3 q0 = R * Vec3(0, 0, 0) + shift, q1 = R * Vec3(len, 0, 0) + shift;
    const Vec3 c = R * Vec3(at, gap * std::cos(ang), gap * std::sin(ang)) + shift;
    BarrierParams bp = base;
    switch (k % 3) {
      case 0: {  // point-edge
        if (classify_point_edge(c, q0, q1) != PointEdgeType::P_E) continue;
        bp.fixed_points = 0x1u;
        const LocalEnergy<9> raw = point_edge_barrier(c, q0, q1, bp);
        if (!raw.active || !raw.feasible) continue;
        bp.project_psd = true;
        check(raw, point_edge_barrier(c, q0, q1, bp), 1, 2);
        ++tested[0];
        break;
      }
      case 1: {  // point-triangle, the foot on edge t1 t2 (the third vertex beyond it)
        const Vec3 t0 = R * Vec3(at, -0.6, 0.0) + shift;
        const Vec3 cc = R * Vec3(at, 0.2 * gap, -gap) + shift;  // above the edge, outside the face
        if (classify_point_triangle(cc, t0, q0, q1) != PointTriangleType::P_EBC) continue;
        bp.fixed_points = 0x1u;
        const LocalEnergy<12> raw = point_triangle_barrier(cc, t0, q0, q1, bp);
        if (!raw.active || !raw.feasible) continue;
        bp.project_psd = true;
        check(raw, point_triangle_barrier(cc, t0, q0, q1, bp), 2, 3);
        ++tested[1];
        break;
      }
      default: {  // edge-edge: fixed edge b starts at c and leaves a's line
        const Vec3 away = (c - (q0 + (q1 - q0).dot(c - q0) / (q1 - q0).squaredNorm() * (q1 - q0))).normalized();
        const Vec3 eb1 = c + 0.5 * away + 0.1 * (R * Vec3(u(rng), u(rng), u(rng)));
        if (classify_edge_edge(q0, q1, c, eb1) != EdgeEdgeType::EA_EB0) continue;
        bp.fixed_points = 0xCu;
        const LocalEnergy<12> raw = edge_edge_barrier(q0, q1, c, eb1, 0.0, bp);
        if (!raw.active || !raw.feasible) continue;
        bp.project_psd = true;
        check(raw, edge_edge_barrier(q0, q1, c, eb1, 0.0, bp), 0, 1);
        ++tested[2];
        break;
      }
    }
  }
  EXPECT_GE(tested[0], 300);
  EXPECT_GE(tested[1], 100);
  EXPECT_GE(tested[2], 100);
  EXPECT_GE(clamped, 300);
}

TEST(PairPotential, InactiveAndInfeasible) {
  const BarrierParams bp = params(true);
  // Beyond xi + dhat: zero, inactive.
  LocalEnergy<6> far = point_point_barrier(Vec3(0, 0, 0), Vec3(0, 0, 0.2), bp);
  EXPECT_FALSE(far.active);
  EXPECT_EQ(far.value, 0.0);
  EXPECT_EQ(far.gradient.norm(), 0.0);
  // Within the offset: infinite energy, infeasible.
  LocalEnergy<12> in = point_triangle_barrier(Vec3(0.2, 0.2, 0.01), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), bp);
  EXPECT_FALSE(in.feasible);
  EXPECT_TRUE(std::isinf(in.value));
  EXPECT_TRUE(std::isinf(point_triangle_barrier_energy(Vec3(0.2, 0.2, 0.01), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), bp)));
  // Exactly parallel edges inside the offset: the mollifier (m = 0) must not hide infeasibility.
  const double eps_x = edge_edge_mollifier_threshold(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.5, -0.5, 0), Vec3(0.5, 0.5, 0));
  EXPECT_TRUE(std::isinf(
      edge_edge_barrier_energy(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0.01, 0), Vec3(1, 0.01, 0), eps_x, bp)));
}

TEST(AdaptiveKappa, BoundsInitialAndUpdate) {
  const double dhat = 1e-3, xi = 1e-4, mass = 0.01, diag = 2.0;
  const KappaBounds kb = barrier_stiffness_bounds(dhat, xi, mass, diag);
  EXPECT_GT(kb.min, 0.0);
  EXPECT_DOUBLE_EQ(kb.max, 100.0 * kb.min);
  // Hand formula: D0 = (xi + 1e-8 diag)^2; kappa_min = 1e11 m / (4 D0 b''(D0 - xi^2, 2 xi dhat + dhat^2)).
  const double D0 = std::pow(xi + 1e-8 * diag, 2);
  EXPECT_NEAR(kb.min, 1e11 * mass / (4 * D0 * barrier_second_derivative(D0 - xi * xi, 2 * xi * dhat + dhat * dhat)),
              1e-12 * kb.min);
  // Gradient balance: clamped into [min, max].
  EXPECT_EQ(initial_barrier_stiffness(0.0, 0.0, kb), kb.min);
  EXPECT_EQ(initial_barrier_stiffness(+1.0, 1.0, kb), kb.min);  // ratio negative
  EXPECT_DOUBLE_EQ(initial_barrier_stiffness(-3.0 * kb.min, 1.0, kb), 3.0 * kb.min);
  EXPECT_EQ(initial_barrier_stiffness(-1e3 * kb.min, 1.0, kb), kb.max);
  // Doubling only while the gap stays tiny and shrinks.
  const double eps_d = 1e-9 * diag;
  EXPECT_EQ(update_barrier_stiffness(kb.min, 0.5 * eps_d, 0.4 * eps_d, kb, diag), 2 * kb.min);
  EXPECT_EQ(update_barrier_stiffness(kb.min, 0.4 * eps_d, 0.5 * eps_d, kb, diag), kb.min);
  EXPECT_EQ(update_barrier_stiffness(kb.min, 10 * eps_d, 0.5 * eps_d, kb, diag), kb.min);
  EXPECT_EQ(update_barrier_stiffness(kb.max, 0.5 * eps_d, 0.4 * eps_d, kb, diag), kb.max);
  // dhat smaller than the reference gap: falls back to the middle of the support, still finite.
  const KappaBounds kb2 = barrier_stiffness_bounds(1e-10, 0.0, mass, 1e3);
  EXPECT_TRUE(std::isfinite(kb2.min) && kb2.min > 0);
}
