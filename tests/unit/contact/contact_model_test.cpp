// ContactModel's reuse paths give exactly what a fresh broad phase gives: the proximity set
// filtered from the last swept set (a Newton iterate x + alpha dx), with ownership filters,
// kinematic vertices and NaN (not delivered by the halo) vertices, and the fallback to the
// broad phase when x leaves the swept boxes or a vertex appears that the swept set lacked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <iterator>
#include <random>
#include <string>

#include <Eigen/Geometry>

#include "ccd/accd.hpp"
#include "contact/broad_phase.hpp"
#include "contact/contact_model.hpp"
#include "contact/distance_type.hpp"
#include "contact/pair_potential.hpp"
#include "contact/point_point.hpp"
#include "contact/surface.hpp"

using namespace weft;

namespace {

struct Scene {
  std::vector<Vec3> x;
  std::vector<Tri> tris;
  std::vector<int> obj;
  std::vector<char> kin;
};

// A jittered n x n cloth folded over itself (layers `gap` apart) resting `gap` above a
// kinematic 4 x 4 sheet: self pairs, cloth-obstacle pairs and obstacle-only pairs.
Scene make_scene(int n, double gap, unsigned seed) {
  Scene s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> w(-1.0, 1.0);
  const double L = 1.0 / (n - 1), R = 0.5 * gap, u0 = 0.5, pi = std::acos(-1.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double u = i * L, z = j * L + 0.2 * L * w(rng);
      Vec3 p;
      if (u <= u0)
        p = Vec3(u, 0, z);
      else if (u <= u0 + pi * R)
        p = Vec3(u0 + R * std::sin((u - u0) / R), R - R * std::cos((u - u0) / R), z);
      else
        p = Vec3(u0 - (u - u0 - pi * R), 2 * R, z);
      s.x.push_back(p + Vec3(0, gap, 0));
      s.kin.push_back(0);
    }
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      const int a = i * n + j, b = a + 1, c = a + n, d = c + 1;
      s.tris.push_back({a, b, d});
      s.tris.push_back({a, d, c});
      s.obj.push_back(0);
      s.obj.push_back(0);
    }
  const int base = static_cast<int>(s.x.size()), m = 4;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) {
      s.x.push_back(Vec3(-0.2 + 1.4 * i / (m - 1), 0.0, -0.2 + 1.4 * j / (m - 1)));
      s.kin.push_back(1);
    }
  for (int i = 0; i + 1 < m; ++i)
    for (int j = 0; j + 1 < m; ++j) {
      const int a = base + i * m + j, b = a + 1, c = a + m, d = c + 1;
      s.tris.push_back({a, d, b});
      s.tris.push_back({a, c, d});
      s.obj.push_back(1);
      s.obj.push_back(1);
    }
  return s;
}

::testing::AssertionResult same(const Candidates& got, const Candidates& want) {
  if (got.pt != want.pt) return ::testing::AssertionFailure() << "pt: " << got.pt.size() << " vs " << want.pt.size();
  if (got.ee != want.ee) return ::testing::AssertionFailure() << "ee: " << got.ee.size() << " vs " << want.ee.size();
  if (got.pe != want.pe) return ::testing::AssertionFailure() << "pe: " << got.pe.size() << " vs " << want.pe.size();
  if (got.pp != want.pp) return ::testing::AssertionFailure() << "pp: " << got.pp.size() << " vs " << want.pp.size();
  return ::testing::AssertionSuccess();
}

struct Fixture {
  Scene sc;
  CollisionSurface surf;
  std::vector<char> pown, eown;
  ContactParams cp;
  Fixture(int n, double gap, unsigned seed, int ranks, int rank) : sc(make_scene(n, gap, seed)) {
    surf = build_collision_surface(sc.tris, sc.obj, {0.0, 5e-4}, static_cast<int>(sc.x.size()));
    const int nv = static_cast<int>(sc.x.size());
    pown.assign(nv, 0);
    for (int v = 0; v < nv; ++v) pown[v] = (v * ranks) / nv == rank;
    eown.assign(surf.edges.size(), 0);
    for (size_t e = 0; e < surf.edges.size(); ++e) eown[e] = pown[surf.edges[e][0]];
    cp.dhat = 1e-3;
  }
  ContactModel model() const { return ContactModel(surf, sc.x, PagedArray<char>(sc.kin), {0.4, 0.4}, pown, eown, cp); }
  Candidates fresh(const std::vector<Vec3>& x) const {
    BroadPhase bp;
    Candidates c;
    bp.find_proximity(surf, x, cp.dhat, &pown, &eown, &sc.kin, c);
    return c;
  }
  // A fresh broad phase's swept set over [x, x + dx] (what a model's swept set is compared with).
  Candidates fresh_swept(const std::vector<Vec3>& x, const std::vector<Vec3>& dx) const {
    BroadPhase bp;
    Candidates c;
    bp.find_swept(surf, x, dx, cp.dhat, &pown, &eown, &sc.kin, c);
    return c;
  }
};

// A model's swept set is the broad phase's (want) less pairs no consumer of the query
// needs (ContactModel::update_swept): in order, a subset, and every pair left out is one
// that ACCD clears over the whole step (no impact for t_max = 1) and whose two sides lie
// apart by more than xi + dhat along some axis at every sampled point x + t dx. `dropped`
// (optional) counts the pairs left out.
::testing::AssertionResult swept_of(const Candidates& got, const Candidates& want, const CollisionSurface& s,
                                    const std::vector<Vec3>& x, const std::vector<Vec3>& dx, double dhat,
                                    size_t* dropped = nullptr) {
  if (got.pe != want.pe || got.pp != want.pp) return ::testing::AssertionFailure() << "pe / pp differ";
  auto apart = [&](const int* v, int na, double reach) {
    for (int i = 0; i <= 64; ++i) {
      const double t = i / 64.0;
      bool sep = false;
      for (int k = 0; k < 3; ++k) {
        double alo = 1e300, ahi = -1e300, blo = 1e300, bhi = -1e300;
        for (int j = 0; j < 4; ++j) {
          const double c = x[v[j]][k] + t * dx[v[j]][k];
          (j < na ? alo : blo) = std::min(j < na ? alo : blo, c);
          (j < na ? ahi : bhi) = std::max(j < na ? ahi : bhi, c);
        }
        sep = sep || blo - ahi > reach || alo - bhi > reach;
      }
      if (!sep) return false;
    }
    return true;
  };
  size_t n = 0;
  std::string why;
  auto check = [&](const auto& g, const auto& w, auto stencil) {
    if (!std::includes(w.begin(), w.end(), g.begin(), g.end())) return why = "not a subset", false;
    std::decay_t<decltype(w)> out;
    std::set_difference(w.begin(), w.end(), g.begin(), g.end(), std::back_inserter(out));
    for (const auto& p : out) {
      int v[4], na;
      double xi;
      const bool pt = stencil(p, v, na, xi);
      const AccdParams ap;
      const CcdResult r = pt ? point_triangle_accd(x[v[0]], x[v[1]], x[v[2]], x[v[3]], dx[v[0]], dx[v[1]], dx[v[2]],
                                                   dx[v[3]], xi, ap)
                             : edge_edge_accd(x[v[0]], x[v[1]], x[v[2]], x[v[3]], dx[v[0]], dx[v[1]], dx[v[2]],
                                              dx[v[3]], xi, ap);
      if (r.hit) return why = "a dropped pair has an impact", false;
      if (!apart(v, na, xi + dhat)) return why = "a dropped pair comes within reach", false;
    }
    n += out.size();
    return true;
  };
  const bool ok =
      check(got.pt, want.pt,
            [&](const PointTriangleCandidate& p, int* v, int& na, double& xi) {
              const Tri& t = s.triangles[p.t];
              v[0] = p.v, v[1] = t[0], v[2] = t[1], v[3] = t[2], na = 1;
              xi = 0.5 * (s.vertex_offset(p.v) + s.triangle_offset(p.t));
              return true;
            }) &&
      check(got.ee, want.ee, [&](const EdgeEdgeCandidate& p, int* v, int& na, double& xi) {
        const Edge &a = s.edges[p.ea], &b = s.edges[p.eb];
        v[0] = a[0], v[1] = a[1], v[2] = b[0], v[3] = b[1], na = 2;
        xi = 0.5 * (s.edge_offset(p.ea) + s.edge_offset(p.eb));
        return false;
      });
  if (dropped) *dropped += n;
  return ok ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << why;
}

