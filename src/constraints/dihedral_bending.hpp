// Dihedral-angle bending constraint (PBD, 001 sec. 4.1 and appendix A; 003 sec. 3.2.2 eq. 4).
//
// Vertex order (as energy/hinge_bending.hpp): x0, x1 the shared edge e = x1 - x0; x2 the
// wing of triangle (x0, x1, x2), x3 the wing of triangle (x1, x0, x3). The paper's
// (p1, p2, p3, p4) are (x0, x1, x2, x3); its normals n1 = e x (x2 - x0) = nA and
// n2 = e x (x3 - x0) = -nB, with nA = e x (x2 - x0), nB = (x3 - x0) x e consistently oriented.
//
// The paper's C = acos(n1.n2) - phi0 measures the unsigned angle phi in [0, pi] between the
// normals: phi = pi for a flat hinge, phi = 0 for one folded shut. acos has a kink at both
// ends: flat cloth (the common rest state, phi0 = pi) sits exactly on it, where C = -|psi| is
// not differentiable, the appendix gradient is 0 * infinity (1 / sqrt(1 - d^2) with d = -1),
// and its direction flips whenever the cloth passes through flat.
// What we do instead: the same angle, signed and measured from flat,
//   psi = atan2(e^ . (nA x nB), nA . nB) in (-pi, pi],   acos(n1.n2) = pi - |psi|,
// psi > 0 when the wings fold away from their normals (a convex ridge), and
//   C = wrap(psi - psi0) into (-pi, pi].
// This equals the paper's C up to sign wherever psi and psi0 have the same sign, so the
// projection (invariant under C -> -C) is the paper's there, but C is smooth through flat
// (psi = 0) and its gradient there is finite: grad psi has the closed form
//   grad_2 = -|e| nA / |nA|^2,  grad_3 = -|e| nB / |nB|^2  (magnitude 1 / wing height),
//   grad_0 = -(1 - tA) grad_2 - (1 - tB) grad_3,  grad_1 = -tA grad_2 - tB grad_3,
//   tA = (x2 - x0).e / |e|^2, tB = (x3 - x0).e / |e|^2
// (the bending directions u_i of paper 002 sec. 11.1; the last two rows make the gradient
// translation and rotation free, so the projection conserves momentum). A hinge folded shut
// (psi = +-pi, phi = 0) is regular too: psi jumps by 2 pi there but the wrap keeps C
// continuous, so C is smooth everywhere except where the hinge stands exactly opposite its
// rest angle (psi - psi0 = +-pi), which no periodic angle avoids.
// Degenerate hinges (zero edge, zero-area wing) give C from atan2 and a zero gradient
// (the projection skips them).
#pragma once
#include <cmath>

#include "constraints/projection.hpp"

