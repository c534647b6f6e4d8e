// Small geometric helpers on TriMesh shared by the generators, readers and validation.
#pragma once
#include <Eigen/Geometry>
#include <vector>

#include "mesh/tri_mesh.hpp"

namespace weft {

// (b - a) x (c - a): twice the area times the unit normal (right-hand rule on the order).
Vec3 triangle_normal(const TriMesh& m, int t);
double triangle_area(const TriMesh& m, int t);
double total_area(const TriMesh& m);
// Length of the bounding box diagonal (0 for an empty mesh).
double bbox_diagonal(const TriMesh& m);
// Axis-aligned bounds; {0,0,0} for an empty mesh.
void bounding_box(const TriMesh& m, Vec3& lo, Vec3& hi);
// Signed volume enclosed (positive for a closed surface with outward normals).
double signed_volume(const TriMesh& m);
// Reverse the triangles whose normal points towards `centre` (only meaningful for
// star-shaped closed surfaces such as the convex generators).
void orient_outward(TriMesh& m, const Vec3& centre = Vec3::Zero());
// Reverse every triangle whose normal has a negative component along `up` (planar meshes).
void orient_along(TriMesh& m, const Vec3& up);
// Drop vertices no triangle and no segment uses, keeping the order of the rest and
// renumbering triangles and segments; returns how many were dropped. Triangle and segment
// indices must be in range. use = MeshUse::particles keeps every vertex (a particle set's
// vertices are exactly the unreferenced ones) and returns 0: a caller that reads a
// particle OBJ ('v' lines only) passes it, or simply does not call this function. The
// default (surface) and MeshUse::rods behave alike: vertices of segments are kept.
int remove_unreferenced_vertices(TriMesh& m, MeshUse use = MeshUse::surface);
// |x_b - x_a| of segment s.
double segment_length(const TriMesh& m, int s);
// Remove the segments whose unordered vertex pair is an edge of some triangle (they are
// not codimensional), keeping the order of the rest; returns how many were removed.
// Indices must be in range.
int drop_segments_on_triangles(TriMesh& m);

}  // namespace weft