std::vector<Vec3> random_step(size_t n, const std::vector<char>& kin, double scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> w(-1.0, 1.0);
  std::vector<Vec3> dx(n);
  for (size_t v = 0; v < n; ++v) dx[v] = kin[v] ? Vec3::Zero() : Vec3(scale * w(rng), scale * w(rng), scale * w(rng));
  return dx;
}

// random_step plus a common motion `bulk` of every free vertex (a cloth moving as a whole).
std::vector<Vec3> bulk_step(const std::vector<char>& kin, double scale, unsigned seed, const Vec3& bulk) {
  std::vector<Vec3> dx = random_step(kin.size(), kin, scale, seed);
  for (size_t v = 0; v < kin.size(); ++v)
    if (!kin[v]) dx[v] += bulk;
  return dx;
}

}  // namespace

TEST(ContactModel, ProximityFromSweptMatchesBroadPhase) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int ranks : {1, 2, 3})
    for (int rank = 0; rank < ranks; ++rank) {
      const Fixture f(24, 1.5e-3, 7 + rank, ranks, rank);
      ContactModel cm = f.model();
      const size_t nv = f.sc.x.size();
      for (unsigned it = 0; it < 3; ++it) {
        const std::vector<Vec3> dx = random_step(nv, f.sc.kin, it == 0 ? 3e-3 : 1e-3, 100 + it);
        cm.update_swept(f.sc.x, dx);
        for (double alpha : {1.0, 0.5, 0.3, 1.0 / 3.0, 0.0}) {
          std::vector<Vec3> x(nv);
          for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + alpha * dx[v];
          const long before = cm.timers().proximity_filtered;
          cm.update_proximity(x);
          EXPECT_EQ(cm.timers().proximity_filtered, before + 1) << "fast path not taken, alpha " << alpha;
          EXPECT_TRUE(same(cm.proximity_set(), f.fresh(x))) << "ranks " << ranks << " alpha " << alpha;
          EXPECT_GT(cm.proximity_set().size(), 0u);
        }
      }
      // Vertices the halo did not deliver at x (NaN) drop out of both sets.
      std::vector<Vec3> dx = random_step(nv, f.sc.kin, 1e-3, 5);
      cm.update_swept(f.sc.x, dx);
      std::vector<Vec3> x(nv);
      for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + 0.5 * dx[v];
      for (size_t v = 0; v < nv; v += 7) x[v] = Vec3(nan, nan, nan);
      long before = cm.timers().proximity_filtered;
      cm.update_proximity(x);
      EXPECT_EQ(cm.timers().proximity_filtered, before + 1);
      EXPECT_TRUE(same(cm.proximity_set(), f.fresh(x)));
      // A vertex known at x but not in the swept exchange: the broad phase runs.
      std::vector<Vec3> xs = f.sc.x;
      for (size_t v = 3; v < nv; v += 11) xs[v] = Vec3(nan, nan, nan);
      cm.update_swept(xs, dx);
      for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + 0.5 * dx[v];
      before = cm.timers().proximity_filtered;
      cm.update_proximity(x);
      EXPECT_EQ(cm.timers().proximity_filtered, before);
      EXPECT_TRUE(same(cm.proximity_set(), f.fresh(x)));
      // Outside the swept boxes: the broad phase runs.
      cm.update_swept(f.sc.x, dx);
      for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + 1.5 * dx[v];
      before = cm.timers().proximity_filtered;
      cm.update_proximity(x);
      EXPECT_EQ(cm.timers().proximity_filtered, before);
      EXPECT_TRUE(same(cm.proximity_set(), f.fresh(x)));
    }
}

TEST(ContactModel, ProximityOffTheSweptSegmentComesFromTheBroadPhase) {
  // The folded cloth's two layers move up together: the swept set lacks their pairs, which
  // stay apart all along the segment x + t dx. A point inside every swept box but off the
  // segment (each vertex at its own t) brings some of them close: it is served by the
  // broad phase, and the proximity set is still a fresh broad phase's; a point on the
  // segment is served from the swept set.
  for (int ranks : {1, 2})
    for (int rank = 0; rank < ranks; ++rank) {
      const Fixture f(24, 1.5e-3, 51 + rank, ranks, rank);
      ContactModel cm = f.model();
      const size_t nv = f.sc.x.size();
      // (over 2 edge lengths: a far query)
      const std::vector<Vec3> dx = bulk_step(f.sc.kin, 1e-4, 17 + rank, Vec3(0.0, 0.1, 0.0));
      cm.update_swept(f.sc.x, dx);
      const Candidates want = f.fresh_swept(f.sc.x, dx);
      size_t dropped = 0;
      EXPECT_TRUE(swept_of(cm.swept_set(), want, f.surf, f.sc.x, dx, f.cp.dhat, &dropped));
      EXPECT_GT(dropped, want.size() / 4) << dropped << " of " << want.size();
      std::vector<Vec3> x(nv);
      for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + 0.6 * dx[v];
      long before = cm.timers().proximity_filtered;
      cm.update_proximity(x);
      EXPECT_EQ(cm.timers().proximity_filtered, before + 1);
      EXPECT_TRUE(same(cm.proximity_set(), f.fresh(x)));
      std::mt19937 rng(5 + rank);
      std::uniform_real_distribution<double> t(0.0, 1.0);
      for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + t(rng) * dx[v];
      before = cm.timers().proximity_filtered;
      cm.update_proximity(x);
      EXPECT_EQ(cm.timers().proximity_filtered, before);
      const Candidates fresh = f.fresh(x);
      EXPECT_TRUE(same(cm.proximity_set(), fresh));
      // (the test bites: the fresh set holds pairs the swept set lacks)
      const Candidates& sw = cm.swept_set();
      EXPECT_FALSE(std::includes(sw.pt.begin(), sw.pt.end(), fresh.pt.begin(), fresh.pt.end()) &&
                   std::includes(sw.ee.begin(), sw.ee.end(), fresh.ee.begin(), fresh.ee.end()));
    }
}

