// Flat-patch culling of the final self-intersection check (constraints/patch_hierarchy.hpp):
// it offers no pair inside a flat patch, and find_new_crossings finds exactly the crossings
// of the plain hash search with it, in the first round and in the marked rounds.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "constraints/patch_hierarchy.hpp"
#include "constraints/self_collision.hpp"

namespace weft {
namespace {

// An nx x ny vertex grid, consistently oriented triangles; positions from f(i, j).
template <class F>
void grid(int nx, int ny, F&& f, std::vector<Tri>& tris, std::vector<Vec3>& rest, std::vector<double>& x) {
  tris.clear(), rest.clear(), x.clear();
  auto id = [&](int i, int j) { return i * ny + j; };
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) {
      rest.push_back(Vec3(i, 0, j));
      const Vec3 p = f(i, j);
      x.insert(x.end(), {p[0], p[1], p[2]});
    }
  for (int i = 0; i + 1 < nx; ++i)
    for (int j = 0; j + 1 < ny; ++j) {
      tris.push_back({id(i, j), id(i, j + 1), id(i + 1, j)});
      tris.push_back({id(i + 1, j), id(i, j + 1), id(i + 1, j + 1)});
    }
}

std::vector<int> identity(size_t n) {
  std::vector<int> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = static_cast<int>(i);
  return k;
}

// The hash's new crossings from x0 to x1 (only: the later rounds' marking), checked equal to
// the culling's over h (built on the same sheet; kept across rounds, as the stepper does).
std::vector<std::array<int, 2>> same_crossings(const std::vector<Tri>& tris, const std::vector<Edge>& edges,
                                               PatchHierarchy& h, const std::vector<double>& x0,
                                               const std::vector<double>& x1, const std::vector<char>* only,
                                               const std::string& what) {
  std::vector<std::array<int, 2>> plain, culled;
  find_new_crossings(tris, edges, x0.data(), x1.data(), plain, only);
  find_new_crossings(tris, edges, x0.data(), x1.data(), culled, only, &h);
  EXPECT_EQ(plain, culled) << what;
  return plain;
}

// A gently curved sheet (all normals within ~30 degrees of +y, simple outline) is one flat
// patch: no candidate at all.
TEST(PatchHierarchy, FlatSheetOffersNoPair) {
  std::vector<Tri> tris;
  std::vector<Vec3> rest;
  std::vector<double> x;
  grid(20, 20, [](int i, int j) { return Vec3(0.1 * i, 0.05 * std::sin(0.5 * i) * std::cos(0.4 * j), 0.1 * j); },
       tris, rest, x);
  const std::vector<Edge> edges = self_collision_edges(tris, identity(rest.size()));
  PatchHierarchy h;
  h.build(tris, edges, rest);
  long n = 0;
  h.for_each_candidate(x.data(), [&](int, int) { ++n; });
  EXPECT_EQ(n, 0);
  EXPECT_EQ(h.flat_patches(), 1);
  // Folded in two along i = 10 (the halves 0.05 apart): the whole is not flat any more,
  // its halves are, and pairs across the fold are offered.
  grid(20, 20,
       [](int i, int j) {
         return i <= 10 ? Vec3(0.1 * i, 0.0, 0.1 * j) : Vec3(0.1 * (20 - i), 0.05 * (i - 10) / 10.0 + 0.05, 0.1 * j);
       },
       tris, rest, x);
  n = 0;
  h.for_each_candidate(x.data(), [&](int, int) { ++n; });
  EXPECT_GT(n, 0);
  EXPECT_GT(h.flat_patches(), 1);
}

// The same crossings as the hash search, over random crumplings of a sheet that starts flat,
// and in a later round after some vertices are sent back (only: the marked ones).
TEST(PatchHierarchy, SameCrossingsAsTheHash) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int trial = 0; trial < 6; ++trial) {
    const double amp = 0.05 * (trial + 1);
    std::vector<Tri> tris;
    std::vector<Vec3> rest;
    std::vector<double> x0, x1;
    grid(14, 12, [](int i, int j) { return Vec3(0.1 * i, 0.0, 0.1 * j); }, tris, rest, x0);
    x1 = x0;
    for (double& c : x1) c += amp * g(rng);
    const std::vector<Edge> edges = self_collision_edges(tris, identity(rest.size()));
    PatchHierarchy h;
    h.build(tris, edges, rest);
    const auto plain = same_crossings(tris, edges, h, x0, x1, nullptr, "trial " + std::to_string(trial));
    if (trial >= 2) {
      EXPECT_FALSE(plain.empty()) << "trial " << trial;
    }
    // A round later: every vertex of the first third of the crossings sent back.
    std::vector<char> just(rest.size(), 0);
    std::vector<double> x2 = x1;
    for (size_t c = 0; c < plain.size() / 3 + 1 && c < plain.size(); ++c) {
      const Edge& e = edges[plain[c][0]];
      const Tri& t = tris[plain[c][1]];
      for (int v : {e[0], e[1], t[0], t[1], t[2]}) {
        just[v] = 1;
        for (int d = 0; d < 3; ++d) x2[3 * v + d] = x0[3 * v + d];
      }
    }
    same_crossings(tris, edges, h, x0, x2, &just, "trial " + std::to_string(trial) + ", marked round");
  }
}

// A ribbon wound 1.5 turns at a gentle slope: every normal lies within a few degrees of +z,
// so only the outline's self-overlap in projection keeps it from counting as flat; its two
// layers pass through each other where their heights cross (u = 1), and those crossings
// are found.
TEST(PatchHierarchy, OverlappingOutlineIsNotFlat) {
  const int nu = 120, nw = 3;
  const double turns = 1.5 * 2 * M_PI;
  std::vector<Tri> tris;
  std::vector<Vec3> rest;
  std::vector<double> flat, wound;
  grid(nu, nw, [&](int i, int j) { return Vec3(turns * i / (nu - 1), 0.1 * j, 0.0); }, tris, rest, flat);
  grid(nu, nw,
       [&](int i, int j) {
         const double u = turns * i / (nu - 1), r = 1.0 + 0.1 * j;
         return Vec3(r * std::cos(u), r * std::sin(u), 0.1 * std::sin(0.5 * u - 0.5));
       },
       tris, rest, wound);
  const std::vector<Edge> edges = self_collision_edges(tris, identity(rest.size()));
  PatchHierarchy h;
  h.build(tris, edges, rest);
  EXPECT_FALSE(same_crossings(tris, edges, h, flat, wound, nullptr, "wound ribbon").empty());
}

}  // namespace
}  // namespace weft
