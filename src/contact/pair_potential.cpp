#include "contact/pair_potential.hpp"

#include <cmath>
#include <limits>

#include "contact/barrier.hpp"
#include "contact/mollifier.hpp"
#include "contact/point_point.hpp"
#include "contact/psd.hpp"

namespace weft {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Project the block of H on the points idx[0..K) (in 3x3 blocks) onto the PSD cone; with
// translation_invariant the block is a function of the K points' relative positions
// (psd.hpp, project_points_to_psd), otherwise a plain eigenvalue clamp.
template <int N, int K>
void project_block(MatN<3 * N>& H, const int* idx, bool translation_invariant) {
  MatN<3 * K> B;
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < K; ++j) B.template block<3, 3>(3 * i, 3 * j) = H.template block<3, 3>(3 * idx[i], 3 * idx[j]);
  if (translation_invariant) {
    if constexpr (K >= 2) B = project_points_to_psd<K>(B);
  } else {
    B = project_symmetric_to_psd<3 * K>(B);
  }
  H.setZero();
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < K; ++j) H.template block<3, 3>(3 * idx[i], 3 * idx[j]) = B.template block<3, 3>(3 * i, 3 * j);
}

// idx[0..k): the points the potential depends on (the rest of H is zero). Fixed points are
// dropped from the block (pair_potential.hpp); when all k are free the block is projected
// in the complement of the translations.
template <int N>
void project_active(MatN<3 * N>& H, const int* idx, int k, unsigned fixed) {
  int free_idx[4], n = 0;
  for (int i = 0; i < k; ++i)
    if (!((fixed >> idx[i]) & 1u)) free_idx[n++] = idx[i];
  const bool all = n == k;
  switch (n) {
    case 0: H.setZero(); return;
    case 1: project_block<N, 1>(H, free_idx, false); return;
    case 2: project_block<N, 2>(H, free_idx, all); return;
    case 3:
      if constexpr (N >= 3) project_block<N, 3>(H, free_idx, all);
      return;
    case 4:
      if constexpr (N >= 4) H = project_points_to_psd<N>(H);
      return;
  }
}

// Which edge of an edge-edge pair is fixed, when exactly one is: f0, the first free point
// (0: edge a free, b fixed; 2: the reverse), the fixed edge's direction e and one of its
// points c3. False when both or neither edge is fixed.
bool one_edge_fixed(unsigned fixed, const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1, int& f0,
                    Vec3& e, Vec3& c3) {
  if ((fixed & 0xFu) == 0xCu) {
    f0 = 0, e = eb1 - eb0, c3 = eb0;
    return true;
  }
  if ((fixed & 0xFu) == 0x3u) {
    f0 = 2, e = ea1 - ea0, c3 = ea0;
    return true;
  }
  return false;
}

