#include "core/exact_orient.hpp"

#include <cmath>

namespace weft {

namespace {

// Expansions: sums of doubles, non-overlapping, in increasing magnitude, zeros dropped, held
// as (pointer, length); the sign of one is the sign of its largest (last) component.

// a + b = x + y exactly, x the rounded sum (Knuth's two-sum: no assumption on magnitudes).
inline void two_sum(double a, double b, double& x, double& y) {
  x = a + b;
  const double bv = x - a, av = x - bv;
  y = (a - av) + (b - bv);
}

// a * b = x + y exactly, x the rounded product (a fused multiply-add where the hardware has
// one, else Dekker's splitting into 26-bit halves; without FMA hardware nothing is contracted).
inline void two_product(double a, double b, double& x, double& y) {
  x = a * b;
#ifdef FP_FAST_FMA
  y = std::fma(a, b, -x);
#else
  constexpr double splitter = 134217729.0;  // 2^27 + 1
  auto split = [](double v, double& hi, double& lo) {
    const double t = splitter * v;
    hi = t - (t - v);
    lo = v - hi;
  };
  double ah, al, bh, bl;
  split(a, ah, al), split(b, bh, bl);
  y = al * bl - (((x - ah * bh) - al * bh) - ah * bl);
#endif
}

// h = e + sign * f (h holds m + k): f's components grown in one at a time, each carried up
// through the partial sum (grow-expansion; the lengths here are small). h may not alias e, f.
int sum(const double* e, int m, const double* f, int k, double sign, double* h) {
  int n = m;
  for (int i = 0; i < m; ++i) h[i] = e[i];
  for (int j = 0; j < k; ++j) {
    double q = sign * f[j];
    int out = 0;
    for (int i = 0; i < n; ++i) {
      double s, r;
      two_sum(q, h[i], s, r);
      if (r != 0) h[out++] = r;  // out <= i: writing in place behind the reader
      q = s;
    }
    if (q != 0) h[out++] = q;
    n = out;
  }
  return n;
}

// h = e * b (h holds 2 m): each component's product, the carries summed in order
// (scale-expansion).
int scale(const double* e, int m, double b, double* h) {
  int n = 0;
  if (m == 0 || b == 0) return 0;
  double q, r;
  two_product(e[0], b, q, r);
  if (r != 0) h[n++] = r;
  for (int i = 1; i < m; ++i) {
    double p, pe, s, se;
    two_product(e[i], b, p, pe);
    two_sum(q, pe, s, se);
    if (se != 0) h[n++] = se;
    two_sum(p, s, q, r);
    if (r != 0) h[n++] = r;
  }
  if (q != 0) h[n++] = q;
  return n;
}

// h = e * f (h holds 2 m k; m <= 16): the sum of e scaled by each component of f.
int product(const double* e, int m, const double* f, int k, double* h) {
  double part[32], t[128];
  int n = 0;
  for (int j = 0; j < k; ++j) {
    const int np = scale(e, m, f[j], part);
    n = sum(h, n, part, np, 1.0, t);
    for (int i = 0; i < n; ++i) h[i] = t[i];
  }
  return n;
}

// a - b as an expansion of at most two components.
int difference(double a, double b, double* h) {
  double x, y;
  two_sum(a, -b, x, y);
  int n = 0;
  if (y != 0) h[n++] = y;
  if (x != 0) h[n++] = x;
  return n;
}

}  // namespace

int orient3d_sign_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  // u = b - a, v = c - a, w = d - a, each coordinate an exact two-component expansion; then
  // w . (u x v) = w.x (u.y v.z - u.z v.y) + w.y (u.z v.x - u.x v.z) + w.z (u.x v.y - u.y v.x).
  double u[3][2], v[3][2], w[3][2];
  int nu[3], nv[3], nw[3];
  for (int k = 0; k < 3; ++k)
    nu[k] = difference(b[k], a[k], u[k]), nv[k] = difference(c[k], a[k], v[k]), nw[k] = difference(d[k], a[k], w[k]);
  double det[192], acc[192];
  int n = 0;
  for (int k = 0; k < 3; ++k) {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    double p[8], q[8], minor[16], term[64];
    const int np = product(u[i], nu[i], v[j], nv[j], p), nq = product(u[j], nu[j], v[i], nv[i], q);
    const int nm = sum(p, np, q, nq, -1.0, minor);
    const int nt = product(minor, nm, w[k], nw[k], term);
    n = sum(det, n, term, nt, 1.0, acc);
    for (int m = 0; m < n; ++m) det[m] = acc[m];
  }
  return n == 0 ? 0 : (det[n - 1] > 0 ? 1 : -1);
}

int orient3d_sign(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const Vec3 u = b - a, v = c - a;
  return orient3d_sign_filtered(u.cross(v).dot(d - a), orient_abs_normal(a, b, c), a, b, c, d);
}

}  // namespace weft
