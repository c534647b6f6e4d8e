// Exact intersection predicates and double-precision distances; see predicates.hpp.
#include "verify/predicates.hpp"

#include <algorithm>
#include <Eigen/Geometry>
#include <cmath>
#include <limits>

#include "verify/exact.hpp"

namespace weft::verify {
namespace {

// 2D coordinates after dropping axis k (cyclic, so k = 2 keeps (x, y)).
struct P2 {
  double u, v;
};
inline P2 proj(const Vec3& p, int k) { return {p[(k + 1) % 3], p[(k + 2) % 3]}; }

inline int o2(const P2& a, const P2& b, const P2& c) { return orient2d(a.u, a.v, b.u, b.v, c.u, c.v); }

// p collinear with [a,b]: is it within the segment's bounding box (exact comparisons)?
inline bool within_box(const P2& a, const P2& b, const P2& p) {
  return std::min(a.u, b.u) <= p.u && p.u <= std::max(a.u, b.u) && std::min(a.v, b.v) <= p.v &&
         p.v <= std::max(a.v, b.v);
}

// Closed 2D segments; degenerate (point) segments allowed.
bool seg_seg_2d(const P2& p1, const P2& p2, const P2& q1, const P2& q2) {
  const int d1 = o2(q1, q2, p1), d2 = o2(q1, q2, p2);
  if (d1 * d2 > 0) return false;
  const int d3 = o2(p1, p2, q1), d4 = o2(p1, p2, q2);
  if (d3 * d4 > 0) return false;
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  if (d1 == 0 && within_box(q1, q2, p1)) return true;
  if (d2 == 0 && within_box(q1, q2, p2)) return true;
  if (d3 == 0 && within_box(p1, p2, q1)) return true;
  if (d4 == 0 && within_box(p1, p2, q2)) return true;
  // A zero whose point lies outside the other segment: the segment meets the other's
  // line only at that point (or they are collinear and disjoint).
  return false;
}

// Closed 2D triangle (non-degenerate) contains p.
bool point_in_tri_2d(const P2& p, const P2& a, const P2& b, const P2& c) {
  const int s1 = o2(a, b, p), s2 = o2(b, c, p), s3 = o2(c, a, p);
  const bool neg = s1 < 0 || s2 < 0 || s3 < 0;
  const bool pos = s1 > 0 || s2 > 0 || s3 > 0;
  return !(neg && pos);
}

// Coplanar segment vs non-degenerate triangle, in the projection dropping axis k.
bool seg_tri_2d(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c, int k) {
  const P2 P = proj(p, k), Q = proj(q, k), A = proj(a, k), B = proj(b, k), C = proj(c, k);
  if (point_in_tri_2d(P, A, B, C) || point_in_tri_2d(Q, A, B, C)) return true;
  return seg_seg_2d(P, Q, A, B) || seg_seg_2d(P, Q, B, C) || seg_seg_2d(P, Q, C, A);
}

bool seg_degenerate_tri(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c) {
  return segment_segment_intersect(p, q, a, b) || segment_segment_intersect(p, q, b, c) ||
         segment_segment_intersect(p, q, c, a);
}

// Segment vs triangle given sp = orient3d(a,b,c,p), sq = orient3d(a,b,c,q). `axis` caches
// triangle_drop_axis(a,b,c) (-2 = not computed yet).
bool seg_tri_signed(const Vec3& p, const Vec3& q, int sp, int sq, const Vec3& a, const Vec3& b,
                    const Vec3& c, int& axis) {
  if (sp * sq > 0) return false;
  if (sp == 0 && sq == 0) {
    if (axis == -2) axis = triangle_drop_axis(a, b, c);
    if (axis < 0) return seg_degenerate_tri(p, q, a, b, c);
    return seg_tri_2d(p, q, a, b, c, axis);
  }
  // The line pq crosses the plane once, inside [p,q]. The crossing lies in the closed
  // triangle iff the signed volumes of (p,q) with the three edges do not disagree.
  const int s1 = orient3d(p, q, a, b);
  const int s2 = orient3d(p, q, b, c);
  if (s1 * s2 < 0) return false;
  const int s3 = orient3d(p, q, c, a);
  return !(s1 * s3 < 0 || s2 * s3 < 0);
}

}  // namespace

int triangle_drop_axis(const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a);
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int i, int j) { return std::fabs(n[i]) > std::fabs(n[j]); });
  for (int k : order) {
    const P2 A = proj(a, k), B = proj(b, k), C = proj(c, k);
    if (o2(A, B, C) != 0) return k;
  }
  return -1;
}