// The line-line distance of an edge against a FIXED edge with direction e (a cloth edge
// crossing an obstacle edge, the most common contact on a mesh obstacle) does not change
// when either point of the free edge moves along e: the common normal n = ea x eb and the
// offset r . n stay as they are, for every configuration (and so does the mollifier,
// a function of |ea x eb|^2). Its Hessian vanishes on those two directions, so the free
// 6 x 6 block B = Q C Q^T with Q = I_2 (x) [t1 t2] (t1, t2 an orthonormal basis of the
// plane normal to e) and C = Q^T B Q of size 4: projecting C and mapping back is the
// projection of B with a 4 x 4 eigen-problem instead of a 6 x 6 one (the same to
// rounding; PairPotential.FixedPointsProjectTheFreeBlock checks it against the 6 x 6).
// Without the mollifier (function_of_distance) one more direction drops out. In that plane
// the fixed line is a point c and the distance is c's from the line through the free
// points' images q0, q1: with t the unit direction q1 - q0, n its normal, L = |q1 - q0|,
// alpha c's foot parameter and d the signed distance, d's second-order expansion in the
// displacements (x_i along t, y_i along n) is -(1 - alpha) y0 - alpha y1
// + (y1 - y0) ((1 - alpha) x0 + alpha x1) / L - d (y1 - y0)^2 / (2 L^2): every derivative
// of any function of d lies in span{y0, y1, (1 - alpha) x0 + alpha x1}, and
// z = (alpha t, -(1 - alpha) t) (both points sliding along the line, c's foot fixed) is a
// null vector. The projection is then a 3 x 3 eigen-problem (the same to rounding;
// PairPotential.FixedEdgeProjectionIsAThreeByThree checks the null vector and the result).
// Returns false (H untouched) unless exactly one edge is fixed and the other free.
bool project_line_line_one_edge_fixed(Mat12& H, unsigned fixed, const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                      const Vec3& eb1, bool function_of_distance) {
  int f0;  // first free point: 0 (edge a free, b fixed) or 2
  Vec3 e, c3;  // the fixed edge's direction and one of its points
  if (!one_edge_fixed(fixed, ea0, ea1, eb0, eb1, f0, e, c3)) return false;
  const double len = e.norm();
  if (!(len > 0.0) || !std::isfinite(len)) return false;
  const Vec3 u = e / len;
  const Vec3 t1 = u.unitOrthogonal(), t2 = u.cross(t1);
  Mat32 T;
  T << t1, t2;
  MatN<6> B;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) B.block<3, 3>(3 * i, 3 * j) = H.block<3, 3>(3 * (f0 + i), 3 * (f0 + j));
  MatN<4> C;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) C.block<2, 2>(2 * i, 2 * j) = T.transpose() * B.block<3, 3>(3 * i, 3 * j) * T;
  MatN<4> P;
  bool changed;
  const Vec3& p0 = f0 == 0 ? ea0 : eb0;
  const Vec3& p1 = f0 == 0 ? ea1 : eb1;
  const Vec2 q0 = T.transpose() * p0, q1 = T.transpose() * p1, c = T.transpose() * c3;
  const Vec2 dq = q1 - q0;
  const double L2 = dq.squaredNorm();
  if (function_of_distance && L2 > 0.0 && std::isfinite(L2)) {
    const Vec2 t = dq / std::sqrt(L2), n(-t(1), t(0));
    const double alpha = (c - q0).dot(dq) / L2;
    // Orthonormal basis of z's complement: the weighted slide, then each point's normal.
    Eigen::Matrix<double, 4, 3> Q = Eigen::Matrix<double, 4, 3>::Zero();
    const double w = std::hypot(1.0 - alpha, alpha);
    Q.block<2, 1>(0, 0) = (1.0 - alpha) / w * t;
    Q.block<2, 1>(2, 0) = alpha / w * t;
    Q.block<2, 1>(0, 1) = n;
    Q.block<2, 1>(2, 2) = n;
    const MatN<3> C3 = Q.transpose() * C * Q;
    const MatN<3> P3 = project_symmetric_to_psd<3>(C3);
    changed = P3 != C3;
    if (changed) P = Q * P3 * Q.transpose();
  } else {
    P = project_symmetric_to_psd<4>(C);
    changed = P != C;
  }
  if (changed)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) B.block<3, 3>(3 * i, 3 * j) = T * P.block<2, 2>(2 * i, 2 * j) * T.transpose();
  H.setZero();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) H.block<3, 3>(3 * (f0 + i), 3 * (f0 + j)) = B.block<3, 3>(3 * i, 3 * j);
  return true;
}

