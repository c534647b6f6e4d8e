// Broad phase vs an O(n^2) brute force of the same candidate definition (broad_phase.hpp):
// random triangle soups (with large triangles and fast movers, so the multi-level paths
// run), folded cloth, ownership filters over fake ranks, kinematic exclusion, mid-step
// crossings, rods and particles (PE / PP pairs), and a timing print for large folded grids.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <random>

#include <Eigen/Geometry>

#include "contact/broad_phase.hpp"
#include "contact/surface.hpp"

using namespace weft;

namespace {

struct RefBox {
  Vec3 lo, hi;
};

bool overlaps(const RefBox& a, const RefBox& b) {
  if (!a.lo.allFinite() || !a.hi.allFinite() || !b.lo.allFinite() || !b.hi.allFinite()) return false;
  for (int k = 0; k < 3; ++k)
    if (a.lo[k] > b.hi[k] || b.lo[k] > a.hi[k]) return false;
  return true;
}

// The definition, written out independently: vertex box of x (and x + dx), union over the
// primitive's vertices, grown by (inflation + xi) / 2.
RefBox ref_box(const std::vector<Vec3>& x, const std::vector<Vec3>* dx, const int* v, int n, double r) {
  RefBox b;
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = std::numeric_limits<double>::infinity();
    b.hi[k] = -std::numeric_limits<double>::infinity();
  }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      const double a = x[v[i]][k];
      const double e = dx ? x[v[i]][k] + (*dx)[v[i]][k] : a;
      if (!std::isfinite(a) || !std::isfinite(e)) b.lo[k] = std::nan("");  // never overlaps
      if (!std::isnan(b.lo[k])) b.lo[k] = std::min(b.lo[k], std::min(a, e));
      b.hi[k] = std::max(b.hi[k], std::max(a, e));
    }
  for (int k = 0; k < 3; ++k) {
    b.lo[k] -= r;
    b.hi[k] += r;
  }
  return b;
}

Candidates brute_force(const CollisionSurface& s, const std::vector<Vec3>& x, const std::vector<Vec3>* dx,
                       double inflation, const std::vector<char>* pf, const std::vector<char>* ef,
                       const std::vector<char>* kin) {
  Candidates c;
  auto kin_all = [&](std::initializer_list<int> vs) {
    if (!kin) return false;
    for (int v : vs)
      if (!(*kin)[v]) return false;
    return true;
  };
  std::vector<RefBox> tb, eb;
  for (size_t t = 0; t < s.triangles.size(); ++t)
    tb.push_back(ref_box(x, dx, s.triangles[t].data(), 3, 0.5 * (inflation + s.triangle_offset(t))));
  for (size_t e = 0; e < s.edges.size(); ++e)
    eb.push_back(ref_box(x, dx, s.edges[e].data(), 2, 0.5 * (inflation + s.edge_offset(e))));
  for (int v : s.vertices) {
    if (pf && !(*pf)[v]) continue;
    const RefBox pb = ref_box(x, dx, &v, 1, 0.5 * (inflation + s.vertex_offset(v)));
    for (size_t t = 0; t < s.triangles.size(); ++t) {
      const Tri& tr = s.triangles[t];
      if (tr[0] == v || tr[1] == v || tr[2] == v) continue;
      if (kin_all({v, tr[0], tr[1], tr[2]})) continue;
      if (overlaps(pb, tb[t])) c.pt.push_back({v, int(t)});
    }
  }
  for (size_t a = 0; a < s.edges.size(); ++a) {
    if (ef && !(*ef)[a]) continue;
    for (size_t b = a + 1; b < s.edges.size(); ++b) {
      const Edge &ea = s.edges[a], &ebd = s.edges[b];
      if (ea[0] == ebd[0] || ea[0] == ebd[1] || ea[1] == ebd[0] || ea[1] == ebd[1]) continue;
      if (kin_all({ea[0], ea[1], ebd[0], ebd[1]})) continue;
      if (overlaps(eb[a], eb[b])) c.ee.push_back({int(a), int(b)});
    }
  }
  // PE: rod nodes and particles x segments; PP: particles x particles (candidates.hpp).
  for (int v : s.codim_vertices) {
    if (pf && !(*pf)[v]) continue;
    const RefBox pb = ref_box(x, dx, &v, 1, 0.5 * (inflation + s.vertex_offset(v)));
    for (int e = s.num_triangle_edges; e < int(s.edges.size()); ++e) {
      const Edge& ed = s.edges[e];
      if (ed[0] == v || ed[1] == v) continue;
      if (kin_all({v, ed[0], ed[1]})) continue;
      if (overlaps(pb, eb[e])) c.pe.push_back({v, e});
    }
  }
  for (size_t i = 0; i < s.points.size(); ++i) {
    const int v = s.points[i];
    if (pf && !(*pf)[v]) continue;
    const RefBox pb = ref_box(x, dx, &v, 1, 0.5 * (inflation + s.vertex_offset(v)));
    for (size_t j = i + 1; j < s.points.size(); ++j) {
      const int w = s.points[j];
      if (kin_all({v, w})) continue;
      if (overlaps(pb, ref_box(x, dx, &w, 1, 0.5 * (inflation + s.vertex_offset(w))))) c.pp.push_back({v, w});
    }
  }
  return c;  // generated in (v, t) / (ea, eb) / (v, e) / (v, w) order
}

::testing::AssertionResult same_sets(const Candidates& got, const Candidates& want) {
  for (size_t i = 1; i < got.pt.size(); ++i)
    if (!(got.pt[i - 1] < got.pt[i]))
      return ::testing::AssertionFailure() << "pt not strictly sorted at " << i;
  for (size_t i = 1; i < got.ee.size(); ++i)
    if (!(got.ee[i - 1] < got.ee[i]))
      return ::testing::AssertionFailure() << "ee not strictly sorted at " << i;
  if (got.pt != want.pt)
    return ::testing::AssertionFailure() << "pt: got " << got.pt.size() << " pairs, want " << want.pt.size();
  if (got.ee != want.ee)
    return ::testing::AssertionFailure() << "ee: got " << got.ee.size() << " pairs, want " << want.ee.size();
  for (size_t i = 1; i < got.pe.size(); ++i)
    if (!(got.pe[i - 1] < got.pe[i])) return ::testing::AssertionFailure() << "pe not strictly sorted at " << i;
  for (size_t i = 1; i < got.pp.size(); ++i)
    if (!(got.pp[i - 1] < got.pp[i])) return ::testing::AssertionFailure() << "pp not strictly sorted at " << i;
  if (got.pe != want.pe)
    return ::testing::AssertionFailure() << "pe: got " << got.pe.size() << " pairs, want " << want.pe.size();
  if (got.pp != want.pp)
    return ::testing::AssertionFailure() << "pp: got " << got.pp.size() << " pairs, want " << want.pp.size();
  return ::testing::AssertionSuccess();
}

struct Mesh {
  std::vector<Vec3> x;
  std::vector<Tri> tris;
  std::vector<int> obj;
};

// Random soup: triangle strips from random walks (so neighbouring triangles share vertices
// and incident pairs must be excluded), in several objects, plus a few large triangles.
Mesh random_soup(unsigned seed, int strips, int strip_len, double step, int big) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0), w(-1.0, 1.0);
  Mesh m;
  for (int s = 0; s < strips; ++s) {
    const int base = int(m.x.size());
    Vec3 p(u(rng), u(rng), u(rng));
    for (int i = 0; i < strip_len + 2; ++i) {
      m.x.push_back(p);
      p += step * Vec3(w(rng), w(rng), w(rng));
    }
    for (int i = 0; i < strip_len; ++i) {
      m.tris.push_back({base + i, base + i + 1, base + i + 2});
      m.obj.push_back(s % 3);
    }
  }
  for (int b = 0; b < big; ++b) {
    const int base = int(m.x.size());
    const Vec3 c(u(rng), u(rng), u(rng));
    for (int i = 0; i < 3; ++i) m.x.push_back(c + 0.6 * Vec3(w(rng), w(rng), w(rng)));
    m.tris.push_back({base, base + 1, base + 2});
    m.obj.push_back(3);
  }
  return m;
}

