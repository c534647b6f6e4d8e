// Mass-spring terms (issue 18): the spring kernel (energy/spring.hpp) and the dihedral-angle
// bending force (energy/dihedral_force.hpp) against finite differences and paper 002's
// formulas; the spring sets built from a triangulated grid and a rod (which pairs, how
// many, which stiffness), their assembled gradient and Hessian against finite differences
// of the summed energy, and the registry's per-method selection.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "core/scene.hpp"
#include "energy/dihedral_force.hpp"
#include "energy/hinge_bending.hpp"
#include "energy/registry.hpp"
#include "energy/spring.hpp"
#include "fd_util.hpp"
#include "term_util.hpp"

namespace weft {
namespace {

using test::check_fd;

TEST(Spring, FiniteDifferencesStretchedAndCompressed) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec3 a = test::random_vec(rng), b = test::random_vec(rng);
    const double l = (a - b).norm();
    // Rest lengths below (stretched) and above (compressed: indefinite exact Hessian).
    const SpringRest r{trial % 2 ? 0.6 * l : 1.7 * l, 3.0 + trial};
    Vec6 x;
    x << a, b;
    test::EnergyFn<6> f = [&](const Vec6& y, Vec6* g, Mat6* H) { return spring_energy(y, r, g, H, false); };
    check_fd<6>(f, x);
    Mat6 Hp, He;
    spring_energy(x, r, nullptr, &Hp, true);
    spring_energy(x, r, nullptr, &He, false);
    EXPECT_GE(test::min_eig_ratio<6>(Hp), -1e-12);
    if (r.length < l) EXPECT_LE((Hp - He).cwiseAbs().maxCoeff(), 1e-12 * He.cwiseAbs().maxCoeff());  // already PSD
    else EXPECT_LT(test::min_eig_ratio<6>(He), -1e-3);  // compressed: the exact one is not
  }
}

TEST(Spring, ProjectionIsTheNearestPsdMatrix) {
  // Closed form against a dense eigen-clamp of the exact Hessian.
  Vec6 x;
  x << 0.1, 0.2, -0.3, 0.5, -0.1, 0.4;
  const SpringRest r{2.0 * (x.head<3>() - x.tail<3>()).norm(), 5.0};
  Mat6 He, Hp;
  spring_energy(x, r, nullptr, &He, false);
  spring_energy(x, r, nullptr, &Hp, true);
  Eigen::SelfAdjointEigenSolver<Mat6> es(He);
  const Mat6 clamped = es.eigenvectors() * es.eigenvalues().cwiseMax(0.0).asDiagonal() * es.eigenvectors().transpose();
  EXPECT_LE((clamped - Hp).cwiseAbs().maxCoeff(), 1e-12 * He.cwiseAbs().maxCoeff());
}

TEST(Spring, EnergyAndForceValues) {
  Vec6 x;
  x << 0, 0, 0, 2, 0, 0;  // length 2, rest 1.5, k = 4: E = 1/2 4 0.25 = 0.5, |f| = 2
  Vec6 g;
  EXPECT_DOUBLE_EQ(spring_energy(x, {1.5, 4.0}, &g, nullptr, true), 0.5);
  EXPECT_DOUBLE_EQ(g[0], -2.0);  // x0 is pulled towards x1
  EXPECT_DOUBLE_EQ(g[3], 2.0);
  EXPECT_DOUBLE_EQ(spring_stretch(x, {1.5, 4.0}), 2.0 / 1.5);
}

Vec12 hinge(double fold, double skew = 0.0) {
  // Edge (x0, x1) on the z axis, wing x2 in the x-z plane, wing x3 turned about the edge by
  // `fold` radians out of flat (the hinge is flat at fold = 0); then a fixed rotation so
  // nothing is axis-aligned. Turning x3 about the edge keeps |E| and both wing areas.
  const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1.0, 2.0, -0.5).normalized()).toRotationMatrix();
  const Vec3 p[4] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 1.0}, {0.7, 0.0, 0.3 + skew},
                     {-0.6 * std::cos(fold), 0.6 * std::sin(fold), 0.6}};
  Vec12 X;
  for (int a = 0; a < 4; ++a) X.segment<3>(3 * a) = R * p[a];
  return X;
}

