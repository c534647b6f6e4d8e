// The dihedral-angle bending force of paper 002 sec. 11.1 (Bridson et al. 2003) as an
// energy. 002 gives per hinge f_i = f(theta) u_i with u_i the gradient of the dihedral angle
// (u_1 = |E| / |N_1| n_1, ...: exactly dtheta/dx_i of hinge_bending.hpp's dihedral_angle)
// and, with psi = pi - theta the signed bend angle (0 flat; hinge_bending.hpp's theta),
//   planar:     f = c sin(psi / 2),
//   rest angle: f = c [sin(psi / 2) - sin(psi0 / 2)],   c = k |E|^2 / (|N_1| + |N_2|).
// With c frozen at the rest shape (|N_i| = twice the triangle areas) the force is
// conservative, f_i = -dPsi/dx_i, for
//   Psi = c [2 (cos(psi0/2) - cos(psi/2)) - (psi - psi0) sin(psi0/2)]
// (Psi(psi0) = 0, Psi' = c [sin(psi/2) - sin(psi0/2)], Psi'' = c/2 cos(psi/2) > 0 on
// (-pi, pi): convex in the angle, minimal at psi0); psi0 = 0 is the planar variant.
// Hessian: exactly Psi'' grad(psi) grad(psi)^T + Psi' Hess(psi); the projected one keeps
// the PSD first part (Gauss-Newton, as hinge_bending.hpp: Hess(psi) is indefinite).
#pragma once
#include "core/types.hpp"

namespace weft {

struct DihedralForceRest {
  double psi0;  // rest bend angle (0 = the planar variant)
  double c;     // k |E|^2 / (|N_1| + |N_2|) at rest, J
};

// Vertex order as hinge_bending.hpp (x0, x1 the shared edge; x2, x3 the wing tips).
// k = 002's stiffness (N m); planar: psi0 = 0 whatever the rest shape.
DihedralForceRest make_dihedral_force_rest(const Vec12& X, double k, bool planar);

double dihedral_force_energy(const Vec12& x, const DihedralForceRest& r, Vec12* g, Mat12* H, bool project);

}  // namespace weft
