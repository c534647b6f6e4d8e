#include "methods/initial_check.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "verify/broad_phase.hpp"

namespace weft {
namespace {

// Primitives a rank leads, published as one box per this many consecutive ones (of one
// kind): ~1,000 boxes per million primitives to gather, each tight enough that a rank
// receives little beyond its neighbours' primitives along its part's border.
constexpr std::size_t kChunk = 1024;

// One primitive of the scene as the checker reads it: which result dataset it is a row of
// (verify::PrimKind: triangles, segments or points, not an object's kind), its row there,
// its vertices and offset.
struct Primitive {
  int dataset, n;  // n: vertex count
  long index;      // row in the scene's triangles, segments or points
  int v[3];        // solver ids
  double offset;
};

// The checker's order: by dataset (triangles, segments, points), then row.
bool before(const Primitive& a, const Primitive& b) {
  return a.dataset != b.dataset ? a.dataset < b.dataset : a.index < b.index;
}

// A primitive sent to a rank that examines pairs with it, with its vertices' rest positions.
struct SentPrimitive {
  Primitive p;
  double x[3][3];
};

// Box of the primitive at the rest positions, inflated by half its offset plus twice the
// checker's distance tolerance: never smaller than the box the checker inflates by half its
// offset plus the tolerance, so no pair the checker examines is missed.
verify::Aabb inflated_box(const Scene& scene, const Primitive& p, double tol) {
  verify::Aabb b;
  for (int k = 0; k < 3; ++k) b.lo[k] = b.hi[k] = scene.rest[p.v[0]][k];
  for (int m = 1; m < p.n; ++m)
    for (int k = 0; k < 3; ++k) {
      b.lo[k] = std::min(b.lo[k], scene.rest[p.v[m]][k]);
      b.hi[k] = std::max(b.hi[k], scene.rest[p.v[m]][k]);
    }
  const double pad = 0.5 * p.offset + 2.0 * tol;
  for (int k = 0; k < 3; ++k) b.lo[k] -= pad, b.hi[k] += pad;
  return b;
}

void grow(verify::Aabb& into, const verify::Aabb& b) {
  for (int k = 0; k < 3; ++k) into.lo[k] = std::min(into.lo[k], b.lo[k]), into.hi[k] = std::max(into.hi[k], b.hi[k]);
}

verify::Aabb empty_box() {
  verify::Aabb b;
  for (int k = 0; k < 3; ++k) b.lo[k] = HUGE_VAL, b.hi[k] = -HUGE_VAL;
  return b;
}

}  // namespace

verify::Stats check_start(const Scene& scene, MPI_Comm comm) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  const int vbegin = scene.vertex_range[rank], vend = scene.vertex_range[rank + 1];
  auto owned = [&](int v) { return v >= vbegin && v < vend; };
  const verify::Options opt;

  // 1. The primitives this rank leads, in the checker's order: triangles, segments, points,
  // each by ascending index. A part's triangles are those it kept (every one with a vertex in
  // its block); a whole scene's, all of them.
  std::vector<Primitive> own;
  auto lead_triangle = [&](int t) {
    const Tri& tri = scene.triangles[t];
    if (owned(tri[0]))
      own.push_back({verify::kTriangle, 3, t, {tri[0], tri[1], tri[2]},
                     scene.objects[scene.triangle_object[t]].offset});
  };
  if (scene.triangle_part) {
    for (int t : scene.kept_triangles) lead_triangle(t);
  } else {
    for (size_t t = 0; t < scene.triangles.size(); ++t) lead_triangle(static_cast<int>(t));
  }
  // (A part's segments and points are those with a vertex in its block.)
  for (size_t k = 0; k < scene.segments.size(); ++k) {
    const Edge& e = scene.segments[k];
    const int i = scene.segment_index(k);
    if (owned(e[0]))
      own.push_back({verify::kSegment, 2, i, {e[0], e[1], -1}, scene.objects[scene.segment_object[i]].offset});
  }
  for (size_t k = 0; k < scene.points.size(); ++k) {
    const int i = scene.point_index(k);
    if (owned(scene.points[k]))
      own.push_back({verify::kPoint, 1, i, {scene.points[k], -1, -1}, scene.objects[scene.point_object[i]].offset});
  }