TEST(DihedralForce, FiniteDifferences) {
  for (double rest_fold : {0.0, 0.4, -0.7})
    for (double fold : {0.05, 0.9, -1.3, 2.2}) {
      const DihedralForceRest r = make_dihedral_force_rest(hinge(rest_fold, 0.2), 1.3, false);
      test::EnergyFn<12> f = [&](const Vec12& y, Vec12* g, Mat12* H) {
        return dihedral_force_energy(y, r, g, H, false);
      };
      check_fd<12>(f, hinge(fold));
      Mat12 Hp;
      dihedral_force_energy(hinge(fold), r, nullptr, &Hp, true);
      EXPECT_GE(test::min_eig_ratio<12>(Hp), -1e-12);
    }
}

TEST(DihedralForce, RestIsTheMinimumAndPlanarVariantPullsFlat) {
  const Vec12 X = hinge(0.6);
  const DihedralForceRest rest_angle = make_dihedral_force_rest(X, 2.0, false);
  const DihedralForceRest planar = make_dihedral_force_rest(X, 2.0, true);
  Vec12 g;
  EXPECT_NEAR(dihedral_force_energy(X, rest_angle, &g, nullptr, true), 0.0, 1e-14);
  EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-12);
  for (double fold : {-0.5, 0.2, 1.0, 1.6}) EXPECT_GT(dihedral_force_energy(hinge(fold), rest_angle, nullptr, nullptr, true), 0.0);
  // Planar: the bent rest shape is under load, the flat one is the minimum.
  EXPECT_GT(dihedral_force_energy(X, planar, &g, nullptr, true), 0.0);
  EXPECT_GT(g.cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_NEAR(dihedral_force_energy(hinge(0.0), planar, &g, nullptr, true), 0.0, 1e-14);
  EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-12);
}

// 002 sec. 11.1, in its numbering (x3, x4 the edge, x1, x2 the wing tips): the force is
// f(theta) u_i with u_1 = |E|/|N1| n1, u_2 = |E|/|N2| n2, u_3, u_4 as printed, and
// f = k |E|^2 / (|N1| + |N2|) [sin((pi - theta)/2) - sin((pi - theta0)/2)]. At the rest
// shape's coefficient the energy's force must be exactly that, up to the sign convention
// of the angle (the same for all four vertices).
TEST(DihedralForce, MatchesPaper002Formulas) {
  const double k = 0.8;
  for (double rest_fold : {0.0, 0.5})
    for (double fold : {0.3, -0.8, 1.4}) {
      const Vec12 X0 = hinge(rest_fold, 0.1);
      const DihedralForceRest r = make_dihedral_force_rest(X0, k, false);
      // Evaluate at a state whose |E| and |N_i| equal the rest ones (a rigid motion of the
      // wings about the edge keeps them), so the frozen coefficient is 002's exactly.
      const Vec12 X = hinge(fold, 0.1);
      const Vec3 x3 = X.segment<3>(0), x4 = X.segment<3>(3), x1 = X.segment<3>(6), x2 = X.segment<3>(9);
      const Vec3 E = x4 - x3, N1 = (x1 - x3).cross(x1 - x4), N2 = (x2 - x4).cross(x2 - x3);
      const Vec3 n1 = N1.normalized(), n2 = N2.normalized();
      const double e = E.norm();
      const Vec3 u1 = e / N1.norm() * n1, u2 = e / N2.norm() * n2;
      const Vec3 u3 = (x1 - x4).dot(E) / (e * N1.norm()) * n1 + (x2 - x4).dot(E) / (e * N2.norm()) * n2;
      const Vec3 u4 = -(x1 - x3).dot(E) / (e * N1.norm()) * n1 - (x2 - x3).dot(E) / (e * N2.norm()) * n2;
      const double psi = dihedral_angle(X), psi0 = dihedral_angle(X0);
      // 002's theta = pi - |bend| on the side it measures; its sine difference is odd in
      // the bend, i.e. sin(psi/2) - sin(psi0/2) with psi the signed bend.
      const double f = k * e * e / (N1.norm() + N2.norm()) * (std::sin(psi / 2) - std::sin(psi0 / 2));
      Vec12 g;
      dihedral_force_energy(X, r, &g, nullptr, true);
      Vec12 paper;
      paper << f * u3, f * u4, f * u1, f * u2;  // our order: x0 = 002's x3, x1 = x4, x2 = x1, x3 = x2
      const double sign = g.dot(paper) > 0 ? 1.0 : -1.0;
      EXPECT_LE((g - sign * paper).cwiseAbs().maxCoeff(), 1e-10 * std::max(1e-12, paper.cwiseAbs().maxCoeff()))
          << "g = " << g.transpose() << "\n002: " << paper.transpose();
      // Momentum: the u_i sum to zero.
      EXPECT_LE((u1 + u2 + u3 + u4).norm(), 1e-12);
    }
}

