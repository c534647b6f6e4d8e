// Distance-type classification and the clamped (segment / triangle) distances of a general
// primitive pair, dispatched to the point-point, point-line, point-plane and line-line
// kernels (IPC, Li et al. 2020, Sec. 4.2 "distance computation"). Each type names the pair
// of closest features; within a type the squared distance is one smooth kernel, so the
// gradient / Hessian of the general pair are those of the kernel scattered into the pair's
// coordinates:
//   point-edge     (p, e0, e1)        -> Vec9 / Mat9
//   point-triangle (p, t0, t1, t2)    -> Vec12 / Mat12
//   edge-edge      (ea0, ea1, eb0, eb1) -> Vec12 / Mat12
// Degenerate inputs are handled by falling back to lower-dimensional types: nearly parallel
// edges (|ea x eb|^2 <= kParallelThreshold |ea|^2 |eb|^2) choose the closest of the point-edge /
// point-point candidates; a triangle with (near-)zero area chooses its closest edge.
#pragma once
#include "contact/edge_edge.hpp"
#include "contact/point_edge.hpp"
#include "contact/point_point.hpp"
#include "contact/point_triangle.hpp"
#include <Eigen/Geometry>

#include "core/types.hpp"

namespace weft {

enum class PointEdgeType { P_E0, P_E1, P_E };

enum class PointTriangleType { P_A, P_B, P_C, P_EAB, P_EBC, P_ECA, P_T };

// EA0_EB1 = vertex ea0 closest to vertex eb1; EA_EB0 = vertex eb0 closest to the interior of
// edge a; EA0_EB = vertex ea0 closest to the interior of edge b; EA_EB = interiors of both.
enum class EdgeEdgeType {
  EA0_EB0, EA0_EB1, EA1_EB0, EA1_EB1,
  EA_EB0, EA_EB1, EA0_EB, EA1_EB,
  EA_EB
};

// Relative threshold on sin^2 of the angle between two edges below which they are treated
// as parallel (the line-line kernel is singular there).
inline constexpr double kParallelThreshold = 1e-20;

const char* to_string(PointEdgeType t);
const char* to_string(PointTriangleType t);
const char* to_string(EdgeEdgeType t);

// Classification and squared distances are inline (defined below); gradients and
// Hessians are in distance_type.cpp (library weft_contact).
//   PointEdgeType classify_point_edge(p, e0, e1);
//   PointTriangleType classify_point_triangle(p, t0, t1, t2);
//   EdgeEdgeType classify_edge_edge(ea0, ea1, eb0, eb1);
//   double point_edge_distance_sq(p, e0, e1 [, type]);
//   double point_triangle_distance_sq(p, t0, t1, t2 [, type]);
//   double edge_edge_distance_sq(ea0, ea1, eb0, eb1 [, type]);

Vec9 point_edge_distance_sq_gradient(const Vec3& p, const Vec3& e0, const Vec3& e1, PointEdgeType type);
Mat9 point_edge_distance_sq_hessian(const Vec3& p, const Vec3& e0, const Vec3& e1, PointEdgeType type);
Vec12 point_triangle_distance_sq_gradient(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2,
                                          PointTriangleType type);
Mat12 point_triangle_distance_sq_hessian(const Vec3& p, const Vec3& t0, const Vec3& t1, const Vec3& t2,
                                         PointTriangleType type);
Vec12 edge_edge_distance_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                     EdgeEdgeType type);
Mat12 edge_edge_distance_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                    EdgeEdgeType type);

// ================================================================ inline definitions
// (header-only so the CCD layer can evaluate distances without linking the contact library)

inline double point_edge_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1, PointEdgeType type);
inline double point_triangle_distance_sq(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                                         PointTriangleType type);
inline double edge_edge_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                    EdgeEdgeType type);

namespace detail {
// Parameter of the projection of p on segment [e0, e1], unclamped; 0 for a degenerate edge.
inline double segment_param(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  const Vec3 e = e1 - e0;
  const double ee = e.squaredNorm();
  return ee > 0.0 ? (p - e0).dot(e) / ee : 0.0;
}

}  // namespace detail

// ---------------------------------------------------------------- classification

inline PointEdgeType classify_point_edge(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  const double s = detail::segment_param(p, e0, e1);
  if (s <= 0.0) return PointEdgeType::P_E0;
  if (s >= 1.0) return PointEdgeType::P_E1;
  return PointEdgeType::P_E;
}