// The same projection in closed form, without the distance's 12 x 12 Hessian (the most
// common barrier pair on a mesh obstacle: a cloth edge crossing an obstacle edge, distance
// type EA_EB, not mollified). With u the fixed edge's unit direction, tau the unit direction
// of the free edge's image p1 - p0 - ((p1 - p0) . u) u (length L), nu = u x tau, alpha the
// fixed line's foot parameter (c - p0) . tau / L and d = (c - p0) . nu the signed distance,
// the expansion above gives, with x_i = tau . dp_i, y_i = nu . dp_i, sigma = (-1, 1) and
// c = (1 - alpha, alpha): grad d = (0, -(1 - alpha), 0, -alpha) in (x0, y0, x1, y1),
// d^2 d / dy_i dx_j = sigma_i c_j / L, d^2 d / dy_i dy_j = -d sigma_i sigma_j / L^2, the rest 0.
// For P = kappa b(d^2 - xi^2), with b1 = kappa b', b2 = kappa b'':
//   Hess P = A grad d grad d^T + B Hess d,   A = 4 d^2 b2 + 2 b1,  B = 2 d b1.
// In the orthonormal basis s = ((1 - alpha) x0 + alpha x1) / w (w = |(1 - alpha, alpha)|),
// p = (y1 - y0) / sqrt 2, q = (y0 + y1) / sqrt 2 of the null vector's complement it is the
// tridiagonal
//   [ 0          sqrt2 B w / L                  0                ]
//   [ .    A (1 - 2 alpha)^2 / 2 - 2 B d / L^2   -A (1 - 2 alpha) / 2 ]
//   [ .          .                              A / 2            ]
// (its zero diagonal entry makes it indefinite whenever B != 0, so it is always clamped):
// projected in closed form (psd.hpp, project_tridiagonal3_to_psd), then mapped back. The same as
// project_line_line_one_edge_fixed to rounding (PairPotential.FixedEdgeClosedFormMatchesTheProjection).
// Writes the free 6 x 6 block of H (the rest zero); false (H untouched) when the geometry is
// degenerate.
// The projected 6 x 6 block over (p0, p1) of a barrier whose distance is c3's from the line
// through p0, p1 in the plane normal to the unit u (the derivation above); false when
// degenerate.
bool free_segment_block(MatN<6>& P6, const Vec3& p0, const Vec3& p1, const Vec3& c3, const Vec3& u, double b1,
                        double b2) {
  const Vec3 dp = p1 - p0;
  const Vec3 dq = dp - dp.dot(u) * u;
  const double L2 = dq.squaredNorm();
  if (!(L2 > 0.0) || !std::isfinite(L2)) return false;
  const double L = std::sqrt(L2);
  const Vec3 tau = dq / L, nu = u.cross(tau);
  const Vec3 r = c3 - p0;
  const double alpha = r.dot(tau) / L, d = r.dot(nu);
  const double A = 4.0 * d * d * b2 + 2.0 * b1, B = 2.0 * d * b1;
  const double w = std::sqrt((1.0 - alpha) * (1.0 - alpha) + alpha * alpha);
  constexpr double kRoot2 = 1.4142135623730950488, kRootHalf = 0.70710678118654752440;
  const double h = 1.0 - 2.0 * alpha;
  const double t01 = kRoot2 * B * w / L, t11 = 0.5 * A * h * h - 2.0 * B * d / L2, t12 = -0.5 * A * h, t22 = 0.5 * A;
  // (s, p, q) -> the 6 free coordinates.
  Eigen::Matrix<double, 6, 3> V;
  const double cs0 = (1.0 - alpha) / w, cs1 = alpha / w;
  V << cs0 * tau, -kRootHalf * nu, kRootHalf * nu, cs1 * tau, kRootHalf * nu, kRootHalf * nu;
  double Pc[3][3];
  if (project_tridiagonal3_to_psd(t01, t11, t12, t22, Pc)) {
    const MatN<3> P3 = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(&Pc[0][0]);
    const Eigen::Matrix<double, 6, 3> VP = V.lazyProduct(P3);
    P6.noalias() = VP.lazyProduct(V.transpose());
    return true;
  }
  // (Cross products lost to rounding: the QL, whose eigenvectors stay orthonormal.)
  double a[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
  double ev[3] = {0.0, t11, t22};
  double off[3] = {t01, t12, 0.0};
  if (!detail::tridiagonal_ql<3>(a, ev, off)) return false;
  P6.setZero();
  for (int k = 0; k < 3; ++k) {
    if (!(ev[k] > 0.0)) continue;
    const VecN<6> v = V * Vec3(a[k][0], a[k][1], a[k][2]);
    P6.noalias() += ev[k] * v * v.transpose();
  }
  return true;
}

bool line_line_fixed_edge_hessian(Mat12& H, unsigned fixed, const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                  const Vec3& eb1, double b1, double b2) {
  int f0;
  Vec3 e, c3;
  if (!one_edge_fixed(fixed, ea0, ea1, eb0, eb1, f0, e, c3)) return false;
  const double len2 = e.squaredNorm();
  if (!(len2 > 0.0) || !std::isfinite(len2)) return false;
  MatN<6> P6;
  if (!free_segment_block(P6, f0 == 0 ? ea0 : eb0, f0 == 0 ? ea1 : eb1, c3, e / std::sqrt(len2), b1, b2)) return false;
  H.setZero();
  H.block<6, 6>(3 * f0, 3 * f0) = P6;
  return true;
}

// A fixed point c against the line through free points i0, i1 (an obstacle vertex against a
// cloth edge: point-edge types of the edge-edge, point-edge and point-triangle distances).
// In the frame (tau along the line, nu from it towards c's side in the plane of the line and
// c, b = tau x nu), moving the foot along b by wbar = (1 - alpha) w0 + alpha w1 changes the
// distance by wbar^2 / (2 d) only (a tilt towards b about the foot keeps it to second order),
// so Hess P = [in-plane part] + 2 b' (c c^T on (w0, w1)): the in-plane part is the edge form
// above with u the plane's normal, and the b part, 2 b' <= 0, projects to zero. Returns
// false (H untouched) when degenerate or b' > 0. The same to rounding as the eigen-clamp of
// the raw 6 x 6 block (PairPotential.FixedPointFreeSegmentClosedForm).
template <int M>
bool fixed_point_segment_hessian(MatN<M>& H, int i0, int i1, const Vec3& p0, const Vec3& p1, const Vec3& c, double b1,
                                 double b2) {
  if (!(b1 <= 0.0)) return false;
  const Vec3 n = (p1 - p0).cross(c - p0);
  const double nn = n.squaredNorm();
  if (!(nn > 0.0) || !std::isfinite(nn)) return false;
  MatN<6> P6;
  if (!free_segment_block(P6, p0, p1, c, n / std::sqrt(nn), b1, b2)) return false;
  H.setZero();
  const int id[2] = {i0, i1};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) H.template block<3, 3>(3 * id[a], 3 * id[b]) = P6.block<3, 3>(3 * a, 3 * b);
  return true;
}

