// Collision surface construction: unique sorted edges, surface vertices, per-primitive
// offsets and objects, determinism, and input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include "contact/surface.hpp"
#include "core/error.hpp"

using namespace weft;

namespace {
// Every vertex's, edge's or triangle's offset, in index order (the surface keeps one per object).
std::vector<double> offsets(const CollisionSurface& s, double (CollisionSurface::*of)(int) const, size_t n) {
  std::vector<double> r;
  for (size_t i = 0; i < n; ++i) r.push_back((s.*of)(static_cast<int>(i)));
  return r;
}
std::vector<double> vertex_offsets(const CollisionSurface& s) {
  return offsets(s, &CollisionSurface::vertex_offset, s.num_vertices());
}
std::vector<double> edge_offsets(const CollisionSurface& s) {
  return offsets(s, &CollisionSurface::edge_offset, s.edges.size());
}
std::vector<int> edge_objects(const CollisionSurface& s) {
  std::vector<int> r;
  for (size_t e = 0; e < s.edges.size(); ++e) r.push_back(s.edge_object(static_cast<int>(e)));
  return r;
}
std::vector<double> triangle_offsets(const CollisionSurface& s) {
  return offsets(s, &CollisionSurface::triangle_offset, s.triangles.size());
}
}  // namespace

// A surface over borrowed triangles (C-IPC borrows the Scene's) reads them without a copy
// and equals the one built from held copies.
TEST(Surface, BorrowedTrianglesGiveTheSameSurfaceWithoutACopy) {
  const std::vector<Tri> tris = {{0, 1, 2}, {0, 2, 3}, {7, 5, 6}};
  const std::vector<int> obj = {0, 0, 1};
  const std::vector<double> off = {0.25, 1.5};
  const CollisionSurface held = build_collision_surface(tris, obj, off, 9);
  const CollisionSurface borrowed =
      build_collision_surface(BorrowedArray<Tri>::borrow(tris), obj, off, 9);
  EXPECT_TRUE(borrowed.triangles.borrowed());
  EXPECT_EQ(borrowed.triangles.flat_data(), tris.data());
  EXPECT_EQ(borrowed.triangle_object, obj);
  EXPECT_FALSE(held.triangles.borrowed());
  EXPECT_NE(held.triangles.flat_data(), tris.data());
  EXPECT_EQ(borrowed.edges.to_vector(), held.edges.to_vector());
  EXPECT_EQ(edge_objects(borrowed), edge_objects(held));
  EXPECT_EQ(borrowed.vertices, held.vertices);
  EXPECT_EQ(borrowed.vertex_object, held.vertex_object);
  EXPECT_EQ(borrowed.triangles.to_vector(), held.triangles.to_vector());
  EXPECT_EQ(held.triangles.to_vector(), tris);
}

TEST(Surface, TwoObjectsEdgesVerticesOffsets) {
  // Object 0: quad 0-1-2-3 as two triangles; object 1: one triangle 5-6-7. Vertex 4 is on
  // no triangle.
  const std::vector<Tri> tris = {{0, 1, 2}, {0, 2, 3}, {7, 5, 6}};
  const std::vector<int> obj = {0, 0, 1};
  const std::vector<double> off = {0.25, 1.5};
  const CollisionSurface s = build_collision_surface(tris, obj, off, 9);

  EXPECT_EQ(s.triangles.to_vector(), tris);
  EXPECT_EQ(s.triangle_object, obj);
  EXPECT_EQ(triangle_offsets(s), (std::vector<double>{0.25, 0.25, 1.5}));
  const std::vector<Edge> edges = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}, {5, 6}, {5, 7}, {6, 7}};
  EXPECT_EQ(s.edges.to_vector(), edges);
  EXPECT_EQ(edge_objects(s), (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1}));
  EXPECT_TRUE(s.edge_object_table.empty());  // derived from the vertices' objects
  EXPECT_EQ(edge_offsets(s), (std::vector<double>{0.25, 0.25, 0.25, 0.25, 0.25, 1.5, 1.5, 1.5}));
  EXPECT_EQ(s.vertices, (std::vector<int>{0, 1, 2, 3, 5, 6, 7}));
  ASSERT_EQ(s.num_vertices(), 9);
  EXPECT_EQ(s.vertex_object, (std::vector<int>{0, 0, 0, 0, -1, 1, 1, 1, -1}));
  EXPECT_EQ(vertex_offsets(s), (std::vector<double>{0.25, 0.25, 0.25, 0.25, 0, 1.5, 1.5, 1.5, 0}));
}

