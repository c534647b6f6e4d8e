// IPC log barrier (Li et al. 2020, eq. 6) and the C-IPC thickness-offset form
// (Li et al. 2021, Sec. 5.1, eqs. 11-13).
//
//   b(d, dhat) = -(d - dhat)^2 ln(d / dhat)   for 0 < d < dhat,   0 for d >= dhat,
//   b(d, dhat) = +inf for d <= 0 (infeasible; derivatives are not defined there and the
//   derivative functions return -inf / +inf so a caller that ignores feasibility notices).
//
// IPC evaluates the barrier on SQUARED distances: b(d^2, dhat^2). With a thickness offset xi
// the C-IPC barrier is (eq. 12)
//   b_xi(d^2) = b(d^2 - xi^2, 2 xi dhat + dhat^2)  = b(d^2 - xi^2, (xi + dhat)^2 - xi^2),
// which diverges at d = xi and vanishes for d >= xi + dhat; its derivatives in d^2 are those
// of b at the shifted argument (eq. 13: d(d^2 - xi^2)/dx = d(d^2)/dx).
#pragma once

namespace weft {

double barrier(double d, double dhat);
double barrier_first_derivative(double d, double dhat);
double barrier_second_derivative(double d, double dhat);

// The activation threshold of the offset barrier in squared-distance units: 2 xi dhat + dhat^2.
inline double offset_barrier_threshold(double xi, double dhat) { return 2.0 * xi * dhat + dhat * dhat; }

// b_xi as a function of the squared distance d2, and its first / second derivatives in d2.
double offset_barrier(double d2, double xi, double dhat);
double offset_barrier_first_derivative(double d2, double xi, double dhat);
double offset_barrier_second_derivative(double d2, double xi, double dhat);

// Contact force magnitude of a pair at squared distance d2 (IPC Sec. 5 / C-IPC Sec. 5.1):
//   lambda = -d(kappa b_xi)/dd = -2 kappa d b_xi'(d2),  >= 0; 0 outside the active range,
//   +inf at or inside the offset (d <= xi).
// Used as the lagged normal force of friction.
double barrier_force_magnitude(double d2, double xi, double dhat, double kappa);

}  // namespace weft