// n x n grid on [0,1]^2 folded over itself at u = 0.5 around a half cylinder of diameter
// `gap` (the layers end up `gap` apart), then rotated to general position.
Mesh folded_grid(int n, double gap) {
  Mesh m;
  const double L = 1.0 / (n - 1), R = 0.5 * gap, u0 = 0.5, pi = std::acos(-1.0);
  const Eigen::Matrix3d rot =
      (Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()) * Eigen::AngleAxisd(0.2, Vec3::UnitY())).toRotationMatrix();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double u = i * L, z = j * L;
      Vec3 p;
      if (u <= u0)
        p = Vec3(u, 0, z);
      else if (u <= u0 + pi * R)
        p = Vec3(u0 + R * std::sin((u - u0) / R), R - R * std::cos((u - u0) / R), z);
      else
        p = Vec3(u0 - (u - u0 - pi * R), 2 * R, z);
      m.x.push_back(rot * p);
    }
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      const int a = i * n + j, b = a + 1, c = a + n, d = c + 1;
      m.tris.push_back({a, b, d});
      m.tris.push_back({a, d, c});
    }
  m.obj.assign(m.tris.size(), 0);
  return m;
}

// A rank's active lists when it knows the vertices marked in `known`: the known surface
// points, and the triangles and edges whose vertices are all known.
ActivePrimitives lists_of_known(const CollisionSurface& s, const std::vector<char>& known) {
  ActivePrimitives a;
  for (int v : s.vertices)
    if (known[v]) a.points.push_back(v);
  for (size_t t = 0; t < s.triangles.size(); ++t)
    if (known[s.triangles[t][0]] && known[s.triangles[t][1]] && known[s.triangles[t][2]]) a.triangles.push_back(int(t));
  for (size_t e = 0; e < s.edges.size(); ++e)
    if (known[s.edges[e][0]] && known[s.edges[e][1]]) a.edges.push_back(int(e));
  return a;
}

std::vector<Vec3> random_dx(unsigned seed, size_t n, double scale, double fast_fraction, double fast_scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0), w(-1.0, 1.0);
  std::vector<Vec3> dx(n);
  for (Vec3& d : dx) d = (u(rng) < fast_fraction ? fast_scale : scale) * Vec3(w(rng), w(rng), w(rng));
  return dx;
}

// A random soup of 40 triangles in 4 objects, its surface and swept steps (a few fast):
// the update tests' scene.
struct SweptSoup {
  Mesh m;
  CollisionSurface s;
  std::vector<Vec3> dx;
  SweptSoup(unsigned seed, unsigned dx_seed)
      : m(random_soup(seed, 40, 20, 0.03, 3)),
        s(build_collision_surface(m.tris, m.obj, {0.001, 0.0, 0.003, 0.0}, int(m.x.size()))),
        dx(random_dx(dx_seed, m.x.size(), 0.01, 0.03, 0.3)) {}
};

}  // namespace

TEST(BroadPhase, RandomSoupProximityMatchesBruteForce) {
  BroadPhase bp;  // one object across cases: buffers are reused between calls
  size_t cross = 0, total = 0;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    const Mesh m = random_soup(seed, 40, 20, 0.03, seed % 3 == 0 ? 0 : 4);
    const std::vector<double> off = {0.0, 0.004, 0.01, 0.002};
    const CollisionSurface s = build_collision_surface(m.tris, m.obj, off, int(m.x.size()));
    for (double infl : {0.0, 0.01, 0.05}) {
      Candidates got;
      bp.find_proximity(s, m.x, infl, nullptr, nullptr, nullptr, got);
      const Candidates want = brute_force(s, m.x, nullptr, infl, nullptr, nullptr, nullptr);
      EXPECT_TRUE(same_sets(got, want)) << "seed " << seed << " inflation " << infl;
      cross += bp.last_stats().cross_level_pairs;
      total += got.size();
    }
  }
  EXPECT_GT(total, 1000u);
  EXPECT_GT(cross, 0u);  // the big triangles exercise the cross-level path
}

TEST(BroadPhase, RandomSoupSweptMatchesBruteForce) {
  BroadPhase bp;
  size_t cross = 0;
  for (unsigned seed = 11; seed <= 16; ++seed) {
    const Mesh m = random_soup(seed, 30, 20, 0.03, 2);
    const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.001, 0.0, 0.003, 0.0}, int(m.x.size()));
    // Mostly slow vertices plus a few fast ones: their swept points / edges sit at coarser
    // levels than the triangles they pass, so both query directions are needed.
    const std::vector<Vec3> dx = random_dx(seed, m.x.size(), 0.01, 0.03, 0.4);
    Candidates got;
    bp.find_swept(s, m.x, dx, 0.005, nullptr, nullptr, nullptr, got);
    EXPECT_TRUE(same_sets(got, brute_force(s, m.x, &dx, 0.005, nullptr, nullptr, nullptr))) << "seed " << seed;
    cross += bp.last_stats().cross_level_pairs;
  }
  EXPECT_GT(cross, 0u);
}

TEST(BroadPhase, FoldedClothMatchesBruteForce) {
  for (int n : {12, 25}) {
    const double L = 1.0 / (n - 1);
    const Mesh m = folded_grid(n, 0.5 * L);
    const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.1 * L}, int(m.x.size()));
    BroadPhase bp;
    Candidates got;
    bp.find_proximity(s, m.x, 0.3 * L, nullptr, nullptr, nullptr, got);
    const Candidates want = brute_force(s, m.x, nullptr, 0.3 * L, nullptr, nullptr, nullptr);
    EXPECT_TRUE(same_sets(got, want)) << n;
    // Pairs across the two layers are there (the fold brings u and 1 - u together).
    bool across = false;
    for (const auto& c : got.pt) {
      const int iv = c.v / n, it = s.triangles[c.t][0] / n;
      across |= (iv < n / 2 - 2 && it > n / 2 + 2);
    }
    EXPECT_TRUE(across) << n;
    const std::vector<Vec3> dx = random_dx(5, m.x.size(), 0.5 * L, 0.0, 0.0);
    bp.find_swept(s, m.x, dx, 0.1 * L, nullptr, nullptr, nullptr, got);
    EXPECT_TRUE(same_sets(got, brute_force(s, m.x, &dx, 0.1 * L, nullptr, nullptr, nullptr))) << n;
  }
}

TEST(BroadPhase, FiltersPartitionPairsOverRanks) {
  const Mesh m = random_soup(21, 40, 25, 0.03, 3);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.0, 0.002, 0.0, 0.004}, int(m.x.size()));
  const std::vector<Vec3> dx = random_dx(4, m.x.size(), 0.01, 0.02, 0.3);
  // Fake 3-rank ownership: contiguous vertex blocks (as after METIS renumbering); an edge
  // belongs to the rank owning its first vertex.
  const int nv = int(m.x.size()), ranks = 3;
  auto rank_of = [&](int v) { return std::min(ranks - 1, v * ranks / nv); };
  BroadPhase bp;
  for (int swept = 0; swept < 2; ++swept) {
    Candidates all;
    if (swept)
      bp.find_swept(s, m.x, dx, 0.01, nullptr, nullptr, nullptr, all);
    else
      bp.find_proximity(s, m.x, 0.02, nullptr, nullptr, nullptr, all);
    ASSERT_GT(all.pt.size(), 100u);
    ASSERT_GT(all.ee.size(), 100u);
    Candidates uni;
    for (int r = 0; r < ranks; ++r) {
      std::vector<char> pf(nv), ef(s.edges.size());
      for (int v = 0; v < nv; ++v) pf[v] = rank_of(v) == r;
      for (size_t e = 0; e < s.edges.size(); ++e) ef[e] = rank_of(s.edges[e][0]) == r;
      Candidates mine;
      if (swept)
        bp.find_swept(s, m.x, dx, 0.01, &pf, &ef, nullptr, mine);
      else
        bp.find_proximity(s, m.x, 0.02, &pf, &ef, nullptr, mine);
      for (const auto& c : mine.pt) EXPECT_EQ(rank_of(c.v), r);
      for (const auto& c : mine.ee) EXPECT_EQ(rank_of(s.edges[c.ea][0]), r);
      EXPECT_TRUE(same_sets(mine, brute_force(s, m.x, swept ? &dx : nullptr, swept ? 0.01 : 0.02, &pf, &ef,
                                              nullptr)));
      uni.pt.insert(uni.pt.end(), mine.pt.begin(), mine.pt.end());
      uni.ee.insert(uni.ee.end(), mine.ee.begin(), mine.ee.end());
    }
    // Disjoint and complete: the concatenation, sorted, equals the unfiltered set with no
    // duplicates.
    std::sort(uni.pt.begin(), uni.pt.end());
    std::sort(uni.ee.begin(), uni.ee.end());
    EXPECT_TRUE(same_sets(uni, all)) << "swept " << swept;
  }
}

