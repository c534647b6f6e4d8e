// Orthotropic membrane with per-direction strain limits (C-IPC sec. 4.2): derivatives,
// the linear orthotropic stiffness at rest, the barriers of eq. 10 per direction, the
// material-direction helpers and the registered term.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "energy/membrane_orthotropic.hpp"
#include "energy/strain_limit.hpp"
#include "energy/warp_direction.hpp"
#include "fd_util.hpp"
#include "term_util.hpp"

namespace weft {
namespace {

// Cotton-like moduli (Pa) and limits: warp 1.05, weft 1.2 (stretch), shear |E12| < 0.1.
OrthotropicParams params(bool limits = true) {
  OrthotropicParams p{3.0e6, 1.0e6, 0.4e6, 0.2e6, 1e-3, 0, 0, 0};
  if (limits) {
    p.m11 = green_strain_of_stretch(1.05);
    p.m22 = green_strain_of_stretch(1.2);
    p.m12 = 0.1;
  }
  return p;
}

// A rest triangle in a tilted plane with a warp axis at an angle to its edges.
struct OrthoTri {
  Vec9 X;
  Vec3 warp, weft, n;
  TriRest r;
  explicit OrthoTri(std::mt19937& rng) {
    X = test::random_rest_triangle(rng);
    const Vec3 X0 = X.segment<3>(0), X1 = X.segment<3>(3), X2 = X.segment<3>(6);
    warp = warp_in_triangle(X0, X1, X2, Vec3(1, 0.3, -0.2));
    n = (X1 - X0).cross(X2 - X0).normalized();
    weft = n.cross(warp);
    r = make_aligned_tri_rest(X0, X1, X2, warp);
  }
  // x = A X with A = identity + the given in-plane strain map expressed in (warp, weft),
  // rotated by R, so the aligned deformation is exactly Gm = [[a, b], [c, d]] columns.
  Vec9 deformed(const Mat2& Fm, const Mat3& R) const {
    Mat32 D;
    D << warp, weft;
    const Mat3 A = R * (D * Fm * D.transpose() + n * n.transpose());
    Vec9 x;
    for (int a = 0; a < 3; ++a) x.segment<3>(3 * a) = A * X.segment<3>(3 * a);
    return x;
  }
};

Mat2 diag2(double a, double b) { return Vec2(a, b).asDiagonal(); }

TEST(WarpDirection, ProjectionFallbackAndUv) {
  const Vec3 X0(0, 0, 0), X1(1, 0, 0), X2(0, 0, 1);  // x-z plane, normal -y
  EXPECT_NEAR((warp_in_triangle(X0, X1, X2, Vec3(1, 5, 1)) - Vec3(1, 0, 1).normalized()).norm(), 0, 1e-15);
  EXPECT_NEAR((warp_in_triangle(X0, X1, X2, Vec3(0, 2, 0)) - Vec3(1, 0, 0)).norm(), 0, 1e-15);  // normal axis: edge
  EXPECT_NEAR((warp_in_triangle(X0, X2, X1, Vec3(0, 0, 0)) - Vec3(0, 0, 1)).norm(), 0, 1e-15);  // zero axis: edge
  // Texture coordinates: uv = rest coordinates rotated by 30 degrees, so u runs along
  // (cos 30, 0, -sin 30) in 3D ... check against the affine map directly.
  const double c = std::cos(M_PI / 6), s = std::sin(M_PI / 6);
  auto uv = [&](const Vec3& p) { return Vec2(c * p.x() - s * p.z(), s * p.x() + c * p.z()); };
  const Vec3 w = warp_from_uv(X0, X1, Vec3(0.3, 0, 0.8), uv(X0), uv(X1), uv(Vec3(0.3, 0, 0.8)));
  EXPECT_NEAR((w - Vec3(c, 0, -s)).norm(), 0, 1e-14);
  EXPECT_THROW(warp_from_uv(X0, X1, X2, Vec2(0, 0), Vec2(1, 1), Vec2(2, 2)), InputError);
}

TEST(Orthotropic, AlignedStrainOfWarpStretch) {
  std::mt19937 rng(41);
  const OrthoTri su(rng);
  const Mat3 R = test::random_rotation(rng);
  const Vec3 E = aligned_green_strain(su.deformed(diag2(1.04, 1.0), R), su.r);
  EXPECT_NEAR(E(0), 0.5 * (1.04 * 1.04 - 1), 1e-14);
  EXPECT_NEAR(E(1), 0.0, 1e-14);
  EXPECT_NEAR(E(2), 0.0, 1e-14);
  Mat2 shear;
  shear << 1, 0.1, 0, 1;  // weft column gets 0.1 warp: E12 = 0.05, E22 = 0.005
  const Vec3 Es = aligned_green_strain(su.deformed(shear, R), su.r);
  EXPECT_NEAR(Es(2), 0.05, 1e-14);
  EXPECT_NEAR(Es(1), 0.005, 1e-14);
}

TEST(Orthotropic, FiniteDifferences) {
  std::mt19937 rng(42);
  for (bool limits : {false, true}) {
    for (int trial = 0; trial < 20; ++trial) {
      const OrthoTri su(rng);
      std::uniform_real_distribution<double> u(-0.04, 0.04);
      Mat2 Fm;
      Fm << 1 + u(rng), u(rng), u(rng), 1 + 1.5 * u(rng);
      const Vec9 x = su.deformed(Fm, test::random_rotation(rng));
      const OrthotropicParams p = params(limits);
      ASSERT_TRUE(orthotropic_feasible(aligned_green_strain(x, su.r), p));
      SCOPED_TRACE("trial " + std::to_string(trial) + (limits ? " limited" : " linear"));
      test::check_fd<9>([&](const Vec9& y, Vec9* g, Mat9* H) { return membrane_orthotropic(y, su.r, p, g, H, false); },
                        x, 1e-7, 1e-5);
    }
  }
}

// Close to each limit, where the barrier is steep, and across E = 0 (the tension-only
// branches join there).
TEST(Orthotropic, FiniteDifferencesNearLimitsAndAtZero) {
  std::mt19937 rng(43);
  const OrthoTri su(rng);
  const OrthotropicParams p = params();
  const Mat3 R = test::random_rotation(rng);
  const double sw = std::sqrt(1 + 2 * p.m11 * 0.999), sf = std::sqrt(1 + 2 * p.m22 * 0.999);
  Mat2 sh;
  sh << 1, 0.199, 0, 1;  // E12 = 0.0995 (limit 0.1)
  for (const Mat2& Fm : {diag2(sw, 1.0), diag2(1.0, sf), sh, diag2(1.0, 1.0), diag2(1.0 + 1e-4, 1.0 - 1e-4)}) {
    SCOPED_TRACE(::testing::Message() << Fm);
    test::check_fd<9>([&](const Vec9& y, Vec9* g, Mat9* H) { return membrane_orthotropic(y, su.r, p, g, H, false); },
                      su.deformed(Fm, R), 1e-9, 1e-4, 1e-3 * p.a11 * su.r.area * p.thickness);
  }
}

// At rest: zero energy and gradient, and the Hessian is the linear orthotropic stiffness
// u^T H u = V [a11 e11^2 + a22 e22^2 + 2 a12 e11 e22 + 2 g12 e12^2] with e the linearised
// aligned strain of u (e11 = d1 . du/dd1, e22 = d2 . du/dd2, e12 = (d1 . du/dd2 + d2 . du/dd1)/2);
// the barriers change nothing there.
TEST(Orthotropic, RestIsLinearOrthotropic) {
  std::mt19937 rng(44);
  for (bool limits : {false, true}) {
    const OrthoTri su(rng);
    const OrthotropicParams p = params(limits);
    const Mat3 R = test::random_rotation(rng);
    const Vec9 x = su.deformed(Mat2::Identity(), R);
    Vec9 g;
    Mat9 H;
    const double V = su.r.area * p.thickness;
    EXPECT_NEAR(membrane_orthotropic(x, su.r, p, &g, &H, true), 0.0, 1e-20);
    EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-9 * p.a11 * V);
    for (int t = 0; t < 5; ++t) {
      Vec9 u;
      u << test::random_vec(rng), test::random_vec(rng), test::random_vec(rng);
      const Mat32 Gu = deformation_gradient(u, su.r);  // [du/dd1, du/dd2]
      const Vec3 d1 = R * su.warp, d2 = R * su.weft;
      const double e11 = d1.dot(Gu.col(0)), e22 = d2.dot(Gu.col(1)), e12 = 0.5 * (d1.dot(Gu.col(1)) + d2.dot(Gu.col(0)));
      const double expect = V * (p.a11 * e11 * e11 + p.a22 * e22 * e22 + 2 * p.a12 * e11 * e22 + 2 * p.g12 * e12 * e12);
      EXPECT_NEAR(u.dot(H * u), expect, 1e-9 * std::abs(expect));
    }
  }
}

// Uniaxial stretch s along warp (E11 = (s^2-1)/2, E22 = E12 = 0), by hand:
// V a11/2 (-m^2 ln(1 - E11^2/m^2)) with the limit, V a11/2 E11^2 without.
TEST(Orthotropic, UniaxialWarpStretchByHand) {
  std::mt19937 rng(45);
  const OrthoTri su(rng);
  const OrthotropicParams p = params(), q = params(false);
  const double V = su.r.area * p.thickness, m = p.m11;
  for (double s : {1.01, 1.03, 1.049}) {
    const Vec9 x = su.deformed(diag2(s, 1.0), Mat3::Identity());
    const double E = 0.5 * (s * s - 1);
    EXPECT_NEAR(membrane_orthotropic(x, su.r, p, nullptr, nullptr, false),
                V * 0.5 * p.a11 * (-m * m * std::log(1 - E * E / (m * m))), 1e-10 * V * p.a11 * E * E);
    EXPECT_NEAR(membrane_orthotropic(x, su.r, q, nullptr, nullptr, false), V * 0.5 * p.a11 * E * E,
                1e-10 * V * p.a11 * E * E);
  }
}

// Each limit is +inf exactly at its own threshold, and only there: stretching along weft
// past the warp limit (1.05 < 1.1 < 1.2) is finite; compression is unlimited along warp
// and weft (the barrier is 0 there: the energy equals the unlimited model's).
TEST(Orthotropic, PerDirectionBarriers) {
  std::mt19937 rng(46);
  const OrthoTri su(rng);
  const OrthotropicParams p = params(), lin = params(false);
  const Mat3 R = test::random_rotation(rng);
  auto energy = [&](const Mat2& Fm, const OrthotropicParams& pp) {
    return membrane_orthotropic(su.deformed(Fm, R), su.r, pp, nullptr, nullptr, false);
  };
  auto feasible = [&](const Mat2& Fm) { return orthotropic_feasible(aligned_green_strain(su.deformed(Fm, R), su.r), p); };
  const double eps = 1e-9;
  // Warp: finite below 1.05, +inf at and beyond.
  EXPECT_TRUE(std::isfinite(energy(diag2(1.05 - eps, 1), p)));
  EXPECT_TRUE(std::isinf(energy(diag2(1.05 + eps, 1), p)));
  EXPECT_FALSE(feasible(diag2(1.05 + eps, 1)));
  EXPECT_TRUE(feasible(diag2(1.05 - eps, 1)));
  // Weft: 1.1 (past the warp limit) is fine, 1.2 is not.
  EXPECT_TRUE(std::isfinite(energy(diag2(1, 1.1), p)));
  EXPECT_TRUE(feasible(diag2(1, 1.1)));
  EXPECT_FALSE(feasible(diag2(1.1, 1)));
  EXPECT_TRUE(std::isfinite(energy(diag2(1, 1.2 - eps), p)));
  EXPECT_TRUE(std::isinf(energy(diag2(1, 1.2 + eps), p)));
  // Shear, both signs: E12 = 0.5 * (weft column's warp component).
  for (double sign : {1.0, -1.0}) {
    Mat2 in, out;
    in << 1, sign * (0.2 - 1e-6), 0, 1;
    out << 1, sign * (0.2 + 1e-6), 0, 1;
    EXPECT_TRUE(std::isfinite(energy(in, p)));
    EXPECT_TRUE(std::isinf(energy(out, p)));
    EXPECT_FALSE(feasible(out));
  }
  // The barrier grows towards each limit: ratio to the linear energy increases.
  EXPECT_GT(energy(diag2(1.049, 1), p) / energy(diag2(1.049, 1), lin), energy(diag2(1.03, 1), p) / energy(diag2(1.03, 1), lin));
  EXPECT_GT(energy(diag2(1.03, 1), p), energy(diag2(1.03, 1), lin));
  // Compression along warp and weft (no shear): exactly the linear model.
  for (const Mat2& Fm : {diag2(0.8, 1.0), diag2(1.0, 0.7), diag2(0.9, 0.9)})
    EXPECT_EQ(energy(Fm, p), energy(Fm, lin));
  // No limit set: never infinite.
  EXPECT_TRUE(std::isfinite(energy(diag2(1.5, 1.5), lin)));
}

TEST(Orthotropic, ProjectedHessianIsPsdAndExactWherePsd) {
  std::mt19937 rng(47);
  int clamped = 0, exact = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const OrthoTri su(rng);
    std::uniform_real_distribution<double> u(-0.2, 0.2);
    Mat2 Fm;
    Fm << 1 + 0.2 * u(rng), 0.4 * u(rng), 0.4 * u(rng), 1 + u(rng);
    const OrthotropicParams p = params();
    const Vec9 x = su.deformed(Fm, test::random_rotation(rng));
    if (!orthotropic_feasible(aligned_green_strain(x, su.r), p)) continue;
    Vec9 g;
    Mat9 H, Hp;
    membrane_orthotropic(x, su.r, p, &g, &H, false);
    membrane_orthotropic(x, su.r, p, &g, &Hp, true);
    EXPECT_GE(test::min_eig_ratio<9>(Hp), -1e-12);
    if (test::min_eig_ratio<9>(H) > -1e-12) {
      ++exact;
      EXPECT_LE((H - Hp).cwiseAbs().maxCoeff(), 1e-10 * H.cwiseAbs().maxCoeff());
    } else {
      ++clamped;
    }
  }
  EXPECT_GT(clamped, 0);
  EXPECT_GT(exact, 0);
}

