#include "contact/friction.hpp"

#include <array>
#include <cmath>
#include <limits>

#include "contact/psd.hpp"

namespace weft {

// ---------------------------------------------------------------- smoothing functions

double friction_f0(double y, double eps) {
  if (y >= eps) return y;
  return -y * y * y / (3.0 * eps * eps) + y * y / eps + eps / 3.0;
}

double friction_f1(double y, double eps) {
  if (y >= eps) return 1.0;
  return 2.0 * y / eps - y * y / (eps * eps);
}

double friction_f1_over_x(double y, double eps) {
  if (y >= eps) return 1.0 / y;
  return 2.0 / eps - y / (eps * eps);
}

double friction_df1_over_x(double y, double eps) {
  if (y >= eps) return -1.0 / (y * y * y);
  return -1.0 / (eps * eps * y);
}

// ---------------------------------------------------------------- tangent bases

namespace {

// Any orthonormal pair spanning the plane orthogonal to n (n != 0); (e_x, e_y, e_z) for n = 0.
Mat32 complement_basis(const Vec3& n) {
  Mat32 P;
  const double nn = n.norm();
  if (!(nn > 0.0)) {
    P << 1, 0, 0, 1, 0, 0;
    return P;
  }
  const Vec3 nh = n / nn;
  int k = 0;  // the axis least aligned with n
  if (std::abs(nh.y()) < std::abs(nh[k])) k = 1;
  if (std::abs(nh.z()) < std::abs(nh[k])) k = 2;
  const Vec3 t0 = nh.cross(Vec3::Unit(k)).normalized();
  P.col(0) = t0;
  P.col(1) = nh.cross(t0);
  return P;
}

// Basis whose first column is the unit direction d and second is orthogonal to d and to
// the normal-ish vector n; falls back when n is (nearly) parallel to d.
Mat32 basis_with_direction(const Vec3& d, const Vec3& plane_normal) {
  const double dn = d.norm();
  if (!(dn > 0.0)) return complement_basis(plane_normal);
  Mat32 P;
  P.col(0) = d / dn;
  Vec3 c = plane_normal.cross(P.col(0));
  if (!(c.squaredNorm() > 1e-30 * plane_normal.squaredNorm()) || !(c.squaredNorm() > 0.0)) {
    // plane_normal degenerate: any direction orthogonal to d.
    const Mat32 Q = complement_basis(d);
    P.col(1) = Q.col(0);
    return P;
  }
  P.col(1) = c.normalized();
  return P;
}

}  // namespace

Mat32 point_point_tangent_basis(const Vec3& p0, const Vec3& p1) { return complement_basis(p1 - p0); }

Mat32 point_edge_tangent_basis(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  const Vec3 e = e1 - e0;
  if (!(e.squaredNorm() > 0.0)) return complement_basis(p - e0);
  // Tangent directions: along the edge, and normal to the plane of the point and the edge.
  const Vec3 m = e.cross(p - e0);
  Mat32 P;
  P.col(0) = e.normalized();
  if (m.squaredNorm() > 1e-30 * e.squaredNorm() * (p - e0).squaredNorm() && m.squaredNorm() > 0.0)
    P.col(1) = m.normalized();
  else
    P.col(1) = complement_basis(e).col(0);  // point on the edge's line
  return P;
}

Mat32 point_triangle_tangent_basis(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  const Vec3 e1 = t1 - t0, e2 = t2 - t0;
  const Vec3 n = e1.cross(e2);
  if (!(n.squaredNorm() > kParallelThreshold * e1.squaredNorm() * e2.squaredNorm())) {
    // Degenerate triangle: frame of its closest edge.
    switch (classify_point_triangle(p, t0, t1, t2)) {
      case PointTriangleType::P_EBC: return point_edge_tangent_basis(p, t1, t2);
      case PointTriangleType::P_ECA: return point_edge_tangent_basis(p, t2, t0);
      case PointTriangleType::P_EAB: return point_edge_tangent_basis(p, t0, t1);
      case PointTriangleType::P_B: return point_point_tangent_basis(p, t1);
      case PointTriangleType::P_C: return point_point_tangent_basis(p, t2);
      default: return point_point_tangent_basis(p, t0);
    }
  }
  return basis_with_direction(e1, n);
}

Mat32 edge_edge_tangent_basis(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  const Vec3 ea = ea1 - ea0, eb = eb1 - eb0;
  const Vec3 n = ea.cross(eb);
  if (n.squaredNorm() > kParallelThreshold * ea.squaredNorm() * eb.squaredNorm() && n.squaredNorm() > 0.0)
    return basis_with_direction(ea, n);
  // Parallel edges: the normal is the perpendicular from line a to edge b.
  if (!(ea.squaredNorm() > 0.0)) return point_edge_tangent_basis(ea0, eb0, eb1);
  const Vec3 r = eb0 - ea0;
  const Vec3 w = r - (r.dot(ea) / ea.squaredNorm()) * ea;
  return basis_with_direction(ea, w);
}

// ---------------------------------------------------------------- closest points

double point_edge_closest_point(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  const Vec3 e = e1 - e0;
  const double ee = e.squaredNorm();
  return ee > 0.0 ? (p - e0).dot(e) / ee : 0.0;
}

Vec2 point_triangle_closest_point(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  const Vec3 e1 = t1 - t0, e2 = t2 - t0, r = p - t0;
  Mat2 A;
  A << e1.dot(e1), e1.dot(e2), e1.dot(e2), e2.dot(e2);
  const Vec2 b(e1.dot(r), e2.dot(r));
  const double det = A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0);
  if (!(std::abs(det) > kParallelThreshold * A(0, 0) * A(1, 1)) || !(det != 0.0)) {
    // Degenerate triangle: project on the first edge.
    return Vec2(point_edge_closest_point(p, t0, t1), 0.0);
  }
  return Vec2((A(1, 1) * b[0] - A(0, 1) * b[1]) / det, (A(0, 0) * b[1] - A(1, 0) * b[0]) / det);
}

