// Filtered + exact orientation predicates; see exact.hpp for the error model.
#include "verify/exact.hpp"

#include <cmath>

namespace weft::verify {
namespace {

constexpr double kEps = 1.1102230246251565e-16;  // 2^-53, half an ulp of 1
constexpr double kCcwErrA = (3.0 + 16.0 * kEps) * kEps;
constexpr double kO3dErrA = (7.0 + 56.0 * kEps) * kEps;

// A nonoverlapping expansion, components in increasing magnitude, zeros eliminated.
// 256 components cover the largest intermediate of orient3d (192).
struct Expansion {
  int n = 0;
  double c[256];
  Expansion() = default;
  Expansion(const Expansion& o) : n(o.n) { for (int i = 0; i < n; ++i) c[i] = o.c[i]; }
  Expansion& operator=(const Expansion& o) {
    n = o.n;
    for (int i = 0; i < n; ++i) c[i] = o.c[i];
    return *this;
  }
  int sign() const { return n == 0 ? 0 : (c[n - 1] > 0 ? 1 : (c[n - 1] < 0 ? -1 : 0)); }
};

inline void two_sum(double a, double b, double& x, double& y) {
  x = a + b;
  double bv = x - a;
  double av = x - bv;
  y = (a - av) + (b - bv);
}
inline void fast_two_sum(double a, double b, double& x, double& y) {  // |a| >= |b|
  x = a + b;
  y = b - (x - a);
}
inline void two_diff(double a, double b, double& x, double& y) {
  x = a - b;
  double bv = a - x;
  double av = x + bv;
  y = (a - av) + (bv - b);
}
// fma gives the exact low part of a product regardless of -ffp-contract.
inline void two_prod(double a, double b, double& x, double& y) {
  x = a * b;
  y = std::fma(a, b, -x);
}

Expansion from_diff(double a, double b) {
  Expansion e;
  double x, y;
  two_diff(a, b, x, y);
  if (y != 0) e.c[e.n++] = y;
  if (x != 0) e.c[e.n++] = x;
  return e;
}

// h = e + b (Shewchuk's Grow-Expansion with zero elimination), in place.
void grow(Expansion& e, double b) {
  double q = b;
  int hn = 0;
  for (int i = 0; i < e.n; ++i) {
    double qn, hh;
    two_sum(q, e.c[i], qn, hh);
    q = qn;
    if (hh != 0) e.c[hn++] = hh;
  }
  if (q != 0) e.c[hn++] = q;
  e.n = hn;
}

Expansion sum(const Expansion& e, const Expansion& f) {
  Expansion h = e;
  for (int i = 0; i < f.n; ++i) grow(h, f.c[i]);
  return h;
}

Expansion negate(Expansion e) {
  for (int i = 0; i < e.n; ++i) e.c[i] = -e.c[i];
  return e;
}

// h = e * b (Scale-Expansion with zero elimination).
Expansion scale(const Expansion& e, double b) {
  Expansion h;
  if (e.n == 0 || b == 0) return h;
  double q, hh;
  two_prod(e.c[0], b, q, hh);
  if (hh != 0) h.c[h.n++] = hh;
  for (int i = 1; i < e.n; ++i) {
    double p1, p0, s;
    two_prod(e.c[i], b, p1, p0);
    two_sum(q, p0, s, hh);
    if (hh != 0) h.c[h.n++] = hh;
    fast_two_sum(p1, s, q, hh);
    if (hh != 0) h.c[h.n++] = hh;
  }
  if (q != 0) h.c[h.n++] = q;
  return h;
}

Expansion mul(const Expansion& e, const Expansion& f) {
  Expansion acc;
  for (int i = 0; i < f.n; ++i) acc = sum(acc, scale(e, f.c[i]));
  return acc;
}

inline int sgn(double v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

}  // namespace

int orient2d_exact(double ax, double ay, double bx, double by, double cx, double cy) {
  Expansion acx = from_diff(ax, cx), acy = from_diff(ay, cy);
  Expansion bcx = from_diff(bx, cx), bcy = from_diff(by, cy);
  return sum(mul(acx, bcy), negate(mul(acy, bcx))).sign();
}

int orient2d(double ax, double ay, double bx, double by, double cx, double cy) {
  double detleft = (ax - cx) * (by - cy);
  double detright = (ay - cy) * (bx - cx);
  double det = detleft - detright;
  double bound = kCcwErrA * (std::fabs(detleft) + std::fabs(detright));
  if (det > bound || -det > bound) return sgn(det);
  if (detleft == 0 && detright == 0 && (ax == cx || by == cy) && (ay == cy || bx == cx))
    return 0;  // both products have an exactly-zero factor
  return orient2d_exact(ax, ay, bx, by, cx, cy);
}

int orient3d_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  Expansion adx = from_diff(a.x(), d.x()), ady = from_diff(a.y(), d.y()), adz = from_diff(a.z(), d.z());
  Expansion bdx = from_diff(b.x(), d.x()), bdy = from_diff(b.y(), d.y()), bdz = from_diff(b.z(), d.z());
  Expansion cdx = from_diff(c.x(), d.x()), cdy = from_diff(c.y(), d.y()), cdz = from_diff(c.z(), d.z());
  Expansion m1 = sum(mul(bdx, cdy), negate(mul(cdx, bdy)));
  Expansion m2 = sum(mul(cdx, ady), negate(mul(adx, cdy)));
  Expansion m3 = sum(mul(adx, bdy), negate(mul(bdx, ady)));
  return sum(sum(mul(m1, adz), mul(m2, bdz)), mul(m3, cdz)).sign();
}

int orient3d_filtered(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const double adx = a.x() - d.x(), ady = a.y() - d.y(), adz = a.z() - d.z();
  const double bdx = b.x() - d.x(), bdy = b.y() - d.y(), bdz = b.z() - d.z();
  const double cdx = c.x() - d.x(), cdy = c.y() - d.y(), cdz = c.z() - d.z();
  const double bdxcdy = bdx * cdy, cdxbdy = cdx * bdy;
  const double cdxady = cdx * ady, adxcdy = adx * cdy;
  const double adxbdy = adx * bdy, bdxady = bdx * ady;
  const double det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady);
  const double permanent = (std::fabs(bdxcdy) + std::fabs(cdxbdy)) * std::fabs(adz) +
                           (std::fabs(cdxady) + std::fabs(adxcdy)) * std::fabs(bdz) +
                           (std::fabs(adxbdy) + std::fabs(bdxady)) * std::fabs(cdz);
  const double bound = kO3dErrA * permanent;
  if (det > bound || -det > bound) return sgn(det);
  // Every product has an exactly-zero factor (no underflow, see header): det is exactly 0.
  // This is the common case of exactly flat sheets and keeps them off the slow path.
  if (permanent == 0) return 0;
  return 2;
}

int orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const int s = orient3d_filtered(a, b, c, d);
  return s != 2 ? s : orient3d_exact(a, b, c, d);
}

}  // namespace weft::verify