// update_swept: after a find_swept, a few vertices at a time take new swept boxes; each
// update must report exactly the pairs of the new boxes that involve a primitive incident
// to a moved vertex, with filters, kinematic flags, offsets, NaN vertices and big
// triangles in play; and the running union (what the skin set keeps) must contain every
// pair of the current boxes.
TEST(BroadPhase, UpdateSweptAddsExactlyThePairsOfMovedPrimitives) {
  const Mesh m = random_soup(41, 40, 20, 0.03, 3);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.001, 0.0, 0.003, 0.0}, int(m.x.size()));
  const int nv = int(m.x.size()), ranks = 2;
  auto rank_of = [&](int v) { return std::min(ranks - 1, v * ranks / nv); };
  std::vector<char> pf(nv), ef(s.edges.size()), kin(nv, 0);
  for (int v = 0; v < nv; ++v) pf[v] = rank_of(v) == 0;
  for (size_t e = 0; e < s.edges.size(); ++e) ef[e] = rank_of(s.edges[e][0]) == 0;
  for (size_t t = 0; t < m.tris.size(); ++t)
    if (m.obj[t] == 3)
      for (int v : m.tris[t]) kin[v] = 1;
  std::vector<Vec3> x = m.x, dx = random_dx(6, m.x.size(), 0.01, 0.03, 0.3);
  const double infl = 0.004;
  for (int filtered = 0; filtered < 2; ++filtered) {
    const std::vector<char>* p = filtered ? &pf : nullptr;
    const std::vector<char>* e = filtered ? &ef : nullptr;
    BroadPhase bp;
    Candidates skin, added;
    bp.find_swept(s, x, dx, infl, p, e, &kin, skin);
    std::mt19937 rng(7 + filtered);
    std::uniform_int_distribution<int> pick(0, nv - 1);
    std::uniform_real_distribution<double> w(-1.0, 1.0);
    int updates = 0, rebuilds = 0;
    for (int round = 0; round < 16; ++round) {
      std::vector<int> moved;
      std::vector<char> is_moved(nv, 0);
      const int k = round == 9 ? 40 : 1 + round % 4;  // (40: beyond the stale cap)
      for (int i = 0; i < k; ++i) {
        const int v = pick(rng);
        moved.push_back(v);
        is_moved[v] = 1;
        x[v] += 0.05 * Vec3(w(rng), w(rng), w(rng));
        dx[v] = (round == 5 && i == 0) ? Vec3(std::nan(""), 0, 0) : 0.04 * Vec3(w(rng), w(rng), w(rng));
      }
      const Candidates now = brute_force(s, x, &dx, infl, p, e, &kin);
      if (!bp.update_swept(s, x, dx, infl, p, e, &kin, moved, added)) {
        // The stale set outgrew the cap (max(256, 1/8 of the primitives)): rebuild.
        bp.find_swept(s, x, dx, infl, p, e, &kin, skin);
        EXPECT_TRUE(same_sets(skin, now)) << round;
        ++rebuilds;
        continue;
      }
      ++updates;
      Candidates want;
      auto touches = [&](const int* v, int n) {
        for (int i = 0; i < n; ++i)
          if (is_moved[v[i]]) return true;
        return false;
      };
      for (const auto& c : now.pt)
        if (is_moved[c.v] || touches(s.triangles[c.t].data(), 3)) want.pt.push_back(c);
      for (const auto& c : now.ee)
        if (touches(s.edges[c.ea].data(), 2) || touches(s.edges[c.eb].data(), 2)) want.ee.push_back(c);
      EXPECT_TRUE(same_sets(added, want)) << "filtered " << filtered << " round " << round;
      Candidates merged;
      std::set_union(skin.pt.begin(), skin.pt.end(), added.pt.begin(), added.pt.end(), std::back_inserter(merged.pt));
      std::set_union(skin.ee.begin(), skin.ee.end(), added.ee.begin(), added.ee.end(), std::back_inserter(merged.ee));
      skin = merged;
      EXPECT_TRUE(std::includes(skin.pt.begin(), skin.pt.end(), now.pt.begin(), now.pt.end())) << round;
      EXPECT_TRUE(std::includes(skin.ee.begin(), skin.ee.end(), now.ee.begin(), now.ee.end())) << round;
    }
    EXPECT_GE(updates, 10);
    EXPECT_GE(rebuilds, 1);
    // Too many moved vertices: refused, nothing changed, a full build is due.
    std::vector<int> all(nv);
    for (int v = 0; v < nv; ++v) all[v] = v;
    EXPECT_FALSE(bp.update_swept(s, x, dx, infl, p, e, &kin, all, added));
    // After a proximity query the grids are not the swept build's any more.
    bp.find_proximity(s, x, infl, p, e, &kin, added);
    EXPECT_FALSE(bp.update_swept(s, x, dx, infl, p, e, &kin, {0}, added));
  }
}

// Active lists (issue 20: a rank's loops over its own primitives and its halo): a broad
// phase told the primitives whose vertices are known reports exactly the pairs of one that
// loops over the whole surface on positions that are NaN elsewhere, in the same order,
// over a sequence of queries whose known sets change (entries of an earlier query's lists
// must not survive), swept builds and incremental updates included; and it boxes only the
// listed primitives.
TEST(BroadPhase, ActiveListsMatchNaNPositions) {
  const Mesh m = random_soup(43, 40, 20, 0.03, 3);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.001, 0.0, 0.003, 0.0}, int(m.x.size()));
  const int nv = int(m.x.size());
  std::vector<char> pf(nv), ef(s.edges.size()), kin(nv, 0);
  for (int v = 0; v < nv; ++v) pf[v] = v < nv / 2;
  for (size_t e = 0; e < s.edges.size(); ++e) ef[e] = pf[s.edges[e][0]];
  for (size_t t = 0; t < m.tris.size(); ++t)
    if (m.obj[t] == 3)
      for (int v : m.tris[t]) kin[v] = 1;
  const double infl = 0.004;
  std::vector<Vec3> dx = random_dx(9, m.x.size(), 0.01, 0.03, 0.3);
  BroadPhase listed, whole;
  ActivePrimitives act;
  listed.set_active(&act);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0), w(-1.0, 1.0);
  for (int round = 0; round < 8; ++round) {
    // known: the owned half and a random slab of the rest (a different one each round)
    const double lo = u(rng) * 0.6;
    std::vector<char> known(nv, 0);
    for (int v = 0; v < nv; ++v) known[v] = pf[v] || (m.x[v][0] > lo && m.x[v][0] < lo + 0.4);
    const Vec3 nan = Vec3::Constant(std::nan(""));
    std::vector<Vec3> xn(nv, nan), dn(nv, nan);
    for (int v = 0; v < nv; ++v)
      if (known[v]) xn[v] = m.x[v], dn[v] = dx[v];
    act = lists_of_known(s, known);
    act.version = round;  // (the lists change every round)
    Candidates a, b;
    if (round % 2 == 0) {
      listed.find_proximity(s, xn, infl, &pf, &ef, &kin, a);
      whole.find_proximity(s, xn, infl, &pf, &ef, &kin, b);
    } else {
      listed.find_swept(s, xn, dn, infl, &pf, &ef, &kin, a);
      whole.find_swept(s, xn, dn, infl, &pf, &ef, &kin, b);
    }
    EXPECT_GT(b.size(), 50u) << round;
    EXPECT_TRUE(a.pt == b.pt && a.ee == b.ee) << "round " << round;
    EXPECT_EQ(listed.last_stats().boxed, act.points.size() + act.edges.size() + act.triangles.size());
    EXPECT_LT(listed.last_stats().boxed, whole.last_stats().boxed);
    if (round % 2 == 0) continue;
    // incremental updates of the swept build: a few known vertices move
    for (int k = 0; k < 3; ++k) {
      std::vector<int> moved;
      for (int i = 0; i < 4; ++i) {
        int v = int(u(rng) * nv) % nv;
        while (!known[v]) v = (v + 1) % nv;
        moved.push_back(v);
        xn[v] += 0.05 * Vec3(w(rng), w(rng), w(rng));
        dn[v] = 0.04 * Vec3(w(rng), w(rng), w(rng));
      }
      const bool ua = listed.update_swept(s, xn, dn, infl, &pf, &ef, &kin, moved, a);
      const bool ub = whole.update_swept(s, xn, dn, infl, &pf, &ef, &kin, moved, b);
      ASSERT_EQ(ua, ub);
      EXPECT_TRUE(a.pt == b.pt && a.ee == b.ee) << "round " << round << " update " << k;
    }
  }
}

