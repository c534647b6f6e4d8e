// The energy-term interface (energy/term.hpp) against the kernels it wraps, and the
// registry's (kind, model) -> terms map.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/scene.hpp"
#include "energy/hinge_bending.hpp"
#include "energy/membrane_neo_hookean.hpp"
#include "energy/membrane_stvk.hpp"
#include "energy/registry.hpp"
#include "energy/strain_limit.hpp"
#include "term_util.hpp"

namespace weft {
namespace {

std::vector<std::string> names(const std::vector<const TermFactory*>& fs) {
  std::vector<std::string> out;
  for (const TermFactory* f : fs) out.push_back(f->name);
  return out;
}

TEST(Registry, TermsForKindAndModel) {
  using V = std::vector<std::string>;
  EXPECT_EQ(names(terms_for(ObjectKind::Shell, "neo_hookean")), (V{"membrane_neo_hookean", "hinge_bending"}));
  EXPECT_EQ(names(terms_for(ObjectKind::Shell, "stvk")), (V{"membrane_stvk", "hinge_bending"}));
  EXPECT_TRUE(terms_for(ObjectKind::Obstacle, "neo_hookean").empty());
  EXPECT_EQ(names(terms_for(ObjectKind::Rod, "neo_hookean")), (V{"rod_stretch", "rod_bending"}));  // any model
  EXPECT_EQ(names(terms_for(ObjectKind::Volume, "fixed_corotated")), (V{"volume_fixed_corotated"}));
  EXPECT_EQ(names(terms_for(ObjectKind::Volume, "neo_hookean")), (V{"volume_neo_hookean"}));
  EXPECT_TRUE(terms_for(ObjectKind::Volume, "stvk").empty());
  EXPECT_EQ(names(terms_for(ObjectKind::Shell, "orthotropic")), (V{"hinge_bending", "membrane_orthotropic"}));
  for (const TermFactory* f : term_registry()) {
    const std::string n = f->name;
    const int arity = n == "hinge_bending" || n.rfind("volume_", 0) == 0 || n == "spring_dihedral" ? 4
                      : n == "rod_stretch" || n.find("spring") != std::string::npos ? 2
                                                                                      : 3;
    EXPECT_EQ(f->arity, arity) << n;
  }
}

TEST(ObjectKind, ParsesCaseSpellings) {
  for (const char* s : {"shell", "rod", "particles", "volume", "rigid", "obstacle"}) {
    ASSERT_TRUE(parse_object_kind(s).has_value()) << s;
    EXPECT_STREQ(to_string(*parse_object_kind(s)), s);
  }
  EXPECT_FALSE(parse_object_kind("cloth").has_value());
}

// A strip of 2 x k quads (two triangles each) in the x-z plane, one shell object.
struct Strip {
  Scene scene;
  ObjectSpec spec;
  std::vector<Vec3> X;
  std::vector<Tri> tris;
  std::vector<std::array<int, 4>> hinges;
  std::vector<LocalStencils> local;
  std::vector<std::unique_ptr<EnergyTerm>> terms;