// b' and b'' of the offset barrier at d^2 (inside its support, s > 0).
inline void barrier_derivatives(double d2, const BarrierParams& bp, double& b1, double& b2) {
  const double S = offset_barrier_threshold(bp.xi, bp.dhat), s = d2 - bp.xi * bp.xi;
  b1 = bp.kappa * barrier_first_derivative(s, S);
  b2 = bp.kappa * barrier_second_derivative(s, S);
}

// A closed-form branch's start: at or inside the offset (s <= 0) the pair is infeasible
// (`out` says so; false); otherwise b' and b'' as barrier_derivatives gives them.
template <int M>
bool feasible_derivatives(double d2, const BarrierParams& bp, LocalEnergy<M>& out, double& b1, double& b2) {
  if (d2 - bp.xi * bp.xi <= 0.0) {
    out.active = true;
    out.feasible = false;
    out.value = kInf;
    return false;
  }
  barrier_derivatives(d2, bp, b1, b2);
  return true;
}

// A fixed point p against a free triangle's plane (distance type P_T: an obstacle vertex
// under the cloth). With beta the barycentric coordinates of p's foot, moving the triangle
// within its plane changes the distance only through the foot's barycentric shift, to
// first order a function of sum_i beta_i u_i (u_i the in-plane displacements), and not at
// all when no point leaves the plane: every derivative of a function of the distance lies
// in span{n at each point, sum_i beta_i u_i (2 in-plane directions)}, so the free 9 x 9
// block's projection is a 5 x 5 eigen-problem (the same to rounding;
// PairPotential.FixedPointPlaneProjectionIsAFiveByFive checks it). The edge case above is
// this argument one dimension down.
bool project_plane_fixed_point(Mat12& H, const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2) {
  const Vec3 e1 = t1 - t0, e2 = t2 - t0, r = p - t0;
  Vec3 n = e1.cross(e2);
  const double nn = n.squaredNorm();
  const double len1 = e1.norm();
  if (!(nn > 0.0) || !std::isfinite(nn) || !(len1 > 0.0)) return false;
  const double b1 = r.cross(e2).dot(n) / nn, b2 = e1.cross(r).dot(n) / nn, b0 = 1.0 - b1 - b2;
  const double w = std::sqrt(b0 * b0 + b1 * b1 + b2 * b2);
  n /= std::sqrt(nn);
  const Vec3 ex = e1 / len1, ey = n.cross(ex);
  Eigen::Matrix<double, 9, 5> Q = Eigen::Matrix<double, 9, 5>::Zero();
  const double b[3] = {b0 / w, b1 / w, b2 / w};
  for (int i = 0; i < 3; ++i) {
    Q.block<3, 1>(3 * i, i) = n;
    Q.block<3, 1>(3 * i, 3) = b[i] * ex;
    Q.block<3, 1>(3 * i, 4) = b[i] * ey;
  }
  MatN<9> B = H.block<9, 9>(3, 3);
  const MatN<5> C = Q.transpose() * B * Q;
  const MatN<5> P = project_symmetric_to_psd<5>(C);
  if (P != C) B = Q * P * Q.transpose();
  H.setZero();
  H.block<9, 9>(3, 3) = B;
  return true;
}