// A triangulated n x n vertex grid in the xz plane (spacing a), each quad split by the
// diagonal (i, j) - (i+1, j+1), consistently oriented; its hinges as hinge_bending orders
// them: (x0, x1) the edge, x2 opposite in triangle (x0, x1, x2), x3 in (x1, x0, x3).
struct Grid {
  std::vector<Vec3> X;
  std::vector<Tri> tris;
  std::vector<std::array<int, 4>> hinges;
  Grid(int n, double a) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) X.emplace_back(a * i, 0.0, a * j);
    for (int j = 0; j + 1 < n; ++j)
      for (int i = 0; i + 1 < n; ++i) {
        const int v = j * n + i;
        tris.push_back({v, v + n + 1, v + 1});
        tris.push_back({v, v + n, v + n + 1});
      }
    std::map<std::pair<int, int>, int> opposite;  // directed edge -> opposite vertex
    for (const Tri& t : tris)
      for (int k = 0; k < 3; ++k) opposite[{t[k], t[(k + 1) % 3]}] = t[(k + 2) % 3];
    for (const auto& [e, o] : opposite) {
      auto it = opposite.find({e.second, e.first});
      if (it != opposite.end() && e.first < e.second) hinges.push_back({e.first, e.second, o, it->second});
    }
  }
};

ObjectSpec cloth_spec() {
  ObjectSpec s;
  s.kind = ObjectKind::Shell;
  s.material.youngs = 1e5;
  s.material.poisson = 0.3;
  s.material.thickness = 1e-3;
  return s;
}

const ElementSet* find_set(const Scene& scene, const char* name) {
  for (const ElementSet& s : scene.element_sets)
    if (std::string(s.term->name) == name) return &s;
  return nullptr;
}

TEST(SpringSets, TriangulatedGridGetsProvotsLayout) {
  const int n = 5;
  const double a = 0.1;
  Grid grid(n, a);
  ObjectSpec spec = cloth_spec();
  const ObjectStencils os{0, spec, grid.X, grid.tris, grid.hinges, {}};
  test::TermScene ts;
  ts.build(os, static_cast<int>(grid.X.size()), "mass_spring");
  ASSERT_EQ(ts.scene.element_sets.size(), 3u);  // structural, shear, bending (no dihedral)
  const ElementSet* st = find_set(ts.scene, "spring_structural");
  const ElementSet* sh = find_set(ts.scene, "spring_shear");
  const ElementSet* be = find_set(ts.scene, "spring_bending");
  ASSERT_TRUE(st && sh && be);
  const int quads = (n - 1) * (n - 1);
  EXPECT_EQ(st->size(), 2 * n * (n - 1) + quads);  // grid lines + one diagonal per quad
  EXPECT_EQ(sh->size(), quads);                    // ... + the other diagonal
  EXPECT_EQ(be->size(), static_cast<int>(grid.hinges.size()) - quads);
  // Shear springs are the anti-diagonals (i+1, j) - (i, j+1): length sqrt(2) a, direction
  // (-1, 0, 1); stiffness E t / (2 (1 + nu)).
  for (int k = 0; k < sh->size(); ++k) {
    const Vec3 d = grid.X[sh->stencil(k)[0]] - grid.X[sh->stencil(k)[1]];
    EXPECT_NEAR(std::abs(d.x() * d.z()), a * a, 1e-12);
    EXPECT_LT(d.x() * d.z(), 0.0);
    EXPECT_NEAR(sh->rest<SpringRest>()[k].stiffness, 1e5 * 1e-3 / 2.6, 1e-9);
  }
  // Bending springs cross an axis edge: length sqrt(5) a, stiffness D / a^2.
  const double D = 1e5 * 1e-9 / (12 * (1 - 0.09));
  for (int k = 0; k < be->size(); ++k) {
    EXPECT_NEAR(be->rest<SpringRest>()[k].length, std::sqrt(5.0) * a, 1e-12);
    EXPECT_NEAR(be->rest<SpringRest>()[k].stiffness, D / (a * a), 1e-12 * D / (a * a));
  }
  for (int k = 0; k < st->size(); ++k) EXPECT_DOUBLE_EQ(st->rest<SpringRest>()[k].stiffness, 100.0);  // E t
  // No pair twice.
  std::set<std::pair<int, int>> pairs;
  for (const ElementSet* s : {st, sh, be})
    for (int k = 0; k < s->size(); ++k)
      EXPECT_TRUE(pairs.insert({std::min(s->stencil(k)[0], s->stencil(k)[1]), std::max(s->stencil(k)[0], s->stencil(k)[1])}).second);
}