// The uniform-offset shortcut (no object lookup when every object shares an offset) gives
// each surface primitive exactly what its object gives; objects that differ turn it off.
TEST(Surface, UniformOffsetShortcutMatchesTheObjectOffsets) {
  const std::vector<Tri> tris = {{0, 1, 2}, {0, 2, 3}, {7, 5, 6}};
  const std::vector<int> obj = {0, 0, 1};
  for (const std::vector<double>& off : {std::vector<double>{0.25, 0.25}, std::vector<double>{0.25, 1.5},
                                         std::vector<double>{0.0, 0.0}}) {
    const CollisionSurface s = build_collision_surface(tris, obj, off, 9, {{4, 8}}, {1});
    EXPECT_EQ(s.uniform_offset, off[0] == off[1]);
    if (s.uniform_offset) {
      EXPECT_EQ(s.common_offset, off[0]);
    }
    for (int v : s.vertices) EXPECT_EQ(s.point_offset(v), off[s.vertex_object[v]]) << v;
    for (size_t e = 0; e < s.edges.size(); ++e) EXPECT_EQ(s.edge_offset(int(e)), off[s.edge_object(int(e))]);
    for (size_t t = 0; t < s.triangles.size(); ++t)
      EXPECT_EQ(s.triangle_offset(int(t)), off[s.triangle_object[int(t)]]);
    EXPECT_EQ(s.vertex_offset(4), off[1]);  // on the segment (object 1)
  }
  EXPECT_FALSE(build_collision_surface({}, {}, {}, 0).uniform_offset);
}

TEST(Surface, GridEdgesMatchReferenceAndEuler) {
  // n x n grid: E = V + F - 1 for a disk; compare with a std::set reference.
  const int n = 17;
  std::vector<Tri> tris;
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      const int a = i * n + j, b = a + 1, c = a + n, d = c + 1;
      tris.push_back({a, b, d});
      tris.push_back({a, d, c});
    }
  const CollisionSurface s = build_collision_surface(tris, std::vector<int>(tris.size(), 0), {0.0}, n * n);
  std::set<Edge> ref;
  for (const Tri& t : tris)
    for (int k = 0; k < 3; ++k) ref.insert({std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3])});
  EXPECT_EQ(s.edges.to_vector(), std::vector<Edge>(ref.begin(), ref.end()));
  EXPECT_EQ(s.edges.size(), size_t(n * n + tris.size() - 1));
  EXPECT_EQ(s.vertices.size(), size_t(n * n));
  for (const Edge& e : s.edges.to_vector()) EXPECT_LT(e[0], e[1]);
}