TEST(ContactModel, SweptFromSkinSetMatchesBroadPhase) {
  // A Newton-like sequence: x moves by alpha dx, the next dx is smaller or larger, some
  // vertices vanish (NaN: not delivered) or appear; every swept set must equal a fresh
  // broad phase less pairs no consumer needs, and most queries must be served without one.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int ranks : {1, 2})
    for (int rank = 0; rank < ranks; ++rank) {
      const Fixture f(24, 1.5e-3, 11 + rank, ranks, rank);
      ContactModel cm = f.model();
      const size_t nv = f.sc.x.size();
      std::vector<Vec3> x = f.sc.x;
      const double scales[] = {2e-2, 4e-3, 3e-3, 1.5e-3, 1e-3, 8e-4, 2e-3, 5e-4, 5e-4, 3e-4, 6e-3, 2e-4, 1e-4};
      int it = 0;
      const long before = cm.timers().swept_rebuilds, updates_before = cm.timers().swept_updates;
      for (double scale : scales) {
        std::vector<Vec3> dx = random_step(nv, f.sc.kin, scale, 300 + it);
        std::vector<Vec3> xq = x;
        if (it == 8)  // the halo did not deliver some vertices this time
          for (size_t v = 0; v < nv; v += 5) xq[v] = Vec3(nan, nan, nan);
        cm.update_swept(xq, dx);
        const Candidates want = f.fresh_swept(xq, dx);
        EXPECT_TRUE(swept_of(cm.swept_set(), want, f.surf, xq, dx, f.cp.dhat)) << "ranks " << ranks << " query " << it;
        // The proximity set at the next iterate, from this swept set.
        for (size_t v = 0; v < nv; ++v) x[v] = x[v] + 0.7 * dx[v];
        std::vector<Vec3> xp = x;
        if (it == 8)
          for (size_t v = 0; v < nv; v += 5) xp[v] = Vec3(nan, nan, nan);
        cm.update_proximity(xp);
        EXPECT_TRUE(same(cm.proximity_set(), f.fresh(xp))) << "proximity after query " << it;
        ++it;
      }
      const long rebuilds = cm.timers().swept_rebuilds - before;
      const long updates = cm.timers().swept_updates - updates_before;
      EXPECT_GE(rebuilds, 1);                 // the first query
      EXPECT_GE(rebuilds + updates, 2);       // ... and the vertices reappearing (an update)
      EXPECT_LT(rebuilds, long(it) - 3);      // most served from the skin set
    }
}

TEST(ContactModel, SkinSetUpdatedWhenFewVerticesLeaveIt) {
  // Landing cloth: each Newton step stays inside the skin boxes except for a few vertices
  // that run further (a different one each time). The skin set is then updated for those
  // vertices (BroadPhase::update_swept) rather than rebuilt, and every swept set still
  // equals a fresh broad phase less pairs no consumer needs.
  for (int ranks : {1, 2})
    for (int rank = 0; rank < ranks; ++rank) {
      const Fixture f(24, 1.5e-3, 31 + rank, ranks, rank);
      ContactModel cm = f.model();
      const size_t nv = f.sc.x.size();
      std::vector<Vec3> x = f.sc.x;
      const long rebuilds0 = cm.timers().swept_rebuilds, updates0 = cm.timers().swept_updates;
      for (int it = 0; it < 10; ++it) {
        std::vector<Vec3> dx = random_step(nv, f.sc.kin, 3e-4, 500 + it);
        for (size_t v = (7 * it + 3) % 17; v < nv; v += 301)  // the runaways
          if (!f.sc.kin[v]) dx[v] = Vec3(4e-3, -3e-3, 2e-3);
        cm.update_swept(x, dx);
        const Candidates want = f.fresh_swept(x, dx);
        EXPECT_TRUE(swept_of(cm.swept_set(), want, f.surf, x, dx, f.cp.dhat)) << "ranks " << ranks << " query " << it;
        for (size_t v = 0; v < nv; ++v) x[v] += 0.5 * dx[v];
      }
      EXPECT_GE(cm.timers().swept_updates - updates0, 5) << "ranks " << ranks;
      EXPECT_LE(cm.timers().swept_rebuilds - rebuilds0, 3) << "ranks " << ranks;
    }
}

TEST(ContactModel, SkinUpdatesKeptApartGiveTheMergedSetsSweptSetsBitForBit) {
  // The pairs a skin update adds are kept in a set of their own, merged into the filter's
  // output on the fly, and folded into the skin set only once large. A second model whose
  // skin set is read (skin_set() folds: the old merge on every update) after each query
  // must give the same swept sets, pair for pair and in order, which are a fresh broad
  // phase's less pairs no consumer needs; and the folded skin set is sorted, duplicate-free and holds every swept pair.
  for (int ranks : {1, 2})
    for (int rank = 0; rank < ranks; ++rank) {
      const Fixture f(24, 1.5e-3, 81 + rank, ranks, rank);
      ContactModel apart = f.model(), folded = f.model();
      const size_t nv = f.sc.x.size();
      std::vector<Vec3> x = f.sc.x;
      const long updates0 = apart.timers().swept_updates;
      for (int it = 0; it < 24; ++it) {
        std::vector<Vec3> dx = random_step(nv, f.sc.kin, 3e-4, 900 + it);
        for (size_t v = (5 * it + 2) % 13; v < nv; v += 97)  // the runaways, a few each query
          if (!f.sc.kin[v]) dx[v] = Vec3(3e-3, -2e-3, 4e-3 * ((it % 3) - 1));
        apart.update_swept(x, dx);
        folded.update_swept(x, dx);
        const Candidates& skin = folded.skin_set();
        const Candidates want = f.fresh_swept(x, dx);
        EXPECT_TRUE(swept_of(apart.swept_set(), want, f.surf, x, dx, f.cp.dhat)) << "ranks " << ranks << " query " << it;
        EXPECT_TRUE(same(folded.swept_set(), apart.swept_set())) << "ranks " << ranks << " query " << it;
        for_each_pair_kind([&](auto k) {
          constexpr PairKind K = decltype(k)::value;
          const auto& s = skin.get<K>();
          EXPECT_TRUE(std::adjacent_find(s.begin(), s.end(), [](const auto& a, const auto& b) { return !(a < b); }) ==
                      s.end());
          EXPECT_TRUE(std::includes(s.begin(), s.end(), want.get<K>().begin(), want.get<K>().end()));
        });
        for (size_t v = 0; v < nv; ++v) x[v] += 0.5 * dx[v];
      }
      EXPECT_GE(apart.timers().swept_updates - updates0, 10) << "ranks " << ranks;
      EXPECT_EQ(apart.timers().swept_updates, folded.timers().swept_updates);
      EXPECT_EQ(apart.timers().swept_rebuilds, folded.timers().swept_rebuilds);
      EXPECT_EQ(apart.skin_set().size(), folded.skin_set().size());
    }
}