TEST(SpringSets, GivenStiffnessesAndDihedralBending) {
  Grid grid(4, 0.2);
  ObjectSpec spec = cloth_spec();
  spec.springs.stretch_stiffness = 50;
  spec.springs.shear_stiffness = 7;
  spec.springs.bending_stiffness = 0.5;
  spec.springs.bending = "dihedral";
  const ObjectStencils os{0, spec, grid.X, grid.tris, grid.hinges, {}};
  test::TermScene ts;
  ts.build(os, static_cast<int>(grid.X.size()), "mass_spring");
  ASSERT_EQ(ts.scene.element_sets.size(), 3u);  // structural, shear, dihedral
  EXPECT_EQ(find_set(ts.scene, "spring_bending"), nullptr);
  const ElementSet* dh = find_set(ts.scene, "spring_dihedral");
  ASSERT_TRUE(dh);
  EXPECT_EQ(dh->size(), static_cast<int>(grid.hinges.size()));
  EXPECT_DOUBLE_EQ(find_set(ts.scene, "spring_structural")->rest<SpringRest>()[0].stiffness, 50.0);
  EXPECT_DOUBLE_EQ(find_set(ts.scene, "spring_shear")->rest<SpringRest>()[0].stiffness, 7.0);
  // pd gets no dihedral term (its local steps project springs); cipc no springs at all.
  test::TermScene pd;
  pd.build(os, static_cast<int>(grid.X.size()), "pd");
  for (const ElementSet& s : pd.scene.element_sets) EXPECT_TRUE(s.holds<SpringRest>()) << s.term->name;
  for (const TermFactory* f : terms_for(ObjectKind::Shell, "neo_hookean"))
    EXPECT_STREQ(f->methods, "") << f->name;
  for (const TermFactory* f : terms_for(ObjectKind::Shell, "neo_hookean", "mass_spring"))
    EXPECT_TRUE(term_serves(*f, "mass_spring")) << f->name;
  EXPECT_TRUE(terms_for(ObjectKind::Shell, "neo_hookean", "pbd").empty());
}

// The summed energy of every set of a scene and its assembled gradient / Hessian.
double total(test::TermScene& ts, const std::vector<double>& x, std::vector<double>* g, Eigen::MatrixXd* H,
             const std::vector<int>& gid) {
  double e = 0.0;
  if (!g) {
    for (const auto& t : ts.terms) EXPECT_TRUE(t->add_energy(x.data(), e));
    return e;
  }
  g->assign(x.size(), 0.0);
  test::DenseSink sink(static_cast<int>(x.size() / 3), gid.data(), g->data());
  for (const auto& t : ts.terms) t->assemble(x.data(), 1.0, e, sink);
  *H = sink.H;
  return e;
}

// exact_hessian: every stencil is in a state where the projected Hessian is the exact one
// (springs all stretched), so the assembled Hessian must match finite differences too.
void check_scene_fd(test::TermScene& ts, std::vector<double> x, bool exact_hessian) {
  const int n = static_cast<int>(x.size() / 3);
  std::vector<int> gid(n);
  for (int i = 0; i < n; ++i) gid[i] = i;
  std::vector<double> g;
  Eigen::MatrixXd H;
  const double e = total(ts, x, &g, &H, gid);
  EXPECT_NEAR(e, total(ts, x, nullptr, nullptr, gid), 1e-12 * std::abs(e));
  const double h = 1e-6;
  double gmax = 0.0, gerr = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    const double fd = (total(ts, xp, nullptr, nullptr, gid) - total(ts, xm, nullptr, nullptr, gid)) / (2 * h);
    gmax = std::max(gmax, std::abs(g[i]));
    gerr = std::max(gerr, std::abs(fd - g[i]));
  }
  EXPECT_LE(gerr, 1e-6 * gmax);
  EXPECT_GT(gmax, 0.0);
  if (exact_hessian) {
    double hmax = H.cwiseAbs().maxCoeff(), herr = 0.0;
    std::vector<double> gp, gm;
    Eigen::MatrixXd scratch;
    for (size_t i = 0; i < x.size(); ++i) {
      std::vector<double> xp = x, xm = x;
      xp[i] += h;
      xm[i] -= h;
      total(ts, xp, &gp, &scratch, gid);
      total(ts, xm, &gm, &scratch, gid);
      for (size_t j = 0; j < x.size(); ++j) herr = std::max(herr, std::abs((gp[j] - gm[j]) / (2 * h) - H(j, i)));
    }
    EXPECT_LE(herr, 1e-5 * hmax);
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(H);
  EXPECT_GE(es.eigenvalues()(0), -1e-10 * es.eigenvalues().cwiseAbs().maxCoeff());  // projected: PSD
}