TEST(Surface, DeterministicAndIndependentOfTriangleVertexRotation) {
  // Rotating each triangle's vertex order (same orientation) must not change edges.
  std::mt19937 rng(7);
  const int nv = 60;
  std::vector<Tri> tris;
  std::uniform_int_distribution<int> pick(0, nv - 1);
  while (tris.size() < 150) {
    const int a = pick(rng), b = pick(rng), c = pick(rng);
    if (a != b && b != c && a != c) tris.push_back({a, b, c});
  }
  std::vector<int> obj(tris.size());
  for (size_t t = 0; t < tris.size(); ++t) obj[t] = int(t % 3);
  const std::vector<double> off = {0.0, 0.1, 0.2};
  const CollisionSurface s1 = build_collision_surface(tris, obj, off, nv);
  const CollisionSurface s2 = build_collision_surface(tris, obj, off, nv);
  EXPECT_EQ(s1.edges.to_vector(), s2.edges.to_vector());
  EXPECT_EQ(edge_objects(s1), edge_objects(s2));
  // Objects share vertices here (malformed for a scene): the edges keep a table of objects.
  EXPECT_FALSE(s1.edge_object_table.empty());
  std::vector<Tri> rot = tris;
  for (Tri& t : rot) std::rotate(t.begin(), t.begin() + 1, t.end());
  const CollisionSurface s3 = build_collision_surface(rot, obj, off, nv);
  EXPECT_EQ(s1.edges.to_vector(), s3.edges.to_vector());
  EXPECT_EQ(edge_objects(s1), edge_objects(s3));
  EXPECT_EQ(s1.vertex_object, s3.vertex_object);
  // Edge object = object of the lowest-numbered triangle containing the edge.
  for (size_t e = 0; e < s1.edges.size(); ++e) {
    int lowest = -1;
    for (size_t t = 0; t < tris.size() && lowest < 0; ++t)
      for (int k = 0; k < 3; ++k) {
        const int a = tris[t][k], b = tris[t][(k + 1) % 3];
        if (std::min(a, b) == s1.edges[e][0] && std::max(a, b) == s1.edges[e][1]) lowest = int(t);
      }
    ASSERT_GE(lowest, 0);
    EXPECT_EQ(s1.edge_object(static_cast<int>(e)), obj[lowest]);
    EXPECT_EQ(s1.edge_offset(e), off[obj[lowest]]);
  }
}

TEST(Surface, DegenerateTriangleHasNoLoopEdge) {
  const CollisionSurface s = build_collision_surface({{0, 1, 1}}, {0}, {0.0}, 2);
  EXPECT_EQ(s.edges.to_vector(), (std::vector<Edge>{{0, 1}}));
  EXPECT_EQ(s.vertices, (std::vector<int>{0, 1}));
}

TEST(Surface, EmptyInput) {
  const CollisionSurface s = build_collision_surface({}, {}, {}, 5);
  EXPECT_TRUE(s.edges.empty());
  EXPECT_TRUE(s.vertices.empty());
  EXPECT_EQ(s.num_vertices(), 5);
  EXPECT_EQ(vertex_offsets(s), std::vector<double>(5, 0.0));
}

TEST(Surface, RejectsBadInput) {
  EXPECT_THROW(build_collision_surface({{0, 1, 3}}, {0}, {0.0}, 3), InputError);   // vertex out of range
  EXPECT_THROW(build_collision_surface({{0, 1, -1}}, {0}, {0.0}, 3), InputError);  // negative vertex
  EXPECT_THROW(build_collision_surface({{0, 1, 2}}, {1}, {0.0}, 3), InputError);   // object out of range
  EXPECT_THROW(build_collision_surface({{0, 1, 2}}, {}, {0.0}, 3), InputError);    // size mismatch
  EXPECT_THROW(build_collision_surface({{0, 1, 2}}, {0}, {-1e-3}, 3), InputError); // negative offset
  EXPECT_THROW(build_collision_surface({{0, 1, 2}}, {0}, {std::nan("")}, 3), InputError);
}

