// Linear springs of the implicit mass-spring method (paper 002,
// sections 11.1 and 13): per spring (x0, x1) of rest length L and stiffness k (N/m)
//   E = 1/2 k (|x0 - x1| - L)^2,
// with the closed-form PSD projection of its Hessian. The spring terms (structural, shear,
// bending; spring_*_term.cpp) share this kernel and their rest data.
//
// Stiffness defaults (the case's mass_spring keys absent), per object from its material
// (E Young's modulus, nu Poisson's ratio, t thickness, E_b = bending_youngs or E; rods:
// r radius, segment rest lengths L):
//   stretch  shells: E t (a square lattice of spacing a under strain eps carries k eps per
//            unit width, the membrane E t eps, whatever a); rods: E pi r^2 / L (EA / L).
//   shear    shells: E t / (2 (1 + nu)) (the shear modulus times t).
//   bending  shells: D / |e|^2 per hinge of rest edge e, D = E_b t^3 / (12 (1 - nu^2)) the
//            plate's flexural rigidity (so the dihedral model's k = k_b |e|^2 is D and the
//            bending energy does not depend on the resolution); rods: E_b pi r^4 / 4 / l^3,
//            l the mean rest length of the triple's two segments (EI / l^3).
#pragma once
#include "core/types.hpp"

namespace weft {

using Vec6 = VecN<6>;
using Mat6 = MatN<6>;

struct SpringRest {
  double length;     // L, m
  double stiffness;  // k, N/m
};

// Energy of the spring at x = (x0, x1); optional gradient and Hessian. project: the Hessian
// is the PSD projection, else the exact one. The 6x6 Hessian is [A -A; -A A] with
//   A = k [ n n^T + (1 - L/l) (I - n n^T) ],  l = |x0 - x1|, n = (x0 - x1) / l,
// whose eigenvalues are 2 x those of A (k along n, k (1 - L/l) twice across) and three
// zeros, so clamping the across pair at 0 when l < L is the exact projection.
// A zero-length spring has no direction: zero gradient and A = k I.
double spring_energy(const Vec6& x, const SpringRest& r, Vec6* g, Mat6* H, bool project);

// |x0 - x1| / L.
double spring_stretch(const Vec6& x, const SpringRest& r);

}  // namespace weft
