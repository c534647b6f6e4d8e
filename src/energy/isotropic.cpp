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

}  // namespace

void isotropic_grad_hess(const Svd32& svd, const IsoDerivs& d, double scale, const TriRest& r,
                         Vec9* g, Mat9* H, bool project) {
  const Eigen::Matrix<double, 3, 2> c = dF_coeffs(r);
  const Vec3 b1 = c * svd.V.col(0), b2 = c * svd.V.col(1);
  const Vec3 u1 = svd.U.col(0), u2 = svd.U.col(1);
  if (g) *g = scale * (kron(b1, d.d1 * u1) + kron(b2, d.d2 * u2));
  if (!H) return;
  const SymEig2 hs = sym_eig2(d.h11, d.h12, d.h22);
  Eigen::Matrix<double, 9, 6> Q;
  VecN<6> lam;
  const double is2 = std::sqrt(0.5);
  Q.col(0) = kron(b1, hs.vecs(0, 0) * u1) + kron(b2, hs.vecs(1, 0) * u2);
  Q.col(1) = kron(b1, hs.vecs(0, 1) * u1) + kron(b2, hs.vecs(1, 1) * u2);
  Q.col(2) = is2 * (kron(b2, u1) + kron(b1, u2));
  Q.col(3) = is2 * (kron(b1, u2) - kron(b2, u1));
  Q.col(4) = kron(b1, svd.n);
  Q.col(5) = kron(b2, svd.n);
  lam << hs.values(0), hs.values(1), d.l_sym, d.l_rot, d.l_out1, d.l_out2;
  if (project) lam = lam.cwiseMax(0.0);
  lam *= scale;
  const Eigen::Matrix<double, 9, 6> Ql = Q * lam.asDiagonal();
  H->noalias() = Ql.lazyProduct(Q.transpose());  // lazy: no GEMM packing at this size
}

}  // namespace weft
