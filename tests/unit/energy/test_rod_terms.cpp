// The rod energy terms (energy/rod_stretch_term.cpp, rod_bending_term.cpp) through the
// EnergyTerm interface: against the kernels they wrap, finite differences of the assembled
// gradient and Hessian, the segment strain limit (feasibility, adaptive stiffness, the
// max_strain statistic), the bending stencils (energy/rod_topology.hpp) and the registry.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/scene.hpp"
#include "energy/registry.hpp"
#include "energy/rod_bending.hpp"
#include "energy/rod_stretch.hpp"
#include "energy/rod_topology.hpp"
#include "energy/strain_limit.hpp"

namespace weft {
namespace {

using Triple = std::array<int, 3>;
using Triples = std::vector<Triple>;

// Gradient into a dense vector, Hessian blocks into a dense matrix over the local ids.
class DenseSink final : public AssemblySink {
 public:
  DenseSink(int n, const int* global_id, double* g) : AssemblySink(g, global_id), gid_(global_id), H(3 * n, 3 * n) {
    H.setZero();
  }
  void add_hessians(int /*set*/, int first, int count, int nv, const int* local, const double* He) override {
    EXPECT_EQ(first, next_first);
    next_first += count;
    for (int i = 0; i < count; ++i) {
      const int* l = local + nv * i;
      const double* h = He + 9 * nv * nv * i;
      for (int a = 0; a < nv; ++a)
        for (int b = 0; b < nv; ++b)
          if (gid_[l[a]] >= 0 && gid_[l[b]] >= 0)
            for (int r = 0; r < 3; ++r)
              for (int c = 0; c < 3; ++c) H(3 * l[a] + r, 3 * l[b] + c) += h[(3 * b + c) * 3 * nv + 3 * a + r];
    }
  }
  const int* gid_;
  Eigen::MatrixXd H;
  int next_first = 0;
};

// One rod object (vertices X, segments) with its sets and terms built as the scene loader
// does, every stencil local, local ids = ids.
struct Rod {
  Scene scene;
  ObjectSpec spec;
  std::vector<Vec3> X;
  std::vector<Edge> segments;
  std::vector<LocalStencils> local;
  std::vector<std::unique_ptr<EnergyTerm>> terms;  // registry order: stretch, bending

  Rod(std::vector<Vec3> X_, std::vector<Edge> segs, double strain_limit, double bending_youngs = -1.0,
      double kappa_s = 2.5e3)
      : X(std::move(X_)), segments(std::move(segs)) {
    spec.kind = ObjectKind::Rod;
    spec.material.youngs = 2e6;
    spec.material.bending_youngs = bending_youngs;
    spec.material.radius = 2e-3;
    ObjectParams op;
    op.kind = ObjectKind::Rod;
    op.strain_limit = strain_limit;
    op.strain_threshold = 1.0;
    scene.objects.push_back(op);
    scene.spec.objects.push_back(spec);
    scene.spec.kappa_s = kappa_s;
    scene.num_vertices = static_cast<int>(X.size());
    const std::vector<Tri> tris;
    const std::vector<std::array<int, 4>> hinges;
    const ObjectStencils os{0, spec, X, tris, hinges, segments};
    for (const TermFactory* f : terms_for(spec.kind, spec.material.model)) {
      ElementSet set;
      set.term = f;
      set.arity = f->arity;
      f->build(os, set);
      scene.element_sets.push_back(std::move(set));
    }
    local.resize(scene.element_sets.size());
    for (size_t s = 0; s < scene.element_sets.size(); ++s) {
      const ElementSet& set = scene.element_sets[s];
      for (int k = 0; k < set.size(); ++k) {
        local[s].element.push_back(k);
        local[s].local.insert(local[s].local.end(), set.stencil(k), set.stencil(k) + set.arity);
      }
    }
    // Empty sets are dropped by the loader: no term for them.
    for (size_t s = 0; s < scene.element_sets.size(); ++s)
      terms.push_back(scene.element_sets[s].size() ? scene.element_sets[s].term->make(scene, static_cast<int>(s), local[s])
                                                   : nullptr);
  }

