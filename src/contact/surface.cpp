#include "contact/surface.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace weft {

namespace {

// The triangles a build reads: every one (a whole build), or the listed ids (a share).
template <class TriAt>
struct TriangleSource {
  TriAt at;              // t -> const Tri&
  size_t count;          // every triangle's id is below it
  const std::vector<int>* ids;  // null: 0..count-1
  template <class F>
  void each(F f) const {
    if (ids) {
      for (int t : *ids) f(t, at(t));
    } else {
      for (size_t t = 0; t < count; ++t) f(static_cast<int>(t), at(static_cast<int>(t)));
    }
  }
};

// Shared by the whole and the share build. A share's per-vertex work (objects, codimension)
// is over its block only; its vertex data is then gathered (share->gather).
template <class TriAt>
CollisionSurface build(const TriangleSource<TriAt>& tris, RunInts triangle_object_in,
                       const std::vector<double>& object_offset, int num_vertices, const SharedPrimitives& codim_in,
                       const EdgeShare* share) {
  const std::vector<Edge>& segments = codim_in.segments;
  const std::vector<int>& points = codim_in.points;
  RunInts::Cursor segment_object_at(codim_in.segment_object), point_object_at(codim_in.point_object);
  // Segment / point j of the lists read: its object (a cursor: the lists ascend).
  auto segment_object = [&](size_t j) { return segment_object_at[codim_in.segment_id(j)]; };
  auto point_object = [&](size_t j) { return point_object_at[codim_in.point_id(j)]; };
  CollisionSurface s;
  s.triangle_object = std::move(triangle_object_in);
  const RunInts& triangle_object = s.triangle_object;
  const int nt = static_cast<int>(tris.count);
  if (num_vertices < 0) throw InputError("collision surface: negative vertex count");
  if (triangle_object.size() != tris.count)
    throw InputError("collision surface: " + std::to_string(tris.count) + " triangles but " +
                     std::to_string(triangle_object.size()) + " triangle object ids");
  const int v_lo = share ? share->vbegin : 0, v_hi = share ? share->vend : num_vertices;
  if (v_lo < 0 || v_hi < v_lo || v_hi > num_vertices)
    throw InputError("collision surface: share [" + std::to_string(v_lo) + ", " + std::to_string(v_hi) +
                     ") is not within 0.." + std::to_string(num_vertices));
  auto own = [&](int v) { return v >= v_lo && v < v_hi; };
  const int nb = v_hi - v_lo;  // (the block: per-vertex arrays are indexed v - v_lo)
  for (size_t o = 0; o < object_offset.size(); ++o)
    if (!(object_offset[o] >= 0.0) || !std::isfinite(object_offset[o]))
      throw InputError("collision surface: object " + std::to_string(o) + " has offset " +
                       std::to_string(object_offset[o]) + ", expected a finite value >= 0");
  const int no = static_cast<int>(object_offset.size());
  auto listed = [](const IdRuns* ids, size_t n, size_t objects) {  // (ids ascending, below `objects`)
    if (!ids) return n == objects;
    if (ids->size() != n) return false;
    int previous = -1;
    for (int id : *ids) {
      if (id <= previous || static_cast<size_t>(id) >= objects) return false;
      previous = id;
    }
    return true;
  };
  if (!listed(codim_in.segment_ids, segments.size(), codim_in.segment_object.size()))
    throw InputError("collision surface: " + std::to_string(segments.size()) + " segments but " +
                     std::to_string(codim_in.segment_object.size()) + " segment object ids");
  if (!listed(codim_in.point_ids, points.size(), codim_in.point_object.size()))
    throw InputError("collision surface: " + std::to_string(points.size()) + " points but " +
                     std::to_string(codim_in.point_object.size()) + " point object ids");
  s.object_offset = object_offset;
  s.uniform_offset = !object_offset.empty() &&
                     std::all_of(object_offset.begin(), object_offset.end(), [&](double o) { return o == object_offset[0]; });
  s.common_offset = s.uniform_offset ? object_offset[0] : 0.0;

  // A share's checks that differ by rank (the triangles it reads, its block's objects) are
  // kept until every rank's are gathered, so all ranks refuse the same input together.
  std::string refused;
  int refusal = 0;  // 1: invalid input, 2: objects sharing a vertex
  std::vector<int> vobj;    // the block's objects (dense while built)
  std::vector<char> codim;  // the block's: 1 on a kept segment, 2 an isolated point
  std::vector<Edge> held;  // the edges stored, in id order: triangle edges, then segments
  std::vector<int> edge_object;
  bool derived = true;
  long own_triangle_edges = 0;
  try {
    int previous = -1;
    tris.each([&](int t, const Tri& tri) {
      if (t <= previous || t >= nt)
        throw InputError("collision surface: triangle ids not ascending within 0.." + std::to_string(nt - 1) +
                         " (" + std::to_string(t) + ")");
      previous = t;
      if (triangle_object[t] < 0 || triangle_object[t] >= no)
        throw InputError("collision surface: triangle " + std::to_string(t) + " has object " +
                         std::to_string(triangle_object[t]) + ", expected 0.." + std::to_string(no - 1));
      for (int k = 0; k < 3; ++k)
        if (tri[k] < 0 || tri[k] >= num_vertices)
          throw InputError("collision surface: triangle " + std::to_string(t) + " has vertex " +
                           std::to_string(tri[k]) + ", expected 0.." + std::to_string(num_vertices - 1));
    });
    for (size_t i = 0; i < segments.size(); ++i) {
      auto name = [&] { return "collision surface: segment " + std::to_string(codim_in.segment_id(i)); };
      if (segment_object(i) < 0 || segment_object(i) >= no)
        throw InputError(name() + " has object " + std::to_string(segment_object(i)) + ", expected 0.." +
                         std::to_string(no - 1));
      for (int k = 0; k < 2; ++k)
        if (segments[i][k] < 0 || segments[i][k] >= num_vertices)
          throw InputError(name() + " has vertex " +
                           std::to_string(segments[i][k]) + ", expected 0.." + std::to_string(num_vertices - 1));
    }
    for (size_t i = 0; i < points.size(); ++i) {
      auto name = [&] { return "collision surface: point " + std::to_string(codim_in.point_id(i)); };
      if (point_object(i) < 0 || point_object(i) >= no)
        throw InputError(name() + " has object " + std::to_string(point_object(i)) + ", expected 0.." +
                         std::to_string(no - 1));
      if (points[i] < 0 || points[i] >= num_vertices)
        throw InputError(name() + " is vertex " + std::to_string(points[i]) +
                         ", expected 0.." + std::to_string(num_vertices - 1));
    }

    // Points: object of the lowest-numbered triangle containing the vertex (a share reads
    // every triangle with a vertex in its block, ascending: the same one).
    vobj.assign(static_cast<size_t>(nb), -1);
    tris.each([&](int t, const Tri& tri) {
      for (int v : tri)
        if (own(v) && vobj[v - v_lo] < 0) vobj[v - v_lo] = triangle_object[t];
    });

    // Edges: bucket the 3 T half-edges by their smaller vertex (counting sort), then sort
    // each (small) bucket by (larger vertex, triangle) and keep the first of each run:
    // linear, deterministic, and the edge's object is that of its lowest-numbered triangle.
    // The buckets are filled a block of vertices at a time (each block one pass over the
    // triangles, at most ~1/8 of the half-edges held), and the edges counted before they
    // are stored: at 4.2M vertices the whole bucket array (48 bytes a vertex) and the edge
    // list's growth were the stepper setup's largest transient (issue 20). A share buckets
    // only the half-edges whose smaller vertex is in its block.
    std::vector<int> start(static_cast<size_t>(nb) + 1, 0);
    tris.each([&](int, const Tri& tri) {
      for (int k = 0; k < 3; ++k) {
        const int a = tri[k], b = tri[(k + 1) % 3], lo = std::min(a, b);
        if (a != b && own(lo)) ++start[lo - v_lo + 1];
      }
    });
    for (int i = 0; i < nb; ++i) start[i + 1] += start[i];
    struct Half {
      int b, t;
    };
    const int total_half = start[nb];
    const int block_half = std::max(1 << 20, total_half / 8);
    // A triangle edge's object is derived from its first vertex (below) until one is not:
    // only then is the per-edge table kept (from that edge back to the first).
    auto derived_table = [&](size_t n) {  // the derived objects of edges [0, n)
      edge_object.reserve(held.capacity());
      for (size_t e = 0; e < n; ++e) edge_object.push_back(vobj[held[e][0] - v_lo]);
    };
    auto add_edge = [&](int a, int b, int object) {
      if (derived && object != vobj[a - v_lo]) {
        derived = false;
        derived_table(held.size());
      }
      held.push_back({a, b});
      if (!derived) edge_object.push_back(object);
    };
    std::vector<Half> half;
    for (int pass = 0; pass < 2; ++pass) {  // count the edges, then store them (exact size)
      long count = 0;
      for (int i0 = 0; i0 < nb;) {
        int i1 = i0 + 1;  // vertices [v_lo + i0, v_lo + i1): at most block_half half-edges, at least one
        while (i1 < nb && start[i1 + 1] - start[i0] <= block_half) ++i1;
        const int a0 = v_lo + i0, a1 = v_lo + i1;
        half.resize(start[i1] - start[i0]);
        std::vector<int> cursor(start.begin() + i0, start.begin() + i1);
        tris.each([&](int t, const Tri& tri) {
          for (int k = 0; k < 3; ++k) {
            const int a = tri[k], b = tri[(k + 1) % 3], lo = std::min(a, b);
            if (a != b && lo >= a0 && lo < a1) half[cursor[lo - a0]++ - start[i0]] = {std::max(a, b), t};
          }
        });
        for (int a = a0; a < a1; ++a) {
          auto first = half.begin() + (start[a - v_lo] - start[i0]);
          auto last = half.begin() + (start[a - v_lo + 1] - start[i0]);
          std::sort(first, last, [](const Half& x, const Half& y) { return x.b < y.b || (x.b == y.b && x.t < y.t); });
          for (auto it = first; it != last; ++it) {
            if (it != first && std::prev(it)->b == it->b) continue;
            if (pass == 0)
              ++count;
            else
              add_edge(a, it->b, triangle_object[it->t]);
          }
        }
        i0 = i1;
      }
      if (pass == 0) held.reserve(static_cast<size_t>(count) + segments.size());
    }
    half = std::vector<Half>();
    start = std::vector<int>();
    own_triangle_edges = static_cast<long>(held.size());

    // Segments: normalised to a < b, sorted by (a, b, input index); the first of each run
    // is kept unless it is a triangle edge. The rank owning a decides that for its own (the
    // triangle edges with first vertex a are in `held` already, sorted: binary search) and
    // stores it; the rank owning only b marks b codimensional if the segment is kept: an
    // edge {a, b} on a triangle is on one it reads, looked up in one pass over those (only
    // segments whose b is on a triangle: never in a scene, whose objects share no vertex).
    codim.assign(static_cast<size_t>(nb), 0);
    std::vector<int> seg_object;                  // per held segment
    std::vector<std::array<int, 2>> kept_first;  // a share's own kept segments' (first vertex, object)
    {
      struct Seg {
        int a, b, i;
      };
      std::vector<Seg> segs;
      if (!share) segs.reserve(segments.size());
      for (size_t i = 0; i < segments.size(); ++i) {  // (a share sorts only those with a vertex in its block)
        const int a = segments[i][0], b = segments[i][1];
        if (a != b && (own(a) || own(b))) segs.push_back({std::min(a, b), std::max(a, b), static_cast<int>(i)});
      }
      std::sort(segs.begin(), segs.end(), [](const Seg& x, const Seg& y) {
        return x.a < y.a || (x.a == y.a && (x.b < y.b || (x.b == y.b && x.i < y.i)));
      });
      std::vector<Edge> maybe, on_triangle;  // (b's side: segments that may be triangle edges; those that are)
      for (const Seg& g : segs)
        if (!own(g.a) && own(g.b) && vobj[g.b - v_lo] >= 0) maybe.push_back({g.a, g.b});
      if (!maybe.empty()) {
        std::sort(maybe.begin(), maybe.end());
        maybe.erase(std::unique(maybe.begin(), maybe.end()), maybe.end());
        tris.each([&](int, const Tri& tri) {
          for (int k = 0; k < 3; ++k) {
            const int a = tri[k], b = tri[(k + 1) % 3];
            const Edge e{std::min(a, b), std::max(a, b)};
            if (a != b && std::binary_search(maybe.begin(), maybe.end(), e)) on_triangle.push_back(e);
          }
        });
        std::sort(on_triangle.begin(), on_triangle.end());
      }
      const auto tri_end = held.begin() + own_triangle_edges;
      for (size_t k = 0; k < segs.size(); ++k) {
        const Seg& g = segs[k];
        if (k > 0 && segs[k - 1].a == g.a && segs[k - 1].b == g.b) continue;
        const Edge e{g.a, g.b};
        if (own(g.a)) {
          if (std::binary_search(held.begin(), tri_end, e)) continue;
          held.push_back(e);
          seg_object.push_back(segment_object(g.i));
          if (share) kept_first.push_back({g.a, segment_object(g.i)});
          codim[g.a - v_lo] = 1;
        } else if (!own(g.b) || std::binary_search(on_triangle.begin(), on_triangle.end(), e)) {
          continue;
        }
        if (own(g.b)) codim[g.b - v_lo] = 1;
      }
      // A vertex on no triangle takes the object of the first segment (input order) on it.
      for (size_t i = 0; i < segments.size(); ++i) {
        const int a = segments[i][0], b = segments[i][1];
        if (a == b) continue;
        for (int v : {a, b})
          if (own(v) && vobj[v - v_lo] < 0 && codim[v - v_lo]) vobj[v - v_lo] = segment_object(i);
      }
    }
    // Isolated points: vertices on no triangle or segment, first occurrence.
    for (size_t i = 0; i < points.size(); ++i) {
      const int v = points[i];
      if (!own(v) || vobj[v - v_lo] >= 0) continue;
      vobj[v - v_lo] = point_object(i);
      codim[v - v_lo] = 2;
    }
    // Objects do not share vertices in a scene, so an edge's object is its first vertex's
    // and no table is kept (12 bytes per cloth vertex on every rank); only input where
    // objects meet at a vertex keeps one.
    for (size_t k = 0; k < seg_object.size() && derived; ++k)
      derived = seg_object[k] == vobj[held[own_triangle_edges + k][0] - v_lo];
    if (!derived) {
      if (edge_object.empty()) derived_table(static_cast<size_t>(own_triangle_edges));  // (all derived so far)
      edge_object.insert(edge_object.end(), seg_object.begin(), seg_object.end());
      edge_object.shrink_to_fit();
    }
    if (share) {
      // A share derives the objects of the edges other ranks send it, so every edge's object
      // must be its first vertex's: each rank checks its block's vertices (every triangle's
      // carry its object; every kept segment's first vertex its object).
      bool whole_derived = std::all_of(kept_first.begin(), kept_first.end(), [&](const std::array<int, 2>& f) {
        return vobj[f[0] - v_lo] == f[1];
      });
      tris.each([&](int t, const Tri& tri) {
        for (int v : tri) whole_derived = whole_derived && (!own(v) || vobj[v - v_lo] == triangle_object[t]);
      });
      if (!whole_derived) {
        refusal = 2;
        refused = "collision surface: objects share vertices; a rank's share of the edges needs each edge's object "
                  "to be its first vertex's";
      }
    }
  } catch (const InputError& e) {
    if (!share) throw;
    refusal = 1, refused = e.what();
  }

  // The vertex data from the blocks' objects and codimension classes (one block: the whole).
  auto add_block = [&](int v, int count, int object, int cls) {
    s.vertex_object.append(count, object);
    if (object >= 0) s.vertices.append(count, v);
    if (cls >= 1) s.codim_vertices.append(count, v);
    if (cls == 2) s.points.append(count, v);
  };
  if (!share) {
    for (int v = 0; v < num_vertices; ++v) add_block(v, 1, vobj[v], codim[v]);
    s.vertex_object.compact(&vobj);
  } else {
    // Every rank's block, in rank order, as runs of equal (object, class):
    // [refusal, runs, (count, object, class) x runs].
    std::vector<int> mine = {refusal, 0};
    for (int i = 0; i < static_cast<int>(vobj.size());) {
      int j = i + 1;
      while (j < static_cast<int>(vobj.size()) && vobj[j] == vobj[i] && codim[j] == codim[i]) ++j;
      mine.insert(mine.end(), {j - i, vobj[i], codim[i]});
      ++mine[1];
      i = j;
    }
    vobj = std::vector<int>();
    codim = std::vector<char>();
    const std::vector<int> all = share->gather(mine);
    mine = std::vector<int>();
    int worst = 0;
    for (size_t k = 0; k < all.size(); k += 2 + 3 * static_cast<size_t>(all[k + 1]))
      worst = std::max(worst, all[k]);  // (the refusals first: nothing else is read from a refused input)
    if (worst > 0) {
      if (refusal == worst) throw InputError(refused);
      throw InputError(worst == 2 ? "collision surface: objects share vertices; a rank's share of the edges needs "
                                    "each edge's object to be its first vertex's"
                                  : "collision surface: another rank's share of the input is invalid");
    }
    int v = 0;
    for (size_t k = 0; k < all.size(); k += 2 + 3 * static_cast<size_t>(all[k + 1]))
      for (int r = 0; r < all[k + 1]; ++r) {
        const int* run = &all[k + 2 + 3 * static_cast<size_t>(r)];
        add_block(v, run[0], run[1], run[2]);
        v += run[0];
      }
    if (v != num_vertices)
      throw InputError("collision surface: the ranks' blocks hold " + std::to_string(v) + " vertices, not " +
                       std::to_string(num_vertices));
    s.vertex_object.compact();
  }
  // Kept for the run: no growth slack.
  for (IdRuns* a : {&s.vertices, &s.codim_vertices, &s.points}) a->compact();
  if (!derived) s.edge_object_table = std::move(edge_object);

  // Store them at their ids: a whole build as one flat block, a share at its two runs.
  const long own_segments = static_cast<long>(held.size()) - own_triangle_edges;
  EdgeCounts c;
  if (share) {
    c = share->number(own_triangle_edges, own_segments);
  } else {
    c.triangle_edges = own_triangle_edges;
    c.segments = own_segments;
  }
  const long total = c.triangle_edges + c.segments;
  if (total > std::numeric_limits<int>::max())
    throw InputError("collision surface: " + std::to_string(total) + " edges, more than an int indexes");
  s.num_triangle_edges = static_cast<int>(c.triangle_edges);
  s.edges.assign(static_cast<size_t>(total), Edge{-1, -1}, !share);
  s.share = share != nullptr;
  const long first[2] = {c.triangle_edges_before, c.triangle_edges + c.segments_before};
  const long count[2] = {own_triangle_edges, own_segments};
  for (int part = 0, h = 0; part < 2; ++part) {
    s.edges.commit_range(static_cast<size_t>(first[part]), static_cast<size_t>(first[part] + count[part]));
    for (long i = 0; i < count[part]; ++i, ++h) {
      const int id = static_cast<int>(first[part] + i);
      s.edges.ref(id) = held[h];
      s.held_edges.push_back(id);
    }
  }
  s.held_edges.compact();

  // A share's triangles: its own (first vertex in its block) at their ids, paged.
  if (share) {
    s.triangles.assign(tris.count, Tri{-1, -1, -1});
    tris.each([&](int t, const Tri& tri) {
      if (own(tri[0])) s.triangles.ref(t) = tri, s.held_triangles.push_back(t);
    });
    s.held_triangles.compact();
  }
  return s;
}

}  // namespace

