// The exact orientation predicate (core/exact_orient.hpp) against an integer reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/exact_orient.hpp"

namespace weft {
namespace {

// Coordinates on the grid 2^-30 within |x| < 2^6 are exact doubles and exact 37-bit integers:
// the determinant of their differences (< 2^38 each) fits in 128 bits (6 products < 2^117).
constexpr double kGrid = 1.0 / (1 << 30);
using I128 = __int128;

I128 as_int(double x) { return static_cast<I128>(std::llround(x / kGrid)); }

int reference_sign(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  I128 u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k)
    u[k] = as_int(b[k]) - as_int(a[k]), v[k] = as_int(c[k]) - as_int(a[k]), w[k] = as_int(d[k]) - as_int(a[k]);
  const I128 det = w[0] * (u[1] * v[2] - u[2] * v[1]) + w[1] * (u[2] * v[0] - u[0] * v[2]) +
                   w[2] * (u[0] * v[1] - u[1] * v[0]);
  return det > 0 ? 1 : (det < 0 ? -1 : 0);
}

int naive_sign(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const double v = (b - a).cross(c - a).dot(d - a);
  return v > 0 ? 1 : (v < 0 ? -1 : 0);
}

Vec3 on_grid(const Vec3& x) { return (x / kGrid).array().round().matrix() * kGrid; }

// Simple cases: the sign convention ((b - a) x (c - a) points to d: +1), the plane itself.
TEST(ExactOrient, SignConvention) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  EXPECT_EQ(orient3d_sign(a, b, c, Vec3(0.3, 0.3, 1)), 1);
  EXPECT_EQ(orient3d_sign(a, b, c, Vec3(0.3, 0.3, -1)), -1);
  EXPECT_EQ(orient3d_sign(a, b, c, Vec3(5, -7, 0)), 0);
  EXPECT_EQ(orient3d_sign(a, c, b, Vec3(0.3, 0.3, 1)), -1);
  EXPECT_EQ(orient3d_sign_exact(a, b, c, Vec3(0.3, 0.3, 1e-300)), 1);  // no cancellation to lose it
  EXPECT_EQ(orient3d_sign(a, b, c, Vec3(0.3, 0.3, 1e-300)), 1);
}

// Nearly coplanar points (a fourth point on the plane of three, rounded to the grid, then
// half of them moved by up to 2 grid steps): the filtered and the unfiltered exact signs equal the integer
// reference every time, while plain double evaluation gets some of them wrong (which is
// what made a flat sheet's rounding look like crossings).
TEST(ExactOrient, NearlyCoplanarMatchesIntegerReference) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> step(-2, 2);
  int naive_wrong = 0, zeros = 0;
  for (int n = 0; n < 20000; ++n) {
    // A tilted plane far from the origin (large common offset: cancellation in the differences).
    const Vec3 o = on_grid(Vec3(40 + u(rng), 20 * u(rng), -30 + u(rng)));
    const Vec3 e1 = on_grid(Vec3(u(rng), u(rng), u(rng)) * 0.01), e2 = on_grid(Vec3(u(rng), u(rng), u(rng)) * 0.01);
    const Vec3 a = o, b = o + e1, c = o + e2;
    Vec3 d = on_grid(o + u(rng) * e1 + u(rng) * e2);
    // Exactly on the plane when the combination is integral: d = a + i e1 + j e2.
    if (n % 4 == 0) d = o + double(step(rng)) * e1 + double(step(rng)) * e2;
    if (n % 2 == 1) d += Vec3(step(rng), step(rng), step(rng)) * kGrid;
    const int ref = reference_sign(a, b, c, d);
    ASSERT_EQ(orient3d_sign(a, b, c, d), ref) << n;
    ASSERT_EQ(orient3d_sign_exact(a, b, c, d), ref) << n;
    // Any order of the points: the sign of the permutation.
    ASSERT_EQ(orient3d_sign(b, a, c, d), -ref) << n;
    ASSERT_EQ(orient3d_sign(d, b, c, a), -ref) << n;
    naive_wrong += naive_sign(a, b, c, d) != ref;
    zeros += ref == 0;
  }
  EXPECT_GT(zeros, 1000);       // the exactly coplanar cases are exercised
  EXPECT_GT(naive_wrong, 100);  // and double evaluation alone fails on them
}

// Well separated points: the filter decides, same signs as the reference.
TEST(ExactOrient, GeneralPositionMatchesReference) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int n = 0; n < 5000; ++n) {
    const Vec3 a = on_grid(Vec3(u(rng), u(rng), u(rng))), b = on_grid(Vec3(u(rng), u(rng), u(rng)));
    const Vec3 c = on_grid(Vec3(u(rng), u(rng), u(rng))), d = on_grid(Vec3(u(rng), u(rng), u(rng)));
    ASSERT_EQ(orient3d_sign(a, b, c, d), reference_sign(a, b, c, d)) << n;
  }
}

// The per-triangle filter with a value evaluated elsewhere: a value within the bound is
// re-decided exactly, a value beyond it is trusted.
TEST(ExactOrient, FilteredUsesTheBound) {
  const Vec3 a(0, 0, 0), b(1, 0, 1), c(0, 1, 1), d(0.5, 0.25, 0.75);  // d on the plane z = x + y
  const Vec3 an = orient_abs_normal(a, b, c);
  EXPECT_EQ(orient3d_sign_filtered(1e-17, an, a, b, c, d), 0);  // rounding-level value: exact 0
  EXPECT_EQ(orient3d_sign_filtered(-1e-17, an, a, b, c, d), 0);
  EXPECT_EQ(orient3d_sign_filtered(1.0, an, a, b, c, d), 1);  // beyond the bound: taken as is
}

}  // namespace
}  // namespace weft