  double k_axial() const { return spec.material.youngs * M_PI * spec.material.radius * spec.material.radius; }
  double area() const { return M_PI * spec.material.radius * spec.material.radius; }
  double EI() const {
    const double E = spec.material.bending_youngs < 0 ? spec.material.youngs : spec.material.bending_youngs;
    return rod_bending_stiffness(E, spec.material.radius);
  }
};

// A bent helix-like polyline: 8 vertices, 7 segments a -> b along it, turning angles about
// 30 to 40 degrees.
std::vector<Vec3> helix(int n) {
  std::vector<Vec3> X;
  for (int i = 0; i < n; ++i) X.push_back(Vec3(0.1 * std::cos(0.6 * i), 0.03 * i, 0.1 * std::sin(0.6 * i)));
  return X;
}
Triples sorted(Triples t) {
  std::sort(t.begin(), t.end());
  return t;
}
std::vector<Edge> chain(int n) {
  std::vector<Edge> s;
  for (int i = 0; i + 1 < n; ++i) s.push_back({i, i + 1});
  return s;
}

// The helix stretched by `stretch` about its first vertex, with a smooth wiggle that
// changes the curvature.
std::vector<double> deformed(const std::vector<Vec3>& X, double stretch, double wiggle) {
  std::vector<double> x;
  for (size_t i = 0; i < X.size(); ++i) {
    const Vec3 p = stretch * X[i] + wiggle * Vec3(std::sin(1.7 * i), std::cos(2.3 * i), std::sin(0.9 * i + 0.4));
    x.insert(x.end(), {p.x(), p.y(), p.z()});
  }
  return x;
}

template <int N>
VecN<3 * N> gather(const std::vector<double>& x, const int* v) {
  VecN<3 * N> out;
  for (int a = 0; a < N; ++a) out.template segment<3>(3 * a) = Eigen::Map<const Vec3>(&x[3 * v[a]]);
  return out;
}

double energy_of(const EnergyTerm& t, const std::vector<double>& x) {
  double acc = 0.0;
  EXPECT_TRUE(t.add_energy(x.data(), acc));
  return acc;
}

struct Assembled {
  double energy = 0.0;
  Eigen::VectorXd g;
  Eigen::MatrixXd H;
};
Assembled assemble(EnergyTerm& t, const std::vector<double>& x, double scale = 1.0) {
  const int n = static_cast<int>(x.size() / 3);
  std::vector<int> gid(n);
  for (int v = 0; v < n; ++v) gid[v] = v;
  std::vector<double> g(3 * n, 0.0);
  DenseSink sink(n, gid.data(), g.data());
  Assembled a;
  t.assemble(x.data(), scale, a.energy, sink);
  EXPECT_EQ(sink.next_first, t.stencils().size());
  a.g = Eigen::Map<Eigen::VectorXd>(g.data(), 3 * n);
  a.H = sink.H;
  return a;
}

// Central differences of add_energy against the assembled gradient, and of the assembled
// gradient against H_exact (the unprojected Hessian); the assembled (projected) Hessian is
// PSD. rtol relative to the largest entry.
void check_fd(EnergyTerm& t, const std::vector<double>& x, const Eigen::MatrixXd& H_exact, double h, double rtol) {
  const Assembled a = assemble(t, x);
  const int m = static_cast<int>(x.size());
  Eigen::VectorXd g_fd(m);
  Eigen::MatrixXd H_fd(m, m);
  for (int k = 0; k < m; ++k) {
    std::vector<double> xp = x, xm = x;
    xp[k] += h;
    xm[k] -= h;
    g_fd(k) = (energy_of(t, xp) - energy_of(t, xm)) / (2 * h);
    H_fd.col(k) = (assemble(t, xp).g - assemble(t, xm).g) / (2 * h);
  }
  const double gs = a.g.lpNorm<Eigen::Infinity>(), hs = H_exact.lpNorm<Eigen::Infinity>();
  ASSERT_GT(gs, 0.0);
  ASSERT_GT(hs, 0.0);
  EXPECT_LE((a.g - g_fd).lpNorm<Eigen::Infinity>(), rtol * gs);
  EXPECT_LE((H_exact - H_fd).lpNorm<Eigen::Infinity>(), rtol * hs);
  EXPECT_LE((a.H - a.H.transpose()).lpNorm<Eigen::Infinity>(), 1e-14 * hs);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (a.H + a.H.transpose()));
  EXPECT_GE(es.eigenvalues()(0), -1e-12 * es.eigenvalues().cwiseAbs().maxCoeff());
}

// Scatter a stencil's block into a dense matrix.
template <int N>
void scatter(Eigen::MatrixXd& H, const int* v, const MatN<3 * N>& He) {
  for (int a = 0; a < N; ++a)
    for (int b = 0; b < N; ++b) H.block<3, 3>(3 * v[a], 3 * v[b]) += He.template block<3, 3>(3 * a, 3 * b);
}

TEST(RodTerms, RegistryHasStretchThenBending) {
  std::vector<std::string> names;
  for (const TermFactory* f : terms_for(ObjectKind::Rod, "")) names.push_back(f->name);
  EXPECT_EQ(names, (std::vector<std::string>{"rod_stretch", "rod_bending"}));
  const std::vector<const TermFactory*> fs = terms_for(ObjectKind::Rod, "");
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0]->arity, 2);
  EXPECT_EQ(fs[1]->arity, 3);
  // Any material model of a rod gets them; the shell terms keep their places.
  EXPECT_EQ(terms_for(ObjectKind::Rod, "neo_hookean"), fs);
  const std::vector<const TermFactory*>& all = term_registry();
  ASSERT_GE(all.size(), 5u);  // later kinds' terms are appended after these
  EXPECT_STREQ(all[2]->name, "hinge_bending");
  EXPECT_EQ(all[3], fs[0]);
  EXPECT_EQ(all[4], fs[1]);
}