// Codimensional primitives (issue 17, point 2): segments after the triangle edges,
// isolated points, their objects and offsets, and what is dropped.
TEST(Surface, SegmentsAndPointsExact) {
  const std::vector<Tri> tris = {{0, 1, 2}};
  // Segment {3, 4} twice (once reversed), {5, 4}, a triangle edge {1, 2}, {2, 5} touching
  // the triangle, and a degenerate {6, 6}.
  const std::vector<Edge> segs = {{4, 3}, {3, 4}, {5, 4}, {1, 2}, {2, 5}, {6, 6}};
  const std::vector<int> seg_obj = {1, 1, 2, 1, 1, 1};
  // 7 twice, 3 (on a segment), 0 (on the triangle), 9.
  const std::vector<int> pts = {7, 3, 7, 0, 9};
  const std::vector<int> pt_obj = {3, 1, 2, 0, 2};
  const std::vector<double> off = {0.1, 0.2, 0.3, 0.4};
  const CollisionSurface s = build_collision_surface(tris, {0}, off, 11, segs, seg_obj, pts, pt_obj);

  EXPECT_EQ(s.num_triangle_edges, 3);
  EXPECT_EQ(s.num_segments(), 3);
  EXPECT_EQ(s.edges.to_vector(), (std::vector<Edge>{{0, 1}, {0, 2}, {1, 2}, {2, 5}, {3, 4}, {4, 5}}));
  EXPECT_EQ(edge_objects(s), (std::vector<int>{0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(edge_offsets(s), (std::vector<double>{0.1, 0.1, 0.1, 0.2, 0.2, 0.3}));
  EXPECT_FALSE(s.is_segment(2));
  EXPECT_TRUE(s.is_segment(3));
  EXPECT_EQ(s.vertices, (std::vector<int>{0, 1, 2, 3, 4, 5, 7, 9}));
  EXPECT_EQ(s.codim_vertices, (std::vector<int>{2, 3, 4, 5, 7, 9}));
  EXPECT_EQ(s.points, (std::vector<int>{7, 9}));
  // Vertex 5: on segments {5, 4} (input 2, object 2) and {2, 5} (input 4, object 1): the
  // first in input order gives the object.
  EXPECT_EQ(s.vertex_object, (std::vector<int>{0, 0, 0, 1, 1, 2, -1, 3, -1, 2, -1}));
  EXPECT_EQ(vertex_offsets(s), (std::vector<double>{0.1, 0.1, 0.1, 0.2, 0.2, 0.3, 0, 0.4, 0, 0.3, 0}));
  EXPECT_EQ(triangle_offsets(s), (std::vector<double>{0.1}));
}

TEST(Surface, RodsAndParticlesWithoutTriangles) {
  // A 3-segment polyline (object 0) and two particles (object 1): the edges are the
  // segments alone, sorted.
  const CollisionSurface s =
      build_collision_surface({}, {}, {2e-3, 1e-3}, 6, {{2, 3}, {1, 2}, {0, 1}}, {0, 0, 0}, {5, 4}, {1, 1});
  EXPECT_EQ(s.num_triangle_edges, 0);
  EXPECT_EQ(s.edges.to_vector(), (std::vector<Edge>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(edge_offsets(s), (std::vector<double>{2e-3, 2e-3, 2e-3}));
  EXPECT_EQ(s.vertices, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(s.codim_vertices, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(s.points, (std::vector<int>{4, 5}));
  EXPECT_EQ(s.vertex_object, (std::vector<int>{0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(vertex_offsets(s), (std::vector<double>{2e-3, 2e-3, 2e-3, 2e-3, 1e-3, 1e-3}));
}

TEST(Surface, TriangleOnlyInputHasNoCodimPrimitives) {
  const CollisionSurface s = build_collision_surface({{0, 1, 2}, {0, 2, 3}}, {0, 0}, {0.0}, 4);
  EXPECT_EQ(s.num_triangle_edges, 5);
  EXPECT_EQ(s.num_segments(), 0);
  EXPECT_TRUE(s.codim_vertices.empty());
  EXPECT_TRUE(s.points.empty());
}

TEST(Surface, RejectsBadCodimInput) {
  EXPECT_THROW(build_collision_surface({}, {}, {0.0}, 3, {{0, 3}}, {0}), InputError);       // vertex out of range
  EXPECT_THROW(build_collision_surface({}, {}, {0.0}, 3, {{0, 1}}, {1}), InputError);       // object out of range
  EXPECT_THROW(build_collision_surface({}, {}, {0.0}, 3, {{0, 1}}, {}), InputError);        // size mismatch
  EXPECT_THROW(build_collision_surface({}, {}, {0.0}, 3, {}, {}, {3}, {0}), InputError);    // point out of range
  EXPECT_THROW(build_collision_surface({}, {}, {0.0}, 3, {}, {}, {-1}, {0}), InputError);
  EXPECT_THROW(build_collision_surface({}, {}, {0.0}, 3, {}, {}, {1}, {2}), InputError);    // object out of range
  EXPECT_THROW(build_collision_surface({}, {}, {0.0}, 3, {}, {}, {1}, {}), InputError);     // size mismatch
}

// A run's ranks, simulated one block after another (build_collision_surface_share): each
// block reads only the triangles with a vertex in it, from a part of the array holding just
// those (every other entry unknown). The gather is two passes: the first records each
// block's ints and stops there; the second hands every block all of them in block order, as
// MPI_Allgatherv does, and numbers its edges with `number` (as MPI_Exscan / MPI_Allreduce
// number them in a run).
struct SharedInput {
  std::vector<Tri> tris;
  std::vector<int> tobj;
  std::vector<double> off;
  int nv = 0;
  std::vector<Edge> segs;
  std::vector<int> sobj, pts, pobj;
};
struct StopAtGather {};
class Blocks {
 public:
  Blocks(const SharedInput& in, std::vector<int> cuts) : in_(in), cuts_(std::move(cuts)) {
    for (int b = 0; b < count(); ++b) {
      try {
        build(b, [&](const std::vector<int>& mine) -> std::vector<int> {
          chunks_.push_back(mine);
          throw StopAtGather{};
        }, [](long, long) { return EdgeCounts{}; });
        ADD_FAILURE() << "block " << b << " did not gather";
      } catch (const StopAtGather&) {
      }
    }
  }
  int count() const { return static_cast<int>(cuts_.size()) - 1; }
  // Block b's share, its edges numbered by `number`.
  CollisionSurface share(int b, std::function<EdgeCounts(long, long)> number) const {
    return build(b, [&, b](const std::vector<int>& mine) {
      EXPECT_EQ(mine, chunks_[b]);
      std::vector<int> all;
      for (const auto& c : chunks_) all.insert(all.end(), c.begin(), c.end());
      return all;
    }, std::move(number));
  }
  // The triangles block b reads: those with a vertex in it.
  std::vector<int> triangle_ids(int b) const {
    std::vector<int> ids;
    for (size_t t = 0; t < in_.tris.size(); ++t)
      if (std::any_of(in_.tris[t].begin(), in_.tris[t].end(), [&](int v) { return v >= cuts_[b] && v < cuts_[b + 1]; }))
        ids.push_back(static_cast<int>(t));
    return ids;
  }

 private:
  CollisionSurface build(int b, std::function<std::vector<int>(const std::vector<int>&)> gather,
                         std::function<EdgeCounts(long, long)> number) const {
    const std::vector<int> ids = triangle_ids(b);
    const PagedArray<Tri> part = PagedArray<Tri>(in_.tris).part(0, 0, ids, Tri{-1, -1, -1});
    EdgeShare es{cuts_[b], cuts_[b + 1], std::move(number), std::move(gather)};
    // ... and the segments and points with a vertex in it (a scene part's), with their indices.
    auto in_block = [&](int v) { return v >= cuts_[b] && v < cuts_[b + 1]; };
    std::vector<Edge> segs;
    std::vector<int> seg_ids, pts, pt_ids;
    for (size_t k = 0; k < in_.segs.size(); ++k)
      if (in_block(in_.segs[k][0]) || in_block(in_.segs[k][1]))
        segs.push_back(in_.segs[k]), seg_ids.push_back(static_cast<int>(k));
    for (size_t k = 0; k < in_.pts.size(); ++k)
      if (in_block(in_.pts[k])) pts.push_back(in_.pts[k]), pt_ids.push_back(static_cast<int>(k));
    const IdRuns seg_runs(seg_ids), pt_runs(pt_ids);
    const RunInts sobj(in_.sobj), pobj(in_.pobj);
    return build_collision_surface_share(part, ids, in_.tobj, in_.off, in_.nv,
                                         SharedPrimitives{segs, &seg_runs, sobj, pts, &pt_runs, pobj}, es);
  }
  const SharedInput& in_;
  std::vector<int> cuts_;
  std::vector<std::vector<int>> chunks_;
};

// A rank's share of the edges (issue 20, EdgeShare): split the vertices into blocks as ranks
// own them; each block's share holds exactly the whole surface's edges whose first vertex
// is in the block, at the same ids, and the same vertex lists and objects, though each block
// reads only its own triangles. The scene: a jittered strip of triangles (object 0), rods
// (object 1) with a repeated and a reversed segment, a segment along a triangle edge
// (object 0: dropped, and whichever block owns either end must not mark it codimensional),
// and particles (object 2).
TEST(Surface, SharesOfTheEdgesAreTheWholeSurfaceSplitByFirstVertex) {
  const int strip = 40;  // vertices 0..2 strip - 1: two rows
  SharedInput in;
  std::mt19937 rng(5);
  for (int i = 0; i + 1 < strip; ++i) {
    const int a = i, b = i + 1, c = strip + i, d = strip + i + 1;
    in.tris.push_back(rng() % 2 ? Tri{a, b, d} : Tri{b, d, a});
    in.tris.push_back(rng() % 2 ? Tri{a, d, c} : Tri{c, a, d});
    in.tobj.push_back(0), in.tobj.push_back(0);
  }
  std::shuffle(in.tris.begin(), in.tris.end(), rng);
  const int r0 = 2 * strip, nr = 30;  // rod vertices r0..r0 + nr - 1
  for (int i = 0; i + 1 < nr; ++i) in.segs.push_back(i % 3 ? Edge{r0 + i, r0 + i + 1} : Edge{r0 + i + 1, r0 + i});
  in.segs.push_back({r0 + 4, r0 + 5});        // repeated
  in.segs.push_back({strip + 7, strip + 8});  // a triangle edge
  for (size_t i = 0; i < in.segs.size(); ++i) in.sobj.push_back(i + 1 == in.segs.size() ? 0 : 1);
  const int p0 = r0 + nr, np = 12;
  in.nv = p0 + np + 3;  // 3 vertices on nothing
  for (int i = np - 1; i >= 0; --i) in.pts.push_back(p0 + i), in.pobj.push_back(2);
  in.off = {0.0, 1e-3, 2e-3};
  const int nv = in.nv;
  const CollisionSurface whole =
      build_collision_surface(in.tris, in.tobj, in.off, nv, in.segs, in.sobj, in.pts, in.pobj);
  ASSERT_EQ(whole.num_segments(), nr - 1);

  for (const std::vector<int>& cuts : std::vector<std::vector<int>>{
           {0, nv}, {0, 20, 50, nv}, {0, strip + 8, p0 - 3, nv}, {0, 0, 7, strip + 7, strip + 7, r0 + 5, nv}}) {
    const Blocks blocks(in, cuts);
    const int nb = blocks.count();
    // Each block's counts, from the whole surface: its triangle edges and segments.
    std::vector<long> tri_count(nb, 0), seg_count(nb, 0);
    for (size_t e = 0; e < whole.edges.size(); ++e)
      for (int b = 0; b < nb; ++b)
        if (whole.edges[e][0] >= cuts[b] && whole.edges[e][0] < cuts[b + 1])
          ++(whole.is_segment(int(e)) ? seg_count : tri_count)[b];
    std::vector<char> seen(whole.edges.size(), 0), tri_seen(in.tris.size(), 0);
    for (int b = 0; b < nb; ++b) {
      const CollisionSurface s = blocks.share(b, [&](long t, long sg) {
        EXPECT_EQ(t, tri_count[b]);
        EXPECT_EQ(sg, seg_count[b]);
        EdgeCounts c;
        for (int q = 0; q < nb; ++q) {
          c.triangle_edges += tri_count[q], c.segments += seg_count[q];
          if (q < b) c.triangle_edges_before += tri_count[q], c.segments_before += seg_count[q];
        }
        return c;
      });
      SCOPED_TRACE("block " + std::to_string(b) + " of " + std::to_string(nb));
      ASSERT_EQ(s.edges.size(), whole.edges.size());
      EXPECT_EQ(s.num_triangle_edges, whole.num_triangle_edges);
      std::vector<int> own;
      for (size_t e = 0; e < whole.edges.size(); ++e)
        if (whole.edges[e][0] >= cuts[b] && whole.edges[e][0] < cuts[b + 1]) own.push_back(int(e));
      EXPECT_EQ(s.held_edges.to_vector(), own);
      for (int e : own) {
        EXPECT_EQ(s.edges[e], whole.edges[e]) << "edge " << e;
        EXPECT_EQ(s.edge_object(e), whole.edge_object(e)) << "edge " << e;
        EXPECT_EQ(s.edge_offset(e), whole.edge_offset(e)) << "edge " << e;
        seen[e] += 1;
      }
      for (size_t e = 0; e < s.edges.size(); ++e)
        if (!std::binary_search(own.begin(), own.end(), int(e))) {
          EXPECT_EQ(s.edges[e], (Edge{-1, -1}));
        }
      EXPECT_EQ(s.vertices, whole.vertices.to_vector());
      EXPECT_EQ(s.codim_vertices, whole.codim_vertices);
      EXPECT_EQ(s.points, whole.points);
      EXPECT_EQ(s.vertex_object, whole.vertex_object.to_vector());
      EXPECT_TRUE(s.edge_object_table.empty());
      EXPECT_TRUE(s.share);
      // Its triangles: those whose first vertex is in the block, at their ids; no others.
      ASSERT_EQ(s.triangles.size(), in.tris.size());
      std::vector<int> own_tris;
      for (size_t t = 0; t < in.tris.size(); ++t) {
        const bool mine = in.tris[t][0] >= cuts[b] && in.tris[t][0] < cuts[b + 1];
        if (mine) own_tris.push_back(int(t)), tri_seen[t] += 1;
        EXPECT_EQ(s.triangles[t], mine ? in.tris[t] : (Tri{-1, -1, -1})) << "triangle " << t;
      }
      EXPECT_EQ(s.held_triangles.to_vector(), own_tris);
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), long(seen.size())) << "every edge in exactly one share";
    EXPECT_EQ(std::count(tri_seen.begin(), tri_seen.end(), 1), long(tri_seen.size()))
        << "every triangle in exactly one share";
  }
  // The triangle-edge segment marks nothing: the strip's vertices are on no kept segment.
  EXPECT_EQ(whole.codim_vertices[0], r0);
}

// A share needs each edge's object to be its first vertex's (a scene's objects share no
// vertex): the objects of edges it does not hold are derived from their vertices. Every
// block refuses such input, whether it holds the offending edge or not, and only after the
// gather (a run's ranks must all stop, none waiting in a collective). Likewise input only
// one block sees as invalid (a triangle it reads with an object out of range).
TEST(Surface, ShareRefusesObjectsSharingAVertex) {
  // A segment of object 1 from the object-0 triangle's vertex 2; a triangle whose vertex 3
  // is another's; a triangle of object 5 of 2 (only blocks holding one of its vertices
  // read it).
  SharedInput seg{{{0, 1, 2}}, {0}, {0.0, 1e-3}, 4, {{2, 3}}, {1}, {}, {}};
  SharedInput tri{{{0, 1, 2}, {1, 3, 2}}, {0, 1}, {0.0, 1e-3}, 4, {}, {}, {}, {}};
  SharedInput bad{{{0, 1, 2}, {2, 3, 4}}, {0, 5}, {0.0, 1e-3}, 6, {}, {}, {}, {}};
  for (const SharedInput* in : {&seg, &tri, &bad})
    for (int cut : {0, 2, 3, 4}) {
      const Blocks blocks(*in, {0, cut, in->nv});
      for (int b = 0; b < 2; ++b)
        EXPECT_THROW(blocks.share(b, [](long t, long s) { return EdgeCounts{0, t, 0, s}; }), InputError)
            << "cut " << cut << ", block " << b;
    }
  EXPECT_NO_THROW(build_collision_surface({{0, 1, 2}}, {0}, {0.0, 1e-3}, 4, {{2, 3}}, {1}));
}
