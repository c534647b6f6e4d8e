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

// psi and (optionally) its gradient, formulas above. Inline: the PBD sweeps' inner loop.
inline double signed_dihedral_angle(const Stencil3<4>& x, Stencil3<4>* grad) {
  const Vec3 e = x.col(1) - x.col(0);
  const Vec3 a = x.col(2) - x.col(0), b = x.col(3) - x.col(0);
  const Vec3 nA = e.cross(a), nB = b.cross(e);
  const double ee = e.squaredNorm(), aa = nA.squaredNorm(), bb = nB.squaredNorm();
  const double len = std::sqrt(ee);
  const double sin_part = len > 0.0 ? nA.cross(nB).dot(e) / len : 0.0;
  const double psi = std::atan2(sin_part, nA.dot(nB));
  if (grad) {
    if (ee > 0.0 && aa > 0.0 && bb > 0.0) {
      const Vec3 g2 = -len / aa * nA, g3 = -len / bb * nB;
      const double tA = a.dot(e) / ee, tB = b.dot(e) / ee;
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

inline double dihedral_bending_constraint(const Stencil3<4>& x, const DihedralRest& rest, Stencil3<4>* grad) {
  double c = signed_dihedral_angle(x, grad) - rest.psi0;
  if (c > M_PI) c -= 2.0 * M_PI;
  if (c <= -M_PI) c += 2.0 * M_PI;
  return c;
}

}  // namespace weft