// The registered term over a strip: sums equal the kernel's, feasibility per direction,
// rest data (aligned frame, warp) from the material.
TEST(Orthotropic, RegisteredTerm) {
  ObjectSpec spec;
  spec.name = "cloth";
  spec.kind = ObjectKind::Shell;
  spec.material.model = "orthotropic";
  spec.material.thickness = 1e-3;
  spec.material.a11 = 3e6;
  spec.material.a22 = 1e6;
  spec.material.a12 = 0.4e6;
  spec.material.g12 = 0.2e6;
  spec.material.aniso_limit.warp = 1.05;
  spec.material.aniso_limit.weft = 1.2;
  spec.material.aniso_limit.shear = 0.1;
  spec.material.aniso_limit.warp_direction = Vec3(0, 0, 2);  // warp along z
  std::vector<Vec3> X;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) X.push_back(Vec3(0.1 * i, 0.0, 0.1 * j));
  std::vector<Tri> tris;
  for (int i = 0; i < 3; ++i) {
    tris.push_back({2 * i, 2 * i + 2, 2 * i + 1});
    tris.push_back({2 * i + 1, 2 * i + 2, 2 * i + 3});
  }
  const std::vector<std::array<int, 4>> hinges;
  const std::vector<Edge> segments;
  const std::vector<std::array<int, 4>> tets;
  const ObjectStencils os{0, spec, X, tris, hinges, segments, tets};
  test::TermScene ts;
  ts.build(os, static_cast<int>(X.size()));
  ASSERT_EQ(ts.terms.size(), 1u);  // hinge_bending serves every shell model too, but no hinges are given
  const ElementSet& set = ts.scene.element_sets[0];
  ASSERT_EQ(set.size(), static_cast<int>(tris.size()));
  for (int t = 0; t < set.size(); ++t) EXPECT_TRUE(std::equal(tris[t].begin(), tris[t].end(), set.stencil(t)));
  const std::vector<OrthotropicRest>& rest = set.rest<OrthotropicRest>();
  for (const OrthotropicRest& r : rest) {
    EXPECT_NEAR((r.warp - Vec3(0, 0, 1)).norm(), 0.0, 1e-15);
    EXPECT_DOUBLE_EQ(r.p.m11, green_strain_of_stretch(1.05));
    EXPECT_DOUBLE_EQ(r.p.m22, green_strain_of_stretch(1.2));
  }
  auto stretched = [&](double sx, double sz) {
    std::vector<double> x;
    for (const Vec3& q : X)
      for (double c : {sx * q.x(), 0.001 * std::sin(30 * q.x()), sz * q.z()}) x.push_back(c);
    return x;
  };
  // Along x = weft: 1.1 passes the warp limit, still feasible; along z = warp it is not.
  const std::vector<double> weft = stretched(1.1, 1.0), warp = stretched(1.0, 1.1);
  EXPECT_TRUE(ts.terms[0]->feasible(weft.data()));
  EXPECT_FALSE(ts.terms[0]->feasible(warp.data()));
  double acc = 0;
  EXPECT_FALSE(ts.terms[0]->add_energy(warp.data(), acc));
  acc = 0;
  ASSERT_TRUE(ts.terms[0]->add_energy(weft.data(), acc));
  double direct = 0, worst = 0;
  const int n = static_cast<int>(X.size());
  Eigen::VectorXd g_ref = Eigen::VectorXd::Zero(3 * n);
  for (size_t k = 0; k < tris.size(); ++k) {
    Vec9 xe, g;
    Mat9 H;
    for (int a = 0; a < 3; ++a) xe.segment<3>(3 * a) = Eigen::Map<const Vec3>(&weft[3 * tris[k][a]]);
    direct += membrane_orthotropic(xe, rest[k].tri, rest[k].p, &g, &H, true);
    for (int a = 0; a < 3; ++a) g_ref.segment<3>(3 * tris[k][a]) += g.segment<3>(3 * a);
    worst = std::max(worst, max_singular_value(xe, rest[k].tri));
  }
  EXPECT_EQ(acc, direct);
  std::vector<int> gid(n);
  for (int v = 0; v < n; ++v) gid[v] = v;
  std::vector<double> g(3 * n, 0.0);
  test::DenseSink sink(n, gid.data(), g.data());
  double e = 0;
  ts.terms[0]->assemble(weft.data(), 1.0, e, sink);
  EXPECT_EQ(e, direct);
  EXPECT_LE((Eigen::Map<Eigen::VectorXd>(g.data(), 3 * n) - g_ref).lpNorm<Eigen::Infinity>(),
            1e-12 * g_ref.lpNorm<Eigen::Infinity>());
  EXPECT_NEAR(ts.terms[0]->max_strain(weft.data()), 1.1, 1e-3);
  EXPECT_EQ(ts.terms[0]->max_strain(weft.data()), worst);
  EXPECT_EQ(ts.terms[0]->stiffness(), nullptr);

  // A stretch limit <= 1 is an input error naming the object and key.
  spec.material.aniso_limit.weft = 0.9;
  ElementSet bad;
  try {
    set.term->build(os, bad);
    FAIL() << "no error";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("object 'cloth': strain_limit.weft must be a stretch ratio > 1"),
              std::string::npos)
        << err.what();
  }
}

}  // namespace
}  // namespace weft