// The same projection without the distance's 12 x 12 Hessian. With n the unit normal, d the
// signed distance (p - t0) . n, beta the foot's barycentric coordinates, g_i the in-plane
// gradient of the barycentric function beta_i, z_i the displacement of point i along n and
// ubar = sum_i beta_i u_i: the distance to the displaced plane, a graph of height
// h(X) = sum_i beta_i(X) z_i over the plane carried by ubar, is to second order
//   d - sum_i beta_i z_i + sum_i z_i (g_i . ubar) - d/2 |sum_i z_i g_i|^2
// (the foot's barycentric coordinates shift by -g_i . ubar; the tilt shortens the distance
// by the factor 1 / sqrt(1 + |grad h|^2)). In the basis of the 5 x 5 problem (z_0, z_1, z_2 and
// ubar / w along ex, ey; w = |beta|) the Hessian of P = kappa b(d^2 - xi^2) is then, with
// b1 = kappa b', b2 = kappa b'', A = 4 d^2 b2 + 2 b1 and B = 2 d b1,
//   [ A beta beta^T - B d (g_i . g_j)   B w g ]
//   [ B w g^T                            0   ]   (g the 3 x 2 matrix of the g_i in ex, ey).
// The same as project_plane_fixed_point to rounding (PairPotential.FixedPointPlaneProjectionIsAFiveByFive
// compares it with the eigen-clamp of the raw 9 x 9 block). False (H untouched) when degenerate.
bool plane_fixed_point_hessian(Mat12& H, const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2, double b1,
                               double b2) {
  const Vec3 e1 = t1 - t0, e2 = t2 - t0, r = p - t0;
  Vec3 n = e1.cross(e2);
  const double nn = n.squaredNorm();
  const double len1 = e1.norm();
  if (!(nn > 0.0) || !std::isfinite(nn) || !(len1 > 0.0)) return false;
  const double beta[3] = {0.0, r.cross(e2).dot(n) / nn, e1.cross(r).dot(n) / nn};
  const double bt[3] = {1.0 - beta[1] - beta[2], beta[1], beta[2]};
  const double w = std::sqrt(bt[0] * bt[0] + bt[1] * bt[1] + bt[2] * bt[2]);
  const double nl = std::sqrt(nn);
  n /= nl;
  const Vec3 ex = e1 / len1, ey = n.cross(ex);
  const double d = r.dot(n);
  // grad beta_i = n x (opposite edge, counter-clockwise) / |e1 x e2|, in (ex, ey).
  const Vec3 opp[3] = {t2 - t1, t0 - t2, t1 - t0};
  double gx[3], gy[3];
  for (int i = 0; i < 3; ++i) {
    const Vec3 gi = n.cross(opp[i]) / nl;
    gx[i] = gi.dot(ex);
    gy[i] = gi.dot(ey);
  }
  const double A = 4.0 * d * d * b2 + 2.0 * b1, B = 2.0 * d * b1;
  MatN<5> C;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) C(i, j) = A * bt[i] * bt[j] - B * d * (gx[i] * gx[j] + gy[i] * gy[j]);
    C(i, 3) = C(3, i) = B * w * gx[i];
    C(i, 4) = C(4, i) = B * w * gy[i];
  }
  C(3, 3) = C(3, 4) = C(4, 3) = C(4, 4) = 0.0;
  const MatN<5> P = project_symmetric_to_psd<5>(C);
  Eigen::Matrix<double, 9, 5> Q = Eigen::Matrix<double, 9, 5>::Zero();
  for (int i = 0; i < 3; ++i) {
    Q.block<3, 1>(3 * i, i) = n;
    Q.block<3, 1>(3 * i, 3) = bt[i] / w * ex;
    Q.block<3, 1>(3 * i, 4) = bt[i] / w * ey;
  }
  const Eigen::Matrix<double, 9, 5> QP = Q.lazyProduct(P);  // (coefficient-wise: no GEMM set-up)
  H.setZero();
  H.block<9, 9>(3, 3).noalias() = QP.lazyProduct(Q.transpose());
  return true;
}

// Chain rule from d^2 to the offset barrier. Returns false when inactive / infeasible.
template <int M>
bool assemble(double d2, const VecN<M>& g, const MatN<M>& Hd, const BarrierParams& bp, LocalEnergy<M>& out,
              bool want_derivs) {
  const double S = offset_barrier_threshold(bp.xi, bp.dhat);
  const double s = d2 - bp.xi * bp.xi;
  if (s >= S) return false;
  out.active = true;
  if (s <= 0.0) {
    out.feasible = false;
    out.value = kInf;
    return false;
  }
  out.value = bp.kappa * barrier(s, S);
  if (!want_derivs) return true;
  const double b1 = bp.kappa * barrier_first_derivative(s, S);
  const double b2 = bp.kappa * barrier_second_derivative(s, S);
  out.gradient = b1 * g;
  out.hessian = b2 * g * g.transpose() + b1 * Hd;
  return true;
}

// A free point against a fixed feature (a cloth point on an obstacle's triangle, edge or
// vertex): as a function of the point alone, d^2 is the squared distance to a fixed convex
// set, Hess d^2 = 2 (I - Pi) with Pi the projector on the closest feature's tangent space,
// and grad d^2 = 2 d n (n the unit normal from the feature to the point, orthogonal to that
// space). The point's block kappa (b'' g g^T + b' Hess d^2) then has the eigenvalue
// 4 d^2 b'' + 2 b' on n, 2 b' <= 0 on the other directions off the feature, 0 on it: its
// projection is max(b'' + b' / (2 d^2), 0) g g^T, with g the point's part of grad d^2 (the
// same to rounding as the 3 x 3 eigen-clamp; PairPotential.FreePointProjectionIsRankOne).
// Value and gradient as assemble's. False (out untouched) if b' > 0, which the barrier
// never has inside its support.
template <int M>
bool free_point_barrier(double d2, const VecN<M>& g, const BarrierParams& bp, LocalEnergy<M>& out) {
  const double S = offset_barrier_threshold(bp.xi, bp.dhat);
  const double s = d2 - bp.xi * bp.xi;
  if (s <= 0.0) {
    out.active = true;
    out.feasible = false;
    out.value = kInf;
    return true;
  }
  const double b1 = bp.kappa * barrier_first_derivative(s, S);
  if (!(b1 <= 0.0)) return false;
  const double b2 = bp.kappa * barrier_second_derivative(s, S);
  out.active = true;
  out.value = bp.kappa * barrier(s, S);
  out.gradient = b1 * g;
  const double c = std::max(b2 + b1 / (2.0 * d2), 0.0);
  const Vec3 gp = g.template head<3>();
  out.hessian.template topLeftCorner<3, 3>().noalias() = (c * gp) * gp.transpose();
  return true;
}

