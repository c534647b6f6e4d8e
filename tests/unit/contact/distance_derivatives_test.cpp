// Finite-difference checks of the analytic gradients and Hessians of every distance
// kernel, every dispatched distance type, and the edge-edge mollifier.
#include <gtest/gtest.h>

#include "contact/distance_type.hpp"
#include "contact/edge_edge.hpp"
#include "contact/mollifier.hpp"
#include "contact/point_edge.hpp"
#include "contact/point_point.hpp"
#include "contact/point_triangle.hpp"
#include "fd_util.hpp"

using namespace weft;
using namespace weft::test;

namespace {
constexpr double kH = 1e-6;
constexpr double kTolG = 1e-7;
constexpr double kTolH = 1e-6;
}  // namespace

TEST(DistanceDerivatives, PointPoint) {
  std::mt19937 rng(1);
  for (int k = 0; k < 20; ++k) {
    const VecN<6> x = random_vec<6>(rng);
    auto f = [](const VecN<6>& y) { return point_point_distance_sq(y.head<3>(), y.tail<3>()); };
    auto g = [](const VecN<6>& y) { return point_point_distance_sq_gradient(y.head<3>(), y.tail<3>()); };
    EXPECT_TRUE(near_rel(g(x), fd_gradient<6>(f, x, kH), kTolG));
    EXPECT_TRUE(near_rel(point_point_distance_sq_hessian(x.head<3>(), x.tail<3>()), fd_jacobian<6>(g, x, kH), kTolH));
  }
}

TEST(DistanceDerivatives, PointLine) {
  std::mt19937 rng(2);
  for (int k = 0; k < 50; ++k) {
    const Vec9 x = random_vec<9>(rng);
    auto P = [](const Vec9& y, int i) { return Vec3(y.segment<3>(3 * i)); };
    auto f = [&](const Vec9& y) { return point_line_distance_sq(P(y, 0), P(y, 1), P(y, 2)); };
    auto g = [&](const Vec9& y) { return point_line_distance_sq_gradient(P(y, 0), P(y, 1), P(y, 2)); };
    EXPECT_TRUE(near_rel(g(x), fd_gradient<9>(f, x, kH), kTolG)) << k;
    EXPECT_TRUE(near_rel(point_line_distance_sq_hessian(P(x, 0), P(x, 1), P(x, 2)), fd_jacobian<9>(g, x, kH), kTolH))
        << k;
  }
}

TEST(DistanceDerivatives, PointPlane) {
  std::mt19937 rng(3);
  for (int k = 0; k < 50; ++k) {
    const Vec12 x = random_vec<12>(rng);
    auto f = [](const Vec12& y) { return point_plane_distance_sq(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)); };
    auto g = [](const Vec12& y) { return point_plane_distance_sq_gradient(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)); };
    EXPECT_TRUE(near_rel(g(x), fd_gradient<12>(f, x, kH), kTolG)) << k;
    EXPECT_TRUE(near_rel(point_plane_distance_sq_hessian(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3)),
                         fd_jacobian<12>(g, x, kH), kTolH))
        << k;
  }
}

TEST(DistanceDerivatives, LineLine) {
  std::mt19937 rng(4);
  for (int k = 0; k < 50; ++k) {
    const Vec12 x = random_vec<12>(rng);
    auto f = [](const Vec12& y) { return line_line_distance_sq(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)); };
    auto g = [](const Vec12& y) { return line_line_distance_sq_gradient(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)); };
    EXPECT_TRUE(near_rel(g(x), fd_gradient<12>(f, x, kH), kTolG)) << k;
    EXPECT_TRUE(near_rel(line_line_distance_sq_hessian(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3)),
                         fd_jacobian<12>(g, x, kH), kTolH))
        << k;
  }
}

TEST(DistanceDerivatives, PointTriangleEveryType) {
  std::mt19937 rng(5);
  const PointTriangleType types[] = {PointTriangleType::P_A,   PointTriangleType::P_B,   PointTriangleType::P_C,
                                     PointTriangleType::P_EAB, PointTriangleType::P_EBC, PointTriangleType::P_ECA,
                                     PointTriangleType::P_T};
  for (PointTriangleType t : types) {
    for (int k = 0; k < 10; ++k) {
      const Vec12 x = random_vec<12>(rng);
      auto f = [t](const Vec12& y) { return point_triangle_distance_sq(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), t); };
      auto g = [t](const Vec12& y) {
        return point_triangle_distance_sq_gradient(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), t);
      };
      EXPECT_TRUE(near_rel(g(x), fd_gradient<12>(f, x, kH), kTolG)) << to_string(t);
      EXPECT_TRUE(near_rel(point_triangle_distance_sq_hessian(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3), t),
                           fd_jacobian<12>(g, x, kH), kTolH))
          << to_string(t);
    }
  }
}

