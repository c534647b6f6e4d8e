// Procedural meshes. Every generator is centred at the origin, returns a consistently
// oriented manifold mesh that passes validate_mesh(), and is deterministic (same
// arguments -> bit-identical output on every platform). Invalid arguments throw InputError.
#pragma once
#include "core/types.hpp"
#include "mesh/tri_mesh.hpp"

namespace weft {

// Rectangle in the x-z plane (y = 0), normals +y. size_x along x, size_z along z;
// nx x nz vertices (nx, nz >= 2), vertex (i, j) has index j * nx + i and sits at
// x = -size_x/2 + i * size_x/(nx-1), z = -size_z/2 + j * size_z/(nz-1).
// 2 (nx-1)(nz-1) triangles. jitter in [0, 0.4]: 0 gives a regular grid with every quad
// split along its (i,j)-(i+1,j+1) diagonal; > 0 moves each interior vertex by up to
// jitter * spacing in x and z (deterministic in `seed`; the boundary stays straight) and
// alternates the diagonal in a checkerboard. No triangle is allowed below a quarter of the
// regular area: where jitter would do that, it is scaled back for the vertices involved.
TriMesh make_grid(double size_x, double size_z, int nx, int nz, double jitter = 0.0,
                  unsigned seed = 1);

// Disk of `radius` in the x-z plane, normals +y. A centre vertex (index 0) plus `rings`
// concentric rings (rings >= 1) at radius * k / rings; ring k (1..rings) has
// max(round(segments * k / rings), n_min(k)) evenly spaced vertices starting at angle 0,
// where n_min(k) (3 for k = 1, ~pi sqrt(k) for large k) keeps the bands between rings
// from folding; the boundary has exactly `segments` vertices, and segments < n_min(rings)
// is an InputError. With segments = 6 * rings the triangles are near-equilateral and
// there are 1 + 3 rings (rings + 1) vertices and 6 rings^2 triangles.
TriMesh make_disk(double radius, int rings, int segments);
// The fewest rim segments make_disk accepts for `rings` rings (n_min above).
int disk_min_segments(int rings);

// Icosphere: an icosahedron subdivided `subdivisions` times (0..8), vertices projected to
// the sphere. 10 * 4^s + 2 vertices, 20 * 4^s triangles, outward normals, closed.
TriMesh make_sphere(double radius, int subdivisions);

// Closed box with full extents `size`, outward normals. `resolution` (>= 2) is the number
// of vertices along the longest edge; the other edges get max(2, round((resolution - 1) *
// size_k / size_max) + 1), so the triangles stay well shaped. resolution 2 = 8 vertices,
// 12 triangles.
TriMesh make_box(const Vec3& size, int resolution = 2);

// Cylinder with axis y, centred at the origin (y in [-height/2, height/2]), outward
// normals. `rings` (>= 2) rings of `segments` (>= 3) vertices along the axis (ring r has
// indices r * segments .. r * segments + segments - 1, ring 0 at the bottom);
// 2 * segments * (rings - 1) side triangles. capped = true (the default) closes it with a
// fan around one centre vertex per end (bottom centre, then top centre, after the rings):
// closed surface, segments * rings + 2 vertices. capped = false: an open tube.
TriMesh make_cylinder(double radius, double height, int segments, int rings, bool capped = true);

// Funnel: the open surface of a truncated cone with axis y, centred at the origin, radius
// bottom_radius at y = -height/2 and top_radius at y = +height/2 (either may be the larger),
// open at both ends: a manifold with two boundary loops, normals pointing away from the
// axis. `rings` (>= 2) rings of `segments` (>= 3) vertices, ring r (bottom = 0) at index
// r * segments + s, angle 2 pi s / segments from +x towards +z, radius interpolated
// linearly in y; segments * rings vertices, 2 * segments * (rings - 1) triangles.
TriMesh make_funnel(double top_radius, double bottom_radius, double height, int segments, int rings);

}  // namespace weft