TEST(ContactModel, SkinSetRebuiltWhenItOutgrowsTheSweptSets) {
  // A time step's first Newton step is long, the later ones short: the skin set built for
  // the long one (grown by its steps) holds more pairs than the short ones keep, and
  // updates only add pairs. Once it holds more than skin_shrink times the last swept set
  // (and skin_shrink x skin_shrink_min pairs) the next query rebuilds it with its own steps;
  // every swept set still equals a fresh broad phase (less pairs no consumer needs). (This
  // coarse cloth's skin sets are only a few times its swept sets: shrink at 2; the default 8
  // never fires here.)
  for (double shrink : {2.0, 8.0})
    for (int ranks : {1, 2})
      for (int rank = 0; rank < ranks; ++rank) {
        Fixture f(24, 1.5e-3, 61 + rank, ranks, rank);
        f.cp.skin_shrink = shrink;
        f.cp.skin_shrink_min = 256;
        ContactModel cm = f.model();
        const size_t nv = f.sc.x.size();
        std::vector<Vec3> x = f.sc.x;
        const long shrinks0 = cm.timers().swept_shrinks;
        size_t first_skin = 0, last = 0;
        for (int it = 0; it < 8; ++it) {
          const std::vector<Vec3> dx = random_step(nv, f.sc.kin, it == 0 ? 9e-3 : 1e-4, 700 + it);
          const size_t skin_before = cm.skin_set().size();
          const long shrinks_before = cm.timers().swept_shrinks;
          cm.update_swept(x, dx);
          const Candidates want = f.fresh_swept(x, dx);
          EXPECT_TRUE(swept_of(cm.swept_set(), want, f.surf, x, dx, f.cp.dhat)) << "shrink " << shrink << " ranks " << ranks << " query " << it;
          const bool due = it > 0 && double(skin_before) > shrink * double(std::max<size_t>(last, 256));
          EXPECT_EQ(cm.timers().swept_shrinks - shrinks_before, due ? 1 : 0) << "query " << it;
          if (it == 0) first_skin = cm.skin_set().size();
          last = want.size();
          for (size_t v = 0; v < nv; ++v) x[v] += 0.5 * dx[v];
        }
        if (shrink == 2.0) {
          EXPECT_GE(cm.timers().swept_shrinks - shrinks0, 1) << "ranks " << ranks;
          EXPECT_LT(cm.skin_set().size(), first_skin);
        } else {
          EXPECT_EQ(cm.timers().swept_shrinks - shrinks0, 0) << "ranks " << ranks;
        }
      }
}

TEST(ContactModel, ActiveCouplingsListEveryOrderedCouplingOnce) {
  // The coupling pattern (listed once per vertex pair and mirrored inside) equals, entry
  // for entry and in order, every ordered pair of two different dynamic vertices of a
  // proximity stencil within the reach, sorted and deduplicated; at two reaches, for the
  // whole cloth and for each of two ranks' shares.
  for (int ranks : {1, 2})
    for (int rank = 0; rank < ranks; ++rank) {
      const Fixture f(16, 1.2e-3, 43 + rank, ranks, rank);
      ContactModel cm = f.model();
      const size_t nv = f.sc.x.size();
      std::vector<Vec3> x = f.sc.x;
      const std::vector<Vec3> jitter = random_step(nv, f.sc.kin, 2e-4, 11 + rank);
      for (size_t v = 0; v < nv; ++v) x[v] += jitter[v];
      cm.update_proximity(x);
      const CollisionSurface& s = f.surf;
      ASSERT_TRUE(cm.proximity_set().pe.empty() && cm.proximity_set().pp.empty());
      for (double reach : {-1.0, 0.0, 3.0}) {
        std::vector<std::pair<int, int>> got, want;
        cm.active_couplings(x, got, reach);
        const double R = (1.0 + (reach < 0 ? 1.0 : reach)) * f.cp.dhat;
        // (the model's distances: classified, then the type's distance)
        auto add = [&](const int* v, double xi, double d2) {
          if (!(d2 - xi * xi < 2.0 * xi * R + R * R)) return;
          for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
              if (!f.sc.kin[v[a]] && !f.sc.kin[v[b]] && v[a] != v[b]) want.emplace_back(v[a], v[b]);
        };
        for (const auto& p : cm.proximity_set().pt) {
          const Tri& t = s.triangles[p.t];
          const int v[4] = {p.v, t[0], t[1], t[2]};
          add(v, 0.5 * (s.vertex_offset(p.v) + s.triangle_offset(p.t)),
              point_triangle_distance_sq(x[v[0]], x[v[1]], x[v[2]], x[v[3]],
                                         classify_point_triangle(x[v[0]], x[v[1]], x[v[2]], x[v[3]])));
        }
        for (const auto& p : cm.proximity_set().ee) {
          const Edge &a = s.edges[p.ea], &b = s.edges[p.eb];
          const int v[4] = {a[0], a[1], b[0], b[1]};
          add(v, 0.5 * (s.edge_offset(p.ea) + s.edge_offset(p.eb)),
              edge_edge_distance_sq(x[v[0]], x[v[1]], x[v[2]], x[v[3]],
                                    classify_edge_edge(x[v[0]], x[v[1]], x[v[2]], x[v[3]])));
        }
        std::sort(want.begin(), want.end());
        want.erase(std::unique(want.begin(), want.end()), want.end());
        ASSERT_GT(want.size(), 100u) << "reach " << reach;
        EXPECT_TRUE(got == want) << "ranks " << ranks << " rank " << rank << " reach " << reach << ": " << got.size()
                                 << " couplings, want " << want.size();
      }
    }
}