// Energy and derivatives through the terms equal the direct kernel sums; the stretch term
// with its strain-limit barrier active on some segments.
TEST(RodTerms, MatchKernels) {
  const double s_max = 1.1, scale = 0.5;
  Rod rod(helix(8), chain(8), s_max);
  ASSERT_EQ(rod.scene.element_sets.size(), 2u);
  EXPECT_EQ(rod.scene.element_sets[0].size(), 7);
  EXPECT_EQ(rod.scene.element_sets[1].size(), 6);
  const std::vector<double> x = deformed(rod.X, 1.0, 2e-3);
  const int n = rod.scene.num_vertices;

  double stretch = 0.0, bend = 0.0;
  int barrier_active = 0;
  Eigen::VectorXd gs_ref = Eigen::VectorXd::Zero(3 * n), gb_ref = gs_ref;
  Eigen::MatrixXd Hs_ref = Eigen::MatrixXd::Zero(3 * n, 3 * n), Hb_ref = Hs_ref;
  for (const Edge& s : rod.segments) {
    const Vec6 xe = gather<2>(x, s.data());
    const double L = (rod.X[s[1]] - rod.X[s[0]]).norm();
    const RodStretchRest r{L, rod.k_axial()};
    const StrainLimitParams sp{s_max, 1.0, 2.5e3, rod.area() * L};
    Vec6 g, gl;
    Mat6 H, Hl;
    const double e = rod_stretch(xe, r, &g, &H, true);
    const double el = segment_strain_limit(xe, L, sp, &gl, &Hl);
    barrier_active += el > 0;
    stretch += e;
    stretch += el;
    for (int a = 0; a < 2; ++a) gs_ref.segment<3>(3 * s[a]) += scale * (g + gl).segment<3>(3 * a);
    scatter<2>(Hs_ref, s.data(), Mat6(scale * (H + Hl)));
  }
  EXPECT_GT(barrier_active, 0);
  EXPECT_LT(barrier_active, 7);
  for (int i = 1; i + 1 < n; ++i) {
    const int v[3] = {i - 1, i, i + 1};
    const Vec9 xe = gather<3>(x, v);
    const RodBendRest r = make_rod_bend_rest(rod.X[i - 1], rod.X[i], rod.X[i + 1], rod.EI());
    Vec9 g;
    Mat9 H;
    bend += rod_bending(xe, r, &g, &H, true);
    for (int a = 0; a < 3; ++a) gb_ref.segment<3>(3 * v[a]) += scale * g.segment<3>(3 * a);
    scatter<3>(Hb_ref, v, Mat9(scale * H));
  }
  EXPECT_GT(stretch, 0.0);
  EXPECT_GT(bend, 0.0);

  EXPECT_EQ(energy_of(*rod.terms[0], x), stretch);  // same kernels, same order: to the last bit
  EXPECT_EQ(energy_of(*rod.terms[1], x), bend);
  const Assembled as = assemble(*rod.terms[0], x, scale), ab = assemble(*rod.terms[1], x, scale);
  EXPECT_DOUBLE_EQ(as.energy, scale * stretch);
  EXPECT_DOUBLE_EQ(ab.energy, scale * bend);
  EXPECT_LE((as.g - gs_ref).lpNorm<Eigen::Infinity>(), 1e-13 * gs_ref.lpNorm<Eigen::Infinity>());
  EXPECT_LE((ab.g - gb_ref).lpNorm<Eigen::Infinity>(), 1e-13 * gb_ref.lpNorm<Eigen::Infinity>());
  EXPECT_LE((as.H - Hs_ref).lpNorm<Eigen::Infinity>(), 1e-13 * Hs_ref.lpNorm<Eigen::Infinity>());
  EXPECT_LE((ab.H - Hb_ref).lpNorm<Eigen::Infinity>(), 1e-13 * Hb_ref.lpNorm<Eigen::Infinity>());
  EXPECT_TRUE(rod.terms[0]->feasible(x.data()));
  EXPECT_TRUE(rod.terms[1]->feasible(x.data()));
  EXPECT_EQ(rod.terms[1]->stiffness(), nullptr);
  EXPECT_EQ(rod.terms[1]->max_strain(x.data()), 0.0);
}

