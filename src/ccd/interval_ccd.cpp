#include "ccd/interval_ccd.hpp"

#include <boost/numeric/interval.hpp>
#include <queue>
#include <vector>

namespace weft {

namespace {

namespace bi = boost::numeric::interval_lib;
// Outward rounding by the "opposite" trick (everything rounded upward, lower bounds via
// negation). The rounding mode is switched once per query by a save_state guard (which also
// restores the caller's mode); the arithmetic itself assumes it is set (save_state_nothing).
using Rounding = bi::rounded_arith_opp<double>;
using I = boost::numeric::interval<double, bi::policies<bi::save_state_nothing<Rounding>, bi::checking_base<double>>>;
using RoundingGuard = bi::save_state<Rounding>;

struct IV3 {
  I c[3];
};

IV3 diff(const Vec3& a, const Vec3& b) {  // enclosure of the exact a - b
  IV3 r;
  for (int k = 0; k < 3; ++k) r.c[k] = I(a[k]) - I(b[k]);
  return r;
}

// F(t, u, v) = r0 + t dr - u (e0 + t de) - v (f0 + t df), componentwise; the caller sets the
// vectors so that this is the vertex-face or edge-edge function (edge-edge with v -> -v
// handled by the sign of f).
struct Problem {
  IV3 r0, dr, e0, de, f0, df;
  bool triangle = false;  // u + v <= 1 constraint
};

struct Box {
  I t, u, v;
};

struct Later {
  bool operator()(const Box& a, const Box& b) const { return a.t.lower() > b.t.lower(); }
};

bool may_contain_zero(const Problem& P, const Box& B, double delta) {
  for (int k = 0; k < 3; ++k) {
    const I f = P.r0.c[k] + B.t * P.dr.c[k] - B.u * (P.e0.c[k] + B.t * P.de.c[k]) -
                B.v * (P.f0.c[k] + B.t * P.df.c[k]);
    if (f.lower() > delta || f.upper() < -delta) return false;
  }
  return true;
}

IntervalCcdResult solve(const Problem& P, const IntervalCcdParams& prm) {
  IntervalCcdResult res;
  std::priority_queue<Box, std::vector<Box>, Later> queue;
  queue.push({I(0.0, 1.0), I(0.0, 1.0), I(0.0, 1.0)});
  while (!queue.empty()) {
    const Box b = queue.top();
    queue.pop();
    if (P.triangle && (I(b.u.lower()) + I(b.v.lower())).lower() > 1.0) continue;  // outside u + v <= 1
    if (++res.boxes > prm.max_boxes) {
      res.hit = true;
      res.toi = b.t.lower();
      res.budget_exhausted = true;
      return res;
    }
    if (!may_contain_zero(P, b, prm.delta)) continue;
    const double wt = width(b.t), wu = width(b.u), wv = width(b.v);
    if (wt <= prm.time_tolerance && wu <= prm.param_tolerance && wv <= prm.param_tolerance) {
      res.hit = true;
      res.toi = b.t.lower();
      return res;
    }
    // Split the widest direction (t measured against its own tolerance).
    const double st = wt / prm.time_tolerance, su = wu / prm.param_tolerance, sv = wv / prm.param_tolerance;
    Box l = b, h = b;
    if (st >= su && st >= sv) {
      const double m = median(b.t);
      l.t = I(b.t.lower(), m);
      h.t = I(m, b.t.upper());
    } else if (su >= sv) {
      const double m = median(b.u);
      l.u = I(b.u.lower(), m);
      h.u = I(m, b.u.upper());
    } else {
      const double m = median(b.v);
      l.v = I(b.v.lower(), m);
      h.v = I(m, b.v.upper());
    }
    queue.push(l);
    queue.push(h);
  }
  return res;
}

IV3 sub(const IV3& a, const IV3& b) {
  IV3 r;
  for (int k = 0; k < 3; ++k) r.c[k] = a.c[k] - b.c[k];
  return r;
}

IV3 neg(const IV3& a) {
  IV3 r;
  for (int k = 0; k < 3; ++k) r.c[k] = -a.c[k];
  return r;
}

}  // namespace

IntervalCcdResult point_triangle_interval_ccd(const Vec3& p0, const Vec3& a0, const Vec3& b0, const Vec3& c0,
                                              const Vec3& p1, const Vec3& a1, const Vec3& b1, const Vec3& c1,
                                              const IntervalCcdParams& params) {
  RoundingGuard guard;  // upward rounding for this query, restored on return
  Problem P;
  P.triangle = true;
  const IV3 dp = diff(p1, p0), da = diff(a1, a0), db = diff(b1, b0), dc = diff(c1, c0);
  P.r0 = diff(p0, a0);
  P.dr = sub(dp, da);
  P.e0 = diff(b0, a0);
  P.de = sub(db, da);
  P.f0 = diff(c0, a0);
  P.df = sub(dc, da);
  return solve(P, params);
}

IntervalCcdResult edge_edge_interval_ccd(const Vec3& ea0_0, const Vec3& ea1_0, const Vec3& eb0_0, const Vec3& eb1_0,
                                         const Vec3& ea0_1, const Vec3& ea1_1, const Vec3& eb0_1, const Vec3& eb1_1,
                                         const IntervalCcdParams& params) {
  RoundingGuard guard;  // upward rounding for this query, restored on return
  // F = (ea0 - eb0) + u (ea1 - ea0) - v (eb1 - eb0) = r - u (-(ea1 - ea0)) - v (eb1 - eb0).
  Problem P;
  const IV3 da0 = diff(ea0_1, ea0_0), da1 = diff(ea1_1, ea1_0), db0 = diff(eb0_1, eb0_0), db1 = diff(eb1_1, eb1_0);
  P.r0 = diff(ea0_0, eb0_0);
  P.dr = sub(da0, db0);
  P.e0 = neg(diff(ea1_0, ea0_0));
  P.de = neg(sub(da1, da0));
  P.f0 = diff(eb1_0, eb0_0);
  P.df = sub(db1, db0);
  return solve(P, params);
}

}  // namespace weft