TEST(ContactModel, AssembleBarrierSumsThePairPotentials) {
  // The folded cloth over the ground with the layers closer than the support: the model's
  // energy, gradient and Hessian blocks (pairs beyond the support skipped on the cached
  // distances, kinematic rows dropped) equal the pair potentials summed pair by pair.
  const Fixture f(16, 1.2e-3, 41, 1, 0);
  ContactModel cm = f.model();
  const size_t nv = f.sc.x.size();
  std::vector<Vec3> x = f.sc.x;
  const std::vector<Vec3> jitter = random_step(nv, f.sc.kin, 2e-4, 9);
  for (size_t v = 0; v < nv; ++v) x[v] += jitter[v];
  cm.update_proximity(x);
  const double kappa = 3.0;
  std::vector<double> g(3 * nv, 0.0), g_ref(3 * nv, 0.0);
  std::map<std::pair<int, int>, Mat3> H, H_ref;
  auto sink_into = [&](std::vector<double>& gv, std::map<std::pair<int, int>, Mat3>& Hm) {
    return [&](int n, const int* ids, const double* gl, const double* Hl) {
      const int m = 3 * n;
      for (int i = 0; i < n; ++i) {
        for (int r = 0; r < 3; ++r) gv[3 * ids[i] + r] += gl[3 * i + r];
        for (int j = 0; j < n; ++j) {
          Mat3& b = Hm.try_emplace({ids[i], ids[j]}, Mat3::Zero()).first->second;
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) b(r, c) += Hl[(3 * j + c) * m + 3 * i + r];
        }
      }
    };
  };
  const double e = cm.assemble_barrier(x, kappa, sink_into(g, H));
  ASSERT_TRUE(std::isfinite(e));
  // Reference: every proximity pair through the public pair potentials.
  double e_ref = 0.0;
  int active = 0;
  const CollisionSurface& s = f.surf;
  BarrierParams bp;
  bp.kappa = kappa;
  bp.dhat = f.cp.dhat;
  auto add = [&](const LocalEnergy<12>& le, const int* v) {
    if (!le.active) return;
    ++active;
    e_ref += le.value;
    for (int i = 0; i < 4; ++i) {
      if (f.sc.kin[v[i]]) continue;
      for (int r = 0; r < 3; ++r) g_ref[3 * v[i] + r] += le.gradient[3 * i + r];
      for (int j = 0; j < 4; ++j)
        if (!f.sc.kin[v[j]]) {
          Mat3& b = H_ref.try_emplace({v[i], v[j]}, Mat3::Zero()).first->second;
          b += le.hessian.block<3, 3>(3 * i, 3 * j);
        }
    }
  };
  auto mask = [&](const int* v) {
    unsigned m = 0;
    for (int a = 0; a < 4; ++a) m |= f.sc.kin[v[a]] ? 1u << a : 0u;
    return m;
  };
  for (const auto& p : cm.proximity_set().pt) {
    const Tri& t = s.triangles[p.t];
    const int v[4] = {p.v, t[0], t[1], t[2]};
    bp.xi = 0.5 * (s.vertex_offset(p.v) + s.triangle_offset(p.t));
    bp.fixed_points = mask(v);
    add(point_triangle_barrier(x[v[0]], x[v[1]], x[v[2]], x[v[3]], bp), v);
  }
  for (const auto& p : cm.proximity_set().ee) {
    const Edge &a = s.edges[p.ea], &b = s.edges[p.eb];
    const int v[4] = {a[0], a[1], b[0], b[1]};
    bp.xi = 0.5 * (s.edge_offset(p.ea) + s.edge_offset(p.eb));
    bp.fixed_points = mask(v);
    const double eps_x = 1e-3 * (f.sc.x[a[1]] - f.sc.x[a[0]]).squaredNorm() * (f.sc.x[b[1]] - f.sc.x[b[0]]).squaredNorm();
    add(edge_edge_barrier(x[v[0]], x[v[1]], x[v[2]], x[v[3]], eps_x, bp), v);
  }
  ASSERT_GT(active, 20);
  ASSERT_LT(size_t(active), cm.proximity_set().size() / 2);  // most pairs are skipped
  EXPECT_NEAR(e, e_ref, 1e-12 * std::abs(e_ref));
  double gmax = 0.0, gerr = 0.0;
  for (size_t i = 0; i < g.size(); ++i) gmax = std::max(gmax, std::abs(g_ref[i])), gerr = std::max(gerr, std::abs(g[i] - g_ref[i]));
  EXPECT_LE(gerr, 1e-12 * gmax);
  ASSERT_EQ(H.size(), H_ref.size());
  double hmax = 0.0, herr = 0.0;
  for (const auto& [k, b] : H_ref) {
    ASSERT_TRUE(H.count(k));
    hmax = std::max(hmax, b.cwiseAbs().maxCoeff());
    herr = std::max(herr, (H.at(k) - b).cwiseAbs().maxCoeff());
  }
  EXPECT_LE(herr, 1e-12 * hmax);

  // The coupling pattern covers every off-diagonal block the assembly emitted; a wider
  // reach (the slack a grown pattern takes in) lists a strict superset.
  std::vector<std::pair<int, int>> near, wide;
  cm.active_couplings(x, near);
  cm.active_couplings(x, wide, 3.0);
  ASSERT_FALSE(near.empty());
  for (const auto& [k, b] : H) {
    if (k.first == k.second) continue;
    EXPECT_TRUE(std::binary_search(near.begin(), near.end(), k));
  }
  EXPECT_TRUE(std::includes(wide.begin(), wide.end(), near.begin(), near.end()));
  EXPECT_GT(wide.size(), near.size());
}