  // 2. The near primitives of the other ranks (none on one rank).
  std::vector<SentPrimitive> near;
  if (ranks > 1) {
    // This rank's chunk boxes (a chunk ends where the dataset changes: triangles, segments
    // and points are mostly different objects, and a box spanning two would be loose).
    std::vector<verify::Aabb> mine;
    std::vector<std::size_t> chunk_first;  // into own, one past the end last
    for (std::size_t i = 0; i < own.size(); ++i) {
      if (i == 0 || i - chunk_first.back() == kChunk || own[i].dataset != own[i - 1].dataset) {
        chunk_first.push_back(i);
        mine.push_back(empty_box());
      }
      grow(mine.back(), inflated_box(scene, own[i], opt.tol_distance));
    }
    chunk_first.push_back(own.size());
    // Every rank's chunk boxes.
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(ranks), displs(ranks + 1, 0);
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    for (int r = 0; r < ranks; ++r) displs[r + 1] = displs[r] + counts[r];
    std::vector<verify::Aabb> all(displs[ranks]);
    std::vector<int> dcounts(ranks), ddispls(ranks);
    for (int r = 0; r < ranks; ++r) dcounts[r] = 6 * counts[r], ddispls[r] = 6 * displs[r];
    static_assert(sizeof(verify::Aabb) == 6 * sizeof(double), "boxes travel as 6 doubles");
    MPI_Allgatherv(mine.data(), 6 * count, MPI_DOUBLE, all.data(), dcounts.data(), ddispls.data(), MPI_DOUBLE, comm);
    // The other ranks' boxes that meet this rank's own, binned with its chunks: each overlap
    // (one of its chunks, another rank's chunk) names a rank that may need that chunk's
    // primitives.
    verify::Aabb whole = empty_box();
    for (const verify::Aabb& b : mine) grow(whole, b);
    std::vector<verify::Aabb> boxes = mine;
    std::vector<int> box_rank;  // of boxes[mine.size() + k]
    for (int r = 0; r < ranks; ++r) {
      if (r == rank) continue;
      for (int k = displs[r]; k < displs[r + 1]; ++k)
        if (verify::overlap(all[k], whole)) boxes.push_back(all[k]), box_rank.push_back(r);
    }
    std::vector<verify::Aabb>().swap(all);
    std::vector<std::vector<std::uint32_t>> meets(mine.size());  // per own chunk: the others' boxes it meets
    if (!box_rank.empty()) {
      verify::GridBroadPhase grid;
      grid.build(boxes);
      const std::uint32_t m = static_cast<std::uint32_t>(mine.size());
      grid.for_each_pair([&](std::uint32_t i, std::uint32_t j) {
        if (i < m && j >= m) meets[i].push_back(j);
      });
    }
    // Each primitive of a chunk goes, once, to every rank one of whose boxes it meets.
    std::vector<std::vector<SentPrimitive>> out(ranks);
    for (std::size_t c = 0; c < mine.size(); ++c) {
      if (meets[c].empty()) continue;
      std::sort(meets[c].begin(), meets[c].end());  // (by rank: the others' boxes are in rank order)
      for (std::size_t i = chunk_first[c]; i < chunk_first[c + 1]; ++i) {
        const Primitive& p = own[i];
        const verify::Aabb b = inflated_box(scene, p, opt.tol_distance);
        int last = -1;
        for (std::uint32_t j : meets[c]) {
          const int r = box_rank[j - mine.size()];
          if (r == last || !verify::overlap(b, boxes[j])) continue;
          SentPrimitive s{p, {}};
          for (int a = 0; a < p.n; ++a)
            for (int k = 0; k < 3; ++k) s.x[a][k] = scene.rest[p.v[a]][k];
          out[r].push_back(s);
          last = r;
        }
      }
    }
    std::vector<int> send_n(ranks), recv_n(ranks), sdispl(ranks + 1, 0), rdispl(ranks + 1, 0);
    const int bytes = static_cast<int>(sizeof(SentPrimitive));
    for (int r = 0; r < ranks; ++r) send_n[r] = static_cast<int>(out[r].size()) * bytes;
    MPI_Alltoall(send_n.data(), 1, MPI_INT, recv_n.data(), 1, MPI_INT, comm);
    std::vector<SentPrimitive> sendbuf;
    for (int r = 0; r < ranks; ++r) {
      sdispl[r + 1] = sdispl[r] + send_n[r];
      rdispl[r + 1] = rdispl[r] + recv_n[r];
      sendbuf.insert(sendbuf.end(), out[r].begin(), out[r].end());
      std::vector<SentPrimitive>().swap(out[r]);
    }
    near.resize(rdispl[ranks] / bytes);
    MPI_Alltoallv(sendbuf.data(), send_n.data(), sdispl.data(), MPI_BYTE, near.data(), recv_n.data(), rdispl.data(),
                  MPI_BYTE, comm);
    // In the checker's order (a primitive has one leader, so none arrives twice).
    std::sort(near.begin(), near.end(), [](const SentPrimitive& a, const SentPrimitive& b) {
      return before(a.p, b.p);
    });
  }

