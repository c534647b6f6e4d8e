// The projection shared by every position-based constraint (PBD, Mueller et al. 2007, paper
// 001 sec. 3.3 eqs. 8-9; XPBD, paper 003 sec. 4.4 Algorithm 2 / Macklin et al. 2016 eqs. 17-18).
//
// A kernel evaluates C(x) and its gradient per stencil vertex (column i of a 3 x N matrix);
// the helpers here turn them into position corrections dx_i = -s w_i grad_i C. They are
// templates on the stencil size so fixed-size stencils never allocate; N = Eigen::Dynamic
// serves the whole-mesh pressure constraint.
//
// Momentum (001 eqs. 1-2): for an internal constraint C is invariant under translation and
// rotation, so sum_i grad_i C = 0 and sum_i x_i x grad_i C = 0; with dx_i = -s w_i grad_i C and
// w_i = 1 / m_i both sum_i m_i dx_i and sum_i m_i x_i x dx_i vanish, for any masses.
#pragma once
#include <Eigen/Dense>
#include <algorithm>

#include "core/types.hpp"

namespace weft {

// Positions or gradients of an N-vertex stencil: column i is vertex i.
template <int N>
using Stencil3 = Eigen::Matrix<double, 3, N>;
using Mat4 = MatN<4>;
using Vec4 = VecN<4>;

// Equality: projected onto C = 0. Unilateral (contact, C >= 0 wanted): projected only while
// violated, and an XPBD multiplier never pulls (lambda >= 0).
enum class ConstraintSense { Equality, Unilateral };

// PBD stiffness per projection, k' = 1 - (1 - k)^(1 / n_s) (001 sec. 3.3): after n_s
// projections of a linear constraint the residual is (1 - k') ^ n_s = 1 - k of the initial
// error, whatever n_s. Throws InputError unless 0 <= k <= 1 and n_s >= 1.
double pbd_stiffness(double k, int iterations);

// sum_j w_j |grad_j C|^2, the denominator of eq. 8.
// (Always inlined, as the projections below: called per constraint per sweep, and a call
// passes the 3 x N stencils through memory.)
template <int N>
[[gnu::always_inline]] inline double weighted_gradient_norm2(const Stencil3<N>& grad, const VecN<N>& w) {
  return grad.colwise().squaredNorm().dot(w.transpose());
}

// PBD (001 eqs. 8-9): s = k' C / sum_j w_j |grad_j C|^2, dx_i = -s w_i grad_i C. Returns s.
// s = 0 (dx = 0) when a unilateral constraint holds (C >= 0) or no vertex can move along
// the gradient (all w_i = 0, or a degenerate configuration whose kernel returned a zero
// gradient).
template <int N>
[[gnu::always_inline]] inline double pbd_project(double C, const Stencil3<N>& grad, const VecN<N>& w, double k_prime,
                   ConstraintSense sense, Stencil3<N>* dx) {
  const double denom = weighted_gradient_norm2<N>(grad, w);
  double s = 0.0;
  if (denom > 0.0 && !(sense == ConstraintSense::Unilateral && C >= 0.0)) s = k_prime * C / denom;
  *dx = -s * (grad * w.asDiagonal());
  return s;
}

// XPBD (003 Algorithm 2, lines 24-27): with alpha~ = alpha / h^2 (alpha the compliance, the
// inverse stiffness of the energy 1/(2 alpha) C^2) and lambda this constraint's running
// multiplier (0 at the start of each step or substep),
//   dlambda = -(C + alpha~ lambda) / (sum_j w_j |grad_j C|^2 + alpha~),  dx_i = w_i grad_i C dlambda,
// i.e. s = -dlambda. Updates *lambda, returns dlambda. At convergence C + alpha~ lambda = 0:
// the constraint force on vertex i is f_i = grad_i C lambda / h^2 = -grad_i C C / alpha, the
// force of the energy 1/(2 alpha) C^2. alpha = 0 is PBD with k = 1. Unilateral: lambda is
// clamped to >= 0 (the force only pushes along +grad C). Nothing moves when
// sum_j w_j |grad_j C|^2 = 0 (lambda kept).
template <int N>
[[gnu::always_inline]] inline double xpbd_project(double C, const Stencil3<N>& grad, const VecN<N>& w, double alpha_tilde,
                    double* lambda, ConstraintSense sense, Stencil3<N>* dx) {
  const double denom = weighted_gradient_norm2<N>(grad, w);
  double dlambda = 0.0;
  if (denom > 0.0) {
    dlambda = -(C + alpha_tilde * *lambda) / (denom + alpha_tilde);
    if (sense == ConstraintSense::Unilateral) dlambda = std::max(*lambda + dlambda, 0.0) - *lambda;
  }
  *lambda += dlambda;
  *dx = dlambda * (grad * w.asDiagonal());
  return dlambda;
}

}  // namespace weft
