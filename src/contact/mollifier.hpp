// Edge-edge mollifier for nearly parallel edges (IPC, Li et al. 2020, Sec. 4.3 and
// supplemental "EE mollifier"). The edge-edge barrier is multiplied by
//   m(c) = (2 - c / eps_x) c / eps_x   for c < eps_x,   1 otherwise,
//   c(x) = |(ea1 - ea0) x (eb1 - eb0)|^2,
//   eps_x = 1e-3 |ea0 - ea1|^2 |eb0 - eb1|^2  evaluated on REST positions,
// which makes the product C^1 as the edges pass through parallel (where the distance type
// switches between line-line and point-edge).
#pragma once
#include <Eigen/Geometry>

#include "core/types.hpp"

namespace weft {

inline constexpr double kMollifierScale = 1e-3;

// eps_x from rest positions.
double edge_edge_mollifier_threshold(const Vec3& ea0_rest, const Vec3& ea1_rest, const Vec3& eb0_rest,
                                     const Vec3& eb1_rest);

// c(x) = |ea x eb|^2 and its derivatives in (ea0, ea1, eb0, eb1).
double edge_edge_cross_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1);
Vec12 edge_edge_cross_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1);
Mat12 edge_edge_cross_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1);

// m(c) and its derivatives in c.
double mollifier(double c, double eps_x);
double mollifier_first_derivative(double c, double eps_x);
double mollifier_second_derivative(double c, double eps_x);

// m(c(x)) and its derivatives in (ea0, ea1, eb0, eb1).
double edge_edge_mollifier(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1, double eps_x);
Vec12 edge_edge_mollifier_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                   double eps_x);
Mat12 edge_edge_mollifier_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                  double eps_x);

// True when the mollifier is active (m < 1), i.e. c(x) < eps_x.
bool edge_edge_mollifier_active(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1, double eps_x);

}  // namespace weft
