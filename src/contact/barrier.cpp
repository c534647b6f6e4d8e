#include "contact/barrier.hpp"

#include <cmath>
#include <limits>

namespace weft {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

double barrier(double d, double dhat) {
  if (d <= 0.0) return kInf;
  if (d >= dhat) return 0.0;
  const double t = d - dhat;
  return -t * t * std::log(d / dhat);
}

double barrier_first_derivative(double d, double dhat) {
  if (d <= 0.0) return -kInf;
  if (d >= dhat) return 0.0;
  // -2 (d - dhat) ln(d/dhat) - (d - dhat)^2 / d = (dhat - d) (2 ln(d/dhat) - dhat/d + 1)
  return (dhat - d) * (2.0 * std::log(d / dhat) - dhat / d + 1.0);
}

double barrier_second_derivative(double d, double dhat) {
  if (d <= 0.0) return kInf;
  if (d >= dhat) return 0.0;
  // -2 ln(d/dhat) - 4 (d - dhat)/d + (d - dhat)^2 / d^2
  const double q = (d - dhat) / d;
  return -2.0 * std::log(d / dhat) - 4.0 * q + q * q;
}

double offset_barrier(double d2, double xi, double dhat) {
  return barrier(d2 - xi * xi, offset_barrier_threshold(xi, dhat));
}

double offset_barrier_first_derivative(double d2, double xi, double dhat) {
  return barrier_first_derivative(d2 - xi * xi, offset_barrier_threshold(xi, dhat));
}

double offset_barrier_second_derivative(double d2, double xi, double dhat) {
  return barrier_second_derivative(d2 - xi * xi, offset_barrier_threshold(xi, dhat));
}

double barrier_force_magnitude(double d2, double xi, double dhat, double kappa) {
  if (!(d2 > xi * xi)) return kInf;  // at / inside the offset
  const double db = offset_barrier_first_derivative(d2, xi, dhat);
  if (db == 0.0) return 0.0;
  return -2.0 * kappa * std::sqrt(d2) * db;
}

}  // namespace weft