  // 3. The rank's mesh: its own primitives and the near ones merged by (dataset, index), over
  // the vertices they reference, numbered in ascending solver id.
  std::vector<int> ids;
  for (const Primitive& p : own) ids.insert(ids.end(), p.v, p.v + p.n);
  for (const SentPrimitive& s : near) ids.insert(ids.end(), s.p.v, s.p.v + s.p.n);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto local = [&](int v) { return static_cast<int>(std::lower_bound(ids.begin(), ids.end(), v) - ids.begin()); };
  verify::ResultMesh mesh;
  mesh.rest.resize(ids.size());
  for (const SentPrimitive& s : near)
    for (int a = 0; a < s.p.n; ++a) mesh.rest[local(s.p.v[a])] = Vec3(s.x[a][0], s.x[a][1], s.x[a][2]);
  for (const Primitive& p : own)
    for (int a = 0; a < p.n; ++a) mesh.rest[local(p.v[a])] = scene.rest[p.v[a]];
  std::size_t i = 0, j = 0;
  while (i < own.size() || j < near.size()) {
    const bool take_own = j == near.size() || (i < own.size() && before(own[i], near[j].p));
    const Primitive& q = take_own ? own[i] : near[j].p;
    const int* v = q.v;
    if (q.dataset == verify::kTriangle) {
      mesh.triangles.push_back({local(v[0]), local(v[1]), local(v[2])});
      mesh.triangle_offset.push_back(q.offset);
      mesh.triangle_index.push_back(q.index);
    } else if (q.dataset == verify::kSegment) {
      mesh.segments.push_back({local(v[0]), local(v[1])});
      mesh.segment_offset.push_back(q.offset);
      mesh.segment_index.push_back(q.index);
    } else {
      mesh.points.push_back(local(v[0]));
      mesh.point_offset.push_back(q.offset);
      mesh.point_index.push_back(q.index);
    }
    (take_own ? i : j)++;
  }
  std::vector<Primitive>().swap(own);
  std::vector<SentPrimitive>().swap(near);
  // A seam may start closed: a stitched pair is one vertex to the check.
  auto present = [&](int v) { return std::binary_search(ids.begin(), ids.end(), v); };
  for (const auto& s : scene.stitches)
    if (present(s[0]) && present(s[1])) mesh.stitches.push_back({local(s[0]), local(s[1])});

  verify::FrameChecker checker(mesh, opt);
  if (ranks > 1) checker.set_share([&](int v) { return owned(ids[v]); });
  verify::Stats stats;
  checker.check(0, mesh.rest, stats);
  return verify::merge_over(comm, stats);
}

void check_initial_configuration(const Scene& scene, MPI_Comm comm) {
  const verify::Stats st = check_start(scene, comm);
  auto describe = [&](const verify::PairRef& p) {
    auto one = [&](int kind, long i) {
      const int o = kind == verify::kSegment ? scene.segment_object[i]
                    : kind == verify::kPoint ? scene.point_object[i] : scene.triangle_object[static_cast<int>(i)];
      return std::string(verify::kind_name(kind)) + " " + std::to_string(i) + " of '" + scene.objects[o].name + "'";
    };
    return one(p.kind_a, p.a) + " and " + one(p.kind_b, p.b);
  };
  if (st.intersections > 0)
    throw InputError(scene.spec.path + ": the initial configuration intersects itself (" +
                     std::to_string(st.intersections) + " pairs, e.g. " + describe(st.intersection_pair) + ")");
  if (st.distance_violations > 0)
    throw InputError(scene.spec.path + ": at t = 0, " + describe(st.distance_pair) +
                     " are closer than their thickness offset");
}

}  // namespace weft
