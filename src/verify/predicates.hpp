// Geometric predicates of weft-verify, written independently of src/contact and src/ccd
// so the verifier does not share bugs with the simulator it checks.
//
// Intersection tests are on CLOSED sets (touching counts as intersecting) and are exact:
// every decision is a sign of orient2d/orient3d (exact.hpp) or a comparison of input
// coordinates; no constructed point is ever compared. Degenerate triangles (collinear or
// coincident vertices) are handled as the union of their edges.
//
// Distances are evaluated in double precision. Each candidate is the length of a vector
// between two actual points of the primitives, so results are accurate to a few ulps of
// the coordinates; segment-segment distance takes the minimum of the four endpoint-to-
// segment distances and (when the lines are not parallel and both parameters are inside
// (0,1)) the interior closest pair, so nearly parallel segments are handled.
#pragma once
#include "core/types.hpp"

namespace weft::verify {

// Closed 3D segment [p,q] vs closed triangle (a,b,c).
bool segment_triangle_intersect(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                                const Vec3& c);
// Closed 3D segments.
bool segment_segment_intersect(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1);
// Closed triangles.
bool triangle_triangle_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                                 const Vec3& b1, const Vec3& b2);

// Axis dropped to project triangle (a,b,c) injectively to 2D (the largest component of its
// normal, checked exactly), or -1 when the triangle is degenerate.
int triangle_drop_axis(const Vec3& a, const Vec3& b, const Vec3& c);

double point_segment_distance(const Vec3& p, const Vec3& a, const Vec3& b);
double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);
double segment_segment_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1);
// min over the 2 point-triangle + 3 edge-edge sub-pairs (exact distance unless they intersect).
double segment_triangle_distance(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                                 const Vec3& c);
// min over the 6 point-triangle + 9 edge-edge sub-pairs. Equals the true distance of two
// non-intersecting triangles; for intersecting ones call triangle_triangle_intersect first.
double triangle_triangle_distance(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                                  const Vec3& b1, const Vec3& b2);

}  // namespace weft::verify