bool segment_segment_intersect(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  if (orient3d(p0, p1, q0, q1) != 0) return false;
  // Coplanar: they meet iff they meet in all three axis projections (at least one of which
  // is injective on a plane containing both; non-injective ones only add true answers).
  for (int k = 0; k < 3; ++k)
    if (!seg_seg_2d(proj(p0, k), proj(p1, k), proj(q0, k), proj(q1, k))) return false;
  return true;
}

bool segment_triangle_intersect(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                                const Vec3& c) {
  int axis = -2;
  return seg_tri_signed(p, q, orient3d(a, b, c, p), orient3d(a, b, c, q), a, b, c, axis);
}

namespace {

// Closed overlap of two projected triangles; never answers false for overlapping ones
// (degenerate projections only make it answer true more often).
bool tri_tri_2d_overlap(const P2 A[3], const P2 B[3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (seg_seg_2d(A[i], A[(i + 1) % 3], B[j], B[(j + 1) % 3])) return true;
  return point_in_tri_2d(A[0], B[0], B[1], B[2]) || point_in_tri_2d(B[0], A[0], A[1], A[2]);
}

inline bool same_strict_side(int s0, int s1, int s2) {
  return (s0 == 1 && s1 == 1 && s2 == 1) || (s0 == -1 && s1 == -1 && s2 == -1);
}

}  // namespace

bool triangle_triangle_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                                 const Vec3& b1, const Vec3& b2) {
  // Stage 1, cheap and exact: plane-side tests decided by the floating-point filter (2 =
  // undecided), then the 2D overlap of the projections along A's dominant normal axis --
  // if the shadows are disjoint the triangles are (this settles nearly coplanar
  // neighbours in a flat sheet without exact arithmetic).
  {
    const int f0 = orient3d_filtered(a0, a1, a2, b0), f1 = orient3d_filtered(a0, a1, a2, b1),
              f2 = orient3d_filtered(a0, a1, a2, b2);
    if (same_strict_side(f0, f1, f2)) return false;
    const int g0 = orient3d_filtered(b0, b1, b2, a0), g1 = orient3d_filtered(b0, b1, b2, a1),
              g2 = orient3d_filtered(b0, b1, b2, a2);
    if (same_strict_side(g0, g1, g2)) return false;
    const Vec3 n = (a1 - a0).cross(a2 - a0);
    const int k = (std::fabs(n.x()) >= std::fabs(n.y()) && std::fabs(n.x()) >= std::fabs(n.z())) ? 0
                  : std::fabs(n.y()) >= std::fabs(n.z())                                       ? 1
                                                                                                  : 2;
    const P2 A[3] = {proj(a0, k), proj(a1, k), proj(a2, k)};
    const P2 B[3] = {proj(b0, k), proj(b1, k), proj(b2, k)};
    if (!tri_tri_2d_overlap(A, B)) return false;
  }
  // Stage 2: the exact algorithm.
  const int sb0 = orient3d(a0, a1, a2, b0), sb1 = orient3d(a0, a1, a2, b1),
            sb2 = orient3d(a0, a1, a2, b2);
  if (same_strict_side(sb0, sb1, sb2)) return false;
  const int sa0 = orient3d(b0, b1, b2, a0), sa1 = orient3d(b0, b1, b2, a1),
            sa2 = orient3d(b0, b1, b2, a2);
  if (same_strict_side(sa0, sa1, sa2)) return false;

  int axis_a = -2, axis_b = -2;
  if (sb0 == 0 && sb1 == 0 && sb2 == 0) {
    // Coplanar, or A degenerate (then every orient3d against it is 0).
    axis_a = triangle_drop_axis(a0, a1, a2);
    if (axis_a < 0)
      return segment_triangle_intersect(a0, a1, b0, b1, b2) ||
             segment_triangle_intersect(a1, a2, b0, b1, b2) ||
             segment_triangle_intersect(a2, a0, b0, b1, b2);
    axis_b = triangle_drop_axis(b0, b1, b2);
    if (axis_b < 0)
      return segment_triangle_intersect(b0, b1, a0, a1, a2) ||
             segment_triangle_intersect(b1, b2, a0, a1, a2) ||
             segment_triangle_intersect(b2, b0, a0, a1, a2);
    // Both proper and coplanar: 2D overlap in A's injective projection.
    const int k = axis_a;
    const P2 A[3] = {proj(a0, k), proj(a1, k), proj(a2, k)};
    const P2 B[3] = {proj(b0, k), proj(b1, k), proj(b2, k)};
    return tri_tri_2d_overlap(A, B);
  }
  if (sa0 == 0 && sa1 == 0 && sa2 == 0) {
    // B is degenerate (A is not coplanar with it, so A's plane test was not all zero).
    return segment_triangle_intersect(b0, b1, a0, a1, a2) ||
           segment_triangle_intersect(b1, b2, a0, a1, a2) ||
           segment_triangle_intersect(b2, b0, a0, a1, a2);
  }
  // Not coplanar, both proper: they meet iff an edge of one meets the other triangle.
  return seg_tri_signed(b0, b1, sb0, sb1, a0, a1, a2, axis_a) ||
         seg_tri_signed(b1, b2, sb1, sb2, a0, a1, a2, axis_a) ||
         seg_tri_signed(b2, b0, sb2, sb0, a0, a1, a2, axis_a) ||
         seg_tri_signed(a0, a1, sa0, sa1, b0, b1, b2, axis_b) ||
         seg_tri_signed(a1, a2, sa1, sa2, b0, b1, b2, axis_b) ||
         seg_tri_signed(a2, a0, sa2, sa0, b0, b1, b2, axis_b);
}

