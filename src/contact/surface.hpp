// The collision surface: the primitives the contact broad phase pairs up (DESIGN.md, data
// flow 2b; C-IPC Sec. 3). Triangles come from shells, volume / rigid surfaces and
// obstacles; codimensional segments from rods (edges on no triangle); isolated points from
// particles (vertices on no triangle or segment). The edges are every triangle edge
// followed by the segments; the points are every vertex on a triangle, a segment or an
// isolated point. Each primitive carries its object's thickness offset xi; a pair uses
// (xi_i + xi_j) / 2 (C-IPC Sec. 5.1).
//
// Indexing:
//  * triangles / edges: the arrays triangle_* and edge_* run parallel to `triangles` /
//    `edges` (a candidate's t / ea / eb / e index them). edges[0, num_triangle_edges) are
//    the triangle edges, edges[num_triangle_edges, edges.size()) the segments;
//  * a rank's share (EdgeShare, issue 20): the edge and triangle ids are the whole surface's,
//    but only the rank's own edges and triangles (first vertex in its block: `held_edges`,
//    `held_triangles`) are stored, and the contact halo writes in those other ranks send it;
//    every other entry reads {-1, -1} / {-1, -1, -1}.
//    The vertex-indexed data below is still whole (each rank finds its block's, and they
//    are gathered: build_collision_surface_share);
//  * points: identified by their vertex id, so vertex_offset and vertex_object are indexed
//    by VERTEX ID and sized num_vertices; vertices not on the surface have object -1 and
//    offset 0. `vertices` lists the surface vertex ids, ascending; `codim_vertices` the
//    rod nodes and particles (vertices on a segment, and isolated points), ascending;
//    `points` the isolated points (particles), ascending.
#pragma once
#include <functional>
#include <vector>

#include "core/borrowed_array.hpp"
#include "core/paged_array.hpp"
#include "core/run_ints.hpp"
#include "core/types.hpp"

namespace weft {

struct CollisionSurface {
  // By triangle id (the input's): a whole build's are the input's own array when borrowed
  // (C-IPC: the Scene's, not copied), else the held input taken over, one flat block either
  // way; a share build (EdgeShare) stores its own triangles (first vertex in its block,
  // `held_triangles`) paged, and the contact halo the ones it receives; unknown entries read
  // {-1, -1, -1}.
  PagedArray<Tri> triangles;
  IdRuns held_triangles;  // a share's own triangle ids, ascending (empty on a whole build)
  // Unique undirected edges {a, b}, a < b: first every edge of a (non-degenerate) triangle,
  // sorted lexicographically; then the codimensional segments (edges on no triangle),
  // sorted lexicographically. Indexed by edge id; paged (core/paged_array.hpp): a whole
  // build stores every edge as one flat block, a share build (EdgeShare) its own edges, and
  // the contact halo the ones it receives (ContactHalo::exchange); unknown entries read
  // {-1, -1}.
  PagedArray<Edge> edges;
  int num_triangle_edges = 0;
  // The edges the build stored, ascending (as runs: a share's are two, its triangle edges
  // and its segments): every edge of a whole build, a rank's own edges of a share build.
  IdRuns held_edges;
  // A share build (EdgeShare) sets `share`; the contact model then keeps each held
  // edge's squared rest length here (for the edge-edge mollifier's threshold) and
  // the contact halo writes a received edge's with it, so no rank reads a rest position
  // beyond its part. Empty on a whole build, which computes them from the rest positions.
  bool share = false;
  PagedArray<double> edge_rest_length2;
  // Every vertex on a triangle, a segment or an isolated point, ascending; as runs of
  // consecutive ids (core/run_ints.hpp: a cloth's are all its vertices, one run), not 4
  // bytes a vertex on every rank.
  IdRuns vertices;
  // Vertices on a segment or isolated (the point side of point-edge pairs), ascending.
  // As runs (a rod's or a particle block's ids are consecutive: not 4 bytes a particle on
  // every rank); `contains` is the membership test.
  IdRuns codim_vertices;
  // Isolated points (on no triangle or segment), ascending, as runs.
  IdRuns points;
  // xi of each object; a primitive's is its object's (a point not on the surface: 0). Per
  // object, not per primitive: ~48 bytes a cloth vertex less on every rank.
  std::vector<double> object_offset;
  // Whether every object has the same offset, and that offset (build_collision_surface sets
  // both). Then a primitive's offset is it, with no object lookup: the object maps are runs
  // (a binary search a read), and the contact loops read two offsets for every pair of
  // every line-search trial, CCD pass and assembly.
  bool uniform_offset = false;
  double common_offset = 0.0;
  double vertex_offset(int v) const {
    const int o = vertex_object[v];  // (one read: a run search)
    return o < 0 ? 0.0 : object_offset[o];
  }
  // The offset of surface point v (v in `vertices`: what a pair's point side is).
  double point_offset(int v) const { return uniform_offset ? common_offset : vertex_offset(v); }
  double edge_offset(int e) const { return uniform_offset ? common_offset : object_offset[edge_object(e)]; }
  double triangle_offset(int t) const {
    return uniform_offset ? common_offset : object_offset[triangle_object[t]];
  }
  // Object of each primitive: a triangle's, a segment's and an isolated point's are given;
  // a triangle edge takes the object of the lowest-numbered triangle that contains it; a
  // vertex that of the lowest-numbered triangle containing it, else of the first segment
  // (in input order) containing it, else its isolated point's (objects do not share
  // vertices, so this only fixes the order-independence of malformed input).
  // (As runs, core/run_ints.hpp: a few per object and rank block, not 4 bytes a vertex on
  // every rank.)
  RunInts vertex_object;
  RunInts triangle_object;
  int edge_object(int e) const { return edge_object_table.empty() ? vertex_object[edges[e][0]] : edge_object_table[e]; }
  // Per edge, only when some edge's object is not its first vertex's (objects sharing a
  // vertex: malformed input); empty otherwise, the objects derived as above.
  std::vector<int> edge_object_table;

