// The volume terms (volume_*_term.cpp) against the kernels they wrap: energy, gradient and
// Hessian summed over a small tet block, the inversion feasibility test, rest data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "energy/volume_fixed_corotated.hpp"
#include "energy/volume_neo_hookean.hpp"
#include "energy/volume_term.hpp"
#include "term_util.hpp"

namespace weft {
namespace {

// nx x 2 x 2 lattice (spacing 0.1), each cube split into the 6 Kuhn tets along its main
// diagonal (conforming), every tet positive.
struct TetBlock {
  ObjectSpec spec;
  std::vector<Vec3> X;
  std::vector<std::array<int, 4>> tets;
  test::TermScene ts;

  explicit TetBlock(const std::string& model, int nx = 3) {
    auto id = [nx](int i, int j, int k) { return i + nx * (j + 2 * k); };
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < nx; ++i) X.push_back(Vec3(0.1 * i, 0.1 * j, 0.1 * k));
    const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int i = 0; i + 1 < nx; ++i)
      for (const auto& p : perms) {
        int c[3] = {0, 0, 0};
        std::array<int, 4> t;
        t[0] = id(i, 0, 0);
        for (int s = 0; s < 3; ++s) {
          c[p[s]] = 1;
          t[s + 1] = id(i + c[0], c[1], c[2]);
        }
        if (tet_signed_volume(X[t[0]], X[t[1]], X[t[2]], X[t[3]]) < 0) std::swap(t[1], t[2]);
        tets.push_back(t);
      }
    spec.name = "block";
    spec.kind = ObjectKind::Volume;
    spec.material.model = model;
    spec.material.youngs = 1e5;
    spec.material.poisson = 0.3;
    const std::vector<Tri> tris;
    const std::vector<std::array<int, 4>> hinges;
    const std::vector<Edge> segments;
    const ObjectStencils os{0, spec, X, tris, hinges, segments, tets};
    ts.build(os, static_cast<int>(X.size()));
  }

  // Sheared, stretched and twisted a little.
  std::vector<double> positions(double amount) const {
    std::vector<double> x;
    for (const Vec3& p : X)
      for (double c : {p.x() * (1 + amount) + 0.3 * amount * p.y(), p.y() + amount * std::sin(20 * p.x()) * p.z(),
                       p.z() * (1 - 0.5 * amount)})
        x.push_back(c);
    return x;
  }
};

