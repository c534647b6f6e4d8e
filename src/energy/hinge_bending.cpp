#include "energy/hinge_bending.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "energy/psd.hpp"

namespace weft {

double bending_stiffness(double youngs, double poisson, double thickness) {
  if (!(youngs >= 0.0) || !(poisson > -1.0 && poisson <= 0.5) || !(thickness > 0.0))
    throw InputError("bending_stiffness: need E >= 0, -1 < nu <= 0.5, h > 0 (got E=" +
                     std::to_string(youngs) + ", nu=" + std::to_string(poisson) +
                     ", h=" + std::to_string(thickness) + ")");
  return youngs * thickness * thickness * thickness / (24.0 * (1.0 - poisson * poisson));
}

HingeRest make_hinge_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec3& X3,
                          double kb) {
  const Vec3 e = X1 - X0;
  const double le2 = e.squaredNorm();
  const double A1 = 0.5 * e.cross(X2 - X0).norm();
  const double A2 = 0.5 * e.cross(X3 - X0).norm();
  if (!(le2 > 0.0) || !(A1 > 1e-12 * le2) || !(A2 > 1e-12 * le2) || !std::isfinite(A1 + A2))
    throw InputError("degenerate rest hinge (edge^2 " + std::to_string(le2) + ", areas " +
                     std::to_string(A1) + ", " + std::to_string(A2) + ")");
  Vec12 X;
  X << X0, X1, X2, X3;
  return HingeRest{dihedral_angle(X), kb * 3.0 * le2 / (A1 + A2)};
}

namespace {

inline Mat3 skew(const Vec3& v) {
  Mat3 S;
  S << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return S;
}

}  // namespace

// Gradient (Bridson et al. 2003 / Wardetzky et al. 2007): for a wing with opposite vertex
// xo, p = xo - x0, m = e x p (|m| = 2 area, height h = |m|/|e|) and s = +1 for wing A,
// -1 for wing B (whose normal is -m):
//   dtheta/dxo = gW = -s |e| m / |m|^2   (= -nhat / h),
//   dtheta/dx0 += -(1 - t) gW, dtheta/dx1 += -t gW, t = p.e / |e|^2 (foot of the height).
// Hessian: differentiate these expressions (product rule), per wing:
//   d gW = -s [ (e_hat . de) m/|m|^2 + |e| (I - 2 mhat mhat^T) dm / |m|^2 ],
//   dm = -[p]x de + [e]x dp,  dt = (e.dp + p.de - 2 t e.de) / |e|^2.
double dihedral_angle(const Vec12& x, Vec12* grad, Mat12* hess) {
  const Vec3 x0 = x.segment<3>(0), x1 = x.segment<3>(3);
  const Vec3 e = x1 - x0;
  const Vec3 pA = x.segment<3>(6) - x0, pB = x.segment<3>(9) - x0;
  const Vec3 mA = e.cross(pA), mB = e.cross(pB);  // nA = mA, nB = -mB
  const double le2 = e.squaredNorm(), le = std::sqrt(le2);
  const double theta = std::atan2(-mA.cross(mB).dot(e) / (le > 0.0 ? le : 1.0), -mA.dot(mB));
  if (!grad && !hess) return theta;
  const double qA = mA.squaredNorm(), qB = mB.squaredNorm();
  if (!(le2 > 0.0) || !(qA > 0.0) || !(qB > 0.0)) {
    if (grad) grad->setZero();
    if (hess) hess->setZero();
    return theta;
  }
  if (!hess) {  // the gradient alone (the Gauss-Newton kernel): the loop's arithmetic below, without its Jacobians
    const Vec3 gA = (-le / qA) * mA, gB = (le / qB) * mB;
    const double tA = pA.dot(e) / le2, tB = pB.dot(e) / le2;
    Vec3 g0 = Vec3::Zero(), g1 = Vec3::Zero();
    g0 -= (1.0 - tA) * gA;
    g1 -= tA * gA;
    g0 -= (1.0 - tB) * gB;
    g1 -= tB * gB;
    *grad << g0, g1, gA, gB;
    return theta;
  }
  const Vec3 ehat = e / le;
  const Vec3* ps[2] = {&pA, &pB};
  const Vec3* ms[2] = {&mA, &mB};
  const double qs[2] = {qA, qB};
  const double sgn[2] = {1.0, -1.0};
  Vec12 gr = Vec12::Zero();
  if (hess) hess->setZero();
  const Mat3 Se = skew(e);
  for (int w = 0; w < 2; ++w) {
    const Vec3& p = *ps[w];
    const Vec3& m = *ms[w];
    const double q = qs[w], s = sgn[w];
    const int o = 6 + 3 * w;  // offset of the opposite vertex
    const Vec3 gW = (-s * le / q) * m;
    const double t = p.dot(e) / le2;
    gr.segment<3>(0) -= (1.0 - t) * gW;
    gr.segment<3>(3) -= t * gW;
    gr.segment<3>(o) += gW;
    if (!hess) continue;
    // Jacobians of gW and t with respect to (x0, x1, xo); the x0 ones follow from
    // translation invariance (they sum to zero).
    const Vec3 rv = (-s / q) * m;
    const Mat3 K = (-s * le / q) * (Mat3::Identity() - (2.0 / q) * m * m.transpose());
    Mat3 Dg[3];
    Dg[1] = rv * ehat.transpose() - K * skew(p);
    Dg[2] = K * Se;
    Dg[0] = -Dg[1] - Dg[2];
    Vec3 Dt[3];
    Dt[1] = (p - 2.0 * t * e) / le2;
    Dt[2] = e / le2;
    Dt[0] = -Dt[1] - Dt[2];
    const int col[3] = {0, 3, o};
    for (int b = 0; b < 3; ++b) {
      const int cb = col[b];
      hess->block<3, 3>(0, cb) += -(1.0 - t) * Dg[b] + gW * Dt[b].transpose();
      hess->block<3, 3>(3, cb) += -t * Dg[b] - gW * Dt[b].transpose();
      hess->block<3, 3>(o, cb) += Dg[b];
    }
  }
  if (grad) *grad = gr;
  if (hess) *hess = 0.5 * (*hess + hess->transpose());  // exact up to round-off
  return theta;
}