namespace weft {

struct DihedralRest {
  double psi0;  // signed rest angle, 0 = flat
};

// psi and (optionally) its gradient, formulas above. Inline (always): the PBD sweeps' inner
// loop. The sine part e^ . (nA x nB) uses (e x a) x (b x e) = -(nA . b) e (nA . e = 0), so
// e^ . (nA x nB) = -|e| (nA . b): one triple product instead of a third cross product and a
// division (the same angle; rounding differs in the last bits).
[[gnu::always_inline]] inline double signed_dihedral_angle(const Stencil3<4>& x, Stencil3<4>* grad) {
  const Vec3 e = x.col(1) - x.col(0);
  const Vec3 a = x.col(2) - x.col(0), b = x.col(3) - x.col(0);
  const Vec3 nA = e.cross(a), nB = b.cross(e);
  const double ee = e.squaredNorm();
  const double len = std::sqrt(ee);
  // 0.0 - (...): a zero sine part is +0 (atan2's branch at +-pi, as before).
  const double sin_part = 0.0 - len * nA.dot(b);
  const double psi = std::atan2(sin_part, nA.dot(nB));
  if (grad) {
    const double aa = nA.squaredNorm(), bb = nB.squaredNorm();
    if (ee > 0.0 && aa > 0.0 && bb > 0.0) {
      const Vec3 g2 = -len / aa * nA, g3 = -len / bb * nB;
      const double inv_ee = 1.0 / ee;
      const double tA = a.dot(e) * inv_ee, tB = b.dot(e) * inv_ee;
      grad->col(0) = -(1.0 - tA) * g2 - (1.0 - tB) * g3;
      grad->col(1) = -tA * g2 - tB * g3;
      grad->col(2) = g2;
      grad->col(3) = g3;
    } else {
      grad->setZero();
    }
  }
  return psi;
}

// The paper's phi = acos(n1 . n2) (n1, n2 as in 001 sec. 4.1), clamped into acos' domain;
// no gradient. For comparisons and statistics.
double pbd_dihedral_angle(const Stencil3<4>& x);

// Throws InputError on a degenerate rest hinge (zero edge or zero-area wing).
DihedralRest make_dihedral_rest(const Stencil3<4>& X);

[[gnu::always_inline]] inline double dihedral_bending_constraint(const Stencil3<4>& x, const DihedralRest& rest, Stencil3<4>* grad) {
  double c = signed_dihedral_angle(x, grad) - rest.psi0;
  if (c > M_PI) c -= 2.0 * M_PI;
  if (c <= -M_PI) c += 2.0 * M_PI;
  return c;
}

// The same C and gradient for the PBD / XPBD sweeps, fused and in closed form (no 3 x 4
// temporaries): every gradient column is a combination of the two wing normals,
//   grad_i = cA[i] nA + cB[i] nB,  cA = ((1 - tA) r, tA r, -r, 0) with r = |e| / |nA|^2,
//   cB = ((1 - tB) q, tB q, 0, -q) with q = |e| / |nB|^2
// (the formulas at the top), so sum_i w_i |grad_i|^2 needs only |nA|^2, |nB|^2 and nA . nB:
//   |grad_i|^2 = cA[i]^2 |nA|^2 + cB[i]^2 |nB|^2 + 2 cA[i] cB[i] nA . nB.
// Also 1 / (denom + alpha_tilde) (alpha_tilde: XPBD's alpha / h^2, 0 for PBD), computed
// before the angle so that the division overlaps atan2 instead of following it.
// Returns false for a degenerate hinge (zero gradient) or denom = 0 (nothing can move): the
// projection skips it; f.C is set either way. The same values as dihedral_bending_constraint
// + weighted_gradient_norm2 up to rounding.
struct DihedralFused {
  double C, denom, inv;
  double nA[3], nB[3];
  double cA[4], cB[4];
};

[[gnu::always_inline]] inline bool dihedral_bending_fused(const double* x0, const double* x1, const double* x2,
                                                          const double* x3, double psi0, const double* w,
                                                          double alpha_tilde, DihedralFused& f) {
  const double e[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
  const double a[3] = {x2[0] - x0[0], x2[1] - x0[1], x2[2] - x0[2]};
  const double b[3] = {x3[0] - x0[0], x3[1] - x0[1], x3[2] - x0[2]};
  double* nA = f.nA;
  double* nB = f.nB;
  nA[0] = e[1] * a[2] - e[2] * a[1], nA[1] = e[2] * a[0] - e[0] * a[2], nA[2] = e[0] * a[1] - e[1] * a[0];
  nB[0] = b[1] * e[2] - b[2] * e[1], nB[1] = b[2] * e[0] - b[0] * e[2], nB[2] = b[0] * e[1] - b[1] * e[0];
  const double ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
  const double aa = nA[0] * nA[0] + nA[1] * nA[1] + nA[2] * nA[2];
  const double bb = nB[0] * nB[0] + nB[1] * nB[1] + nB[2] * nB[2];
  const double ab = nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2];
  const double len = std::sqrt(ee);
  const bool regular = ee > 0.0 && aa > 0.0 && bb > 0.0;
  if (regular) {
    const double r = len / aa, q = len / bb, inv_ee = 1.0 / ee;
    const double tA = (a[0] * e[0] + a[1] * e[1] + a[2] * e[2]) * inv_ee;
    const double tB = (b[0] * e[0] + b[1] * e[1] + b[2] * e[2]) * inv_ee;
    f.cA[0] = (1.0 - tA) * r, f.cA[1] = tA * r, f.cA[2] = -r, f.cA[3] = 0.0;
    f.cB[0] = (1.0 - tB) * q, f.cB[1] = tB * q, f.cB[2] = 0.0, f.cB[3] = -q;
    auto norm2 = [&](int i) { return f.cA[i] * f.cA[i] * aa + f.cB[i] * f.cB[i] * bb + 2.0 * f.cA[i] * f.cB[i] * ab; };
    f.denom = w[0] * norm2(0) + w[1] * norm2(1) + w[2] * (r * r * aa) + w[3] * (q * q * bb);
    f.inv = 1.0 / (f.denom + alpha_tilde);
  }
  const double psi = std::atan2(0.0 - len * (nA[0] * b[0] + nA[1] * b[1] + nA[2] * b[2]), ab);
  double c = psi - psi0;
  if (c > M_PI) c -= 2.0 * M_PI;
  if (c <= -M_PI) c += 2.0 * M_PI;
  f.C = c;
  return regular && f.denom > 0.0;
}

}  // namespace weft