// A swept build's update after the caller's lists grew (a halo exchange added vertices):
// the new vertices come in as moved, and their pairs are found exactly as by a broad phase
// without lists on positions NaN outside the known vertices.
TEST(BroadPhase, UpdateAfterTheListsGrew) {
  const SweptSoup soup(47, 11);
  const Mesh& m = soup.m;
  const CollisionSurface& s = soup.s;
  const std::vector<Vec3>& dx = soup.dx;
  const int nv = int(m.x.size());
  const double infl = 0.004;
  const Vec3 nan = Vec3::Constant(std::nan(""));
  std::vector<char> known(nv, 0);
  for (int v = 0; v < nv; ++v) known[v] = m.x[v][0] < 0.5;
  std::vector<Vec3> xn(nv, nan), dn(nv, nan);
  for (int v = 0; v < nv; ++v)
    if (known[v]) xn[v] = m.x[v], dn[v] = dx[v];
  ActivePrimitives act = lists_of_known(s, known);
  BroadPhase listed, whole;
  listed.set_active(&act);
  Candidates a, b;
  listed.find_swept(s, xn, dn, infl, nullptr, nullptr, nullptr, a);
  whole.find_swept(s, xn, dn, infl, nullptr, nullptr, nullptr, b);
  ASSERT_TRUE(a.pt == b.pt && a.ee == b.ee);
  // the halo grows: a slab of new vertices becomes known, all of them "moved"
  std::vector<int> moved;
  for (int v = 0; v < nv; ++v)
    if (!known[v] && m.x[v][0] < 0.56) known[v] = 1, moved.push_back(v), xn[v] = m.x[v], dn[v] = dx[v];
  ASSERT_GT(moved.size(), 5u);
  act = lists_of_known(s, known);
  act.version = 1;  // (the lists changed: a halo moves the version)
  ASSERT_TRUE(listed.update_swept(s, xn, dn, infl, nullptr, nullptr, nullptr, moved, a));
  ASSERT_TRUE(whole.update_swept(s, xn, dn, infl, nullptr, nullptr, nullptr, moved, b));
  EXPECT_GT(a.size(), 0u);
  EXPECT_TRUE(a.pt == b.pt && a.ee == b.ee);
  // and once more: some of the new vertices move again
  for (size_t i = 0; i < moved.size(); i += 2) xn[moved[i]] += Vec3(0.002, -0.001, 0.001);
  ASSERT_TRUE(listed.update_swept(s, xn, dn, infl, nullptr, nullptr, nullptr, moved, a));
  ASSERT_TRUE(whole.update_swept(s, xn, dn, infl, nullptr, nullptr, nullptr, moved, b));
  EXPECT_TRUE(a.pt == b.pt && a.ee == b.ee);
}

// A swept build's update after the caller's lists took up edges and triangles whose
// vertices were all listed already (a halo lists the partners other ranks send, and one can
// arrive with no new or moved vertex): with the lists' version changed they are taken as
// moved, so the build's pairs and the update's together are a fresh build's on the new
// lists; with the version unchanged nothing tells the update, and their pairs are missing.
TEST(BroadPhase, UpdateTakesUpPrimitivesListedAnew) {
  const SweptSoup soup(53, 13);
  const Mesh& m = soup.m;
  const CollisionSurface& s = soup.s;
  const std::vector<Vec3>& dx = soup.dx;
  const int nv = int(m.x.size());
  const double infl = 0.004;
  const std::vector<char> known(nv, 1);
  const ActivePrimitives all = lists_of_known(s, known);
  ActivePrimitives act = all;  // every point; one edge and triangle in 8 left out
  act.edges.clear(), act.triangles.clear();
  for (size_t i = 0; i < all.edges.size(); ++i)
    if (i % 8 != 3) act.edges.push_back(all.edges[i]);
  for (size_t i = 0; i < all.triangles.size(); ++i)
    if (i % 8 != 5) act.triangles.push_back(all.triangles[i]);
  BroadPhase listed, stale_lists, fresh;
  listed.set_active(&act);
  stale_lists.set_active(&act);
  Candidates built, built2, added, added2, want;
  listed.find_swept(s, m.x, dx, infl, nullptr, nullptr, nullptr, built);
  stale_lists.find_swept(s, m.x, dx, infl, nullptr, nullptr, nullptr, built2);
  ActivePrimitives grown = all;
  fresh.set_active(&grown);
  fresh.find_swept(s, m.x, dx, infl, nullptr, nullptr, nullptr, want);
  ASSERT_GT(want.size(), built.size() + 10) << "the left-out primitives must have pairs";
  const std::vector<int> none;
  act = all;  // the lists grow ...
  ++act.version;
  ASSERT_TRUE(listed.update_swept(s, m.x, dx, infl, nullptr, nullptr, nullptr, none, added));
  auto merged = [](const Candidates& a, const Candidates& b) {
    Candidates c = a;
    c.pt.insert(c.pt.end(), b.pt.begin(), b.pt.end());
    c.ee.insert(c.ee.end(), b.ee.begin(), b.ee.end());
    auto unique_sorted = [](auto& l) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    };
    unique_sorted(c.pt);
    unique_sorted(c.ee);
    return c;
  };
  const Candidates got = merged(built, added);
  EXPECT_TRUE(got.pt == want.pt && got.ee == want.ee);
  // ... and without the version: the update cannot tell.
  --act.version;
  ASSERT_TRUE(stale_lists.update_swept(s, m.x, dx, infl, nullptr, nullptr, nullptr, none, added2));
  EXPECT_LT(merged(built2, added2).size(), want.size());
}

// A rank's broad phase holds O(its active primitives), never arrays the length of the
// whole surface (issue 20): on a 256^2 cloth of which a rank knows a 20 x 20 patch, the
// memory after proximity and swept queries stays within a bound per listed primitive that
// one whole-length box array (48 bytes x 65K vertices = 3.1 MB, and there are six per
// vertex) alone exceeds; with no lists it grows with the surface.
TEST(BroadPhase, MemoryFollowsTheActiveListsNotTheSurface) {
  const int n = 256;
  const Mesh m = folded_grid(n, 0.02);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.0}, int(m.x.size()));
  const int nv = int(m.x.size());
  std::vector<char> known(nv, 0);
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 20; ++j) known[(100 + i) * n + 100 + j] = 1;
  const Vec3 nan = Vec3::Constant(std::nan(""));
  std::vector<Vec3> x(nv, nan), dx(nv, nan);
  for (int v = 0; v < nv; ++v)
    if (known[v]) x[v] = m.x[v], dx[v] = Vec3(0.0, 1e-3, 0.0);
  const ActivePrimitives act = lists_of_known(s, known);
  const size_t listed = act.points.size() + act.edges.size() + act.triangles.size();
  BroadPhase listed_bp, whole_bp;
  listed_bp.set_active(&act);
  Candidates a, b;
  listed_bp.find_proximity(s, x, 0.01, nullptr, nullptr, nullptr, a);
  listed_bp.find_swept(s, x, dx, 0.01, nullptr, nullptr, nullptr, a);
  whole_bp.find_swept(s, x, dx, 0.01, nullptr, nullptr, nullptr, b);
  EXPECT_TRUE(a.pt == b.pt && a.ee == b.ee);
  EXPECT_GT(a.size(), 100u);
  EXPECT_LT(listed_bp.memory_bytes(), 1000 * listed + 262144) << listed << " listed primitives";
  EXPECT_LT(listed_bp.memory_bytes(), size_t(48) * nv);
  EXPECT_GT(whole_bp.memory_bytes(), size_t(48) * 6 * nv);
  // An incremental update (the skin sets' path) too: its vertex -> primitive adjacency is
  // of the listed primitives, not the surface's (which alone was 56 bytes a vertex).
  std::vector<int> moved;
  for (int j = 0; j < 20; ++j) moved.push_back(110 * n + 100 + j);
  for (int v : moved) x[v] += Vec3(0.0, 2e-3, 0.0);
  Candidates added, added_whole;
  ASSERT_TRUE(listed_bp.update_swept(s, x, dx, 0.01, nullptr, nullptr, nullptr, moved, added));
  ASSERT_TRUE(whole_bp.update_swept(s, x, dx, 0.01, nullptr, nullptr, nullptr, moved, added_whole));
  EXPECT_TRUE(added.pt == added_whole.pt && added.ee == added_whole.ee);
  EXPECT_GT(added.size(), 10u);
  EXPECT_LT(listed_bp.memory_bytes(), 1000 * listed + 262144) << listed << " listed primitives, after an update";
  EXPECT_LT(listed_bp.memory_bytes(), size_t(48) * nv);
}

