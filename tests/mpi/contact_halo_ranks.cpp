// The contact halo at 1, 2 and 3 ranks: after an exchange, the broad phase on a rank's
// partial positions (its vertices, its halo, NaN elsewhere) must find exactly the pairs it
// finds on ALL positions with the same ownership filters: proximity at x and swept over
// [x, x + p], for a contiguous (partition-like) numbering and for a scattered one. Values
// travel as bits; fetch and keep deliver the vertices asked for. The halo's lists (known():
// the finite entries; active(): the own primitives and the partners other ranks sent) hold, and
// a broad phase restricted to them (O(owned + halo) loops) finds the same pairs, over a
// sequence of exchanges whose lists change (stale entries must not survive). The halo and
// the listed broad phase run on a rank's share of the edges (EdgeShare: its own, numbered
// as a whole build; the halo writes in those it receives), the references on the whole
// surface: the share holds every edge it lists, with the whole surface's vertices.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "contact/broad_phase.hpp"
#include "contact/surface.hpp"
#include "mesh/generators.hpp"
#include "mesh/transform.hpp"
#include "parallel/contact_halo.hpp"

namespace {

using weft::Vec3;

struct Setup {
  std::vector<weft::Tri> tris;
  std::vector<int> tri_object;
  std::vector<weft::Edge> segs;  // rods (codim scenes)
  std::vector<int> seg_object, points, point_object;  // particles (codim scenes)
  std::vector<Vec3> x, p;
};

// Two jittered cloth squares 0.5 mm apart (the upper one turned 30 degrees), a sphere just
// below them and a far sphere: close pairs across objects and objects no rank should need.
// codim: plus rods (object 4: 8 polylines of 40 segments along x, 1.5 mm above the upper
// cloth) and particles (object 5: a 14 x 3 x 14 lattice of 2.5 mm pitch just above the
// rods), so that every pair kind (PT, EE, PE, PP) crosses the partition.
Setup make_setup(bool scatter, bool codim = false) {
  Setup s;
  auto add = [&](const weft::TriMesh& m, const Vec3& shift, double turn_deg, int obj) {
    const int base = static_cast<int>(s.x.size());
    const double c = std::cos(turn_deg * M_PI / 180), sn = std::sin(turn_deg * M_PI / 180);
    for (const Vec3& v : m.vertices) s.x.push_back(Vec3(c * v[0] + sn * v[2], v[1], -sn * v[0] + c * v[2]) + shift);
    for (const weft::Tri& t : m.triangles) {
      s.tris.push_back({t[0] + base, t[1] + base, t[2] + base});
      s.tri_object.push_back(obj);
    }
  };
  add(weft::make_grid(1.0, 1.0, 24, 24, 0.3, 1), Vec3(0, 0, 0), 0, 0);
  add(weft::make_grid(1.0, 1.0, 20, 20, 0.3, 2), Vec3(0.1, 5e-4, 0), 30, 1);
  add(weft::make_sphere(0.2, 2), Vec3(0, -0.2 - 3e-4, 0.1), 0, 2);
  add(weft::make_sphere(0.2, 2), Vec3(5, 5, 5), 0, 3);
  if (codim) {
    for (int r = 0; r < 8; ++r) {
      const int base = static_cast<int>(s.x.size());
      for (int i = 0; i <= 40; ++i) s.x.push_back(Vec3(-0.02 + 1e-3 * i, 2e-3, -0.012 + 3e-3 * r));
      for (int i = 0; i < 40; ++i) s.segs.push_back({base + i, base + i + 1}), s.seg_object.push_back(4);
    }
    for (int i = 0; i < 14; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 14; ++k) {
          s.points.push_back(static_cast<int>(s.x.size())), s.point_object.push_back(5);
          s.x.push_back(Vec3(-0.016 + 2.5e-3 * i, 3.6e-3 + 2.5e-3 * j, -0.016 + 2.5e-3 * k));
        }
  }
  const int nv = static_cast<int>(s.x.size());
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (Vec3& v : s.x) v += 1e-4 * Vec3(u(rng), u(rng), u(rng));
  for (int i = 0; i < nv; ++i) s.p.push_back(0.03 * Vec3(u(rng), u(rng), u(rng)));
  if (scatter) {
    // Renumber the vertices at random: every rank's points are spread over the scene.
    std::vector<int> perm(nv);
    for (int i = 0; i < nv; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Vec3> x(nv), p(nv);
    for (int i = 0; i < nv; ++i) x[perm[i]] = s.x[i], p[perm[i]] = s.p[i];
    s.x = x, s.p = p;
    for (weft::Tri& t : s.tris)
      for (int& v : t) v = perm[v];
    for (weft::Edge& e : s.segs)
      for (int& v : e) v = perm[v];
    for (int& v : s.points) v = perm[v];
  }
  return s;
}

void expect_same(const weft::Candidates& a, const weft::Candidates& b, const char* what) {
  ASSERT_EQ(a.pt.size(), b.pt.size()) << what;
  ASSERT_EQ(a.ee.size(), b.ee.size()) << what;
  ASSERT_EQ(a.pe.size(), b.pe.size()) << what;
  ASSERT_EQ(a.pp.size(), b.pp.size()) << what;
  for (size_t i = 0; i < a.pt.size(); ++i) ASSERT_EQ(a.pt[i], b.pt[i]) << what;
  for (size_t i = 0; i < a.ee.size(); ++i) ASSERT_EQ(a.ee[i], b.ee[i]) << what;
  for (size_t i = 0; i < a.pe.size(); ++i) ASSERT_EQ(a.pe[i], b.pe[i]) << what;
  for (size_t i = 0; i < a.pp.size(); ++i) ASSERT_EQ(a.pp[i], b.pp[i]) << what;
}

// Pairs of each kind summed over ranks (each pair is kept by exactly one rank).
std::vector<long> global_counts(const weft::Candidates& c) {
  std::vector<long> n = {long(c.pt.size()), long(c.ee.size()), long(c.pe.size()), long(c.pp.size())}, t(4);
  MPI_Allreduce(n.data(), t.data(), 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

// known() lists exactly the finite entries of xf, active().points exactly the finite
// surface vertices. active()'s edges and triangles (ascending, unique) hold every one this
// rank owns (first vertex in its range) and otherwise only ones whose vertices are all
// finite, from the partners other ranks sent: at one rank the whole surface. Returns how
// many edges and triangles had all their vertices finite (what lists by known vertices
// would hold) plus the points.
size_t expect_lists(const weft::ContactHalo& halo, const weft::CollisionSurface& surf,
                    const weft::CollisionSurface& share, const weft::PagedArray<Vec3>& xf, int lo, int hi) {
  std::vector<int> known;
  for (size_t v = 0; v < xf.size(); ++v)
    if (std::isfinite(xf[v][0])) known.push_back(static_cast<int>(v));
  EXPECT_EQ(halo.known(), known);
  auto fin = [&](int v) { return std::isfinite(xf[v][0]); };
  auto mine = [&](int v) { return v >= lo && v < hi; };
  const weft::ActivePrimitives& act = halo.active();
  for (const std::vector<int>* l : {&act.points, &act.triangles, &act.edges})
    EXPECT_TRUE(std::adjacent_find(l->begin(), l->end(), std::greater_equal<int>()) == l->end()) << "not ascending";
  auto listed = [](const std::vector<int>& l, int id) { return std::binary_search(l.begin(), l.end(), id); };
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<int> points;
  for (int v : surf.vertices)
    if (fin(v)) points.push_back(v);
  EXPECT_EQ(act.points, points) << "the points are the known surface vertices";
  size_t finite = points.size();
  for (size_t t = 0; t < surf.triangles.size(); ++t) {
    const weft::Tri& tr = surf.triangles[t];
    finite += fin(tr[0]) && fin(tr[1]) && fin(tr[2]);
    if (mine(tr[0]) || ranks == 1) {
      EXPECT_TRUE(listed(act.triangles, int(t))) << "own triangle " << t;
    }
  }
  for (int t : act.triangles) {
    for (int v : surf.triangles[t]) EXPECT_TRUE(fin(v)) << "triangle " << t << " listed without its vertex " << v;
    EXPECT_EQ(share.triangles[t], surf.triangles[t]) << "listed triangle " << t << " not held by the share";
  }
  for (size_t e = 0; e < surf.edges.size(); ++e) {
    finite += fin(surf.edges[e][0]) && fin(surf.edges[e][1]);
    if (mine(surf.edges[e][0]) || ranks == 1) {
      EXPECT_TRUE(listed(act.edges, int(e))) << "own edge " << e;
    }
  }
  for (int e : act.edges) {
    for (int v : surf.edges[e]) EXPECT_TRUE(fin(v)) << "edge " << e << " listed without its vertex " << v;
    EXPECT_EQ(share.edges[e], surf.edges[e]) << "listed edge " << e << " not held by the share";
  }
  return finite;
}

void check_layout(bool scatter, bool codim = false) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const Setup s = make_setup(scatter, codim);
  const int nv = static_cast<int>(s.x.size());
  const std::vector<double> offsets = {0.0, 2e-4, 1e-3, 0.0, 1e-3, 2e-3};
  const weft::CollisionSurface surf = weft::build_collision_surface(s.tris, s.tri_object, offsets, nv, s.segs,
                                                                    s.seg_object, s.points, s.point_object);
  std::vector<int> range(ranks + 1);
  for (int r = 0; r <= ranks; ++r) range[r] = static_cast<int>(static_cast<long>(nv) * r / ranks);
  const int lo = range[rank], hi = range[rank + 1];
  // This rank's share of the edges, numbered over the ranks as weft's stepper numbers it,
  // built from the triangles with a vertex in its block only (a scene part's).
  std::vector<int> tri_ids;
  for (size_t t = 0; t < s.tris.size(); ++t)
    if (std::any_of(s.tris[t].begin(), s.tris[t].end(), [&](int v) { return v >= lo && v < hi; }))
      tri_ids.push_back(static_cast<int>(t));
  const weft::PagedArray<weft::Tri> tri_part =
      weft::PagedArray<weft::Tri>(s.tris).part(0, 0, tri_ids, weft::Tri{-1, -1, -1});
  // ... and the segments and points with a vertex in it, with their indices (a scene part's).
  std::vector<weft::Edge> seg_part;
  std::vector<int> seg_ids, point_part, point_ids;
  for (size_t k = 0; k < s.segs.size(); ++k)
    if ((s.segs[k][0] >= lo && s.segs[k][0] < hi) || (s.segs[k][1] >= lo && s.segs[k][1] < hi))
      seg_part.push_back(s.segs[k]), seg_ids.push_back(static_cast<int>(k));
  for (size_t k = 0; k < s.points.size(); ++k)
    if (s.points[k] >= lo && s.points[k] < hi) point_part.push_back(s.points[k]), point_ids.push_back(static_cast<int>(k));
  const weft::RunInts seg_object(s.seg_object), point_object(s.point_object);
  const weft::IdRuns seg_id_runs(seg_ids), point_id_runs(point_ids);
  weft::CollisionSurface share = weft::build_collision_surface_share(
      tri_part, tri_ids, s.tri_object, offsets, nv,
      weft::SharedPrimitives{seg_part, &seg_id_runs, seg_object, point_part, &point_id_runs, point_object},
      weft::rank_edge_share(lo, hi, MPI_COMM_WORLD));
  ASSERT_EQ(share.edges.size(), surf.edges.size());
  ASSERT_EQ(share.num_triangle_edges, surf.num_triangle_edges);
  {
    std::vector<int> own;  // the whole surface's edges whose first vertex is this rank's
    for (size_t e = 0; e < surf.edges.size(); ++e)
      if (surf.edges[e][0] >= lo && surf.edges[e][0] < hi) own.push_back(int(e));
    EXPECT_EQ(share.held_edges.to_vector(), own);
    for (int e : own) EXPECT_EQ(share.edges[e], surf.edges[e]) << "own edge " << e;
    std::vector<int> own_tris;  // and its triangles whose first vertex is this rank's
    for (size_t t = 0; t < surf.triangles.size(); ++t)
      if (surf.triangles[t][0] >= lo && surf.triangles[t][0] < hi) own_tris.push_back(int(t));
    EXPECT_EQ(share.held_triangles.to_vector(), own_tris);
    ASSERT_EQ(share.triangles.size(), surf.triangles.size());
    for (size_t t = 0; t < surf.triangles.size(); ++t) {
      const weft::Tri want =
          std::binary_search(own_tris.begin(), own_tris.end(), int(t)) ? surf.triangles[t] : weft::Tri{-1, -1, -1};
      EXPECT_EQ(share.triangles[t], want) << "triangle " << t;
    }
    EXPECT_TRUE(share.vertices == surf.vertices.to_vector());
    EXPECT_EQ(share.codim_vertices, surf.codim_vertices);
    EXPECT_EQ(share.points, surf.points);
  }
  std::vector<char> point_owned(nv, 0), edge_owned(surf.edges.size(), 0);
  for (int v = lo; v < hi; ++v) point_owned[v] = 1;
  for (size_t e = 0; e < surf.edges.size(); ++e) edge_owned[e] = point_owned[surf.edges[e][0]];
  std::vector<double> x_owned, p_owned;
  for (int v = lo; v < hi; ++v)
    for (int d = 0; d < 3; ++d) x_owned.push_back(s.x[v][d]), p_owned.push_back(s.p[v][d]);

  const double dhat = 1e-3;
  weft::ContactHalo halo(share, range, MPI_COMM_WORLD, dhat);
  weft::BroadPhase bp, local;  // local: restricted to the halo's active lists
  local.set_active(&halo.active());
  weft::Candidates full, part, listed;
  weft::PagedArray<Vec3> xf, pf;

  // Proximity at x.
  halo.exchange(x_owned.data(), nullptr, xf, nullptr);
  ASSERT_EQ(xf.size(), size_t(nv));
  int known = 0;
  for (int v = 0; v < nv; ++v)
    if (std::isfinite(xf[v][0])) {
      ++known;
      ASSERT_EQ(xf[v], s.x[v]) << "vertex " << v << " arrived changed";
    }
  for (int v = lo; v < hi; ++v) ASSERT_TRUE(std::isfinite(xf[v][0]));
  bp.find_proximity(surf, s.x, dhat, &point_owned, &edge_owned, nullptr, full);
  bp.find_proximity(surf, xf, dhat, &point_owned, &edge_owned, nullptr, part);
  expect_same(full, part, "proximity");
  const size_t by_known = expect_lists(halo, surf, share, xf, lo, hi);
  local.find_proximity(share, xf, dhat, &point_owned, &edge_owned, nullptr, listed);
  expect_same(full, listed, "proximity over the active lists");
  const weft::ActivePrimitives& act = halo.active();
  EXPECT_EQ(local.last_stats().boxed, act.points.size() + act.edges.size() + act.triangles.size());
  // Listed: the own primitives and the partners sent, fewer than every primitive whose
  // vertices arrived (those of the sent primitives' vertices' other primitives).
  EXPECT_LE(local.last_stats().boxed, by_known);
  long sums[2] = {long(local.last_stats().boxed), long(by_known)}, total_sums[2] = {0, 0};
  MPI_Allreduce(sums, total_sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (ranks > 1 && !scatter) {
    EXPECT_LT(total_sums[0], total_sums[1]) << "every primitive on a known vertex was listed";
  }
  if (ranks > 1 && !scatter) {
    EXPECT_LT(local.last_stats().boxed, bp.last_stats().boxed) << "a rank boxed the whole surface";
  }
  long pairs = static_cast<long>(full.size()), total = 0;
  MPI_Allreduce(&pairs, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(total, 100) << "the scene must have close pairs to test anything";
  if (codim) {
    // Every kind is there, and the counts are those of one rank holding everything.
    weft::BroadPhase one;
    weft::Candidates all;
    one.find_proximity(surf, s.x, dhat, nullptr, nullptr, nullptr, all);
    const std::vector<long> n = global_counts(full);
    EXPECT_EQ(n, (std::vector<long>{long(all.pt.size()), long(all.ee.size()), long(all.pe.size()),
                                     long(all.pp.size())}));
    for (int k = 0; k < 4; ++k) EXPECT_GT(n[k], 20) << "pair kind " << k;
  }
  // Locality: with a partition-like numbering nobody needs the far sphere's vertices
  // (it is the last object, owned by the last rank).
  if (!codim && !scatter && ranks > 1 && rank == 0) {
    EXPECT_LT(known, nv - 162) << "the halo sent the far sphere";
  }

  // Swept over [x, x + p]: x and p both arrive, with the same pairs as from everything.
  halo.exchange(x_owned.data(), p_owned.data(), xf, &pf);
  for (int v = 0; v < nv; ++v)
    if (std::isfinite(xf[v][0])) {
      ASSERT_EQ(xf[v], s.x[v]);
      ASSERT_EQ(pf[v], s.p[v]);
    }
  bp.find_swept(surf, s.x, s.p, dhat, &point_owned, &edge_owned, nullptr, full);
  bp.find_swept(surf, xf, pf, dhat, &point_owned, &edge_owned, nullptr, part);
  expect_same(full, part, "swept");
  expect_lists(halo, surf, share, xf, lo, hi);
  local.find_swept(share, xf, pf, dhat, &point_owned, &edge_owned, nullptr, listed);
  expect_same(full, listed, "swept over the active lists");
  if (codim) {
    weft::BroadPhase one;
    weft::Candidates all;
    one.find_swept(surf, s.x, s.p, dhat, nullptr, nullptr, nullptr, all);
    EXPECT_EQ(global_counts(full), (std::vector<long>{long(all.pt.size()), long(all.ee.size()), long(all.pe.size()),
                                                       long(all.pp.size())}));
  }

  // A proximity exchange after a swept one leaves no stale vertex behind.
  halo.exchange(x_owned.data(), nullptr, xf, nullptr);
  int known2 = 0;
  for (int v = 0; v < nv; ++v) known2 += std::isfinite(xf[v][0]) ? 1 : 0;
  EXPECT_EQ(known2, known);
  expect_lists(halo, surf, share, xf, lo, hi);
  bp.find_proximity(surf, s.x, dhat, &point_owned, &edge_owned, nullptr, full);
  local.find_proximity(share, xf, dhat, &point_owned, &edge_owned, nullptr, listed);
  expect_same(full, listed, "proximity over the active lists, after a swept query");

  // fetch: any vertices, from their owners; keep: they stay in every exchange.
  std::vector<int> ids;
  for (int v = rank; v < nv; v += 37) ids.push_back(v);
  weft::PagedArray<Vec3> got;
  halo.fetch(x_owned.data(), ids, got);
  for (int v : ids) ASSERT_EQ(got[v], s.x[v]);
  std::vector<Vec3> values;
  halo.fetch_values(x_owned.data(), ids, values);
  ASSERT_EQ(values.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(values[i], s.x[ids[i]]);
  halo.keep(ids);
  halo.exchange(x_owned.data(), nullptr, xf, nullptr);
  for (int v : ids) ASSERT_EQ(xf[v], s.x[v]) << "kept vertex " << v;
}

}  // namespace

TEST(ContactHaloRanks, PartitionLikeNumbering) { check_layout(false); }
TEST(ContactHaloRanks, ScatteredNumbering) { check_layout(true); }
// Rods and particles beside the shells: PE and PP pairs (the partner a particle) too.
TEST(ContactHaloRanks, CodimPartitionLikeNumbering) { check_layout(false, true); }
TEST(ContactHaloRanks, CodimScatteredNumbering) { check_layout(true, true); }