namespace detail {

// Classification and squared distance of a point-triangle pair in one pass (the CCD inner
// loop calls this): Voronoi regions of the triangle from dot products, then the distance of
// the region's feature computed from the same differences.
inline double point_triangle_type_and_distance_sq(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                                                  PointTriangleType& type) {
  const Vec3 ab = b - a, ac = c - a;
  const Vec3 n = ab.cross(ac);
  const double n2 = n.squaredNorm();
  if (!(n2 > kParallelThreshold * ab.squaredNorm() * ac.squaredNorm())) {
    // Degenerate (sliver / collinear / collapsed) triangle: closest of the three edges.
    struct Cand { PointTriangleType v0, v1, e; int i0, i1; };
    const Vec3* x[3] = {&a, &b, &c};
    const Cand cands[3] = {{PointTriangleType::P_A, PointTriangleType::P_B, PointTriangleType::P_EAB, 0, 1},
                           {PointTriangleType::P_B, PointTriangleType::P_C, PointTriangleType::P_EBC, 1, 2},
                           {PointTriangleType::P_C, PointTriangleType::P_A, PointTriangleType::P_ECA, 2, 0}};
    type = PointTriangleType::P_A;
    double best_d = (p - a).squaredNorm();
    for (const Cand& k : cands) {
      const PointEdgeType t = classify_point_edge(p, *x[k.i0], *x[k.i1]);
      const double d = point_edge_distance_sq(p, *x[k.i0], *x[k.i1], t);
      if (d < best_d) {
        best_d = d;
        type = t == PointEdgeType::P_E0 ? k.v0 : t == PointEdgeType::P_E1 ? k.v1 : k.e;
      }
    }
    return best_d;
  }
  // Voronoi regions of the triangle (vertex, edge, face), from dot products only.
  const Vec3 ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) {
    type = PointTriangleType::P_A;
    return ap.squaredNorm();
  }
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) {
    type = PointTriangleType::P_B;
    return bp.squaredNorm();
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    type = PointTriangleType::P_EAB;
    return ap.cross(ab).squaredNorm() / ab.squaredNorm();
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) {
    type = PointTriangleType::P_C;
    return cp.squaredNorm();
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    type = PointTriangleType::P_ECA;
    return ap.cross(ac).squaredNorm() / ac.squaredNorm();
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    type = PointTriangleType::P_EBC;
    const Vec3 bc = c - b;
    return bp.cross(bc).squaredNorm() / bc.squaredNorm();
  }
  type = PointTriangleType::P_T;
  const double h = n.dot(ap);
  return h * h / n2;
}

}  // namespace detail

inline PointTriangleType classify_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  PointTriangleType t;
  detail::point_triangle_type_and_distance_sq(p, a, b, c, t);
  return t;
}

namespace detail {

// Classification and squared distance of an edge-edge pair in one pass.
inline double edge_edge_type_and_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                             EdgeEdgeType& type) {
  const Vec3 u = ea1 - ea0, v = eb1 - eb0, w = ea0 - eb0;
  const double a = u.dot(u), b = u.dot(v), c = v.dot(v), d = u.dot(w), e = v.dot(w);
  // |u x v|^2 from the cross product: accurate near parallel, unlike a c - b^2.
  const Vec3 n = u.cross(v);
  const double D = n.squaredNorm();
  if (!(D > kParallelThreshold * a * c)) {
    // Parallel (or degenerate) edges: the closest of the four endpoint-to-segment candidates.
    struct Cand { EdgeEdgeType v0, v1, e; const Vec3* p; const Vec3* s0; const Vec3* s1; };
    const Cand cands[4] = {
        {EdgeEdgeType::EA0_EB0, EdgeEdgeType::EA0_EB1, EdgeEdgeType::EA0_EB, &ea0, &eb0, &eb1},
        {EdgeEdgeType::EA1_EB0, EdgeEdgeType::EA1_EB1, EdgeEdgeType::EA1_EB, &ea1, &eb0, &eb1},
        {EdgeEdgeType::EA0_EB0, EdgeEdgeType::EA1_EB0, EdgeEdgeType::EA_EB0, &eb0, &ea0, &ea1},
        {EdgeEdgeType::EA0_EB1, EdgeEdgeType::EA1_EB1, EdgeEdgeType::EA_EB1, &eb1, &ea0, &ea1}};
    type = EdgeEdgeType::EA0_EB0;
    double best_d = w.squaredNorm();
    for (const Cand& k : cands) {
      const PointEdgeType t = classify_point_edge(*k.p, *k.s0, *k.s1);
      const double dd = point_edge_distance_sq(*k.p, *k.s0, *k.s1, t);
      if (dd < best_d) {
        best_d = dd;
        type = t == PointEdgeType::P_E0 ? k.v0 : t == PointEdgeType::P_E1 ? k.v1 : k.e;
      }
    }
    return best_d;
  }
  // Minimiser of |ea0 + s u - eb0 - t v|^2 on [0,1]^2: s = sN / D, t = tN / tD, clamping s
  // first, then t (re-solving s for the clamped t).
  const double sN = b * e - c * d;
  double tN, tD;
  EdgeEdgeType deflt;
  if (sN <= 0.0) {
    tN = e; tD = c; deflt = EdgeEdgeType::EA0_EB;
  } else if (sN >= D) {
    tN = e + b; tD = c; deflt = EdgeEdgeType::EA1_EB;
  } else {
    tN = a * e - b * d; tD = D; deflt = EdgeEdgeType::EA_EB;
  }
  if (tN <= 0.0) {
    const double s = -d;
    type = s <= 0.0 ? EdgeEdgeType::EA0_EB0 : s >= a ? EdgeEdgeType::EA1_EB0 : EdgeEdgeType::EA_EB0;
  } else if (tN >= tD) {
    const double s = b - d;
    type = s <= 0.0 ? EdgeEdgeType::EA0_EB1 : s >= a ? EdgeEdgeType::EA1_EB1 : EdgeEdgeType::EA_EB1;
  } else {
    type = deflt;
  }
  switch (type) {
    case EdgeEdgeType::EA0_EB0: return w.squaredNorm();
    case EdgeEdgeType::EA0_EB1: return (ea0 - eb1).squaredNorm();
    case EdgeEdgeType::EA1_EB0: return (ea1 - eb0).squaredNorm();
    case EdgeEdgeType::EA1_EB1: return (ea1 - eb1).squaredNorm();
    case EdgeEdgeType::EA_EB0: return w.cross(u).squaredNorm() / a;
    case EdgeEdgeType::EA_EB1: return (ea0 - eb1).cross(u).squaredNorm() / a;
    case EdgeEdgeType::EA0_EB: return w.cross(v).squaredNorm() / c;
    case EdgeEdgeType::EA1_EB: return (ea1 - eb0).cross(v).squaredNorm() / c;
    case EdgeEdgeType::EA_EB: break;
  }
  // Any vector joining the lines gives the same value in exact arithmetic; the shortest
  // endpoint-to-endpoint one loses the least to rounding (error ~ eps |r| / sin(angle)).
  Vec3 r = w;
  double rr = w.squaredNorm();
  for (const Vec3& q : {Vec3(ea0 - eb1), Vec3(ea1 - eb0), Vec3(ea1 - eb1)}) {
    const double qq = q.squaredNorm();
    if (qq < rr) { r = q; rr = qq; }
  }
  const double h = n.dot(r);
  return h * h / D;
}

}  // namespace detail