TEST(ContactModel, ShiftedSweptSetKeepsEveryPairThatComesClose) {
  // A cloth moving as a whole (the first Newton iterations of a falling or swinging cloth):
  // the swept query runs in the frame that moves with it (the caller's shift). Every pair that comes within
  // dhat + offset somewhere along x + t dx (sampled) must still be in the set, the set must
  // be far smaller than the unshifted one, and the proximity sets of the line
  // search's iterates must come from it, equal to a fresh broad phase.
  for (int ranks : {1, 2})
    for (int rank = 0; rank < ranks; ++rank) {
      const Fixture f(24, 1.5e-3, 21 + rank, ranks, rank);
      ContactModel cm = f.model();
      const size_t nv = f.sc.x.size();
      const Vec3 bulk(0.08, -0.05, 0.03);  // 2-3 edge lengths: crosses the sheet below
      const std::vector<Vec3> dx = bulk_step(f.sc.kin, 1.5e-3, 77 + rank, bulk);
      cm.update_swept(f.sc.x, dx, &bulk);
      const Candidates& got = cm.swept_set();
      const Candidates plain = f.fresh_swept(f.sc.x, dx);
      ASSERT_GT(got.size(), 0u);
      // (Neither set contains the other: both are box supersets of the close pairs. The
      // coarse sheet's boxes now sweep by -c, so its pairs do not shrink; the fold's do.)
      EXPECT_LT(3 * got.size(), plain.size()) << got.size() << " vs " << plain.size();
      auto at = [&](int v, double t) { return Vec3(f.sc.x[v] + t * dx[v]); };
      int close = 0;
      for (const auto& p : plain.pt) {
        const Tri& t = f.surf.triangles[p.t];
        const double reach = f.cp.dhat + 0.5 * (f.surf.vertex_offset(p.v) + f.surf.triangle_offset(p.t));
        double dmin = 1e300;
        for (int s = 0; s <= 200; ++s) {
          const double tt = s / 200.0;
          dmin = std::min(dmin, point_triangle_distance_sq(at(p.v, tt), at(t[0], tt), at(t[1], tt), at(t[2], tt)));
        }
        if (dmin < reach * reach) {
          ++close;
          EXPECT_TRUE(std::binary_search(got.pt.begin(), got.pt.end(), p)) << "PT " << p.v << " " << p.t;
        }
      }
      for (const auto& p : plain.ee) {
        const Edge &a = f.surf.edges[p.ea], &b = f.surf.edges[p.eb];
        const double reach = f.cp.dhat + 0.5 * (f.surf.edge_offset(p.ea) + f.surf.edge_offset(p.eb));
        double dmin = 1e300;
        for (int s = 0; s <= 200; ++s) {
          const double tt = s / 200.0;
          dmin = std::min(dmin, edge_edge_distance_sq(at(a[0], tt), at(a[1], tt), at(b[0], tt), at(b[1], tt)));
        }
        if (dmin < reach * reach) {
          ++close;
          EXPECT_TRUE(std::binary_search(got.ee.begin(), got.ee.end(), p)) << "EE " << p.ea << " " << p.eb;
        }
      }
      EXPECT_GT(close, 100);  // self pairs of the fold and pairs with the sheet it crosses
      for (double alpha : {1.0, 0.5, 0.25, 0.0}) {
        std::vector<Vec3> x(nv);
        for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + alpha * dx[v];
        const long before = cm.timers().proximity_filtered;
        cm.update_proximity(x);
        EXPECT_EQ(cm.timers().proximity_filtered, before + 1) << "fast path not taken, alpha " << alpha;
        EXPECT_TRUE(same(cm.proximity_set(), f.fresh(x))) << "ranks " << ranks << " alpha " << alpha;
      }
      // A vertex that left the swept box by more than the common motion allows: fresh.
      std::vector<Vec3> x(nv);
      for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + 0.5 * dx[v];
      x[5] += Vec3(0.02, 0, 0);
      const long before = cm.timers().proximity_filtered;
      cm.update_proximity(x);
      EXPECT_EQ(cm.timers().proximity_filtered, before);
      EXPECT_TRUE(same(cm.proximity_set(), f.fresh(x)));
    }
}

// ---- codimensional pairs (issue 17 point 2): a rod over a triangle, particles beside the
// rod and each other. Every kind (PT, EE, PE, PP) is active; the model's energy equals the
// pair potentials summed, its gradient the finite differences of its energy, friction and
// the CCD bound cover PE and PP pairs.
namespace {

struct CodimScene {
  std::vector<Vec3> x;
  CollisionSurface s;
  std::vector<char> kin;
};

CodimScene codim_scene() {
  CodimScene c;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> w(-1.0, 1.0);
  std::vector<Edge> segs;
  for (int i = 0; i <= 10; ++i) c.x.push_back(Vec3(0.1 * i, 0, 0));  // rod 0..10, object 0
  for (int i = 0; i < 10; ++i) segs.push_back({i, i + 1});
  c.x.push_back(Vec3(0.25, 0.03, 0));      // 11: particle over segment 2-3
  c.x.push_back(Vec3(0.25, 0.03, 0.035));  // 12: particle beside 11
  c.x.push_back(Vec3(0.0, -0.025, -0.5));  // 13-15: triangle under the rod, object 2
  c.x.push_back(Vec3(1.0, -0.025, -0.5));
  c.x.push_back(Vec3(0.5, -0.025, 0.5));
  for (Vec3& p : c.x) p += 1e-3 * Vec3(w(rng), w(rng), w(rng));
  c.s = build_collision_surface({{13, 14, 15}}, {2}, {0.02, 0.02, 0.0}, 16, segs, std::vector<int>(10, 0), {11, 12},
                                {1, 1});
  c.kin.assign(16, 0);
  return c;
}

}  // namespace

// The codim scene's contact model (dhat 0.02, every primitive owned).
ContactModel codim_model(const CodimScene& c, const ContactParams& cp) {
  const std::vector<char> own(c.x.size(), 1), eown(c.s.edges.size(), 1);
  return ContactModel(c.s, c.x, PagedArray<char>(c.kin), {0.3, 0.5, 0.4}, own, eown, cp);
}

// The line search's barrier energy skips pairs whose sides lie apart by more than the
// support along an axis before any distance kernel: the sum must be the kernels' sum over
// the whole swept set, in its order, bit for bit, with such pairs among them.
TEST(ContactModel, SweptEnergySkipsOnlyZeroPairsBitForBit) {
  const CodimScene c = codim_scene();
  const int nv = static_cast<int>(c.x.size());
  const double dhat = 0.02;
  ContactParams cp;
  cp.dhat = dhat;
  ContactModel cm = codim_model(c, cp);
  std::vector<Vec3> dx(nv);
  for (int v = 0; v < nv; ++v) dx[v] = Vec3(0.03 * ((v % 3) - 1), -0.02 * (v % 2), 0.01 * ((v % 5) - 2));
  cm.update_swept(c.x, dx);
  const Candidates& sw = cm.swept_set();
  ASSERT_FALSE(sw.ee.empty());
  const double kappa = 3.0;
  // Without, then with max_step's distance bounds at c.x (the line search's order).
  for (int bounds : {0, 1})
  for (double alpha : {0.0, 0.5, 1.0}) {
    if (bounds && alpha == 0.0) cm.max_step(c.x, dx, nullptr);
    std::vector<Vec3> x = c.x;
    for (int v = 0; v < nv; ++v) x[v] += alpha * dx[v];
    BarrierParams bp;
    bp.kappa = kappa;
    bp.dhat = dhat;
    const CollisionSurface& s = c.s;
    double e_ref = 0.0;
    int apart = 0, active = 0;
    auto add = [&](double e, std::initializer_list<int> a, std::initializer_list<int> b) {
      e_ref += e;
      active += e > 0.0;
      for (int k = 0; k < 3; ++k) {
        double alo = 1e300, ahi = -1e300, blo = 1e300, bhi = -1e300;
        for (int v : a) alo = std::min(alo, x[v][k]), ahi = std::max(ahi, x[v][k]);
        for (int v : b) blo = std::min(blo, x[v][k]), bhi = std::max(bhi, x[v][k]);
        if (blo - ahi > bp.xi + bp.dhat || alo - bhi > bp.xi + bp.dhat) {
          ++apart;
          EXPECT_EQ(e, 0.0);
          break;
        }
      }
    };
    const auto len2 = [&](int e) { return (c.x[s.edges[e][1]] - c.x[s.edges[e][0]]).squaredNorm(); };
    for (const auto& p : sw.pt) {
      const Tri& t = s.triangles[p.t];
      bp.xi = 0.5 * (s.vertex_offset(p.v) + s.triangle_offset(p.t));
      add(point_triangle_barrier_energy(x[p.v], x[t[0]], x[t[1]], x[t[2]], bp), {p.v}, {t[0], t[1], t[2]});
    }
    for (const auto& p : sw.ee) {
      const Edge &a = s.edges[p.ea], &b = s.edges[p.eb];
      bp.xi = 0.5 * (s.edge_offset(p.ea) + s.edge_offset(p.eb));
      add(edge_edge_barrier_energy(x[a[0]], x[a[1]], x[b[0]], x[b[1]], 1e-3 * len2(p.ea) * len2(p.eb), bp),
          {a[0], a[1]}, {b[0], b[1]});
    }
    for (const auto& p : sw.pe) {
      const Edge& e = s.edges[p.e];
      bp.xi = 0.5 * (s.vertex_offset(p.v) + s.edge_offset(p.e));
      add(point_edge_barrier_energy(x[p.v], x[e[0]], x[e[1]], bp), {p.v}, {e[0], e[1]});
    }
    for (const auto& p : sw.pp) {
      bp.xi = 0.5 * (s.vertex_offset(p.v) + s.vertex_offset(p.w));
      add(point_point_barrier_energy(x[p.v], x[p.w], bp), {p.v}, {p.w});
    }
    EXPECT_EQ(cm.barrier_energy(x, kappa), e_ref) << "alpha " << alpha << " bounds " << bounds;
    if (alpha == 1.0) {
      EXPECT_GT(apart, 0);
      EXPECT_GT(active, 0);
    }
  }
}