TEST(BroadPhase, KinematicOnlyPairsSkipped) {
  // A static obstacle (object 3 = the big triangles, plus strips of object 0) marked
  // kinematic: pairs among kinematic vertices vanish, pairs with any free vertex stay.
  const Mesh m = random_soup(31, 40, 20, 0.03, 4);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.0, 0.0, 0.001, 0.0}, int(m.x.size()));
  std::vector<char> kin(m.x.size(), 0);
  for (size_t t = 0; t < m.tris.size(); ++t)
    if (m.obj[t] == 3 || m.obj[t] == 0)
      for (int v : m.tris[t]) kin[v] = 1;
  BroadPhase bp;
  Candidates with, without;
  bp.find_proximity(s, m.x, 0.03, nullptr, nullptr, &kin, with);
  bp.find_proximity(s, m.x, 0.03, nullptr, nullptr, nullptr, without);
  EXPECT_TRUE(same_sets(with, brute_force(s, m.x, nullptr, 0.03, nullptr, nullptr, &kin)));
  EXPECT_LT(with.size(), without.size());
  size_t mixed = 0;
  for (const auto& c : with.pt) {
    const Tri& t = s.triangles[c.t];
    EXPECT_FALSE(kin[c.v] && kin[t[0]] && kin[t[1]] && kin[t[2]]);
    mixed += kin[c.v] != kin[t[0]];
  }
  for (const auto& c : with.ee) {
    const Edge &a = s.edges[c.ea], &b = s.edges[c.eb];
    EXPECT_FALSE(kin[a[0]] && kin[a[1]] && kin[b[0]] && kin[b[1]]);
  }
  EXPECT_GT(mixed, 0u);  // free-vs-kinematic pairs are kept
  const std::vector<Vec3> dx = random_dx(8, m.x.size(), 0.02, 0.0, 0.0);
  bp.find_swept(s, m.x, dx, 0.0, nullptr, nullptr, &kin, with);
  EXPECT_TRUE(same_sets(with, brute_force(s, m.x, &dx, 0.0, nullptr, nullptr, &kin)));
}

TEST(BroadPhase, KinematicGridsMatchBruteForceAcrossLevels) {
  // Obstacles live in grids of their own: random kinematic strips and single vertices, big
  // (coarse-level) obstacle and free triangles, fast movers (swept boxes several levels up)
  // and ownership filters, against the brute force.
  size_t mixed_levels = 0;
  BroadPhase bp;
  for (unsigned seed = 1; seed <= 8; ++seed) {
    const Mesh m = random_soup(50 + seed, 40, 20, 0.03, 6);
    const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.0, 0.002, 0.0, 0.004}, int(m.x.size()));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const int nv = int(m.x.size());
    std::vector<char> kin(nv, 0);
    for (size_t t = 0; t < m.tris.size(); ++t)
      if (m.obj[t] == int(seed % 4))
        for (int v : m.tris[t]) kin[v] = 1;
    for (int v = 0; v < nv; ++v)
      if (u(rng) < 0.15) kin[v] = 1;
    std::vector<Vec3> dx = random_dx(seed, m.x.size(), 0.01, 0.05, 0.4);
    for (int v = 0; v < nv; ++v)
      if (kin[v] && u(rng) < 0.5) dx[v].setZero();  // static and moving obstacles
    const int ranks = 1 + seed % 3;
    for (int r = 0; r < ranks; ++r) {
      std::vector<char> pf(nv), ef(s.edges.size());
      for (int v = 0; v < nv; ++v) pf[v] = std::min(ranks - 1, v * ranks / nv) == r;
      for (size_t e = 0; e < s.edges.size(); ++e) ef[e] = pf[s.edges[e][0]];
      Candidates got;
      bp.find_proximity(s, m.x, 0.02, &pf, &ef, &kin, got);
      EXPECT_TRUE(same_sets(got, brute_force(s, m.x, nullptr, 0.02, &pf, &ef, &kin))) << "seed " << seed;
      // The flags as a run holds them (a PagedArray, only the kinematic vertices' pages
      // written): the same pairs.
      PagedArray<char> kin_pages(size_t(nv), 0);
      for (int v = 0; v < nv; ++v)
        if (kin[v]) kin_pages.ref(size_t(v)) = 1;
      Candidates paged;
      bp.find_proximity(s, m.x, 0.02, &pf, &ef, &kin_pages, paged);
      EXPECT_TRUE(same_sets(paged, got)) << "paged flags, seed " << seed;
      bp.find_swept(s, m.x, dx, 0.01, &pf, &ef, &kin, got);
      EXPECT_TRUE(same_sets(got, brute_force(s, m.x, &dx, 0.01, &pf, &ef, &kin))) << "swept seed " << seed;
      mixed_levels += bp.last_stats().cross_level_pairs;
      bp.find_swept(s, m.x, dx, 0.01, &pf, &ef, &kin_pages, paged);
      EXPECT_TRUE(same_sets(paged, got)) << "paged flags, swept seed " << seed;
    }
  }
  EXPECT_GT(mixed_levels, 0u);
}

TEST(BroadPhase, SweptFindsMidStepCrossing) {
  // Triangle 0 lies in y = 0. Point 3 (on a small triangle carried along with it, above it)
  // falls from y = +1 to y = -1 straight through triangle 0. Far away, edge (6,7) along x
  // at y = +1 falls to y = -1 through the static edge (8,9) along z at y = 0. At both ends
  // every gap is >= 0.5, far beyond the inflation 0.1.
  const std::vector<Vec3> x = {
      Vec3(0, 0, 0),     Vec3(1, 0, 0),      Vec3(0, 0, 1),                              // triangle 0
      Vec3(0.25, 1, 0.25), Vec3(0.25, 1.5, 0.25), Vec3(0.3, 1.5, 0.25),               // carrier of point 3
      Vec3(9, 1, 10),    Vec3(11, 1, 10),    Vec3(10, 0, 9),  Vec3(10, 0, 11),         // edges 6-7, 8-9
      Vec3(10, 1, 10.5), Vec3(10.5, 0, 10)};                                           // their triangles' apexes
  std::vector<Vec3> dx(x.size(), Vec3::Zero());
  for (int v : {3, 4, 5, 6, 7, 10}) dx[v] = Vec3(0, -2, 0);
  const std::vector<Tri> tris = {{0, 1, 2}, {3, 4, 5}, {6, 7, 10}, {8, 9, 11}};
  const CollisionSurface s2 = build_collision_surface(tris, {0, 1, 2, 3}, {0, 0, 0, 0}, int(x.size()));
  const std::vector<Edge> edges2 = s2.edges.to_vector();
  const int e_fall = int(std::find(edges2.begin(), edges2.end(), Edge{6, 7}) - edges2.begin());
  const int e_rest = int(std::find(edges2.begin(), edges2.end(), Edge{8, 9}) - edges2.begin());
  ASSERT_LT(e_fall, int(s2.edges.size()));
  ASSERT_LT(e_rest, int(s2.edges.size()));

  BroadPhase bp;
  std::vector<Vec3> x1(x.size());
  for (size_t i = 0; i < x.size(); ++i) x1[i] = x[i] + dx[i];
  Candidates at0, at1, swept;
  bp.find_proximity(s2, x, 0.1, nullptr, nullptr, nullptr, at0);
  bp.find_proximity(s2, x1, 0.1, nullptr, nullptr, nullptr, at1);
  bp.find_swept(s2, x, dx, 0.1, nullptr, nullptr, nullptr, swept);
  auto has_pt = [](const Candidates& c, int v, int t) {
    return std::find(c.pt.begin(), c.pt.end(), PointTriangleCandidate{v, t}) != c.pt.end();
  };
  auto has_ee = [](const Candidates& c, int a, int b) {
    return std::find(c.ee.begin(), c.ee.end(), EdgeEdgeCandidate{std::min(a, b), std::max(a, b)}) != c.ee.end();
  };
  EXPECT_FALSE(has_pt(at0, 3, 0));
  EXPECT_FALSE(has_pt(at1, 3, 0));
  EXPECT_TRUE(has_pt(swept, 3, 0));
  EXPECT_FALSE(has_ee(at0, e_fall, e_rest));
  EXPECT_FALSE(has_ee(at1, e_fall, e_rest));
  EXPECT_TRUE(has_ee(swept, e_fall, e_rest));
  EXPECT_TRUE(same_sets(swept, brute_force(s2, x, &dx, 0.1, nullptr, nullptr, nullptr)));
}