  explicit Strip(const std::string& model, double strain_limit) {
    const int nx = 6;  // vertices along x, 2 along z
    for (int i = 0; i < nx; ++i)
      for (int j = 0; j < 2; ++j) X.push_back(Vec3(0.1 * i, 0.0, 0.1 * j));
    for (int i = 0; i + 1 < nx; ++i) {
      const int a = 2 * i, b = 2 * i + 1, c = 2 * i + 2, d = 2 * i + 3;
      tris.push_back({a, c, b});
      tris.push_back({b, c, d});
      hinges.push_back({c, b, a, d});             // interior diagonal
      if (i + 2 < nx) hinges.push_back({c, d, b, c + 2});  // the edge to the next quad
    }
    spec.kind = ObjectKind::Shell;
    spec.material.model = model;
    spec.material.youngs = 8e5;
    spec.material.poisson = 0.3;
    spec.material.thickness = 1e-3;
    ObjectParams op;
    op.kind = ObjectKind::Shell;
    op.mu = 8e5 / (2 * 1.3);
    op.lambda = 8e5 * 0.3 / (1.3 * 0.4);
    op.stvk = model == "stvk";
    op.thickness = 1e-3;
    op.strain_limit = strain_limit;
    op.strain_threshold = 1.0;
    scene.objects.push_back(op);
    scene.spec.kappa_s = 2.5e3;
    scene.num_vertices = static_cast<int>(X.size());
    const std::vector<Edge> segments;
    const std::vector<std::array<int, 4>> tets;
    const ObjectStencils os{0, spec, X, tris, hinges, segments, tets};
    for (const TermFactory* f : terms_for(spec.kind, model)) {
      ElementSet set;
      set.term = f;
      set.arity = f->arity;
      f->build(os, set);
      scene.element_sets.push_back(std::move(set));
    }
    local.resize(scene.element_sets.size());  // every stencil, local ids = ids
    for (size_t s = 0; s < scene.element_sets.size(); ++s) {
      const ElementSet& set = scene.element_sets[s];
      for (int k = 0; k < set.size(); ++k) {
        local[s].element.push_back(k);
        local[s].local.insert(local[s].local.end(), set.stencil(k), set.stencil(k) + set.arity);
      }
    }
    for (size_t s = 0; s < scene.element_sets.size(); ++s)
      terms.push_back(scene.element_sets[s].term->make(scene, static_cast<int>(s), local[s]));
  }