double point_segment_distance(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double len2 = ab.squaredNorm();
  if (len2 <= 0) return (p - a).norm();
  double t = (p - a).dot(ab) / len2;
  t = std::clamp(t, 0.0, 1.0);
  if (t >= 1.0) return (p - b).norm();
  return (p - (a + t * ab)).norm();
}

double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const Vec3 n = ab.cross(ac);
  const double nn = n.squaredNorm();
  // Skip the face region for (nearly) degenerate triangles: the edges then cover it.
  if (nn > 1e-28 * ab.squaredNorm() * ac.squaredNorm() && nn > 0) {
    const double s = ap.cross(ac).dot(n);  // barycentric weights of b and c, times nn
    const double t = ab.cross(ap).dot(n);
    if (s >= 0 && t >= 0 && s + t <= nn) return std::fabs(ap.dot(n)) / std::sqrt(nn);
  }
  return std::min({point_segment_distance(p, a, b), point_segment_distance(p, b, c),
                   point_segment_distance(p, c, a)});
}

namespace {

// Distance between the closest interior points of two segments when the lines are not
// (nearly) parallel and both closest points are interior; +inf otherwise. The endpoint
// cases are covered by point-segment / point-triangle distances.
double segment_interior_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
  const Vec3 u = a1 - a0, v = b1 - b0, w = a0 - b0;
  const double A = u.squaredNorm(), B = u.dot(v), C = v.squaredNorm();
  const double D = u.dot(w), E = v.dot(w);
  const double den = A * C - B * B;
  if (den > 1e-14 * A * C && den > 0) {
    const double s = (B * E - C * D) / den, t = (A * E - B * D) / den;
    if (s > 0 && s < 1 && t > 0 && t < 1) return (w + s * u - t * v).norm();
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace

double segment_segment_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
  return std::min({point_segment_distance(a0, b0, b1), point_segment_distance(a1, b0, b1),
                   point_segment_distance(b0, a0, a1), point_segment_distance(b1, a0, a1),
                   segment_interior_distance(a0, a1, b0, b1)});
}

// In the two functions below the endpoint-to-edge parts of the edge-edge sub-pairs are
// dropped: each is >= the point-triangle distance of that endpoint, already in the min.
double segment_triangle_distance(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                                 const Vec3& c) {
  return std::min({point_triangle_distance(p, a, b, c), point_triangle_distance(q, a, b, c),
                   point_segment_distance(a, p, q), point_segment_distance(b, p, q),
                   point_segment_distance(c, p, q), segment_interior_distance(p, q, a, b),
                   segment_interior_distance(p, q, b, c), segment_interior_distance(p, q, c, a)});
}

double triangle_triangle_distance(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                                  const Vec3& b1, const Vec3& b2) {
  double d = std::min({point_triangle_distance(a0, b0, b1, b2), point_triangle_distance(a1, b0, b1, b2),
                       point_triangle_distance(a2, b0, b1, b2), point_triangle_distance(b0, a0, a1, a2),
                       point_triangle_distance(b1, a0, a1, a2), point_triangle_distance(b2, a0, a1, a2)});
  const Vec3* A[3] = {&a0, &a1, &a2};
  const Vec3* B[3] = {&b0, &b1, &b2};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      d = std::min(d, segment_interior_distance(*A[i], *A[(i + 1) % 3], *B[j], *B[(j + 1) % 3]));
  return d;
}

}  // namespace weft::verify
