// Procedural meshes. Every generator is centred at the origin (make_polyline excepted: it
// takes its points as given), is deterministic (same arguments -> bit-identical output on
// every platform) and throws InputError ("GENERATOR: ARGUMENT must ..., got ...") for
// invalid arguments. The surface generators return a consistently oriented manifold mesh
// that passes validate_mesh(m, what); the rod generators (line, polyline, helix, rod_net)
// return segments only, passing validate_mesh(m, what, MeshUse::rods); make_particle_block
// returns vertices only (particles), passing validate_mesh(m, what, MeshUse::particles).
//
// Rod conventions, for every rod generator: the segments of one rod are consecutive in
// TriMesh::segments and run head to tail (segment k + 1 starts at the vertex where segment
// k ends), so the rod-bending pairs are the consecutive segments of each rod.
#pragma once
#include <vector>

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

// Bowl: the lower half of a sphere of `radius` centred at the origin, open at the top
// (rim: the circle of `radius` at y = 0), normals pointing away from the centre. A bottom
// pole (index 0, at (0, -radius, 0)) plus `rings` (>= 1) rings of `segments` (>= 3)
// vertices at polar angles pi/2 r/rings from the pole (ring r = 1..rings, vertex s at index
// 1 + (r - 1) segments + s, angle 2 pi s / segments from +x towards +z; the rim exactly at
// y = 0). 1 + segments rings vertices, segments (2 rings - 1) triangles.
TriMesh make_bowl(double radius, int segments, int rings);

// ---- Volumes (tetrahedra; the caller sets triangles = extract_boundary_surface(tets)) ----

// Box of tetrahedra with full extents `size`, centred: nx x ny x nz lattice points (each
// >= 2, vertex counts per axis as for make_grid), point (i, j, k) at index i + nx (j + ny k)
// and coordinate -size/2 + i size/(n-1) per axis (the last exactly +size/2). Each cell is
// split into 5 tets (a central one on the 4 corners of even parity i+j+k, one per odd
// corner), mirrored cell by cell so neighbouring cells cut their shared face along the
// same diagonal: conforming, 5 (nx-1)(ny-1)(nz-1) tets, every one positively oriented.
// No triangles.
TriMesh make_tet_box(const Vec3& size, int nx, int ny, int nz);

// Ball of tetrahedra, centred: an "O-grid" of hexes, each split into 5 positive tets as in
// make_tet_box. An inner cube of N cells per side (half-size N/(N+2L) of the radius) is
// wrapped by L layers of six sectors whose outer layer lies on the sphere (equiangular
// cubed-sphere points), with L = max(1, (resolution+1)/4), N = max(1, resolution-1-2L)
// (resolution >= 2: about that many points along a diameter, N + 2L + 1 exactly).
// (N+1)^3 + L ((N+1)^3 - (N-1)^3) vertices, 5 (N^3 + 6 N^2 L) tets. No triangles.
TriMesh make_tet_sphere(double radius, int resolution);

// ---- Rods (segments, no triangles) ----

// Straight rod along x, centred: segments >= 1; segments + 1 vertices, vertex i at
// (-length/2 + i * length/segments, 0, 0) with the last pinned exactly at +length/2;
// segment i = (i, i + 1).
TriMesh make_line(double length, int segments);

// Open polyline through `points` as given (NOT re-centred): vertex i = points[i], segment
// i = (i, i + 1), points.size() - 1 segments. Needs >= 2 points, finite coordinates, and
// consecutive points distinct: |p[i+1] - p[i]| >= 1e-12 * bounding-box diagonal and > 0
// (the length validate_mesh accepts); otherwise "polyline: points I and I+1 coincide ...".
// Non-consecutive points may coincide (the rod then touches itself; contact handles it).
TriMesh make_polyline(const std::vector<Vec3>& points);