  // Stretched along x by `stretch`, with a small out-of-plane wave so bending is active.
  std::vector<double> positions(double stretch) const {
    std::vector<double> x;
    for (const Vec3& p : X)
      for (double c : {stretch * p.x(), 0.01 * std::sin(20 * p.x()) + 0.003 * p.z(), p.z()}) x.push_back(c);
    return x;
  }
};

template <int N>
VecN<3 * N> gather(const std::vector<double>& x, const int* v) {
  VecN<3 * N> out;
  for (int a = 0; a < N; ++a) out.template segment<3>(3 * a) = Eigen::Map<const Vec3>(&x[3 * v[a]]);
  return out;
}

void check_against_kernels(const std::string& model) {
  SCOPED_TRACE(model);
  const double s_max = 1.1, scale = 0.25;
  Strip strip(model, s_max);
  ASSERT_EQ(strip.terms.size(), 2u);
  const std::vector<double> x = strip.positions(1.06);  // strain limit active, feasible
  const int n = strip.scene.num_vertices, kinematic = 3;
  const ObjectParams& op = strip.scene.objects[0];

  // Direct kernel calls, summed in the same order as the terms do.
  double direct = 0.0, direct_scaled = 0.0, worst = 0.0;
  Eigen::VectorXd g_ref = Eigen::VectorXd::Zero(3 * n);
  Eigen::MatrixXd H_ref = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  auto scatter = [&](int nv, const int* v, const Eigen::VectorXd& g, const Eigen::MatrixXd& H) {
    for (int a = 0; a < nv; ++a) {
      if (v[a] == kinematic) continue;
      g_ref.segment<3>(3 * v[a]) += scale * g.segment<3>(3 * a);
      for (int b = 0; b < nv; ++b)
        if (v[b] != kinematic) H_ref.block<3, 3>(3 * v[a], 3 * v[b]) += scale * H.block<3, 3>(3 * a, 3 * b);
    }
  };
  for (const Tri& t : strip.tris) {
    const Vec9 xe = gather<3>(x, t.data());
    const TriRest r = make_tri_rest(strip.X[t[0]], strip.X[t[1]], strip.X[t[2]]);
    const MembraneParams mp{op.mu, op.lambda, op.thickness};
    const StrainLimitParams sp{s_max, 1.0, 2.5e3, r.area * op.thickness};
    Vec9 g, gs;
    Mat9 H, Hs;
    const double em = model == "stvk" ? membrane_stvk(xe, r, mp, &g, &H, true) : membrane_neo_hookean(xe, r, mp, &g, &H, true);
    const double es = strain_limit(xe, r, sp, &gs, &Hs, true);
    direct += em;
    direct += es;
    direct_scaled += scale * (em + es);
    scatter(3, t.data(), g + gs, H + Hs);
    worst = std::max(worst, max_singular_value(xe, r));
  }
  const double kb = bending_stiffness(8e5, 0.3, 1e-3);
  for (const auto& h : strip.hinges) {
    const Vec12 xe = gather<4>(x, h.data());
    const HingeRest r = make_hinge_rest(strip.X[h[0]], strip.X[h[1]], strip.X[h[2]], strip.X[h[3]], kb);
    Vec12 g;
    Mat12 H;
    const double e = hinge_bending(xe, r, &g, &H, true);
    direct += e;
    direct_scaled += scale * e;
    scatter(4, h.data(), g, H);
  }

  double acc = 0.0;
  for (const auto& t : strip.terms) ASSERT_TRUE(t->add_energy(x.data(), acc));
  EXPECT_EQ(acc, direct);  // same kernels, same order: equal to the last bit

  std::vector<int> gid(n);
  for (int v = 0; v < n; ++v) gid[v] = v == kinematic ? -1 : v;
  std::vector<double> g(3 * n, 0.0);
  test::DenseSink sink(n, gid.data(), g.data());
  double e = 0.0;
  for (const auto& t : strip.terms) t->assemble(x.data(), scale, e, sink);
  EXPECT_EQ(e, direct_scaled);
  EXPECT_EQ(sink.sets[0], static_cast<int>(strip.tris.size()));
  EXPECT_EQ(sink.sets[1], static_cast<int>(strip.hinges.size()));
  EXPECT_LE((Eigen::Map<Eigen::VectorXd>(g.data(), 3 * n) - g_ref).lpNorm<Eigen::Infinity>(),
            1e-12 * g_ref.lpNorm<Eigen::Infinity>());
  EXPECT_LE((sink.H - H_ref).lpNorm<Eigen::Infinity>(), 1e-12 * H_ref.lpNorm<Eigen::Infinity>());
  EXPECT_TRUE(H_ref.isApprox(H_ref.transpose()));

  // Feasibility and the statistic: only the membrane term limits and measures strain.
  EXPECT_TRUE(strip.terms[0]->feasible(x.data()));
  EXPECT_EQ(strip.terms[0]->max_strain(x.data()), worst);
  EXPECT_EQ(strip.terms[1]->max_strain(x.data()), 0.0);
  const std::vector<double> past = strip.positions(1.12);
  EXPECT_FALSE(strip.terms[0]->feasible(past.data()));
  EXPECT_TRUE(strip.terms[1]->feasible(past.data()));
  double acc2 = 0.0;
  EXPECT_FALSE(strip.terms[0]->add_energy(past.data(), acc2));

  // Adaptive stiffness: starts at spec.kappa_s; doubles after two updates close to the limit.
  ASSERT_NE(strip.terms[0]->stiffness(), nullptr);
  EXPECT_EQ(strip.terms[1]->stiffness(), nullptr);
  std::vector<double>& kappa = *strip.terms[0]->stiffness();
  EXPECT_EQ(kappa, std::vector<double>(strip.tris.size(), 2.5e3));
  const std::vector<double> near = strip.positions(1.0999999);
  strip.terms[0]->begin_step();
  strip.terms[0]->update_stiffness(near.data());
  EXPECT_EQ(kappa[0], 2.5e3);
  strip.terms[0]->update_stiffness(near.data());
  EXPECT_EQ(kappa[0], 5e3);
}

TEST(EnergyTerms, NeoHookeanShellMatchesKernels) { check_against_kernels("neo_hookean"); }
TEST(EnergyTerms, StvkShellMatchesKernels) { check_against_kernels("stvk"); }

TEST(EnergyTerms, RestDataIsTyped) {
  Strip strip("neo_hookean", 0.0);
  EXPECT_EQ(strip.scene.element_sets[0].rest<TriRest>().size(), strip.tris.size());
  EXPECT_THROW(strip.scene.element_sets[0].rest<HingeRest>(), std::logic_error);
}

}  // namespace
}  // namespace weft