inline EdgeEdgeType classify_edge_edge(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  EdgeEdgeType t;
  detail::edge_edge_type_and_distance_sq(ea0, ea1, eb0, eb1, t);
  return t;
}

// ---------------------------------------------------------------- distances

inline double point_edge_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1) {
  return point_edge_distance_sq(p, e0, e1, classify_point_edge(p, e0, e1));
}

inline double point_edge_distance_sq(const Vec3& p, const Vec3& e0, const Vec3& e1, PointEdgeType type) {
  switch (type) {
    case PointEdgeType::P_E0: return point_point_distance_sq(p, e0);
    case PointEdgeType::P_E1: return point_point_distance_sq(p, e1);
    case PointEdgeType::P_E: return point_line_distance_sq(p, e0, e1);
  }
  return 0.0;
}

inline double point_triangle_distance_sq(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  PointTriangleType t;
  return detail::point_triangle_type_and_distance_sq(p, a, b, c, t);
}

inline double point_triangle_distance_sq(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                                  PointTriangleType type) {
  switch (type) {
    case PointTriangleType::P_A: return point_point_distance_sq(p, a);
    case PointTriangleType::P_B: return point_point_distance_sq(p, b);
    case PointTriangleType::P_C: return point_point_distance_sq(p, c);
    case PointTriangleType::P_EAB: return point_line_distance_sq(p, a, b);
    case PointTriangleType::P_EBC: return point_line_distance_sq(p, b, c);
    case PointTriangleType::P_ECA: return point_line_distance_sq(p, c, a);
    case PointTriangleType::P_T: return point_plane_distance_sq(p, a, b, c);
  }
  return 0.0;
}

inline double edge_edge_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1) {
  EdgeEdgeType t;
  return detail::edge_edge_type_and_distance_sq(ea0, ea1, eb0, eb1, t);
}

inline double edge_edge_distance_sq(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                             EdgeEdgeType type) {
  switch (type) {
    case EdgeEdgeType::EA0_EB0: return point_point_distance_sq(ea0, eb0);
    case EdgeEdgeType::EA0_EB1: return point_point_distance_sq(ea0, eb1);
    case EdgeEdgeType::EA1_EB0: return point_point_distance_sq(ea1, eb0);
    case EdgeEdgeType::EA1_EB1: return point_point_distance_sq(ea1, eb1);
    case EdgeEdgeType::EA_EB0: return point_line_distance_sq(eb0, ea0, ea1);
    case EdgeEdgeType::EA_EB1: return point_line_distance_sq(eb1, ea0, ea1);
    case EdgeEdgeType::EA0_EB: return point_line_distance_sq(ea0, eb0, eb1);
    case EdgeEdgeType::EA1_EB: return point_line_distance_sq(ea1, eb0, eb1);
    case EdgeEdgeType::EA_EB: return line_line_distance_sq(ea0, ea1, eb0, eb1);
  }
  return 0.0;
}


}  // namespace weft