double energy_of(double d2, const BarrierParams& bp) {
  const double S = offset_barrier_threshold(bp.xi, bp.dhat);
  const double s = d2 - bp.xi * bp.xi;
  if (s >= S) return 0.0;
  if (s <= 0.0) return kInf;
  return bp.kappa * barrier(s, S);
}

}  // namespace

int active_points(PointEdgeType t, int idx[3]) {
  switch (t) {
    case PointEdgeType::P_E0: idx[0] = 0; idx[1] = 1; return 2;
    case PointEdgeType::P_E1: idx[0] = 0; idx[1] = 2; return 2;
    case PointEdgeType::P_E: idx[0] = 0; idx[1] = 1; idx[2] = 2; return 3;
  }
  return 0;
}

int active_points(PointTriangleType t, int idx[4]) {
  switch (t) {
    case PointTriangleType::P_A: idx[0] = 0; idx[1] = 1; return 2;
    case PointTriangleType::P_B: idx[0] = 0; idx[1] = 2; return 2;
    case PointTriangleType::P_C: idx[0] = 0; idx[1] = 3; return 2;
    case PointTriangleType::P_EAB: idx[0] = 0; idx[1] = 1; idx[2] = 2; return 3;
    case PointTriangleType::P_EBC: idx[0] = 0; idx[1] = 2; idx[2] = 3; return 3;
    case PointTriangleType::P_ECA: idx[0] = 0; idx[1] = 3; idx[2] = 1; return 3;
    case PointTriangleType::P_T: idx[0] = 0; idx[1] = 1; idx[2] = 2; idx[3] = 3; return 4;
  }
  return 0;
}

int active_points(EdgeEdgeType t, int idx[4]) {
  switch (t) {
    case EdgeEdgeType::EA0_EB0: idx[0] = 0; idx[1] = 2; return 2;
    case EdgeEdgeType::EA0_EB1: idx[0] = 0; idx[1] = 3; return 2;
    case EdgeEdgeType::EA1_EB0: idx[0] = 1; idx[1] = 2; return 2;
    case EdgeEdgeType::EA1_EB1: idx[0] = 1; idx[1] = 3; return 2;
    case EdgeEdgeType::EA_EB0: idx[0] = 2; idx[1] = 0; idx[2] = 1; return 3;
    case EdgeEdgeType::EA_EB1: idx[0] = 3; idx[1] = 0; idx[2] = 1; return 3;
    case EdgeEdgeType::EA0_EB: idx[0] = 0; idx[1] = 2; idx[2] = 3; return 3;
    case EdgeEdgeType::EA1_EB: idx[0] = 1; idx[1] = 2; idx[2] = 3; return 3;
    case EdgeEdgeType::EA_EB: idx[0] = 0; idx[1] = 1; idx[2] = 2; idx[3] = 3; return 4;
  }
  return 0;
}

double point_point_barrier_energy(const Vec3& p0, const Vec3& p1, const BarrierParams& bp) {
  return energy_of(point_point_distance_sq(p0, p1), bp);
}

double point_edge_barrier_energy(const Vec3& p, const Vec3& e0, const Vec3& e1, const BarrierParams& bp) {
  return energy_of(point_edge_distance_sq(p, e0, e1), bp);
}

double point_triangle_barrier_energy(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2,
                                     const BarrierParams& bp) {
  return energy_of(point_triangle_distance_sq(p, t0, t1, t2), bp);
}

double edge_edge_barrier_energy(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                double eps_x, const BarrierParams& bp) {
  const double e = energy_of(edge_edge_distance_sq(ea0, ea1, eb0, eb1), bp);
  if (e == 0.0 || eps_x <= 0.0 || std::isinf(e)) return e;  // infeasible stays infeasible
  return edge_edge_mollifier(ea0, ea1, eb0, eb1, eps_x) * e;
}

LocalEnergy<6> point_point_barrier(const Vec3& p0, const Vec3& p1, const BarrierParams& bp) {
  LocalEnergy<6> out;
  const double d2 = point_point_distance_sq(p0, p1);
  if (bp.project_psd && (bp.fixed_points & 0x3u) == 0x2u &&
      d2 - bp.xi * bp.xi < offset_barrier_threshold(bp.xi, bp.dhat) &&
      free_point_barrier<6>(d2, point_point_distance_sq_gradient(p0, p1), bp, out))
    return out;
  if (assemble<6>(d2, point_point_distance_sq_gradient(p0, p1), point_point_distance_sq_hessian(p0, p1), bp, out,
                  true) &&
      bp.project_psd)
  {
    const int idx[2] = {0, 1};
    project_active<2>(out.hessian, idx, 2, bp.fixed_points);
  }
  return out;
}