Vec2 edge_edge_closest_point(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  const Vec3 ea = ea1 - ea0, eb = eb1 - eb0, r = eb0 - ea0;
  const double a = ea.dot(ea), b = ea.dot(eb), c = eb.dot(eb);
  const double det = ea.cross(eb).squaredNorm();  // = a c - b^2
  if (!(det > kParallelThreshold * a * c)) {
    // Parallel: middle of edge a and its projection on line b.
    const Vec3 m = ea0 + 0.5 * ea;
    return Vec2(0.5, c > 0.0 ? (m - eb0).dot(eb) / c : 0.0);
  }
  const double ra = ea.dot(r), rb = eb.dot(r);
  // a ga - b gb = ra ;  -b ga + c gb = -rb
  return Vec2((c * ra - b * rb) / det, (b * ra - a * rb) / det);
}

// ---------------------------------------------------------------- relative displacement

Eigen::Matrix<double, 3, 6> point_point_relative_jacobian() {
  Eigen::Matrix<double, 3, 6> G;
  G << Mat3::Identity(), -Mat3::Identity();
  return G;
}

Eigen::Matrix<double, 3, 9> point_edge_relative_jacobian(double alpha) {
  Eigen::Matrix<double, 3, 9> G;
  const Mat3 I = Mat3::Identity();
  G << I, -(1.0 - alpha) * I, -alpha * I;
  return G;
}

Eigen::Matrix<double, 3, 12> point_triangle_relative_jacobian(const Vec2& beta) {
  Eigen::Matrix<double, 3, 12> G;
  const Mat3 I = Mat3::Identity();
  G << I, -(1.0 - beta[0] - beta[1]) * I, -beta[0] * I, -beta[1] * I;
  return G;
}

Eigen::Matrix<double, 3, 12> edge_edge_relative_jacobian(const Vec2& gamma) {
  Eigen::Matrix<double, 3, 12> G;
  const Mat3 I = Mat3::Identity();
  G << (1.0 - gamma[0]) * I, gamma[0] * I, -(1.0 - gamma[1]) * I, -gamma[1] * I;
  return G;
}

// ---------------------------------------------------------------- friction operators

namespace {

template <int N, int K>
TangentOperator<N> scatter_rows(const TangentOperator<K * 3>& T, const std::array<int, K>& idx) {
  TangentOperator<N> out = TangentOperator<N>::Zero();
  for (int i = 0; i < K; ++i) out.template middleRows<3>(3 * idx[i]) = T.template middleRows<3>(3 * i);
  return out;
}

}  // namespace

TangentOperator<6> point_point_friction_operator(const Vec3& p0, const Vec3& p1) {
  return point_point_relative_jacobian().transpose() * point_point_tangent_basis(p0, p1);
}

TangentOperator<9> point_edge_friction_operator(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  switch (classify_point_edge(p, e0, e1)) {
    case PointEdgeType::P_E0: return scatter_rows<9, 2>(point_point_friction_operator(p, e0), {0, 1});
    case PointEdgeType::P_E1: return scatter_rows<9, 2>(point_point_friction_operator(p, e1), {0, 2});
    case PointEdgeType::P_E: break;
  }
  return point_edge_relative_jacobian(point_edge_closest_point(p, e0, e1)).transpose() *
         point_edge_tangent_basis(p, e0, e1);
}

TangentOperator<12> point_triangle_friction_operator(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  switch (classify_point_triangle(p, t0, t1, t2)) {
    case PointTriangleType::P_A: return scatter_rows<12, 2>(point_point_friction_operator(p, t0), {0, 1});
    case PointTriangleType::P_B: return scatter_rows<12, 2>(point_point_friction_operator(p, t1), {0, 2});
    case PointTriangleType::P_C: return scatter_rows<12, 2>(point_point_friction_operator(p, t2), {0, 3});
    case PointTriangleType::P_EAB: return scatter_rows<12, 3>(point_edge_friction_operator(p, t0, t1), {0, 1, 2});
    case PointTriangleType::P_EBC: return scatter_rows<12, 3>(point_edge_friction_operator(p, t1, t2), {0, 2, 3});
    case PointTriangleType::P_ECA: return scatter_rows<12, 3>(point_edge_friction_operator(p, t2, t0), {0, 3, 1});
    case PointTriangleType::P_T: break;
  }
  return point_triangle_relative_jacobian(point_triangle_closest_point(p, t0, t1, t2)).transpose() *
         point_triangle_tangent_basis(p, t0, t1, t2);
}