// Stretch term, every segment in tension (the projection is inactive) and the barrier
// active on some: the assembled Hessian is the exact one.
TEST(RodTerms, StretchFiniteDifferences) {
  const double kappa = 1e5;  // the barrier comparable to the stretching energy
  Rod rod(helix(8), chain(8), 1.1, -1.0, kappa);
  const std::vector<double> x = deformed(rod.X, 1.05, 1e-3);
  const int n = rod.scene.num_vertices;
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  int active = 0;
  for (const Edge& s : rod.segments) {
    const Vec6 xe = gather<2>(x, s.data());
    const double L = (rod.X[s[1]] - rod.X[s[0]]).norm();
    ASSERT_GT(segment_stretch(xe, {L, 1.0}), 1.0);  // tension: rod_stretch's projection inactive
    Mat6 He, Hl;
    rod_stretch(xe, {L, rod.k_axial()}, nullptr, &He, false);
    active += segment_strain_limit(xe, L, {1.1, 1.0, kappa, rod.area() * L}, nullptr, &Hl) > 0;
    scatter<2>(H, s.data(), Mat6(He + Hl));
  }
  EXPECT_GT(active, 0);
  check_fd(*rod.terms[0], x, H, 1e-7, 1e-5);
  // In compression the transverse stiffness is clamped: still PSD, and the gradient still
  // the derivative of the energy (H_exact from the kernels, unprojected).
  const std::vector<double> xc = deformed(rod.X, 0.9, 1e-3);
  Eigen::MatrixXd Hc = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (const Edge& s : rod.segments) {
    Mat6 He;
    rod_stretch(gather<2>(xc, s.data()), {(rod.X[s[1]] - rod.X[s[0]]).norm(), rod.k_axial()}, nullptr, &He, false);
    scatter<2>(Hc, s.data(), He);
  }
  Assembled a = assemble(*rod.terms[0], xc);
  EXPECT_GT((a.H - Hc).lpNorm<Eigen::Infinity>(), 1e-3 * Hc.lpNorm<Eigen::Infinity>());  // projection did act
  check_fd(*rod.terms[0], xc, Hc, 1e-7, 1e-5);
}