  // Stitched vertex pairs (issue 19 point 3): twin[v] is v's stitch partner, -1 for none;
  // empty when the scene has no stitches. Pairs of primitives through twins are excluded
  // like pairs sharing a vertex (broad phase), so a seam is never repelled while it closes
  // and a welded pair is one vertex to contact. Set by the caller after building; paged
  // (only the pages of stitched vertices are committed, not 4 bytes a vertex on every rank).
  PagedArray<int> twin;
  const PagedArray<int>* twin_ptr() const { return twin.empty() ? nullptr : &twin; }

  int num_vertices() const { return static_cast<int>(vertex_object.size()); }
  int num_segments() const { return static_cast<int>(edges.size()) - num_triangle_edges; }
  bool is_segment(int e) const { return e >= num_triangle_edges; }
};

// Builds the surface of `tris` (vertex ids in [0, num_vertices)), triangle t belonging to
// object triangle_object[t] whose offset is object_offset[triangle_object[t]]; plus the
// codimensional `segments` (segment i of object segment_object[i]) and isolated `points`
// (vertex ids, point i of object point_object[i]).
//  * a segment that is also a triangle edge, or repeats an earlier segment, is dropped (the
//    first occurrence keeps its object); a segment {a, a} is dropped;
//  * a point on a triangle or a segment, or repeating an earlier point, is dropped.
// Output is deterministic (a function of the input arrays only). Linear time in the
// triangles and points, S log S in the segments.
// Throws InputError on a vertex id or object id out of range, a size mismatch, or a
// negative / non-finite offset.
// tris are held (a vector converts) or borrowed (BorrowedArray::borrow: they must outlive
// the surface); triangle_object is held, as runs (a vector converts).
CollisionSurface build_collision_surface(BorrowedArray<Tri> tris, RunInts triangle_object,
                                         const std::vector<double>& object_offset, int num_vertices,
                                         const std::vector<Edge>& segments = {},
                                         const RunInts& segment_object = {},
                                         const std::vector<int>& points = {},
                                         const RunInts& point_object = {});

// A rank's share (issue 20: no rank holds the whole surface, nor reads every triangle to
// build it). The build reads only the triangles listed in `triangle_ids` (ascending: at least
// every triangle with a vertex in the block [vbegin, vend); a scene part keeps just those,
// Scene::keep_triangle_part, every other entry of `tris` may be unknown), and stores:
//  * the edges whose first vertex is in the block, at the ids a whole build gives them.
//    Edges ascend by first vertex, so a rank's triangle edges are one run of ids and its
//    segments another; `number` is given the rank's counts of each and returns the counts
//    on lower ranks and the totals over all ranks (the caller's MPI_Exscan / MPI_Allreduce:
//    the contact layer does no communication of its own);
//  * the triangles whose first vertex is in the block;
//  * the vertex data (objects, `vertices`, `codim_vertices`, `points`) as a whole build's:
//    each rank finds its block's from the triangles it reads, and `gather` returns every
//    rank's ints in rank order (the caller's MPI_Allgatherv; the blocks must tile
//    [0, num_vertices) in rank order).
// A share needs edges whose objects follow their first vertex's (a scene's: objects share no
// vertex). Every rank throws InputError, the same, if any rank's input is refused (after the
// gather, before the numbering): no rank is left waiting in a collective.
struct EdgeCounts {
  long triangle_edges_before = 0, triangle_edges = 0;  // on lower ranks; over all ranks
  long segments_before = 0, segments = 0;
};
struct EdgeShare {
  int vbegin = 0, vend = 0;
  std::function<EdgeCounts(long own_triangle_edges, long own_segments)> number;
  std::function<std::vector<int>(const std::vector<int>& mine)> gather;
};
// The segments and points a share reads: at least every one with a vertex in its block
// (a scene part keeps just those), with their case-order indices (ascending; null: the lists
// are whole, entry j is index j); their objects per case-order index (the whole lists').
struct SharedPrimitives {
  const std::vector<Edge>& segments;
  const IdRuns* segment_ids;
  const RunInts& segment_object;
  const std::vector<int>& points;
  const IdRuns* point_ids;
  const RunInts& point_object;
  int segment_id(size_t j) const { return segment_ids ? (*segment_ids)[j] : static_cast<int>(j); }
  int point_id(size_t j) const { return point_ids ? (*point_ids)[j] : static_cast<int>(j); }
};
CollisionSurface build_collision_surface_share(const PagedArray<Tri>& tris, const std::vector<int>& triangle_ids,
                                               RunInts triangle_object, const std::vector<double>& object_offset,
                                               int num_vertices, const SharedPrimitives& codim,
                                               const EdgeShare& share);

}  // namespace weft
