// Checks common to every membrane kernel (same signature as membrane_neo_hookean).
#pragma once
#include "energy/membrane.hpp"
#include "energy/psd.hpp"
#include "fd_util.hpp"

namespace weft::test {

using MembraneKernel = double (*)(const Vec9&, const TriRest&, const MembraneParams&, Vec9*, Mat9*,
                                  bool);

inline const MembraneParams kMembrane{2.0e3, 5.0e3, 1e-3};

// Random deformed configuration: random rest triangle, then x = A X + noise with A a
// random 3x3 map near a rotation times stretch (areas stay well away from 0).
inline Vec9 random_deformed(const Vec9& X, std::mt19937& rng, double amount) {
  Mat3 A = random_rotation(rng);
  std::uniform_real_distribution<double> u(-amount, amount);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A(i, j) += u(rng);
  Vec9 x;
  for (int a = 0; a < 3; ++a) x.segment<3>(3 * a) = A * X.segment<3>(3 * a) + random_vec(rng, 0.1 * amount);
  return x;
}

inline void check_membrane_fd(MembraneKernel kernel, unsigned seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec9 X = random_rest_triangle(rng);
    const TriRest r = rest_of(X);
    const Vec9 x = random_deformed(X, rng, 0.4);
    const double J = deformation_gradient(x, r).col(0).cross(deformation_gradient(x, r).col(1)).norm();
    if (J < 0.2) continue;  // FD of ln J is poorly conditioned near collapse
    SCOPED_TRACE("trial " + std::to_string(trial));
    check_fd<9>([&](const Vec9& y, Vec9* g, Mat9* H) { return kernel(y, r, kMembrane, g, H, false); },
                x);
  }
}

inline void check_membrane_equal_singular_values_fd(MembraneKernel kernel, unsigned seed) {
  std::mt19937 rng(seed);
  for (double s : {0.6, 1.0, 1.3}) {
    const Vec9 X = random_rest_triangle(rng);
    const TriRest r = rest_of(X);
    const Vec9 x = positions_from_F(F_with_singular_values(s, s, rng), r, random_vec(rng));
    // s = 1 is the rest state (g = 0): gradient errors relative to 1e-3 mu V.
    const double floor = 1e-3 * kMembrane.mu * r.area * kMembrane.thickness;
    check_fd<9>([&](const Vec9& y, Vec9* g, Mat9* H) { return kernel(y, r, kMembrane, g, H, false); },
                x, 1e-6, 1e-5, floor);
  }
}

inline void check_membrane_rest(MembraneKernel kernel, unsigned seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 10; ++trial) {
    const Vec9 X = random_rest_triangle(rng);
    const TriRest r = rest_of(X);
    // Rest shape moved rigidly: still zero energy and zero force.
    const Mat3 R = random_rotation(rng);
    const Vec3 t = random_vec(rng, 5.0);
    Vec9 x;
    for (int a = 0; a < 3; ++a) x.segment<3>(3 * a) = R * X.segment<3>(3 * a) + t;
    Vec9 g;
    Mat9 H, Hp;
    const double e = kernel(x, r, kMembrane, &g, &H, false);
    kernel(x, r, kMembrane, nullptr, &Hp, true);
    EXPECT_NEAR(e, 0.0, 1e-12 * kMembrane.mu * r.area * kMembrane.thickness);
    EXPECT_LE(g.cwiseAbs().maxCoeff(), 1e-10 * kMembrane.mu * r.area * kMembrane.thickness);
    // At rest the Hessian is PSD: projection must not change it.
    EXPECT_LE((H - Hp).cwiseAbs().maxCoeff(), 1e-10 * H.cwiseAbs().maxCoeff());
    EXPECT_GE(min_eig_ratio<9>(H), -1e-10);
  }
}

inline void check_membrane_rotation_invariance(MembraneKernel kernel, unsigned seed) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 10; ++trial) {
    const Vec9 X = random_rest_triangle(rng);
    const TriRest r = rest_of(X);
    const Vec9 x = random_deformed(X, rng, 0.3);
    const Mat3 R = random_rotation(rng);
    const Vec3 t = random_vec(rng, 3.0);
    Vec9 xr;
    for (int a = 0; a < 3; ++a) xr.segment<3>(3 * a) = R * x.segment<3>(3 * a) + t;
    Vec9 g, gr;
    const double e = kernel(x, r, kMembrane, &g, nullptr, false);
    const double er = kernel(xr, r, kMembrane, &gr, nullptr, false);
    EXPECT_NEAR(e, er, 1e-10 * std::abs(e));
    for (int a = 0; a < 3; ++a)
      EXPECT_LE((R * g.segment<3>(3 * a) - gr.segment<3>(3 * a)).norm(), 1e-9 * g.norm());
  }
}

// The analytic F-space projection must equal a brute-force eigenvalue clamp of the 6x6
// d2psi/dF2 (recovered from the exact 9x9 through the constant dF/dx), mapped to x-space.
inline void check_membrane_projection(MembraneKernel kernel, unsigned seed) {
  std::mt19937 rng(seed);
  int projected = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const Vec9 X = random_rest_triangle(rng);
    const TriRest r = rest_of(X);
    const Vec9 x = random_deformed(X, rng, 0.7);
    Mat9 H, Hp;
    if (!std::isfinite(kernel(x, r, kMembrane, nullptr, &H, false))) continue;
    kernel(x, r, kMembrane, nullptr, &Hp, true);
    EXPECT_GE(min_eig_ratio<9>(Hp), -1e-8);
    // B^T (9x6): column k = dF/dx^T applied to the k-th unit direction in F.
    Eigen::Matrix<double, 9, 6> Bt;
    for (int k = 0; k < 6; ++k) {
      Mat32 E = Mat32::Zero();
      E(k % 3, k / 3) = 1.0;
      Bt.col(k) = grad_from_dF(E, r);
    }
    const Eigen::Matrix<double, 6, 9> P = (Bt.transpose() * Bt).inverse() * Bt.transpose();
    Mat6 HF = P * H * P.transpose();
    HF = 0.5 * (HF + HF.transpose());
    if (project_psd<6>(HF)) ++projected;
    const Mat9 Href = hess_from_dF(HF, r);
    EXPECT_LE((Href - Hp).cwiseAbs().maxCoeff(), 1e-8 * H.cwiseAbs().maxCoeff());
  }
  EXPECT_GT(projected, 0);  // the test configurations do exercise the clamp
}

}  // namespace weft::test