// Helix with axis y, centred: radius > 0, pitch > 0 (rise per turn), turns > 0,
// segments >= 1. segments + 1 vertices; vertex i at angle theta_i = 2 pi turns i/segments
// measured from +x towards +z: (radius cos theta_i, -pitch turns/2 + pitch turns i/segments,
// radius sin theta_i), the last y pinned exactly at +pitch turns/2. Vertex 0 is exactly
// (radius, -pitch turns/2, 0). Segment i = (i, i + 1).
TriMesh make_helix(double radius, double pitch, double turns, int segments);

// Net of straight rods in the x-z plane (y = 0), joined at their crossings by shared
// vertices. m >= 2 rods along x, at z_j = -size_b/2 + j size_b/(m-1) (j = 0..m-1), and
// n >= 2 rods along z, at x_i = -size_a/2 + i size_a/(n-1) (i = 0..n-1); the outer rods
// are the rim, every rod ends at a rim crossing (the x-rods span [-size_a/2, size_a/2], the
// z-rods [-size_b/2, size_b/2]). subdivisions s >= 1 splits each rod piece between two
// neighbouring crossings into s equal segments (s = 1: the crossings only).
//   Vertices, m n + (s - 1) (m (n - 1) + n (m - 1)) in all:
//     crossings first: crossing (i, j) = index j n + i at (x_i, 0, z_j) (far rim pinned
//       exactly at +size_a/2, +size_b/2);
//     then the x-rods' interior points: rod j, gap i (between x_i and x_{i+1}), k = 1..s-1
//       at index m n + (j (n - 1) + i) (s - 1) + k - 1, x = x_i + k (x_{i+1} - x_i)/s;
//     then the z-rods' interior points: rod i, gap j, k = 1..s-1 at index
//       m n + m (n - 1) (s - 1) + (i (m - 1) + j) (s - 1) + k - 1.
//   Segments, s (m (n - 1) + n (m - 1)) in all: x-rod j (j = 0..m-1) is segments
//   [j (n-1) s, (j+1) (n-1) s), running towards +x; then z-rod i is segments
//   m (n-1) s + [i (m-1) s, (i+1) (m-1) s), running towards +z. A crossing is shared by
//   the two rods through it (valence 4 inside, 3 on the rim, 2 at the corners).
TriMesh make_rod_net(double size_a, double size_b, int m, int n, int subdivisions = 1);

// ---- Particles (vertices only) ----

// Block of nx x ny x nz particles (each >= 1) on a lattice centred at the origin: no
// triangles, no segments. Axis k with n_k >= 2 spans the full extent size_k > 0 with
// spacing d_k = size_k / (n_k - 1) (coordinate -size_k/2 + i d_k, the last pinned exactly at
// +size_k/2); an axis with n_k = 1 puts every particle at coordinate 0 there, has no spacing
// and gets no jitter (its size must be finite and >= 0, and is otherwise unused).
// Particle (i, j, k) has index i + nx (j + ny k). jitter in [0, 0.4] moves every particle
// (boundary ones too, so the block may reach jitter d_k beyond size_k/2) by up to
// jitter * d_k along each axis, a pure function of (seed, index, axis) (the splitmix64
// hash make_grid uses); jitter = 0 gives the exact lattice whatever the seed.
TriMesh make_particle_block(const Vec3& size, int nx, int ny, int nz, double jitter = 0.0, unsigned seed = 1);

// The same block by index: particle v's position without the others (a rank generating its
// share of a large block, io/particle_parts.hpp). The constructor checks the arguments as
// make_particle_block does; position(v) is make_particle_block(...).vertices[v], bit for bit.
class ParticleLattice {
 public:
  ParticleLattice(const Vec3& size, int nx, int ny, int nz, double jitter = 0.0, unsigned seed = 1);
  long long count() const { return static_cast<long long>(n_[0]) * n_[1] * n_[2]; }
  Vec3 position(long long v) const;

 private:
  int n_[3];
  std::vector<double> coord_[3];  // lattice coordinates per axis
  double spacing_[3];
  double jitter_;
  unsigned seed_;
};

}  // namespace weft