TEST(BroadPhase, HugeObstacleTrianglesStayCheap) {
  // A fine cloth patch over two triangles 1000x its edge length: the big ones go to coarse
  // levels (one entry each) instead of into ~10^6 fine cells, and are still found.
  const int n = 40;
  const double L = 1e-3;
  Mesh m;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m.x.push_back(Vec3(i * L, 0.4 * L + 0.1 * L * std::sin(i + j), j * L));
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      const int a = i * n + j;
      m.tris.push_back({a, a + 1, a + n + 1});
      m.tris.push_back({a, a + n + 1, a + n});
      m.obj.push_back(0);
      m.obj.push_back(0);
    }
  const int g = int(m.x.size());
  for (const Vec3& p : {Vec3(-0.5, 0, -0.5), Vec3(0.5, 0, -0.5), Vec3(0.5, 0, 0.5), Vec3(-0.5, 0, 0.5)})
    m.x.push_back(p + Vec3(0.01, 0.0, 0.01) + Vec3(0, 1e-3 * p.x(), 0));  // slightly tilted ground
  m.tris.push_back({g, g + 2, g + 1});
  m.tris.push_back({g, g + 3, g + 2});
  m.obj.push_back(1);
  m.obj.push_back(1);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.0, 0.0}, int(m.x.size()));
  std::vector<char> kin(m.x.size(), 0);
  for (int v = g; v < g + 4; ++v) kin[v] = 1;
  BroadPhase bp;
  Candidates got;
  bp.find_proximity(s, m.x, 0.5 * L, nullptr, nullptr, &kin, got);
  EXPECT_TRUE(same_sets(got, brute_force(s, m.x, nullptr, 0.5 * L, nullptr, nullptr, &kin)));
  EXPECT_GE(bp.last_stats().levels_used, 2);
  EXPECT_EQ(bp.last_stats().grid_entries, s.triangles.size() + s.edges.size());  // one entry each
  size_t ground = 0;
  for (const auto& c : got.pt) ground += c.t >= int(m.tris.size()) - 2;
  EXPECT_GT(ground, 100u);  // the cloth's low vertices see the ground
}

TEST(BroadPhase, RepeatedCallsAreIdenticalAndClearOutput) {
  const Mesh m = random_soup(41, 20, 20, 0.03, 1);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0, 0, 0, 0}, int(m.x.size()));
  BroadPhase bp;
  Candidates a, b;
  bp.find_proximity(s, m.x, 0.02, nullptr, nullptr, nullptr, a);
  b.pt.push_back({-5, -5});
  b.ee.push_back({-5, -5});
  bp.find_proximity(s, m.x, 0.02, nullptr, nullptr, nullptr, b);
  EXPECT_TRUE(same_sets(b, a));
  BroadPhase copy = bp;  // copies are usable and give the same answer
  copy.find_proximity(s, m.x, 0.02, nullptr, nullptr, nullptr, b);
  EXPECT_TRUE(same_sets(b, a));
  Candidates empty;
  const CollisionSurface none = build_collision_surface({}, {}, {}, 3);
  bp.find_proximity(none, std::vector<Vec3>(3, Vec3::Zero()), 0.1, nullptr, nullptr, nullptr, empty);
  EXPECT_EQ(empty.size(), 0u);
}

TEST(BroadPhase, FarFromOriginAndNonFiniteVertices) {
  // Coordinates ~1e5 (cell arithmetic must stay consistent), then a few NaN / inf vertices:
  // their primitives are never reported (by definition), everything else is unchanged.
  Mesh m = random_soup(51, 30, 20, 0.03, 2);
  for (Vec3& p : m.x) p += Vec3(1.0e5, -3.0e5, 7.0e4);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.0, 0.001, 0.0, 0.002}, int(m.x.size()));
  BroadPhase bp;
  Candidates got;
  bp.find_proximity(s, m.x, 0.02, nullptr, nullptr, nullptr, got);
  EXPECT_TRUE(same_sets(got, brute_force(s, m.x, nullptr, 0.02, nullptr, nullptr, nullptr)));
  EXPECT_GT(got.size(), 100u);
  const std::vector<Vec3> dx = random_dx(3, m.x.size(), 0.01, 0.05, 0.2);
  bp.find_swept(s, m.x, dx, 0.01, nullptr, nullptr, nullptr, got);
  EXPECT_TRUE(same_sets(got, brute_force(s, m.x, &dx, 0.01, nullptr, nullptr, nullptr)));
  std::vector<Vec3> dx_bad = dx;
  dx_bad[9] = Vec3(0, std::nan(""), 0);
  dx_bad[40] = Vec3(std::numeric_limits<double>::infinity(), 0, 0);
  bp.find_swept(s, m.x, dx_bad, 0.01, nullptr, nullptr, nullptr, got);
  EXPECT_TRUE(same_sets(got, brute_force(s, m.x, &dx_bad, 0.01, nullptr, nullptr, nullptr)));
  m.x[5] = Vec3(std::nan(""), 0, 0);
  m.x[77] = Vec3(1.0e5, std::numeric_limits<double>::infinity(), 7.0e4);
  bp.find_proximity(s, m.x, 0.02, nullptr, nullptr, nullptr, got);
  EXPECT_TRUE(same_sets(got, brute_force(s, m.x, nullptr, 0.02, nullptr, nullptr, nullptr)));
}

TEST(BroadPhase, RejectsMismatchedSizes) {
  const Mesh m = random_soup(3, 2, 3, 0.1, 0);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0, 0, 0, 0}, int(m.x.size()));
  BroadPhase bp;
  Candidates c;
  std::vector<Vec3> short_x(m.x.begin(), m.x.end() - 1);
  EXPECT_THROW(bp.find_proximity(s, short_x, 0.1, nullptr, nullptr, nullptr, c), std::invalid_argument);
  EXPECT_THROW(bp.find_swept(s, m.x, short_x, 0.1, nullptr, nullptr, nullptr, c), std::invalid_argument);
  std::vector<char> bad(3, 1);
  EXPECT_THROW(bp.find_proximity(s, m.x, 0.1, &bad, nullptr, nullptr, c), std::invalid_argument);
  EXPECT_THROW(bp.find_proximity(s, m.x, 0.1, nullptr, &bad, nullptr, c), std::invalid_argument);
  EXPECT_THROW(bp.find_proximity(s, m.x, 0.1, nullptr, nullptr, &bad, c), std::invalid_argument);
  EXPECT_THROW(bp.find_proximity(s, m.x, -1.0, nullptr, nullptr, nullptr, c), std::invalid_argument);
}

// ---- codimensional primitives (issue 17 point 2): rods (segments) and particles beside
// triangles; PE = rod nodes and particles x segments, PP = particles x particles
// (candidates.hpp), each pair box grown by (inflation + (xi_a + xi_b)) / 2 in total.

namespace {

// Random soup plus `rods` random-walk polylines of `rod_len` segments (object 4) and
// `particles` random points (object 5), one long segment (a coarse level) among the rods.
struct CodimMesh {
  Mesh m;
  std::vector<Edge> segs;
  std::vector<int> seg_obj, pts, pt_obj;
};

CodimMesh codim_soup(unsigned seed, int rods, int rod_len, int particles) {
  CodimMesh c;
  c.m = random_soup(seed, 20, 15, 0.03, 2);
  std::mt19937 rng(seed + 100);
  std::uniform_real_distribution<double> u(0.0, 1.0), w(-1.0, 1.0);
  for (int r = 0; r < rods; ++r) {
    const int base = int(c.m.x.size());
    Vec3 p(u(rng), u(rng), u(rng));
    for (int i = 0; i <= rod_len; ++i) {
      c.m.x.push_back(p);
      p += 0.03 * Vec3(w(rng), w(rng), w(rng));
    }
    for (int i = 0; i < rod_len; ++i) c.segs.push_back({base + i, base + i + 1}), c.seg_obj.push_back(4);
  }
  const int base = int(c.m.x.size());
  c.m.x.push_back(Vec3(0.1, 0.5, 0.5));
  c.m.x.push_back(Vec3(0.9, 0.5, 0.4));
  c.segs.push_back({base, base + 1}), c.seg_obj.push_back(4);
  for (int i = 0; i < particles; ++i) {
    c.pts.push_back(int(c.m.x.size())), c.pt_obj.push_back(5);
    c.m.x.push_back(Vec3(u(rng), u(rng), u(rng)));
  }
  return c;
}

CollisionSurface codim_surface(const CodimMesh& c, const std::vector<double>& off) {
  return build_collision_surface(c.m.tris, c.m.obj, off, int(c.m.x.size()), c.segs, c.seg_obj, c.pts, c.pt_obj);
}

}  // namespace

