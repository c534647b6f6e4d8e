// Discrete rod bending (C-IPC eq. 3, Psi_rod; Bergou et al. 2008 without twist): at an
// interior vertex x1 of a polyline x0 - x1 - x2, with e0 = x1 - x0, e1 = x2 - x1 and
// turning angle phi between them, the curvature binormal has |kb| = 2 tan(phi/2) and
//   Psi = w (|kb| - |kb_rest|)^2,   w = EI / l,   l = |E0| + |E1| (rest lengths),
// EI = E pi r^4 / 4 the Kirchhoff rod's bending stiffness. For small angles this is the
// continuum 1/2 EI kappa^2 over the vertex's Voronoi length l/2, with kappa = phi / (l/2).
//
// Written in the invariants a = |e0|^2, b = |e1|^2, c = e0.e1: with L = sqrt(ab),
// t = tan^2(phi/2) = (L - c)/(L + c) and |kb| = 2 sqrt(t), so energy, gradient and the
// exact Hessian follow by the chain rule through (a, b, c) (rod_bending.cpp).
// Without twist the model bends isotropically: a naturally curved rod (|kb_rest| > 0)
// resists changing its curvature, not turning its plane of bending. A rod folded back on
// itself (phi -> pi) has Psi -> +inf. For |kb_rest| > 0 the energy has a cone point where
// the rod is straight (t = 0); the derivatives are taken as zero there.
#pragma once
#include "core/types.hpp"

namespace weft {

struct RodBendRest {
  double kb;      // |kb| at rest = 2 tan(phi_rest / 2)
  double weight;  // w = EI / (|E0| + |E1|)
};

// EI = E pi r^4 / 4; throws InputError unless E >= 0 and r > 0.
double rod_bending_stiffness(double youngs, double radius);

// Rest data of the vertex X1 between X0 and X2 (a turning angle below 1e-8 rad counts as
// straight); throws InputError on a zero-length rest segment or a rest polyline folded
// back on itself.
RodBendRest make_rod_bend_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2, double bending_stiffness);

// |kb| = 2 tan(phi / 2) of x = (x0, x1, x2); +inf when folded back (phi = pi).
double rod_curvature(const Vec9& x);

// project: the 6 x 6 Hessian in edge coordinates (e0, e1) has its negative eigenvalues
// clamped (a 6 x 6 eigensolve) before it is mapped to the vertices, so the result is PSD.
double rod_bending(const Vec9& x, const RodBendRest& r, Vec9* g, Mat9* H, bool project);

}  // namespace weft
