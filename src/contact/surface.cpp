#include "contact/surface.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace weft {

CollisionSurface build_collision_surface(BorrowedArray<Tri> tris_in, RunInts triangle_object_in,
                                         const std::vector<double>& object_offset, int num_vertices,
                                         const std::vector<Edge>& segments, const std::vector<int>& segment_object,
                                         const std::vector<int>& points, const std::vector<int>& point_object) {
  CollisionSurface s;
  s.triangles = std::move(tris_in);
  s.triangle_object = std::move(triangle_object_in);
  const std::vector<Tri>& tris = s.triangles.vector();
  const RunInts& triangle_object = s.triangle_object;
  const int nt = static_cast<int>(tris.size());
  if (num_vertices < 0) throw InputError("collision surface: negative vertex count");
  if (triangle_object.size() != tris.size())
    throw InputError("collision surface: " + std::to_string(tris.size()) + " triangles but " +
                     std::to_string(triangle_object.size()) + " triangle object ids");
  for (size_t o = 0; o < object_offset.size(); ++o)
    if (!(object_offset[o] >= 0.0) || !std::isfinite(object_offset[o]))
      throw InputError("collision surface: object " + std::to_string(o) + " has offset " +
                       std::to_string(object_offset[o]) + ", expected a finite value >= 0");
  const int no = static_cast<int>(object_offset.size());
  for (int t = 0; t < nt; ++t) {
    if (triangle_object[t] < 0 || triangle_object[t] >= no)
      throw InputError("collision surface: triangle " + std::to_string(t) + " has object " +
                       std::to_string(triangle_object[t]) + ", expected 0.." + std::to_string(no - 1));
    for (int k = 0; k < 3; ++k)
      if (tris[t][k] < 0 || tris[t][k] >= num_vertices)
        throw InputError("collision surface: triangle " + std::to_string(t) + " has vertex " +
                         std::to_string(tris[t][k]) + ", expected 0.." + std::to_string(num_vertices - 1));
  }

  if (segment_object.size() != segments.size())
    throw InputError("collision surface: " + std::to_string(segments.size()) + " segments but " +
                     std::to_string(segment_object.size()) + " segment object ids");
  if (point_object.size() != points.size())
    throw InputError("collision surface: " + std::to_string(points.size()) + " points but " +
                     std::to_string(point_object.size()) + " point object ids");
  for (size_t i = 0; i < segments.size(); ++i) {
    if (segment_object[i] < 0 || segment_object[i] >= no)
      throw InputError("collision surface: segment " + std::to_string(i) + " has object " +
                       std::to_string(segment_object[i]) + ", expected 0.." + std::to_string(no - 1));
    for (int k = 0; k < 2; ++k)
      if (segments[i][k] < 0 || segments[i][k] >= num_vertices)
        throw InputError("collision surface: segment " + std::to_string(i) + " has vertex " +
                         std::to_string(segments[i][k]) + ", expected 0.." + std::to_string(num_vertices - 1));
  }
  for (size_t i = 0; i < points.size(); ++i) {
    if (point_object[i] < 0 || point_object[i] >= no)
      throw InputError("collision surface: point " + std::to_string(i) + " has object " +
                       std::to_string(point_object[i]) + ", expected 0.." + std::to_string(no - 1));
    if (points[i] < 0 || points[i] >= num_vertices)
      throw InputError("collision surface: point " + std::to_string(i) + " is vertex " + std::to_string(points[i]) +
                       ", expected 0.." + std::to_string(num_vertices - 1));
  }

  s.object_offset = object_offset;
  s.uniform_offset = !object_offset.empty() &&
                     std::all_of(object_offset.begin(), object_offset.end(), [&](double o) { return o == object_offset[0]; });
  s.common_offset = s.uniform_offset ? object_offset[0] : 0.0;

  // Points: object of the lowest-numbered triangle containing the vertex.
  std::vector<int> vobj(num_vertices, -1);  // (dense while built; runs once done)
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const int v = tris[t][k];
      if (vobj[v] < 0) vobj[v] = triangle_object[t];
    }

  // Edges: bucket the 3 T half-edges by their smaller vertex (counting sort), then sort each
  // (small) bucket by (larger vertex, triangle) and keep the first of each run: linear,
  // deterministic, and the edge's object is that of its lowest-numbered triangle. The
  // buckets are filled a block of vertices at a time (each block one pass over the
  // triangles, at most ~1/8 of the half-edges held), and the edges counted before they are
  // stored: at 4.2M vertices the whole bucket array (48 bytes a vertex) and the edge list's
  // growth were the stepper setup's largest transient (issue 20).
  std::vector<int> start(static_cast<size_t>(num_vertices) + 1, 0);
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = tris[t][k], b = tris[t][(k + 1) % 3];
      if (a != b) ++start[std::min(a, b) + 1];
    }
  for (int v = 0; v < num_vertices; ++v) start[v + 1] += start[v];
  struct Half {
    int b, t;
  };
  const int total_half = start[num_vertices];
  const int block_half = std::max(1 << 20, total_half / 8);
  // A triangle edge's object is derived from its first vertex (below) until one is not:
  // only then is the per-edge table kept (from that edge back to the first).
  std::vector<int> edge_object;
  bool derived = true;
  auto derived_table = [&](size_t n) {  // the derived objects of edges [0, n)
    edge_object.reserve(s.edges.capacity());
    for (size_t e = 0; e < n; ++e) edge_object.push_back(vobj[s.edges[e][0]]);
  };
  auto add_edge = [&](int a, int b, int object) {
    if (derived && object != vobj[a]) {
      derived = false;
      derived_table(s.edges.size());
    }
    s.edges.push_back({a, b});
    if (!derived) edge_object.push_back(object);
  };
  std::vector<Half> half;
  for (int pass = 0; pass < 2; ++pass) {  // count the edges, then store them (exact size)
    long count = 0;
    for (int a0 = 0; a0 < num_vertices;) {
      int a1 = a0 + 1;  // vertices [a0, a1): at most block_half half-edges, at least one vertex
      while (a1 < num_vertices && start[a1 + 1] - start[a0] <= block_half) ++a1;
      half.resize(start[a1] - start[a0]);
      std::vector<int> cursor(start.begin() + a0, start.begin() + a1);
      for (int t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) {
          const int a = tris[t][k], b = tris[t][(k + 1) % 3], lo = std::min(a, b);
          if (a != b && lo >= a0 && lo < a1) half[cursor[lo - a0]++ - start[a0]] = {std::max(a, b), t};
        }
      for (int a = a0; a < a1; ++a) {
        auto first = half.begin() + (start[a] - start[a0]), last = half.begin() + (start[a + 1] - start[a0]);
        std::sort(first, last, [](const Half& x, const Half& y) { return x.b < y.b || (x.b == y.b && x.t < y.t); });
        for (auto it = first; it != last; ++it) {
          if (it != first && std::prev(it)->b == it->b) continue;
          if (pass == 0)
            ++count;
          else
            add_edge(a, it->b, triangle_object[it->t]);
        }
      }
      a0 = a1;
    }
    if (pass == 0) s.edges.reserve(static_cast<size_t>(count) + segments.size());
  }
  half = std::vector<Half>();
  start = std::vector<int>();
  s.num_triangle_edges = static_cast<int>(s.edges.size());

  // Segments: normalised to a < b, sorted by (a, b, input index); the first of each run is
  // kept unless it is a triangle edge (those are in `edges` already, sorted: binary search).
  std::vector<char> codim(num_vertices, 0);
  std::vector<int> seg_object;  // per segment edge
  {
    struct Seg {
      int a, b, i;
    };
    std::vector<Seg> segs;
    segs.reserve(segments.size());
    for (size_t i = 0; i < segments.size(); ++i) {
      const int a = segments[i][0], b = segments[i][1];
      if (a != b) segs.push_back({std::min(a, b), std::max(a, b), static_cast<int>(i)});
    }
    std::sort(segs.begin(), segs.end(), [](const Seg& x, const Seg& y) {
      return x.a < y.a || (x.a == y.a && (x.b < y.b || (x.b == y.b && x.i < y.i)));
    });
    for (size_t k = 0; k < segs.size(); ++k) {
      const Seg& g = segs[k];
      if (k > 0 && segs[k - 1].a == g.a && segs[k - 1].b == g.b) continue;
      const Edge e{g.a, g.b};
      if (std::binary_search(s.edges.begin(), s.edges.begin() + s.num_triangle_edges, e)) continue;
      s.edges.push_back(e);
      seg_object.push_back(segment_object[g.i]);
      codim[g.a] = codim[g.b] = 1;
    }
    // A vertex on no triangle takes the object of the first segment (input order) on it.
    for (size_t i = 0; i < segments.size(); ++i) {
      const int a = segments[i][0], b = segments[i][1];
      if (a == b) continue;
      for (int v : {a, b})
        if (vobj[v] < 0 && codim[v]) vobj[v] = segment_object[i];
    }
  }
  // Isolated points: vertices on no triangle or segment, first occurrence.
  for (size_t i = 0; i < points.size(); ++i) {
    const int v = points[i];
    if (vobj[v] >= 0) continue;
    vobj[v] = point_object[i];
    codim[v] = 2;
  }
  for (int v = 0; v < num_vertices; ++v) {
    if (vobj[v] < 0) continue;
    s.vertices.push_back(v);
    if (codim[v]) s.codim_vertices.push_back(v);
    if (codim[v] == 2) s.points.push_back(v);
  }
  // Kept for the run: no growth slack.
  for (auto* a : {&s.codim_vertices, &s.points}) a->shrink_to_fit();
  s.vertices.compact();
  s.edges.shrink_to_fit();  // (reserved exactly: no copy unless segments repeat triangle edges)
  // Objects do not share vertices in a scene, so an edge's object is its first vertex's
  // and no table is kept (12 bytes per cloth vertex on every rank); only input where
  // objects meet at a vertex keeps one.
  for (size_t k = 0; k < seg_object.size() && derived; ++k)
    derived = seg_object[k] == vobj[s.edges[s.num_triangle_edges + k][0]];
  if (!derived) {
    if (edge_object.empty()) derived_table(static_cast<size_t>(s.num_triangle_edges));  // (all derived so far)
    edge_object.insert(edge_object.end(), seg_object.begin(), seg_object.end());
    edge_object.shrink_to_fit();
    s.edge_object_table = std::move(edge_object);
  }
  s.vertex_object = RunInts(vobj);
  return s;
}

}  // namespace weft