// Bending term on the bent helix: the gradient is the energy's derivative, the exact
// (unprojected) Hessian the gradient's. The energy depends on the turning angle only, so
// away from rest its Hessian is indefinite and the projection acts (the projected assembly
// equals the projected kernels: MatchKernels); at rest it is PSD and the assembly exact.
template <class F>
Eigen::MatrixXd exact_bending_hessian(const Rod& rod, const std::vector<double>& x, F&& note) {
  const int n = rod.scene.num_vertices;
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (int i = 1; i + 1 < n; ++i) {
    const int v[3] = {i - 1, i, i + 1};
    const RodBendRest r = make_rod_bend_rest(rod.X[i - 1], rod.X[i], rod.X[i + 1], rod.EI());
    Mat9 He, Hp;
    rod_bending(gather<3>(x, v), r, nullptr, &He, false);
    rod_bending(gather<3>(x, v), r, nullptr, &Hp, true);
    note((He - Hp).lpNorm<Eigen::Infinity>() / He.lpNorm<Eigen::Infinity>());
    scatter<3>(H, v, He);
  }
  return H;
}

TEST(RodTerms, BendingFiniteDifferences) {
  Rod rod(helix(8), chain(8), 0.0);
  for (double wiggle : {1e-3, 3e-3, 1e-2}) {
    SCOPED_TRACE("wiggle " + std::to_string(wiggle));
    const std::vector<double> x = deformed(rod.X, 1.02, wiggle);
    double most = 0.0;
    const Eigen::MatrixXd H = exact_bending_hessian(rod, x, [&](double d) { most = std::max(most, d); });
    EXPECT_GT(most, 1e-3);  // the projection acts: the FD below is against the exact Hessian
    check_fd(*rod.terms[1], x, H, 1e-7, 1e-5);
  }
  // At rest (moved rigidly): zero energy and gradient, the exact Hessian PSD, so the
  // projection leaves it and the assembly is exact.
  std::vector<double> x;
  for (const Vec3& p : rod.X) {
    const Vec3 q = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()) * p + Vec3(0.3, -0.2, 0.1);
    x.insert(x.end(), {q.x(), q.y(), q.z()});
  }
  double most = 0.0;
  const Eigen::MatrixXd H = exact_bending_hessian(rod, x, [&](double d) { most = std::max(most, d); });
  EXPECT_LE(most, 1e-10);
  const Assembled a = assemble(*rod.terms[1], x);
  EXPECT_LE(a.energy, 1e-20);
  EXPECT_LE(a.g.lpNorm<Eigen::Infinity>(), 1e-12 * H.lpNorm<Eigen::Infinity>());
  EXPECT_GT(H.lpNorm<Eigen::Infinity>(), 0.0);
  EXPECT_LE((a.H - H).lpNorm<Eigen::Infinity>(), 1e-10 * H.lpNorm<Eigen::Infinity>());
  // Stretching the helix uniformly keeps every turning angle: zero bending energy.
  EXPECT_NEAR(energy_of(*rod.terms[1], deformed(rod.X, 1.3, 0.0)), 0.0, 1e-18);
}