TangentOperator<12> edge_edge_friction_operator(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  switch (classify_edge_edge(ea0, ea1, eb0, eb1)) {
    case EdgeEdgeType::EA0_EB0: return scatter_rows<12, 2>(point_point_friction_operator(ea0, eb0), {0, 2});
    case EdgeEdgeType::EA0_EB1: return scatter_rows<12, 2>(point_point_friction_operator(ea0, eb1), {0, 3});
    case EdgeEdgeType::EA1_EB0: return scatter_rows<12, 2>(point_point_friction_operator(ea1, eb0), {1, 2});
    case EdgeEdgeType::EA1_EB1: return scatter_rows<12, 2>(point_point_friction_operator(ea1, eb1), {1, 3});
    case EdgeEdgeType::EA_EB0: return scatter_rows<12, 3>(point_edge_friction_operator(eb0, ea0, ea1), {2, 0, 1});
    case EdgeEdgeType::EA_EB1: return scatter_rows<12, 3>(point_edge_friction_operator(eb1, ea0, ea1), {3, 0, 1});
    case EdgeEdgeType::EA0_EB: return scatter_rows<12, 3>(point_edge_friction_operator(ea0, eb0, eb1), {0, 2, 3});
    case EdgeEdgeType::EA1_EB: return scatter_rows<12, 3>(point_edge_friction_operator(ea1, eb0, eb1), {1, 2, 3});
    case EdgeEdgeType::EA_EB: break;
  }
  return edge_edge_relative_jacobian(edge_edge_closest_point(ea0, ea1, eb0, eb1)).transpose() *
         edge_edge_tangent_basis(ea0, ea1, eb0, eb1);
}

// ---------------------------------------------------------------- potential

namespace {

// What the full and the row-restricted potentials share, at tangential displacement u:
// the value mu_lambda f0(|u|), f1(|u|) / |u| and the PSD-projected 2 x 2 inner Hessian.
double friction_scalars(const Vec2& u, double mu_lambda, double eps, double& f1x, Mat2& inner) {
  const double y = u.norm();
  const double value = mu_lambda * friction_f0(y, eps);
  f1x = friction_f1_over_x(y, eps);
  inner = f1x * Mat2::Identity();
  if (y > 0.0) inner += friction_df1_over_x(y, eps) * u * u.transpose();
  inner = project_to_psd_2x2(inner);
  return value;
}

}  // namespace

template <int N>
LocalEnergy<N> friction_potential(const TangentOperator<N>& T, const VecN<N>& dx, double mu_lambda, double eps) {
  LocalEnergy<N> out;
  if (mu_lambda == 0.0) return out;
  out.active = true;
  const Vec2 u = T.transpose() * dx;
  Mat2 inner;
  double f1x;
  out.value = friction_scalars(u, mu_lambda, eps, f1x, inner);
  out.gradient = (mu_lambda * f1x) * (T * u);
  const TangentOperator<N> Ti = mu_lambda * T * inner;
  out.hessian.noalias() = Ti.lazyProduct(T.transpose());
  return out;
}

template <int K>
LocalEnergy<3 * K> friction_potential_rows(const TangentOperator<12>& T, const VecN<12>& dx, double mu_lambda,
                                           double eps, const int* keep) {
  LocalEnergy<3 * K> out;
  if (mu_lambda == 0.0) return out;
  out.active = true;
  const Vec2 u = T.transpose() * dx;
  Mat2 inner;
  double f1x;
  out.value = friction_scalars(u, mu_lambda, eps, f1x, inner);
  TangentOperator<3 * K> Tk;
  for (int i = 0; i < K; ++i) Tk.template middleRows<3>(3 * i) = T.template middleRows<3>(3 * keep[i]);
  out.gradient = (mu_lambda * f1x) * (Tk * u);
  const TangentOperator<3 * K> Ti = mu_lambda * Tk * inner;
  out.hessian.noalias() = Ti.lazyProduct(Tk.transpose());
  return out;
}

template LocalEnergy<3> friction_potential_rows<1>(const TangentOperator<12>&, const VecN<12>&, double, double,
                                                   const int*);
template LocalEnergy<6> friction_potential_rows<2>(const TangentOperator<12>&, const VecN<12>&, double, double,
                                                   const int*);
template LocalEnergy<9> friction_potential_rows<3>(const TangentOperator<12>&, const VecN<12>&, double, double,
                                                   const int*);

template LocalEnergy<6> friction_potential<6>(const TangentOperator<6>&, const VecN<6>&, double, double);
template LocalEnergy<9> friction_potential<9>(const TangentOperator<9>&, const VecN<9>&, double, double);
template LocalEnergy<12> friction_potential<12>(const TangentOperator<12>&, const VecN<12>&, double, double);

}  // namespace weft