TEST(BroadPhase, CodimSoupMatchesBruteForce) {
  BroadPhase bp;
  size_t pe = 0, pp = 0, seg_pt = 0, seg_ee = 0, cross = 0;
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const CodimMesh c = codim_soup(seed, 12, 15, 300);
    const CollisionSurface s = codim_surface(c, {0.0, 0.004, 0.0, 0.002, 0.006, 0.01});
    ASSERT_GT(s.num_segments(), 0);
    for (double infl : {0.0, 0.01, 0.03}) {
      Candidates got;
      bp.find_proximity(s, c.m.x, infl, nullptr, nullptr, nullptr, got);
      EXPECT_TRUE(same_sets(got, brute_force(s, c.m.x, nullptr, infl, nullptr, nullptr, nullptr)))
          << "seed " << seed << " inflation " << infl;
      pe += got.pe.size(), pp += got.pp.size();
      for (const auto& p : got.pt) seg_pt += s.vertex_object[p.v] >= 4;
      for (const auto& p : got.ee) seg_ee += s.is_segment(p.eb) && !s.is_segment(p.ea);
      cross += bp.last_stats().cross_level_pairs;
    }
    const std::vector<Vec3> dx = random_dx(seed, c.m.x.size(), 0.01, 0.03, 0.3);
    Candidates got;
    bp.find_swept(s, c.m.x, dx, 0.005, nullptr, nullptr, nullptr, got);
    EXPECT_TRUE(same_sets(got, brute_force(s, c.m.x, &dx, 0.005, nullptr, nullptr, nullptr))) << "swept " << seed;
  }
  EXPECT_GT(pe, 100u);
  EXPECT_GT(pp, 100u);
  EXPECT_GT(seg_pt, 10u);  // rod nodes and particles against triangles
  EXPECT_GT(seg_ee, 10u);  // segments against triangle edges
  EXPECT_GT(cross, 0u);
}

TEST(BroadPhase, CodimFiltersKinematicAndUpdates) {
  const CodimMesh c = codim_soup(9, 12, 15, 1000);
  const CollisionSurface s = codim_surface(c, {0.0, 0.004, 0.0, 0.002, 0.006, 0.01});
  const int nv = int(c.m.x.size()), ranks = 3;
  std::vector<char> kin(nv, 0);
  for (int i = 0; i < 40; ++i) kin[c.pts[i]] = 1;                       // kinematic particles
  for (int v = c.segs[0][0]; v <= c.segs[14][1]; ++v) kin[v] = 1;       // a kinematic rod
  auto rank_of = [&](int v) { return std::min(ranks - 1, v * ranks / nv); };
  const std::vector<Vec3> dx = random_dx(3, c.m.x.size(), 0.01, 0.03, 0.3);
  BroadPhase bp;
  for (int swept = 0; swept < 2; ++swept) {
    Candidates all, uni;
    const std::vector<Vec3>* d = swept ? &dx : nullptr;
    if (swept)
      bp.find_swept(s, c.m.x, dx, 0.01, nullptr, nullptr, &kin, all);
    else
      bp.find_proximity(s, c.m.x, 0.05, nullptr, nullptr, &kin, all);
    EXPECT_TRUE(same_sets(all, brute_force(s, c.m.x, d, swept ? 0.01 : 0.05, nullptr, nullptr, &kin)));
    ASSERT_GT(all.pe.size(), 50u);
    ASSERT_GT(all.pp.size(), 20u);
    for (int r = 0; r < ranks; ++r) {
      std::vector<char> pf(nv), ef(s.edges.size());
      for (int v = 0; v < nv; ++v) pf[v] = rank_of(v) == r;
      for (size_t e = 0; e < s.edges.size(); ++e) ef[e] = rank_of(s.edges[e][0]) == r;
      Candidates mine;
      if (swept)
        bp.find_swept(s, c.m.x, dx, 0.01, &pf, &ef, &kin, mine);
      else
        bp.find_proximity(s, c.m.x, 0.05, &pf, &ef, &kin, mine);
      for (const auto& p : mine.pe) EXPECT_EQ(rank_of(p.v), r);
      for (const auto& p : mine.pp) EXPECT_EQ(rank_of(p.v), r);
      EXPECT_TRUE(same_sets(mine, brute_force(s, c.m.x, d, swept ? 0.01 : 0.05, &pf, &ef, &kin)));
      uni.pt.insert(uni.pt.end(), mine.pt.begin(), mine.pt.end());
      uni.ee.insert(uni.ee.end(), mine.ee.begin(), mine.ee.end());
      uni.pe.insert(uni.pe.end(), mine.pe.begin(), mine.pe.end());
      uni.pp.insert(uni.pp.end(), mine.pp.begin(), mine.pp.end());
    }
    std::sort(uni.pt.begin(), uni.pt.end());
    std::sort(uni.ee.begin(), uni.ee.end());
    std::sort(uni.pe.begin(), uni.pe.end());
    std::sort(uni.pp.begin(), uni.pp.end());
    EXPECT_TRUE(same_sets(uni, all)) << "swept " << swept;
  }
  // update_swept: a few vertices (rod nodes and particles among them) take new boxes; the
  // update reports exactly the new boxes' pairs with a primitive incident to a moved vertex.
  std::vector<Vec3> x = c.m.x, d = dx;
  Candidates skin, added;
  bp.find_swept(s, x, d, 0.004, nullptr, nullptr, &kin, skin);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> w(-1.0, 1.0);
  size_t codim_added = 0;
  for (int round = 0; round < 8; ++round) {
    std::vector<int> moved;
    std::vector<char> is_moved(nv, 0);
    for (int i = 0; i < 4; ++i) {
      const int v = i % 2 ? c.pts[(7 * round + i) % c.pts.size()] : c.segs[(13 * round + i) % c.segs.size()][0];
      moved.push_back(v);
      is_moved[v] = 1;
      x[v] += 0.05 * Vec3(w(rng), w(rng), w(rng));
      d[v] = 0.04 * Vec3(w(rng), w(rng), w(rng));
    }
    ASSERT_TRUE(bp.update_swept(s, x, d, 0.004, nullptr, nullptr, &kin, moved, added));
    const Candidates now = brute_force(s, x, &d, 0.004, nullptr, nullptr, &kin);
    auto touches = [&](const int* v, int n) {
      for (int i = 0; i < n; ++i)
        if (is_moved[v[i]]) return true;
      return false;
    };
    Candidates want;
    for (const auto& p : now.pt)
      if (is_moved[p.v] || touches(s.triangles[p.t].data(), 3)) want.pt.push_back(p);
    for (const auto& p : now.ee)
      if (touches(s.edges[p.ea].data(), 2) || touches(s.edges[p.eb].data(), 2)) want.ee.push_back(p);
    for (const auto& p : now.pe)
      if (is_moved[p.v] || touches(s.edges[p.e].data(), 2)) want.pe.push_back(p);
    for (const auto& p : now.pp)
      if (is_moved[p.v] || is_moved[p.w]) want.pp.push_back(p);
    EXPECT_TRUE(same_sets(added, want)) << "round " << round;
    codim_added += want.pe.size() + want.pp.size();
  }
  EXPECT_GT(codim_added, 0u);
}