CollisionSurface build_collision_surface(BorrowedArray<Tri> tris_in, RunInts triangle_object,
                                         const std::vector<double>& object_offset, int num_vertices,
                                         const std::vector<Edge>& segments, const RunInts& segment_object,
                                         const std::vector<int>& points, const RunInts& point_object) {
  const std::vector<Tri>& tris = tris_in.vector();
  auto at = [&](int t) -> const Tri& { return tris[t]; };
  CollisionSurface s = build(TriangleSource<decltype(at)>{at, tris.size(), nullptr}, std::move(triangle_object),
                             object_offset, num_vertices,
                             SharedPrimitives{segments, nullptr, segment_object, points, nullptr, point_object}, nullptr);
  // The triangles: the input (borrowed, or the held vector taken over).
  s.triangles = tris_in.borrowed() ? PagedArray<Tri>::borrow(tris) : PagedArray<Tri>::adopt(tris_in.take_held());
  return s;
}

CollisionSurface build_collision_surface_share(const PagedArray<Tri>& tris, const std::vector<int>& triangle_ids,
                                               RunInts triangle_object, const std::vector<double>& object_offset,
                                               int num_vertices, const SharedPrimitives& codim,
                                               const EdgeShare& share) {
  auto at = [&](int t) -> const Tri& { return tris[static_cast<size_t>(t)]; };
  return build(TriangleSource<decltype(at)>{at, tris.size(), &triangle_ids}, std::move(triangle_object),
               object_offset, num_vertices, codim, &share);
}

}  // namespace weft