// The CCD bound skips the ACCD kernel of a pair whose box gap shows that ACCD's first step
// clears it: the bound must be ACCD's over the whole swept set, in its order (each query
// capped by the bound so far), bit for bit, with such pairs and impacts among them.
TEST(ContactModel, MaxStepSkipsOnlyClearedPairsBitForBit) {
  for (int ranks : {1, 2})
    for (int rank = 0; rank < ranks; ++rank) {
      const Fixture f(24, 1.5e-3, 11 + rank, ranks, rank);
      ContactModel cm = f.model();
      const size_t nv = f.sc.x.size();
      const CollisionSurface& s = f.surf;
      int cleared = 0, hits = 0;
      // The same base point for several queries (the last query's bounds at no motion),
      // then a settling sequence that moves it (the bounds less the motion).
      std::vector<Vec3> x = f.sc.x;
      const double scales[] = {3e-3, 1e-3, 2e-4, 1e-5, 2e-3, 5e-4, 1e-4, 1e-4, 2e-5, 1e-5, 3e-3};
      for (int q = 0; q < 11; ++q) {
        const double scale = scales[q];
        const std::vector<Vec3> dx = random_step(nv, f.sc.kin, scale, 40 + q + static_cast<unsigned>(1e6 * scale));
        cm.update_swept(x, dx);
        const Candidates& sw = cm.swept_set();
        AccdParams ap;
        double t_ref = 1.0;
        auto take = [&](const CcdResult& r) {
          cleared += !r.hit && r.iterations == 1;
          if (r.hit) t_ref = std::min(t_ref, r.toi), ++hits;
        };
        for (const auto& p : sw.pt) {
          const Tri& t = s.triangles[p.t];
          ap.t_max = t_ref;
          take(point_triangle_accd(x[p.v], x[t[0]], x[t[1]], x[t[2]], dx[p.v], dx[t[0]], dx[t[1]], dx[t[2]],
                                   0.5 * (s.vertex_offset(p.v) + s.triangle_offset(p.t)), ap));
        }
        for (const auto& p : sw.ee) {
          const Edge &a = s.edges[p.ea], &b = s.edges[p.eb];
          ap.t_max = t_ref;
          take(edge_edge_accd(x[a[0]], x[a[1]], x[b[0]], x[b[1]], dx[a[0]], dx[a[1]], dx[b[0]], dx[b[1]],
                              0.5 * (s.edge_offset(p.ea) + s.edge_offset(p.eb)), ap));
        }
        for (const auto& p : sw.pe) {
          const Edge& e = s.edges[p.e];
          ap.t_max = t_ref;
          take(point_edge_accd(x[p.v], x[e[0]], x[e[1]], dx[p.v], dx[e[0]], dx[e[1]],
                               0.5 * (s.vertex_offset(p.v) + s.edge_offset(p.e)), ap));
        }
        for (const auto& p : sw.pp) {
          ap.t_max = t_ref;
          take(point_point_accd(x[p.v], x[p.w], dx[p.v], dx[p.w], 0.5 * (s.vertex_offset(p.v) + s.vertex_offset(p.w)),
                                ap));
        }
        long queries = 0;
        EXPECT_EQ(cm.max_step(x, dx, &queries), t_ref) << "scale " << scale << " query " << q;
        EXPECT_EQ(queries, static_cast<long>(sw.size()));  // every pair counts as a query
        if (q >= 4)
          for (size_t v = 0; v < nv; ++v) x[v] += 0.5 * t_ref * dx[v];
      }
      EXPECT_GT(cleared, 0);
      EXPECT_GT(hits, 0);
    }
}

// The same on folded cloth over an obstacle (thousands of pairs, offsets 0 and 5e-4): the
// line search's barrier energy with max_step's bounds equals the energy without them
// (update_swept drops them), bit for bit, along the segment and off it.
TEST(ContactModel, SweptEnergyWithStepBoundsBitForBit) {
  const Fixture f(24, 1.5e-3, 5, 1, 0);
  ContactModel cm = f.model();
  const size_t nv = f.sc.x.size();
  int nonzero = 0;
  for (double scale : {3e-3, 1e-3, 1e-4}) {
    const std::vector<Vec3> dx = random_step(nv, f.sc.kin, scale, 70 + static_cast<unsigned>(1e5 * scale));
    const std::vector<Vec3> off = random_step(nv, f.sc.kin, 0.3 * scale, 9);
    for (double alpha : {1.0, 0.5, 0.125, 0.0}) {
      for (int away : {0, 1}) {
        std::vector<Vec3> x(nv);
        for (size_t v = 0; v < nv; ++v) x[v] = f.sc.x[v] + alpha * dx[v] + (away ? off[v] : Vec3::Zero());
        cm.update_swept(f.sc.x, dx);
        const double e_ref = cm.barrier_energy(x, 2.0);
        cm.max_step(f.sc.x, dx, nullptr);
        EXPECT_EQ(cm.barrier_energy(x, 2.0), e_ref) << "scale " << scale << " alpha " << alpha << " away " << away;
        nonzero += e_ref > 0.0;
      }
    }
  }
  EXPECT_GT(nonzero, 0);
}