// A straight rod of segments L = 0.5 along x, stretched uniformly: exact binary stretches.
std::vector<Vec3> straight(int n) {
  std::vector<Vec3> X;
  for (int i = 0; i < n; ++i) X.push_back(Vec3(0.5 * i, 0.25, -0.75));
  return X;
}
std::vector<double> stretched(const std::vector<Vec3>& X, const std::vector<double>& s) {
  // vertex i + 1 at vertex i + s[i] * (X[i+1] - X[i]), all exact in binary here
  std::vector<double> x{X[0].x(), X[0].y(), X[0].z()};
  for (size_t i = 0; i + 1 < X.size(); ++i) {
    const Vec3 d = s[i] * (X[i + 1] - X[i]);
    x.insert(x.end(), {x[3 * i] + d.x(), x[3 * i + 1] + d.y(), x[3 * i + 2] + d.z()});
  }
  return x;
}

TEST(RodTerms, StrainLimitFeasibility) {
  const double s_max = 1.25;
  Rod rod(straight(5), chain(5), s_max);
  EnergyTerm& t = *rod.terms[0];
  double acc = 0.0;
  // Below the limit (one segment inside the barrier zone): finite, feasible.
  const std::vector<double> below = stretched(rod.X, {1.0, 1.2421875, 1.125, 0.875});
  EXPECT_TRUE(t.feasible(below.data()));
  ASSERT_TRUE(t.add_energy(below.data(), acc));
  EXPECT_TRUE(std::isfinite(acc));
  // A segment exactly at the limit, then beyond it: +inf, infeasible.
  for (double s : {1.25, 1.375}) {
    const std::vector<double> x = stretched(rod.X, {1.0, 1.0, s, 1.0});
    EXPECT_FALSE(t.feasible(x.data())) << s;
    acc = 0.0;
    EXPECT_FALSE(t.add_energy(x.data(), acc)) << s;
  }
  // Without a strain limit the same stretch is fine.
  Rod free_rod(straight(5), chain(5), 0.0);
  const std::vector<double> x = stretched(rod.X, {1.0, 1.0, 1.375, 1.0});
  EXPECT_TRUE(free_rod.terms[0]->feasible(x.data()));
  acc = 0.0;
  EXPECT_TRUE(free_rod.terms[0]->add_energy(x.data(), acc));
  // Exactly the stretching energy: 1/2 k L 0.375^2.
  EXPECT_DOUBLE_EQ(acc, 0.5 * free_rod.k_axial() * 0.5 * 0.375 * 0.375);
}

TEST(RodTerms, MaxStrainIsLargestStretch) {
  Rod rod(straight(5), chain(5), 0.0);
  EXPECT_EQ(rod.terms[0]->max_strain(stretched(rod.X, {1.0, 1.5, 0.75, 1.125}).data()), 1.5);
  EXPECT_EQ(rod.terms[0]->max_strain(stretched(rod.X, {0.5, 0.75, 0.875, 0.625}).data()), 0.875);
}