namespace {

// Exact PSD projection of a hinge Hessian. Its null space is known in closed form: the three
// translations and the axial stretch x_i += ((x_i - x0) . e_hat) e_hat (moving every vertex
// along the edge line with a coefficient affine in the foot-point parameter t leaves theta
// unchanged to second order; the gradient has no axial part). So project in an orthonormal
// basis Q (12x8) of the complement: same result as a 12x12 clamp, about 2x cheaper.
void project_hinge_exact(const Vec12& x, Mat12& H) {
  const Vec3 x0 = x.segment<3>(0);
  const Vec3 e = x.segment<3>(3) - x0;
  const double le2 = e.squaredNorm();
  if (!(le2 > 0.0)) {
    project_psd<12>(H);
    return;
  }
  const Vec3 ehat = e / std::sqrt(le2);
  const Vec3 t1 = ehat.unitOrthogonal(), t2 = ehat.cross(t1);
  // Orthonormal basis of R^4 minus constants (rows): translations drop out.
  Eigen::Matrix<double, 3, 4> Hm;
  Hm << 0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, -0.5, 0.5, -0.5, -0.5, 0.5;
  const Eigen::Vector4d s(0.0, 1.0, (x.segment<3>(6) - x0).dot(e) / le2,
                          (x.segment<3>(9) - x0).dot(e) / le2);  // axial stretch profile
  const Vec3 c = (Hm * s).normalized();
  const Vec3 p = c.unitOrthogonal(), q = c.cross(p);
  const Eigen::Vector4d ax[2] = {Hm.transpose() * p, Hm.transpose() * q};
  Eigen::Matrix<double, 12, 8> Q;
  for (int a = 0; a < 4; ++a) {
    for (int k = 0; k < 3; ++k) {
      Q.block<3, 1>(3 * a, k) = Hm(k, a) * t1;
      Q.block<3, 1>(3 * a, 3 + k) = Hm(k, a) * t2;
    }
    Q.block<3, 1>(3 * a, 6) = ax[0](a) * ehat;
    Q.block<3, 1>(3 * a, 7) = ax[1](a) * ehat;
  }
  // Lazy (coefficient-wise) products: for these sizes Eigen's GEMM path spends its time
  // packing operands.
  MatN<8> Hr = Q.transpose().lazyProduct(H).lazyProduct(Q);
  project_psd<8>(Hr);
  H.noalias() = Q.lazyProduct(Hr).lazyProduct(Q.transpose());
}

}  // namespace

double hinge_bending_gauss_newton(const Vec12& x, const HingeRest& r, double scale, Vec12& g, Mat12& H) {
  Vec12 gt;
  const double theta = dihedral_angle(x, &gt, nullptr);
  const double c = theta - r.theta0;
  const double e = r.weight * c * c;
  // As hinge_bending: g = (2 w c) gt, H = (2 w gt) gt^T (Eigen's outer product scales the
  // left factor first), then each times scale.
  const double gs = 2.0 * r.weight * c, w2 = 2.0 * r.weight;
  double v[12];
  for (int i = 0; i < 12; ++i) {
    g(i) = (gs * gt(i)) * scale;
    v[i] = w2 * gt(i);
  }
  for (int j = 0; j < 12; ++j)
    for (int i = 0; i < 12; ++i) H(i, j) = (v[i] * gt(j)) * scale;
  return scale * e;
}

double hinge_bending(const Vec12& x, const HingeRest& r, Vec12* g, Mat12* H, HingeHessian mode) {
  const bool need_hess_theta = H && mode != HingeHessian::GaussNewton;
  Vec12 gt;
  Mat12 Ht;
  const double theta = dihedral_angle(x, (g || H) ? &gt : nullptr, need_hess_theta ? &Ht : nullptr);
  const double c = theta - r.theta0;
  const double e = r.weight * c * c;
  if (g) *g = 2.0 * r.weight * c * gt;
  if (H) {
    *H = (2.0 * r.weight) * gt * gt.transpose();
    if (need_hess_theta && c != 0.0) {
      *H += (2.0 * r.weight * c) * Ht;
      if (mode == HingeHessian::ProjectedExact) project_hinge_exact(x, *H);
    }
  }
  return e;
}

}  // namespace weft
