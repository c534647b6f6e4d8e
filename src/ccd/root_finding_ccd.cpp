#include "ccd/root_finding_ccd.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "contact/distance_type.hpp"

namespace weft {

namespace {

double eval_cubic(const double c[4], double t) { return ((c[3] * t + c[2]) * t + c[1]) * t + c[0]; }

// Coefficients of (A0 + t A1) x (B0 + t B1) . (C0 + t C1).
void triple_product_cubic(const Vec3& A0, const Vec3& A1, const Vec3& B0, const Vec3& B1, const Vec3& C0,
                          const Vec3& C1, double c[4]) {
  const Vec3 a0b0 = A0.cross(B0), a1b0 = A1.cross(B0), a0b1 = A0.cross(B1), a1b1 = A1.cross(B1);
  c[0] = a0b0.dot(C0);
  c[1] = a1b0.dot(C0) + a0b1.dot(C0) + a0b0.dot(C1);
  c[2] = a1b1.dot(C0) + a1b0.dot(C1) + a0b1.dot(C1);
  c[3] = a1b1.dot(C1);
}

double bisect(const double c[4], double lo, double hi) {
  double flo = eval_cubic(c, lo);
  for (int i = 0; i < 100 && hi - lo > 0.0; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    const double fm = eval_cubic(c, mid);
    if (fm == 0.0) return mid;
    if ((fm < 0.0) == (flo < 0.0)) { lo = mid; flo = fm; }
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

int cubic_roots_in_unit_interval(double c0, double c1, double c2, double c3, double roots[3], bool* degenerate) {
  const double c[4] = {c0, c1, c2, c3};
  const double scale = std::abs(c0) + std::abs(c1) + std::abs(c2) + std::abs(c3);
  if (degenerate) *degenerate = !(scale > 0.0);
  if (!(scale > 0.0)) return 0;
  const double ftol = 1e-12 * scale;
  // Split points: 0, the critical points in (0, 1), 1.
  double knots[4] = {0.0, 0.0, 0.0, 0.0};
  int nk = 0;
  knots[nk++] = 0.0;
  const double qa = 3.0 * c3, qb = 2.0 * c2, qc = c1;  // f'
  double crit[2];
  int nc = 0;
  if (std::abs(qa) > 1e-14 * (std::abs(qb) + std::abs(qc))) {
    const double disc = qb * qb - 4.0 * qa * qc;
    if (disc >= 0.0) {
      const double sq = std::sqrt(disc);
      const double q = -0.5 * (qb + (qb >= 0.0 ? sq : -sq));  // stable quadratic formula
      if (q != 0.0) crit[nc++] = q / qa, crit[nc++] = qc / q;
      else crit[nc++] = 0.0;
    }
  } else if (qb != 0.0) {
    crit[nc++] = -qc / qb;
  }
  std::sort(crit, crit + nc);
  for (int i = 0; i < nc; ++i)
    if (crit[i] > 0.0 && crit[i] < 1.0) knots[nk++] = crit[i];
  knots[nk++] = 1.0;

  int n = 0;
  auto push = [&](double t) {
    if (n > 0 && std::abs(roots[n - 1] - t) < 1e-12) return;
    if (n < 3) roots[n++] = t;
  };
  for (int i = 0; i + 1 < nk; ++i) {
    const double lo = knots[i], hi = knots[i + 1];
    const double flo = eval_cubic(c, lo), fhi = eval_cubic(c, hi);
    if (std::abs(flo) <= ftol) push(lo);
    if ((flo < 0.0 && fhi > 0.0) || (flo > 0.0 && fhi < 0.0)) push(bisect(c, lo, hi));
    if (i + 2 == nk && std::abs(fhi) <= ftol) push(hi);
  }
  return n;
}

RootFindingResult point_triangle_root_ccd(const Vec3& p0, const Vec3& a0, const Vec3& b0, const Vec3& c0,
                                          const Vec3& p1, const Vec3& a1, const Vec3& b1, const Vec3& c1,
                                          const RootFindingParams& prm) {
  const Vec3 dp = p1 - p0, da = a1 - a0, db = b1 - b0, dc = c1 - c0;
  double c[4];
  triple_product_cubic(b0 - a0, db - da, c0 - a0, dc - da, p0 - a0, dp - da, c);
  const double size = std::max({(b0 - a0).norm(), (c0 - a0).norm(), (b1 - a1).norm(), (c1 - a1).norm()});
  auto touches = [&](double t) {
    const Vec3 p = p0 + t * dp, a = a0 + t * da, b = b0 + t * db, cc = c0 + t * dc;
    const Vec3 e1 = b - a, e2 = cc - a, r = p - a;
    const Vec3 n = e1.cross(e2);
    const double nn = n.squaredNorm();
    if (!(nn > 0.0)) return point_triangle_distance_sq(p, a, b, cc) <= std::pow(prm.distance_tolerance * size, 2);
    // Barycentric coordinates of the projection of p.
    const double u = r.cross(e2).dot(n) / nn, v = e1.cross(r).dot(n) / nn;
    const double tol = prm.inside_tolerance;
    return u >= -tol && v >= -tol && u + v <= 1.0 + tol;
  };
  bool degenerate = false;
  double roots[3];
  const int nr = cubic_roots_in_unit_interval(c[0], c[1], c[2], c[3], roots, &degenerate);
  if (degenerate) {
    for (double t : {0.0, 0.25, 0.5, 0.75, 1.0})
      if (touches(t)) return {true, t};
    return {};
  }
  for (int i = 0; i < nr; ++i)
    if (touches(roots[i])) return {true, roots[i]};
  return {};
}

RootFindingResult edge_edge_root_ccd(const Vec3& ea0_0, const Vec3& ea1_0, const Vec3& eb0_0, const Vec3& eb1_0,
                                     const Vec3& ea0_1, const Vec3& ea1_1, const Vec3& eb0_1, const Vec3& eb1_1,
                                     const RootFindingParams& prm) {
  const Vec3 da0 = ea0_1 - ea0_0, da1 = ea1_1 - ea1_0, db0 = eb0_1 - eb0_0, db1 = eb1_1 - eb1_0;
  double c[4];
  triple_product_cubic(ea1_0 - ea0_0, da1 - da0, eb1_0 - eb0_0, db1 - db0, eb0_0 - ea0_0, db0 - da0, c);
  const double size = std::max({(ea1_0 - ea0_0).norm(), (eb1_0 - eb0_0).norm(), (ea1_1 - ea0_1).norm(),
                                (eb1_1 - eb0_1).norm()});
  auto touches = [&](double t) {
    const Vec3 a0 = ea0_0 + t * da0, a1 = ea1_0 + t * da1, b0 = eb0_0 + t * db0, b1 = eb1_0 + t * db1;
    const Vec3 u = a1 - a0, v = b1 - b0, w = b0 - a0;
    const double A = u.dot(u), B = u.dot(v), C = v.dot(v);
    const double D = u.cross(v).squaredNorm();
    if (!(D > 1e-16 * A * C)) {
      // Parallel at the root: fall back to the segment distance.
      return edge_edge_distance_sq(a0, a1, b0, b1) <= std::pow(prm.distance_tolerance * size, 2);
    }
    // Intersection parameters of the (coplanar) lines.
    const double s = (C * u.dot(w) - B * v.dot(w)) / D, q = (B * u.dot(w) - A * v.dot(w)) / D;
    const double tol = prm.inside_tolerance;
    return s >= -tol && s <= 1.0 + tol && q >= -tol && q <= 1.0 + tol;
  };
  bool degenerate = false;
  double roots[3];
  const int nr = cubic_roots_in_unit_interval(c[0], c[1], c[2], c[3], roots, &degenerate);
  if (degenerate) {
    for (double t : {0.0, 0.25, 0.5, 0.75, 1.0})
      if (touches(t)) return {true, t};
    return {};
  }
  for (int i = 0; i < nr; ++i)
    if (touches(roots[i])) return {true, roots[i]};
  return {};
}

}  // namespace weft