LocalEnergy<9> point_edge_barrier(const Vec3& p, const Vec3& e0, const Vec3& e1, const BarrierParams& bp) {
  const PointEdgeType t = classify_point_edge(p, e0, e1);
  return point_edge_barrier(p, e0, e1, t, point_edge_distance_sq(p, e0, e1, t), bp);
}

LocalEnergy<9> point_edge_barrier(const Vec3& p, const Vec3& e0, const Vec3& e1, PointEdgeType t, double d2,
                                  const BarrierParams& bp) {
  LocalEnergy<9> out;
  if (energy_of(d2, bp) == 0.0) return out;
  if (bp.project_psd && (bp.fixed_points & 0x7u) == 0x6u &&
      free_point_barrier<9>(d2, point_edge_distance_sq_gradient(p, e0, e1, t), bp, out))
    return out;
  if (bp.project_psd && t == PointEdgeType::P_E && (bp.fixed_points & 0x7u) == 0x1u &&
      d2 - bp.xi * bp.xi > 0.0) {
    // A fixed point against a free edge: closed form.
    double b1, b2;
    barrier_derivatives(d2, bp, b1, b2);
    if (fixed_point_segment_hessian<9>(out.hessian, 1, 2, e0, e1, p, b1, b2)) {
      out.active = true;
      out.value = bp.kappa * barrier(d2 - bp.xi * bp.xi, offset_barrier_threshold(bp.xi, bp.dhat));
      out.gradient = b1 * point_edge_distance_sq_gradient(p, e0, e1, t);
      return out;
    }
  }
  if (assemble<9>(d2, point_edge_distance_sq_gradient(p, e0, e1, t), point_edge_distance_sq_hessian(p, e0, e1, t), bp,
                  out, true) &&
      bp.project_psd) {
    int idx[3];
    project_active<3>(out.hessian, idx, active_points(t, idx), bp.fixed_points);
  }
  return out;
}

LocalEnergy<12> point_triangle_barrier(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2,
                                       const BarrierParams& bp) {
  const PointTriangleType t = classify_point_triangle(p, t0, t1, t2);
  return point_triangle_barrier(p, t0, t1, t2, t, point_triangle_distance_sq(p, t0, t1, t2, t), bp);
}

LocalEnergy<12> point_triangle_barrier(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2,
                                       PointTriangleType t, double d2, const BarrierParams& bp) {
  LocalEnergy<12> out;
  const double S = offset_barrier_threshold(bp.xi, bp.dhat);
  if (d2 - bp.xi * bp.xi >= S) return out;
  if (bp.project_psd && (bp.fixed_points & 0xFu) == 0xEu &&
      free_point_barrier<12>(d2, point_triangle_distance_sq_gradient(p, t0, t1, t2, t), bp, out))
    return out;
  if (bp.project_psd && (bp.fixed_points & 0xFu) == 0x1u && d2 - bp.xi * bp.xi > 0.0 &&
      (t == PointTriangleType::P_EAB || t == PointTriangleType::P_EBC || t == PointTriangleType::P_ECA)) {
    // A fixed point against a free triangle's edge: closed form.
    const int i0 = t == PointTriangleType::P_EAB ? 1 : t == PointTriangleType::P_EBC ? 2 : 3;
    const int i1 = t == PointTriangleType::P_EAB ? 2 : t == PointTriangleType::P_EBC ? 3 : 1;
    const Vec3* tv[4] = {&p, &t0, &t1, &t2};
    double b1, b2;
    barrier_derivatives(d2, bp, b1, b2);
    if (fixed_point_segment_hessian<12>(out.hessian, i0, i1, *tv[i0], *tv[i1], p, b1, b2)) {
      out.active = true;
      out.value = bp.kappa * barrier(d2 - bp.xi * bp.xi, S);
      out.gradient = b1 * point_triangle_distance_sq_gradient(p, t0, t1, t2, t);
      return out;
    }
  }
  if (bp.project_psd && t == PointTriangleType::P_T && (bp.fixed_points & 0xFu) == 0x1u) {
    // A fixed point over a free triangle: the projected Hessian in closed form.
    const double s = d2 - bp.xi * bp.xi;
    double b1, b2;
    if (!feasible_derivatives(d2, bp, out, b1, b2)) return out;
    if (plane_fixed_point_hessian(out.hessian, p, t0, t1, t2, b1, b2)) {
      out.active = true;
      out.value = bp.kappa * barrier(s, S);
      out.gradient = b1 * point_triangle_distance_sq_gradient(p, t0, t1, t2, t);
      return out;
    }
  }
  if (assemble<12>(d2, point_triangle_distance_sq_gradient(p, t0, t1, t2, t),
                   point_triangle_distance_sq_hessian(p, t0, t1, t2, t), bp, out, true) &&
      bp.project_psd) {
    if (t == PointTriangleType::P_T && (bp.fixed_points & 0xFu) == 0x1u &&
        project_plane_fixed_point(out.hessian, p, t0, t1, t2))
      return out;
    int idx[4];
    project_active<4>(out.hessian, idx, active_points(t, idx), bp.fixed_points);
  }
  return out;
}