TEST(RodTerms, StiffnessDoublesNearTheLimit) {
  const double s_max = 1.25;
  Rod rod(straight(5), chain(5), s_max, -1.0, 2.5e3);
  EnergyTerm& t = *rod.terms[0];
  ASSERT_NE(t.stiffness(), nullptr);
  std::vector<double>& kappa = *t.stiffness();
  EXPECT_EQ(kappa, std::vector<double>(4, 2.5e3));
  // Segment 1 within 1e-4 (s - s_hat) = 2.5e-5 of the limit; the others below s_hat
  // (outside the barrier) in `near`, and all far from the limit in `far`.
  const std::vector<double> near = stretched(rod.X, {1.0, 1.25 - 1.0 / 65536, 0.875, 1.0});
  const std::vector<double> far = stretched(rod.X, {1.0, 1.125, 0.875, 1.0});
  t.begin_step();
  t.update_stiffness(near.data());
  EXPECT_EQ(kappa, std::vector<double>(4, 2.5e3));
  t.update_stiffness(near.data());
  EXPECT_EQ(kappa, (std::vector<double>{2.5e3, 5e3, 2.5e3, 2.5e3}));
  // Two more in a row double again; an iteration away from the limit resets the count,
  // and so does a new time step.
  t.update_stiffness(near.data());
  t.update_stiffness(far.data());
  t.update_stiffness(near.data());
  EXPECT_EQ(kappa[1], 5e3);
  t.begin_step();
  t.update_stiffness(near.data());
  EXPECT_EQ(kappa[1], 5e3);
  t.update_stiffness(near.data());
  EXPECT_EQ(kappa[1], 1e4);
  // The barrier uses the segment's own kappa: the same energy as a rod starting at 1e4
  // (segment 1 is the only one in the barrier), 4 times the barrier of one at 2.5e3.
  Rod at_1e4(straight(5), chain(5), s_max, -1.0, 1e4), base(straight(5), chain(5), s_max),
      free_rod(straight(5), chain(5), 0.0);
  double e = 0.0, e_1e4 = 0.0, e_base = 0.0, e_free = 0.0;
  ASSERT_TRUE(t.add_energy(near.data(), e));
  ASSERT_TRUE(at_1e4.terms[0]->add_energy(near.data(), e_1e4));
  ASSERT_TRUE(base.terms[0]->add_energy(near.data(), e_base));
  ASSERT_TRUE(free_rod.terms[0]->add_energy(near.data(), e_free));
  EXPECT_EQ(e, e_1e4);
  EXPECT_GT(e_base - e_free, 0.0);
  EXPECT_NEAR(e - e_free, 4 * (e_base - e_free), 1e-12 * e);
  // Capped at 0.1 MPa.
  Rod high(straight(5), chain(5), s_max, -1.0, 8e4);
  high.terms[0]->update_stiffness(near.data());
  high.terms[0]->update_stiffness(near.data());
  EXPECT_EQ((*high.terms[0]->stiffness())[1], 1e5);
}

TEST(RodTerms, BendingOffWithoutBendingStiffness) {
  Rod off(helix(6), chain(6), 0.0, 0.0);
  ASSERT_EQ(off.scene.element_sets.size(), 2u);
  EXPECT_EQ(off.scene.element_sets[0].size(), 5);
  EXPECT_EQ(off.scene.element_sets[1].size(), 0);
  // bending_youngs > 0 replaces youngs for bending only.
  Rod own(helix(6), chain(6), 0.0, 5e5);
  Rod same(helix(6), chain(6), 0.0, -1.0);
  ASSERT_EQ(own.scene.element_sets[1].size(), 4);
  const double w_own = own.scene.element_sets[1].rest<RodBendRest>()[0].weight;
  const double w_same = same.scene.element_sets[1].rest<RodBendRest>()[0].weight;
  EXPECT_DOUBLE_EQ(w_own / w_same, 5e5 / 2e6);
  const double L = (own.X[1] - own.X[0]).norm() + (own.X[2] - own.X[1]).norm();
  EXPECT_DOUBLE_EQ(w_own, 5e5 * M_PI * std::pow(2e-3, 4) / 4 / L);
  EXPECT_DOUBLE_EQ(own.scene.element_sets[0].rest<RodStretchRest>()[0].stiffness, 2e6 * M_PI * 4e-6);
}

TEST(RodTopology, StraightLine) {
  const std::vector<Vec3> X = straight(5);
  EXPECT_EQ(rod_bend_triples(chain(5), X), (Triples{{0, 1, 2}, {1, 2, 3}, {2, 3, 4}}));
  // One segment: no interior vertex.
  EXPECT_TRUE(rod_bend_triples({{3, 1}}, X).empty());
  EXPECT_TRUE(rod_bend_triples({}, X).empty());
}

