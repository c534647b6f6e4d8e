#include "energy/isotropic.hpp"

#include <algorithm>
#include <cmath>

#include "energy/psd.hpp"

namespace weft {

Svd32 svd32(const Mat32& F) {
  Svd32 r;
  const Vec3 f1 = F.col(0), f2 = F.col(1);
  const Vec3 cr = f1.cross(f2);
  const double J = cr.norm();
  const SymEig2 e = sym_eig2(f1.squaredNorm(), f1.dot(f2), f2.squaredNorm());
  r.V = e.vecs;
  const double s1 = std::sqrt(std::max(e.values(0), 0.0));
  // s2 from det C = |f1 x f2|^2: no cancellation when F is nearly rank one.
  r.s << s1, (s1 > 0.0 ? J / s1 : 0.0);
  r.J = J;
  Vec3 u1 = F * r.V.col(0);
  const double nu1 = u1.norm();
  u1 = nu1 > 0.0 ? Vec3(u1 / nu1) : Vec3::UnitX();
  Vec3 n = J > 0.0 ? Vec3(cr / J) : Vec3::Zero();
  n -= n.dot(u1) * u1;  // re-orthogonalise (cr loses digits when f1 ~ f2)
  double nn = n.norm();
  if (!(nn > 0.5)) {  // collapsed triangle: any unit normal to u1 will do
    n = std::abs(u1.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
    n -= n.dot(u1) * u1;
    nn = n.norm();
  }
  r.n = n / nn;
  r.U.col(0) = u1;
  r.U.col(1) = r.n.cross(u1);  // F v2 = s2 (n x u1) since det V = +1
  return r;
}

namespace {

// grad_from_dF of the rank-one direction u w^T: vertex a gets u * (c w)_a.
inline Vec9 kron(const Vec3& beta, const Vec3& u) {
  Vec9 q;
  q << beta(0) * u, beta(1) * u, beta(2) * u;
  return q;
}

// H = Q diag(lam) Q^T over the 6 closed-form modes (b1 = c v1, b2 = c v2; hs: the
// eigensystem of the 2x2 scaling block in the basis kron(b_j, u_j); lam: its 2 eigenvalues,
// then sym, rot, out1, out2), block by block. Vertex a's part of every mode lies in the
// frame (u1, u2, n) with coefficients from b1, b2 (scaling: b1a u1, b2a u2 mixed by hs;
// sym / rot: (b2a u1 +- b1a u2) / sqrt 2; out of plane: b1a n, b2a n), so block (a, b) is
// U K_ab U^T with the 3x3 K_ab (S = hs diag(lam0, lam1) hs^T, t / o = (lam_sym +- lam_rot) / 2):
//   K00 = b1a b1b S11 + b2a b2b t,   K01 = b1a b2b S12 + b2a b1b o,   K22 = b1a b1b lam4 + b2a b2b lam5,
//   K11 = b2a b2b S22 + b1a b1b t,   K10 = b2a b1b S12 + b1a b2b o,   (K02 = K12 = 0):
// five weighted outer products of the frame's vectors per block, half the flops of the
// 9x6 product, and the lower blocks as transposes.
void assemble_modes(const Svd32& svd, const Vec3& b1, const Vec3& b2, const SymEig2& hs, const VecN<6>& lam, Mat9* H) {
  const Vec3 u1 = svd.U.col(0), u2 = svd.U.col(1), n = svd.n;
  const double h00 = hs.vecs(0, 0), h01 = hs.vecs(0, 1), h10 = hs.vecs(1, 0), h11 = hs.vecs(1, 1);
  const double S11 = lam(0) * h00 * h00 + lam(1) * h01 * h01;
  const double S12 = lam(0) * h00 * h10 + lam(1) * h01 * h11;
  const double S22 = lam(0) * h10 * h10 + lam(1) * h11 * h11;
  const double t = 0.5 * (lam(2) + lam(3)), o = 0.5 * (lam(2) - lam(3));
  double P11[9], P22[9], P12[9], P21[9], Pnn[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      P11[3 * i + j] = u1(i) * u1(j);
      P22[3 * i + j] = u2(i) * u2(j);
      P12[3 * i + j] = u1(i) * u2(j);
      P21[3 * i + j] = u2(i) * u1(j);
      Pnn[3 * i + j] = n(i) * n(j);
    }
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      const double p11 = b1(a) * b1(b), p22 = b2(a) * b2(b), p12 = b1(a) * b2(b), p21 = b2(a) * b1(b);
      const double k00 = p11 * S11 + p22 * t, k11 = p22 * S22 + p11 * t;
      const double k01 = p12 * S12 + p21 * o, k10 = p21 * S12 + p12 * o;
      const double k22 = p11 * lam(4) + p22 * lam(5);
      double B[9];
      for (int e = 0; e < 9; ++e) B[e] = k00 * P11[e] + k11 * P22[e] + k01 * P12[e] + k10 * P21[e] + k22 * Pnn[e];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          (*H)(3 * a + i, 3 * b + j) = B[3 * i + j];
          if (a != b) (*H)(3 * b + j, 3 * a + i) = B[3 * i + j];
        }
    }
}

}  // namespace