TEST(SpringSets, AssembledGradientMatchesFiniteDifferences) {
  Grid grid(4, 0.25);
  std::mt19937 rng(3);
  for (const char* bending : {"springs", "dihedral"}) {
    ObjectSpec spec = cloth_spec();
    spec.springs.bending = bending;
    const ObjectStencils os{0, spec, grid.X, grid.tris, grid.hinges, {}};
    test::TermScene ts;
    ts.build(os, static_cast<int>(grid.X.size()), "mass_spring");
    // Every spring stretched by 20% give or take 2%: the spring Hessians are exact there.
    std::vector<double> x;
    for (const Vec3& p : grid.X) {
      const Vec3 q = 1.2 * p + test::random_vec(rng, 0.004);
      x.insert(x.end(), {q.x(), q.y(), q.z()});
    }
    check_scene_fd(ts, x, std::string(bending) == "springs");
    // Bent out of plane too (the dihedral term's angles away from 0).
    for (size_t i = 1; i < x.size(); i += 3) x[i] += 0.05 * std::sin(7.0 * x[i - 1]) * std::cos(5.0 * x[i + 1]);
    check_scene_fd(ts, x, false);
  }
}

TEST(SpringSets, RodSegmentsAndTriples) {
  // A bent polyline of 5 vertices: 4 structural springs (EA / L), 3 bending springs x0-x2
  // (EI / l^3).
  std::vector<Vec3> X = {{0, 0, 0}, {0.1, 0, 0}, {0.2, 0.02, 0}, {0.3, 0.02, 0.01}, {0.38, 0.0, 0.03}};
  std::vector<Edge> segs = {{0, 1}, {1, 2}, {2, 3}, {3, 4}};
  ObjectSpec spec;
  spec.kind = ObjectKind::Rod;
  spec.material.youngs = 2e6;
  spec.material.radius = 1e-3;
  const std::vector<Tri> tris;
  const std::vector<std::array<int, 4>> hinges;
  const ObjectStencils os{0, spec, X, tris, hinges, segs};
  test::TermScene ts;
  ts.build(os, 5, "mass_spring");
  const ElementSet* st = find_set(ts.scene, "rod_spring_structural");
  const ElementSet* be = find_set(ts.scene, "rod_spring_bending");
  ASSERT_TRUE(st && be);
  EXPECT_EQ(st->size(), 4);
  EXPECT_EQ(be->size(), 3);
  const double L0 = (X[1] - X[0]).norm();
  EXPECT_NEAR(st->rest<SpringRest>()[0].stiffness, 2e6 * M_PI * 1e-6 / L0, 1e-9);
  EXPECT_EQ(be->stencil(0)[0], 0);
  EXPECT_EQ(be->stencil(0)[1], 2);
  const double l = 0.5 * ((X[1] - X[0]).norm() + (X[2] - X[1]).norm());
  EXPECT_NEAR(be->rest<SpringRest>()[0].stiffness, 2e6 * M_PI * 1e-12 / 4 / (l * l * l), 1e-12);
  std::vector<double> x;
  std::mt19937 rng(5);
  for (const Vec3& p : X) {
    const Vec3 q = 1.3 * p + test::random_vec(rng, 0.002);  // all springs stretched
    x.insert(x.end(), {q.x(), q.y(), q.z()});
  }
  check_scene_fd(ts, x, true);
  // max_strain: the structural springs' largest |e| / L.
  double worst = 0.0;
  for (int k = 0; k < 4; ++k)
    worst = std::max(worst, (Eigen::Map<const Vec3>(&x[3 * (k + 1)]) - Eigen::Map<const Vec3>(&x[3 * k])).norm() /
                                (X[k + 1] - X[k]).norm());
  double reported = 0.0;
  for (const auto& t : ts.terms) reported = std::max(reported, t->max_strain(x.data()));
  EXPECT_NEAR(reported, worst, 1e-14);
}

}  // namespace
}  // namespace weft