TEST(DistanceDerivatives, EdgeEdgeEveryType) {
  std::mt19937 rng(6);
  const EdgeEdgeType types[] = {EdgeEdgeType::EA0_EB0, EdgeEdgeType::EA0_EB1, EdgeEdgeType::EA1_EB0,
                                EdgeEdgeType::EA1_EB1, EdgeEdgeType::EA_EB0,  EdgeEdgeType::EA_EB1,
                                EdgeEdgeType::EA0_EB,  EdgeEdgeType::EA1_EB,  EdgeEdgeType::EA_EB};
  for (EdgeEdgeType t : types) {
    for (int k = 0; k < 10; ++k) {
      const Vec12 x = random_vec<12>(rng);
      auto f = [t](const Vec12& y) { return edge_edge_distance_sq(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), t); };
      auto g = [t](const Vec12& y) {
        return edge_edge_distance_sq_gradient(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), t);
      };
      EXPECT_TRUE(near_rel(g(x), fd_gradient<12>(f, x, kH), kTolG)) << to_string(t);
      EXPECT_TRUE(near_rel(edge_edge_distance_sq_hessian(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3), t),
                           fd_jacobian<12>(g, x, kH), kTolH))
          << to_string(t);
    }
  }
}

TEST(DistanceDerivatives, PointEdgeEveryType) {
  std::mt19937 rng(8);
  for (PointEdgeType t : {PointEdgeType::P_E0, PointEdgeType::P_E1, PointEdgeType::P_E}) {
    for (int k = 0; k < 10; ++k) {
      const Vec9 x = random_vec<9>(rng);
      auto P = [](const Vec9& y, int i) { return Vec3(y.segment<3>(3 * i)); };
      auto f = [&](const Vec9& y) { return point_edge_distance_sq(P(y, 0), P(y, 1), P(y, 2), t); };
      auto g = [&](const Vec9& y) { return point_edge_distance_sq_gradient(P(y, 0), P(y, 1), P(y, 2), t); };
      EXPECT_TRUE(near_rel(g(x), fd_gradient<9>(f, x, kH), kTolG)) << to_string(t);
      EXPECT_TRUE(near_rel(point_edge_distance_sq_hessian(P(x, 0), P(x, 1), P(x, 2), t), fd_jacobian<9>(g, x, kH),
                           kTolH))
          << to_string(t);
    }
  }
}

TEST(DistanceDerivatives, DispatchedMatchesClassifiedValue) {
  // The general-pair functions (fused classification + distance) agree with the kernel of the
  // classified type up to rounding.
  std::mt19937 rng(9);
  for (int k = 0; k < 200; ++k) {
    const Vec12 x = random_vec<12>(rng);
    const auto t = classify_point_triangle(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3));
    const double d_pt = point_triangle_distance_sq(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3));
    EXPECT_NEAR(d_pt, point_triangle_distance_sq(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3), t), 1e-13 * (1 + d_pt));
    const auto e = classify_edge_edge(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3));
    const double d_ee = edge_edge_distance_sq(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3));
    EXPECT_NEAR(d_ee, edge_edge_distance_sq(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3), e), 1e-13 * (1 + d_ee));
  }
}

TEST(Mollifier, ScalarFunction) {
  const double eps = 0.3;
  EXPECT_EQ(mollifier(0.0, eps), 0.0);
  EXPECT_DOUBLE_EQ(mollifier(eps, eps), 1.0);
  EXPECT_EQ(mollifier(2 * eps, eps), 1.0);
  EXPECT_NEAR(mollifier_first_derivative(eps * (1 - 1e-12), eps), 0.0, 1e-9);  // C^1 at eps
  for (double c : {0.01, 0.1, 0.2, 0.29}) {
    const double h = 1e-7;
    EXPECT_NEAR(mollifier_first_derivative(c, eps), (mollifier(c + h, eps) - mollifier(c - h, eps)) / (2 * h), 1e-6);
    EXPECT_NEAR(mollifier_second_derivative(c, eps),
                (mollifier_first_derivative(c + h, eps) - mollifier_first_derivative(c - h, eps)) / (2 * h), 1e-5);
  }
}

TEST(Mollifier, CrossAndMollifierDerivatives) {
  std::mt19937 rng(10);
  for (int k = 0; k < 20; ++k) {
    Vec12 x = random_vec<12>(rng);
    auto fc = [](const Vec12& y) { return edge_edge_cross_sq(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)); };
    auto gc = [](const Vec12& y) { return edge_edge_cross_sq_gradient(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3)); };
    EXPECT_TRUE(near_rel(gc(x), fd_gradient<12>(fc, x, kH), kTolG));
    EXPECT_TRUE(near_rel(edge_edge_cross_sq_hessian(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3)), fd_jacobian<12>(gc, x, kH),
                         kTolH));
    // Nearly parallel edges so the mollifier is active; eps_x from a "rest" copy.
    x.segment<3>(9) = x.segment<3>(6) + 0.8 * (x.segment<3>(3) - x.segment<3>(0)) + 0.01 * random_vec<3>(rng);
    const double eps_x = edge_edge_mollifier_threshold(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3));
    ASSERT_TRUE(edge_edge_mollifier_active(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3), eps_x));
    auto fm = [eps_x](const Vec12& y) { return edge_edge_mollifier(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), eps_x); };
    auto gm = [eps_x](const Vec12& y) {
      return edge_edge_mollifier_gradient(pt(y, 0), pt(y, 1), pt(y, 2), pt(y, 3), eps_x);
    };
    EXPECT_TRUE(near_rel(gm(x), fd_gradient<12>(fm, x, 1e-8), 1e-5));
    EXPECT_TRUE(near_rel(edge_edge_mollifier_hessian(pt(x, 0), pt(x, 1), pt(x, 2), pt(x, 3), eps_x),
                         fd_jacobian<12>(gm, x, 1e-8), 1e-4));
  }
}