void isotropic_grad_hess(const Svd32& svd, const IsoDerivs& d, double scale, const TriRest& r,
                         Vec9* g, Mat9* H, bool project) {
  const Eigen::Matrix<double, 3, 2> c = dF_coeffs(r);
  const Vec3 b1 = c * svd.V.col(0), b2 = c * svd.V.col(1);
  if (g) *g = scale * (kron(b1, d.d1 * svd.U.col(0)) + kron(b2, d.d2 * svd.U.col(1)));
  if (!H) return;
  const SymEig2 hs = sym_eig2(d.h11, d.h12, d.h22);
  VecN<6> lam;
  lam << hs.values(0), hs.values(1), d.l_sym, d.l_rot, d.l_out1, d.l_out2;
  if (project) lam = lam.cwiseMax(0.0);
  lam *= scale;
  assemble_modes(svd, b1, b2, hs, lam, H);
}

void isotropic_pair_grad_hess(const Svd32& svd, const IsoDerivs& a, const IsoDerivs& b, const TriRest& r, Vec9* g,
                              Mat9* H, bool project) {
  const Eigen::Matrix<double, 3, 2> c = dF_coeffs(r);
  const Vec3 b1 = c * svd.V.col(0), b2 = c * svd.V.col(1);
  if (g) *g = kron(b1, (a.d1 + b.d1) * svd.U.col(0)) + kron(b2, (a.d2 + b.d2) * svd.U.col(1));
  if (!H) return;
  // Each part's 2x2 scaling block and mode eigenvalues clamped on its own, then summed:
  // the sum of the two projected Hessians, in one 9x6 product.
  auto block = [project](const IsoDerivs& d, double& m11, double& m12, double& m22) {
    if (!project) {
      m11 = d.h11, m12 = d.h12, m22 = d.h22;
      return;
    }
    const SymEig2 e = sym_eig2(d.h11, d.h12, d.h22);
    if (e.values(1) >= 0.0) {
      m11 = d.h11, m12 = d.h12, m22 = d.h22;
      return;
    }
    const double l0 = std::max(e.values(0), 0.0);
    const Vec2 v = e.vecs.col(0);
    m11 = l0 * v(0) * v(0), m12 = l0 * v(0) * v(1), m22 = l0 * v(1) * v(1);
  };
  double a11, a12, a22, b11, b12, b22;
  block(a, a11, a12, a22);
  block(b, b11, b12, b22);
  const SymEig2 hs = sym_eig2(a11 + b11, a12 + b12, a22 + b22);
  auto clamp = [project](double l) { return project ? std::max(l, 0.0) : l; };
  VecN<6> lam;
  lam << hs.values(0), hs.values(1), clamp(a.l_sym) + clamp(b.l_sym), clamp(a.l_rot) + clamp(b.l_rot),
      clamp(a.l_out1) + clamp(b.l_out1), clamp(a.l_out2) + clamp(b.l_out2);
  if (project) lam.head<2>() = lam.head<2>().cwiseMax(0.0);  // round-off of a PSD sum
  assemble_modes(svd, b1, b2, hs, lam, H);
}

}  // namespace weft