TEST(RodTopology, ReversedListingKeepsDirection) {
  const std::vector<Vec3> X = helix(5);
  // The same open polyline, segments listed from the last one: triples follow a -> b.
  EXPECT_EQ(rod_bend_triples({{3, 4}, {2, 3}, {1, 2}, {0, 1}}, X), (Triples{{0, 1, 2}, {1, 2, 3}, {2, 3, 4}}));
  // The polyline 4 -> 3 -> 2 -> 1 -> 0, listed from its last segment.
  EXPECT_EQ(rod_bend_triples({{1, 0}, {2, 1}, {3, 2}, {4, 3}}, X), (Triples{{2, 1, 0}, {3, 2, 1}, {4, 3, 2}}));
  // Not head to tail (both leave vertex 2): from the segment listed first.
  EXPECT_EQ(rod_bend_triples({{2, 3}, {2, 1}}, X), (Triples{{3, 2, 1}}));
  EXPECT_EQ(rod_bend_triples({{2, 1}, {2, 3}}, X), (Triples{{1, 2, 3}}));
  // A closed loop: every vertex interior.
  EXPECT_EQ(rod_bend_triples({{0, 1}, {1, 2}, {2, 0}}, X), (Triples{{2, 0, 1}, {0, 1, 2}, {1, 2, 0}}));
}

// Two rods along x (z = 0, 1) and two along z (x = 0, 1), each over x or z in {-1, 0, 1, 2}:
// four crossings of degree 4, each the two straight continuations.
TEST(RodTopology, RodNetCrossings) {
  std::vector<Vec3> X;
  auto id = [](int i, int j) { return 4 * j + i; };  // grid point (x = i - 1, z = j - 1)
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i) X.push_back(Vec3(i - 1.0, 0.0, j - 1.0));
  std::vector<Edge> segs;
  for (int j : {1, 2})
    for (int i = 0; i < 3; ++i) segs.push_back({id(i, j), id(i + 1, j)});  // x-rods
  for (int i : {1, 2})
    for (int j = 0; j < 3; ++j) segs.push_back({id(i, j), id(i, j + 1)});  // z-rods
  const Triples expect{
      {id(0, 1), id(1, 1), id(2, 1)}, {id(1, 0), id(1, 1), id(1, 2)},  // crossing 5
      {id(1, 1), id(2, 1), id(3, 1)}, {id(2, 0), id(2, 1), id(2, 2)},  // crossing 6
      {id(0, 2), id(1, 2), id(2, 2)}, {id(1, 1), id(1, 2), id(1, 3)},  // crossing 9
      {id(1, 2), id(2, 2), id(3, 2)}, {id(2, 1), id(2, 2), id(2, 3)},  // crossing 10
  };
  EXPECT_EQ(rod_bend_triples(segs, X), expect);
  // Listing the segments in reverse changes neither the pairing nor the directions.
  std::vector<Edge> rev(segs.rbegin(), segs.rend());
  const Triples got = rod_bend_triples(rev, X);
  EXPECT_EQ(sorted(got), sorted(expect));
  for (const Triple& t : got) {
    const Vec3 a = X[t[1]] - X[t[0]], b = X[t[2]] - X[t[1]];
    EXPECT_EQ(a.cross(b).norm(), 0.0);  // straight through
    EXPECT_GT(a.dot(b), 0.0);
  }
  // A slightly bent crossing still pairs the nearly straight continuations, and a T junction
  // (three segments) pairs the straight two and leaves the stem out.
  std::vector<Vec3> Y = X;
  Y[id(0, 1)] += Vec3(0.0, 0.1, 0.3);
  EXPECT_EQ(sorted(rod_bend_triples(segs, Y)), sorted(expect));
  EXPECT_EQ(rod_bend_triples({{id(0, 1), id(1, 1)}, {id(1, 0), id(1, 1)}, {id(1, 1), id(2, 1)}}, X),
            (Triples{{id(0, 1), id(1, 1), id(2, 1)}}));
  // The rod net's terms: 8 bending stencils with zero rest curvature, 12 stretch stencils.
  Rod net(X, segs, 0.0);
  EXPECT_EQ(net.scene.element_sets[0].size(), 12);
  ASSERT_EQ(net.scene.element_sets[1].size(), 8);
  for (const RodBendRest& r : net.scene.element_sets[1].rest<RodBendRest>()) EXPECT_EQ(r.kb, 0.0);
}

}  // namespace
}  // namespace weft
