#include "core/error.hpp"
#include "energy/strain_limit.hpp"
#include "fd_util.hpp"

namespace weft {
namespace {

TEST(TriRest, AreaAndIdentityMetricAtRest) {
  std::mt19937 rng(1);
  for (int t = 0; t < 10; ++t) {
    const Vec9 X = test::random_rest_triangle(rng);
    const TriRest r = test::rest_of(X);
    const Vec3 e1 = X.segment<3>(3) - X.segment<3>(0), e2 = X.segment<3>(6) - X.segment<3>(0);
    EXPECT_NEAR(r.area, 0.5 * e1.cross(e2).norm(), 1e-14);
    const Mat32 F = deformation_gradient(X, r);
    EXPECT_LE((F.transpose() * F - Mat2::Identity()).cwiseAbs().maxCoeff(), 1e-12);
  }
}

TEST(TriRest, DegenerateThrows) {
  EXPECT_THROW(make_tri_rest(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)), InputError);
  EXPECT_THROW(make_tri_rest(Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(0, 1, 0)), InputError);
  EXPECT_THROW(make_tri_rest(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(NAN, 1, 0)), InputError);
  EXPECT_NO_THROW(make_tri_rest(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1e-3, 0)));
}

TEST(TriRest, DFMapsAreTheDerivativeOfF) {
  std::mt19937 rng(2);
  const Vec9 X = test::random_rest_triangle(rng);
  const TriRest r = test::rest_of(X);
  // psi(F) = <A, F> + 1/2 vec(F)^T M vec(F): gradient and Hessian through the maps.
  Mat32 A = Mat32::Random();
  Mat6 M = Mat6::Random();
  M = (M + M.transpose()).eval();
  auto f = [&](const Vec9& x, Vec9* g, Mat9* H) {
    const Mat32 F = deformation_gradient(x, r);
    const VecN<6> v = Eigen::Map<const VecN<6>>(F.data());
    const VecN<6> Mv = M * v;
    if (g) *g = grad_from_dF(A + Eigen::Map<const Mat32>(Mv.data()), r);
    if (H) *H = hess_from_dF(M, r);
    return (A.cwiseProduct(F)).sum() + 0.5 * v.dot(Mv);
  };
  test::check_fd<9>(f, Vec9::Random());
}

TEST(SingularValues, UniformStretchAndKnownValues) {
  std::mt19937 rng(3);
  for (double s : {0.3, 1.0, 1.05, 4.0}) {
    const Vec9 X = test::random_rest_triangle(rng);
    const TriRest r = test::rest_of(X);
    const Vec2 sv = singular_values(deformation_gradient(s * X + Vec9::Constant(0.7), r));
    EXPECT_NEAR(sv(0), s, 1e-12 * s);
    EXPECT_NEAR(sv(1), s, 1e-12 * s);
    EXPECT_NEAR(max_singular_value(s * X, r), s, 1e-12 * s);
  }
  for (int t = 0; t < 20; ++t) {
    std::uniform_real_distribution<double> u(0.0, 3.0);
    double a = u(rng), b = u(rng);
    if (a < b) std::swap(a, b);
    const Vec2 sv = singular_values(test::F_with_singular_values(a, b, rng));
    EXPECT_NEAR(sv(0), a, 1e-12 * a);
    EXPECT_NEAR(sv(1), b, 1e-11 * a);
  }
  // Rank one and zero.
  Mat32 F = Mat32::Zero();
  F.col(0) = Vec3(1, 2, 2);
  F.col(1) = 2.0 * F.col(0);
  EXPECT_NEAR(singular_values(F)(0), 3.0 * std::sqrt(5.0), 1e-12);
  EXPECT_EQ(singular_values(F)(1), 0.0);
  EXPECT_EQ(singular_values(Mat32::Zero())(0), 0.0);
}

}  // namespace
}  // namespace weft