TEST(ContactModel, CodimPairsEnergyGradientFrictionAndStep) {
  const CodimScene c = codim_scene();
  const int nv = 16;
  ContactParams cp;
  cp.dhat = 0.02;
  ContactModel cm = codim_model(c, cp);
  cm.update_proximity(c.x);
  const Candidates& prox = cm.proximity_set();
  ASSERT_FALSE(prox.pt.empty());
  ASSERT_FALSE(prox.ee.empty());
  ASSERT_FALSE(prox.pe.empty());
  ASSERT_EQ(prox.pp, (std::vector<PointPointCandidate>{{11, 12}}));
  EXPECT_EQ(cm.num_candidates(), prox.size());

  // Energy: the public pair potentials summed over the set, kind by kind.
  const double kappa = 2.0;
  BarrierParams bp;
  bp.kappa = kappa;
  bp.dhat = cp.dhat;
  const std::vector<Vec3>& x = c.x;
  const CollisionSurface& s = c.s;
  double e_ref = 0.0;
  int active[4] = {0, 0, 0, 0};
  auto acc = [&](int k, double e) {
    e_ref += e;
    active[k] += e > 0.0;
  };
  for (const auto& p : prox.pt) {
    const Tri& t = s.triangles[p.t];
    bp.xi = 0.5 * (s.vertex_offset(p.v) + s.triangle_offset(p.t));
    acc(0, point_triangle_barrier_energy(x[p.v], x[t[0]], x[t[1]], x[t[2]], bp));
  }
  for (const auto& p : prox.ee) {
    const Edge &a = s.edges[p.ea], &b = s.edges[p.eb];
    bp.xi = 0.5 * (s.edge_offset(p.ea) + s.edge_offset(p.eb));
    const double eps = 1e-3 * (x[a[1]] - x[a[0]]).squaredNorm() * (x[b[1]] - x[b[0]]).squaredNorm();
    acc(1, edge_edge_barrier_energy(x[a[0]], x[a[1]], x[b[0]], x[b[1]], eps, bp));
  }
  for (const auto& p : prox.pe) {
    const Edge& e = s.edges[p.e];
    EXPECT_TRUE(s.is_segment(p.e));
    bp.xi = 0.5 * (s.vertex_offset(p.v) + s.edge_offset(p.e));
    acc(2, point_edge_barrier_energy(x[p.v], x[e[0]], x[e[1]], bp));
  }
  for (const auto& p : prox.pp) {
    bp.xi = 0.5 * (s.vertex_offset(p.v) + s.vertex_offset(p.w));
    acc(3, point_point_barrier_energy(x[p.v], x[p.w], bp));
  }
  for (int k = 0; k < 4; ++k) EXPECT_GT(active[k], 0) << "kind " << k;
  std::vector<double> g(3 * nv, 0.0);
  auto sink = [&](int n, const int* ids, const double* gl, const double*) {
    for (int i = 0; i < n; ++i)
      for (int r = 0; r < 3; ++r) g[3 * ids[i] + r] += gl[3 * i + r];
  };
  const double e = cm.assemble_barrier(x, kappa, sink);
  EXPECT_NEAR(e, e_ref, 1e-12 * e_ref);

  // Gradient against central differences of the energy (over the swept set at dx = 0,
  // which holds the proximity set).
  cm.update_swept(x, std::vector<Vec3>(nv, Vec3::Zero()));
  EXPECT_NEAR(cm.barrier_energy(x, kappa), e, 1e-12 * e);
  double gmax = 0.0;
  for (double v : g) gmax = std::max(gmax, std::abs(v));
  for (int i = 0; i < 3 * nv; ++i) {
    const double h = 1e-7;
    std::vector<Vec3> xp = x, xm = x;
    xp[i / 3][i % 3] += h;
    xm[i / 3][i % 3] -= h;
    const double fd = (cm.barrier_energy(xp, kappa) - cm.barrier_energy(xm, kappa)) / (2 * h);
    EXPECT_NEAR(g[i], fd, 1e-5 * gmax) << "dof " << i;
  }

  // Friction: lagged at x, slipping from x_ref; the PE and PP pairs are among the friction
  // pairs (6 = PT + EE + PE + PP stencils at least), and the gradient is the FD of the energy.
  std::vector<Vec3> x_ref = x;
  for (int v = 0; v < nv; ++v) x_ref[v] -= Vec3(1e-4 * (v % 3), 2e-5 * (v % 2), -1e-4 * (v % 5));
  cm.lag_friction(x, x_ref, kappa);
  const std::vector<int> fv = cm.friction_vertices();
  EXPECT_TRUE(std::binary_search(fv.begin(), fv.end(), 11));
  EXPECT_TRUE(std::binary_search(fv.begin(), fv.end(), 12));
  std::fill(g.begin(), g.end(), 0.0);
  const double ef = cm.assemble_friction(x, sink);
  EXPECT_NEAR(cm.friction_energy(x), ef, 1e-12 * ef);
  gmax = 0.0;
  for (double v : g) gmax = std::max(gmax, std::abs(v));
  ASSERT_GT(gmax, 0.0);
  for (int i = 0; i < 3 * nv; ++i) {
    const double h = 1e-8;
    std::vector<Vec3> xp = x, xm = x;
    xp[i / 3][i % 3] += h;
    xm[i / 3][i % 3] -= h;
    const double fd = (cm.friction_energy(xp) - cm.friction_energy(xm)) / (2 * h);
    EXPECT_NEAR(g[i], fd, 1e-5 * gmax) << "friction dof " << i;
  }

  // CCD: particle 12 flies at particle 11 (and only moves): the pair's offset surface is
  // met at t* = (d0 - xi) / |dx|; the bound is below it and leaves a positive gap.
  std::vector<Vec3> dx(nv, Vec3::Zero());
  const Vec3 d = x[11] - x[12];
  dx[12] = 2.0 * d;  // contact at t* = (|d| - 0.02) / (2 |d|) < 1/2
  cm.update_swept(x, dx);
  ASSERT_FALSE(cm.swept_set().pp.empty());
  const double t = cm.max_step(x, dx, nullptr);
  const double t_star = (d.norm() - 0.02) / (2.0 * d.norm());
  EXPECT_GT(t, 0.5 * t_star);
  EXPECT_LT(t, t_star);
  EXPECT_GT((x[12] + t * dx[12] - x[11]).norm(), 0.02);
  // ... and particle 11 falling onto the rod: PE.
  dx.assign(nv, Vec3::Zero());
  dx[11] = Vec3(0, -0.1, 0);
  cm.update_swept(x, dx);
  const double t_pe = cm.max_step(x, dx, nullptr);
  const double d_pe = std::sqrt(point_edge_distance_sq(x[11], x[2], x[3]));
  EXPECT_LT(t_pe, (d_pe - 0.02) / 0.1 + 1e-3);  // (a slightly tilted rod: within 1e-3)
  EXPECT_GT(t_pe, 0.0);
  EXPECT_GT(std::sqrt(point_edge_distance_sq(x[11] + t_pe * dx[11], x[2], x[3])), 0.02);
}