void check_volume_term(const std::string& model) {
  SCOPED_TRACE(model);
  TetBlock b(model);
  ASSERT_EQ(b.ts.terms.size(), 1u);
  const ElementSet& set = b.ts.scene.element_sets[0];
  ASSERT_EQ(set.size(), 12);
  EXPECT_EQ(set.arity, 4);
  const std::vector<VolumeRest>& rest = set.rest<VolumeRest>();
  double vol = 0;
  for (const VolumeRest& r : rest) vol += r.tet.volume;
  EXPECT_NEAR(vol, 0.2 * 0.1 * 0.1, 1e-15);
  const VolumeParams p = volume_params(1e5, 0.3);
  EXPECT_DOUBLE_EQ(rest[0].p.mu, 1e5 / 2.6);
  EXPECT_DOUBLE_EQ(rest[0].p.lambda, 1e5 * 0.3 / (1.3 * 0.4));

  const std::vector<double> x = b.positions(0.15);
  const int n = static_cast<int>(b.X.size()), kinematic = 4;
  const double scale = 0.5;
  double direct = 0, direct_scaled = 0;
  Eigen::VectorXd g_ref = Eigen::VectorXd::Zero(3 * n);
  Eigen::MatrixXd H_ref = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (const auto& t : b.tets) {
    Vec12 xe, g;
    Mat12 H;
    for (int a = 0; a < 4; ++a) xe.segment<3>(3 * a) = Eigen::Map<const Vec3>(&x[3 * t[a]]);
    const TetRest r = make_tet_rest(b.X[t[0]], b.X[t[1]], b.X[t[2]], b.X[t[3]]);
    const double e = model == "neo_hookean" ? volume_neo_hookean(xe, r, p, &g, &H, true)
                                            : volume_fixed_corotated(xe, r, p, &g, &H, true);
    direct += e;
    direct_scaled += scale * e;
    for (int a = 0; a < 4; ++a) {
      if (t[a] == kinematic) continue;
      g_ref.segment<3>(3 * t[a]) += scale * g.segment<3>(3 * a);
      for (int c = 0; c < 4; ++c)
        if (t[c] != kinematic) H_ref.block<3, 3>(3 * t[a], 3 * t[c]) += scale * H.block<3, 3>(3 * a, 3 * c);
    }
  }
  EXPECT_GT(direct, 0.0);
  double acc = 0;
  ASSERT_TRUE(b.ts.terms[0]->add_energy(x.data(), acc));
  EXPECT_EQ(acc, direct);
  std::vector<int> gid(n);
  for (int v = 0; v < n; ++v) gid[v] = v == kinematic ? -1 : v;
  std::vector<double> g(3 * n, 0.0);
  test::DenseSink sink(n, gid.data(), g.data());
  double e = 0;
  b.ts.terms[0]->assemble(x.data(), scale, e, sink);
  EXPECT_EQ(e, direct_scaled);
  EXPECT_EQ(sink.sets[0], 12);
  EXPECT_LE((Eigen::Map<Eigen::VectorXd>(g.data(), 3 * n) - g_ref).lpNorm<Eigen::Infinity>(),
            1e-12 * g_ref.lpNorm<Eigen::Infinity>());
  EXPECT_LE((sink.H - H_ref).lpNorm<Eigen::Infinity>(), 1e-12 * H_ref.lpNorm<Eigen::Infinity>());

  // Feasibility: push one interior-face vertex through the opposite face of a tet.
  EXPECT_TRUE(b.ts.terms[0]->feasible(x.data()));
  std::vector<double> bad = b.positions(0.0);
  const auto& t0 = b.tets[0];
  const Vec3 centroid = (b.X[t0[1]] + b.X[t0[2]] + b.X[t0[3]]) / 3.0;
  const Vec3 through = b.X[t0[0]] + 1.01 * 3.0 * (centroid - b.X[t0[0]]);  // beyond the face
  for (int d = 0; d < 3; ++d) bad[3 * t0[0] + d] = through(d);
  EXPECT_FALSE(b.ts.terms[0]->feasible(bad.data()));
  double acc2 = 0;
  EXPECT_FALSE(b.ts.terms[0]->add_energy(bad.data(), acc2));
  // Exactly flat (x0 on the opposite face's plane) is infeasible too.
  const Vec3 flat = centroid;
  for (int d = 0; d < 3; ++d) bad[3 * t0[0] + d] = flat(d);
  EXPECT_FALSE(b.ts.terms[0]->feasible(bad.data()));
  // Volumes have no adaptive stiffness and no strain statistic.
  EXPECT_EQ(b.ts.terms[0]->stiffness(), nullptr);
  EXPECT_EQ(b.ts.terms[0]->max_strain(x.data()), 0.0);
}

TEST(VolumeTerms, FixedCorotatedMatchesKernels) { check_volume_term("fixed_corotated"); }
TEST(VolumeTerms, NeoHookeanMatchesKernels) { check_volume_term("neo_hookean"); }

TEST(VolumeTerms, InvertedRestTetIsAnInputError) {
  ObjectSpec spec;
  spec.name = "bad";
  spec.kind = ObjectKind::Volume;
  spec.material.model = "neo_hookean";
  const std::vector<Vec3> X{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
  const std::vector<std::array<int, 4>> tets{{0, 1, 2, 3}};
  const std::vector<Tri> tris;
  const std::vector<std::array<int, 4>> hinges;
  const std::vector<Edge> segments;
  const ObjectStencils os{0, spec, X, tris, hinges, segments, tets};
  ElementSet set;
  try {
    build_tets(os, set);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("object 'bad' tet 0: inverted rest tetrahedron"), std::string::npos) << e.what();
  }
}

TEST(VolumeTerms, ObjectsWithoutTetsGetNone) {
  ObjectSpec spec;
  spec.kind = ObjectKind::Volume;
  const std::vector<Vec3> X;
  const std::vector<Tri> tris;
  const std::vector<std::array<int, 4>> hinges;
  const std::vector<Edge> segments;
  const ObjectStencils os{0, spec, X, tris, hinges, segments};  // tets defaulted
  EXPECT_TRUE(os.tets.empty());
  ElementSet set;
  build_tets(os, set);
  EXPECT_EQ(set.size(), 0);
}

}  // namespace
}  // namespace weft