LocalEnergy<12> edge_edge_barrier(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                  double eps_x, const BarrierParams& bp) {
  const EdgeEdgeType t = classify_edge_edge(ea0, ea1, eb0, eb1);
  return edge_edge_barrier(ea0, ea1, eb0, eb1, t, edge_edge_distance_sq(ea0, ea1, eb0, eb1, t), eps_x, bp);
}

LocalEnergy<12> edge_edge_barrier(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                  EdgeEdgeType t, double d2, double eps_x, const BarrierParams& bp) {
  LocalEnergy<12> out;
  const double S = offset_barrier_threshold(bp.xi, bp.dhat);
  if (d2 - bp.xi * bp.xi >= S) return out;
  if (bp.project_psd && t == EdgeEdgeType::EA_EB &&
      ((bp.fixed_points & 0xFu) == 0xCu || (bp.fixed_points & 0xFu) == 0x3u) &&
      !(eps_x > 0.0 && edge_edge_mollifier_active(ea0, ea1, eb0, eb1, eps_x))) {
    // A free edge against a fixed one: the projected Hessian in closed form.
    const double s = d2 - bp.xi * bp.xi;
    double b1, b2;
    if (!feasible_derivatives(d2, bp, out, b1, b2)) return out;
    if (line_line_fixed_edge_hessian(out.hessian, bp.fixed_points, ea0, ea1, eb0, eb1, b1, b2)) {
      out.active = true;
      out.value = bp.kappa * barrier(s, S);
      out.gradient = b1 * edge_edge_distance_sq_gradient(ea0, ea1, eb0, eb1, t);
      return out;
    }
  }
  if (bp.project_psd && d2 - bp.xi * bp.xi > 0.0 &&
      ((((t == EdgeEdgeType::EA_EB0 || t == EdgeEdgeType::EA_EB1) && (bp.fixed_points & 0xFu) == 0xCu)) ||
       ((t == EdgeEdgeType::EA0_EB || t == EdgeEdgeType::EA1_EB) && (bp.fixed_points & 0xFu) == 0x3u)) &&
      !(eps_x > 0.0 && edge_edge_mollifier_active(ea0, ea1, eb0, eb1, eps_x))) {
    // A fixed edge's end point against a free edge: closed form.
    const bool free_a = (bp.fixed_points & 0xFu) == 0xCu;
    const Vec3& c = t == EdgeEdgeType::EA_EB0 ? eb0 : t == EdgeEdgeType::EA_EB1 ? eb1 : t == EdgeEdgeType::EA0_EB ? ea0 : ea1;
    double b1, b2;
    barrier_derivatives(d2, bp, b1, b2);
    if (fixed_point_segment_hessian<12>(out.hessian, free_a ? 0 : 2, free_a ? 1 : 3, free_a ? ea0 : eb0,
                                        free_a ? ea1 : eb1, c, b1, b2)) {
      out.active = true;
      out.value = bp.kappa * barrier(d2 - bp.xi * bp.xi, S);
      out.gradient = b1 * edge_edge_distance_sq_gradient(ea0, ea1, eb0, eb1, t);
      return out;
    }
  }
  if (!assemble<12>(d2, edge_edge_distance_sq_gradient(ea0, ea1, eb0, eb1, t),
                    edge_edge_distance_sq_hessian(ea0, ea1, eb0, eb1, t), bp, out, true))
    return out;
  const bool mollified = eps_x > 0.0 && edge_edge_mollifier_active(ea0, ea1, eb0, eb1, eps_x);
  if (mollified) {
    // Product rule for m(x) P(x).
    const double m = edge_edge_mollifier(ea0, ea1, eb0, eb1, eps_x);
    const Vec12 gm = edge_edge_mollifier_gradient(ea0, ea1, eb0, eb1, eps_x);
    const Mat12 Hm = edge_edge_mollifier_hessian(ea0, ea1, eb0, eb1, eps_x);
    const Mat12 cross = gm * out.gradient.transpose();
    out.hessian = m * out.hessian + out.value * Hm + cross + cross.transpose();
    out.gradient = m * out.gradient + out.value * gm;
    out.value *= m;
  }
  if (!bp.project_psd ||
      (t == EdgeEdgeType::EA_EB &&
       project_line_line_one_edge_fixed(out.hessian, bp.fixed_points, ea0, ea1, eb0, eb1, !mollified)))
    return out;
  // The mollified potential involves all four points, whatever the distance type.
  int idx[4] = {0, 1, 2, 3};
  project_active<4>(out.hessian, idx, mollified ? 4 : active_points(t, idx), bp.fixed_points);
  return out;
}

}  // namespace weft