TEST(BroadPhase, CodimExactPairsWithOffsets) {
  // Shell triangle 0-1-2 (offset 0); rod 3-4-5 along x (offset 0.5); particles 6, 7, 8
  // (offset 0.25). Every coordinate and radius is a dyadic rational, so the box tests are
  // exact: with inflation 0.125 the radii are 1/16 (shell), 5/16 (rod), 3/16 (particles)
  // and the boxes of {8, triangle 0}, {6, segment 3-4}, {6, segment 4-5} and {6, 7} touch.
  const std::vector<Vec3> x = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 1),
                               Vec3(2, 0, 0), Vec3(3, 0, 0), Vec3(4, 0, 0),
                               Vec3(3, 0.5, 0), Vec3(3, 0.875, 0), Vec3(0.25, 0.25, 0.25)};
  const CollisionSurface s =
      build_collision_surface({{0, 1, 2}}, {0}, {0.0, 0.5, 0.25}, 9, {{3, 4}, {4, 5}}, {1, 1}, {6, 7, 8}, {2, 2, 2});
  ASSERT_EQ(s.num_triangle_edges, 3);
  BroadPhase bp;
  Candidates got;
  bp.find_proximity(s, x, 0.125, nullptr, nullptr, nullptr, got);
  EXPECT_EQ(got.pt, (std::vector<PointTriangleCandidate>{{8, 0}}));
  EXPECT_TRUE(got.ee.empty());  // the segments share vertex 4; the triangle is far
  EXPECT_EQ(got.pe, (std::vector<PointEdgeCandidate>{{6, 3}, {6, 4}}));
  EXPECT_EQ(got.pp, (std::vector<PointPointCandidate>{{6, 7}}));
  EXPECT_TRUE(same_sets(got, brute_force(s, x, nullptr, 0.125, nullptr, nullptr, nullptr)));
  // Half the inflation: every gap opens.
  bp.find_proximity(s, x, 0.0625, nullptr, nullptr, nullptr, got);
  EXPECT_EQ(got.size(), 0u);
  // Ownership: PE by the point, PP by the smaller point.
  std::vector<char> pf(9, 1), ef(s.edges.size(), 1);
  pf[7] = 0;
  bp.find_proximity(s, x, 0.125, &pf, &ef, nullptr, got);
  EXPECT_EQ(got.pp.size(), 1u);
  EXPECT_EQ(got.pe.size(), 2u);
  pf[7] = 1, pf[6] = 0;
  bp.find_proximity(s, x, 0.125, &pf, &ef, nullptr, got);
  EXPECT_TRUE(got.pp.empty());
  EXPECT_TRUE(got.pe.empty());
  EXPECT_EQ(got.pt.size(), 1u);
  // Particles alone (no edges or triangles: the grid cell comes from the point boxes).
  const CollisionSurface ps = build_collision_surface({}, {}, {0.25}, 9, {}, {}, {6, 7, 8}, {0, 0, 0});
  bp.find_proximity(ps, x, 0.125, nullptr, nullptr, nullptr, got);
  EXPECT_EQ(got.pp, (std::vector<PointPointCandidate>{{6, 7}}));
  EXPECT_TRUE(got.pt.empty() && got.ee.empty() && got.pe.empty());
}

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

void time_folded_grid(int n) {
  using clock = std::chrono::steady_clock;
  const double L = 1.0 / (n - 1), dhat = 1e-3;
  // Layers 1.5 dhat apart: the whole fold is within reach of the query boxes.
  const Mesh m = folded_grid(n, 1.5 * dhat);
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.0}, int(m.x.size()));
  // The step: everything drifts by up to 0.3 L (a Newton step of a falling cloth).
  const std::vector<Vec3> dx = random_dx(9, m.x.size(), 0.3 * L, 0.0, 0.0);
  BroadPhase bp;
  Candidates c;
  bp.find_proximity(s, m.x, dhat, nullptr, nullptr, nullptr, c);  // warm-up (allocates)
  // Best of 3 (wall and CPU: the machine may be shared).
  double wall[2] = {1e9, 1e9}, cpu[2] = {1e9, 1e9};
  size_t pairs[2] = {0, 0};
  for (int rep = 0; rep < 3; ++rep)
    for (int swept = 0; swept < 2; ++swept) {
      const auto t0 = clock::now();
      const double c0 = cpu_seconds();
      if (swept)
        bp.find_swept(s, m.x, dx, dhat, nullptr, nullptr, nullptr, c);
      else
        bp.find_proximity(s, m.x, dhat, nullptr, nullptr, nullptr, c);
      cpu[swept] = std::min(cpu[swept], cpu_seconds() - c0);
      wall[swept] = std::min(wall[swept], std::chrono::duration<double>(clock::now() - t0).count());
      pairs[swept] = c.size();
    }
  std::printf("[ BroadPhase ] folded %dx%d grid (%zu vertices, %zu triangles, %zu edges), dhat %g: "
              "proximity %.3f s wall / %.3f s cpu (%zu pairs), swept %.3f s / %.3f s (%zu pairs), h %.3g\n",
              n, n, m.x.size(), s.triangles.size(), s.edges.size(), dhat, wall[0], cpu[0], pairs[0], wall[1], cpu[1],
              pairs[1], bp.last_stats().cell_size);
  EXPECT_GT(pairs[0], s.vertices.size());  // both layers overlap everywhere
  EXPECT_GE(pairs[1], pairs[0] / 2);
}

}  // namespace

TEST(BroadPhase, PerformanceFoldedGrid256) { time_folded_grid(256); }

// 262K vertices; runs when WEFT_BENCH_LARGE is set (several seconds including set-up).
TEST(BroadPhase, PerformanceFoldedGrid512) {
  if (!std::getenv("WEFT_BENCH_LARGE")) GTEST_SKIP() << "set WEFT_BENCH_LARGE=1 to time the 512x512 grid";
  time_folded_grid(512);
}

// A 512x512 cloth (1 m) draped over a kinematic 40K-triangle sphere (r = 0.3): the target
// scene size of the brief. Runs when WEFT_BENCH_LARGE is set.
TEST(BroadPhase, PerformanceClothOverSphere512) {
  if (!std::getenv("WEFT_BENCH_LARGE")) GTEST_SKIP() << "set WEFT_BENCH_LARGE=1";
  const int n = 512, rings = 142, segs = 142;
  const double dhat = 1e-3, R = 0.3, pi = std::acos(-1.0);
  Mesh m;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double x = -0.5 + double(i) / (n - 1), z = -0.5 + double(j) / (n - 1), r = std::hypot(x, z);
      // On the sphere (0.6 dhat above it) inside r < R, then falling off as a skirt.
      const double y = r < R ? std::sqrt(R * R - r * r) + 0.6 * dhat : -(r - R);
      m.x.push_back(Vec3(x, y, z));
    }
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      const int a = i * n + j;
      m.tris.push_back({a, a + 1, a + n + 1});
      m.tris.push_back({a, a + n + 1, a + n});
      m.obj.push_back(0);
      m.obj.push_back(0);
    }
  const int base = int(m.x.size());
  for (int r = 0; r <= rings; ++r)
    for (int sgm = 0; sgm < segs; ++sgm) {
      const double th = pi * r / rings, ph = 2 * pi * sgm / segs;
      m.x.push_back(R * Vec3(std::sin(th) * std::cos(ph), std::cos(th), std::sin(th) * std::sin(ph)));
    }
  for (int r = 0; r < rings; ++r)
    for (int sgm = 0; sgm < segs; ++sgm) {
      const int a = base + r * segs + sgm, b = base + r * segs + (sgm + 1) % segs;
      if (r > 0) m.tris.push_back({a, b, a + segs}), m.obj.push_back(1);
      if (r + 1 < rings) m.tris.push_back({b, b + segs, a + segs}), m.obj.push_back(1);
    }
  const CollisionSurface s = build_collision_surface(m.tris, m.obj, {0.0, 0.0}, int(m.x.size()));
  std::vector<char> kin(m.x.size(), 0);
  std::fill(kin.begin() + base, kin.end(), 1);
  BroadPhase bp;
  Candidates c;
  bp.find_proximity(s, m.x, dhat, nullptr, nullptr, &kin, c);
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  bp.find_proximity(s, m.x, dhat, nullptr, nullptr, &kin, c);
  const double cpu = cpu_seconds() - c0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ BroadPhase ] 512x512 cloth over a %zu-triangle sphere: proximity %.3f s wall / %.3f s cpu "
              "(%zu pairs, %d level(s))\n",
              m.tris.size() - size_t(2 * (n - 1) * (n - 1)), wall, cpu, c.size(), bp.last_stats().levels_used);
  size_t cloth_sphere = 0;
  for (const auto& p : c.pt) cloth_sphere += (p.v < base) != (s.triangles[p.t][0] < base);
  EXPECT_GT(cloth_sphere, 1000u);
}
