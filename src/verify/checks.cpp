#include "verify/checks.hpp"

#include <algorithm>
#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <type_traits>

#include "core/error.hpp"
#include "core/material_point.hpp"
#include "verify/predicates.hpp"

namespace weft::verify {

const char* kind_name(int kind) {
  switch (kind) {
    case kTriangle: return "triangle";
    case kSegment: return "segment";
    case kPoint: return "point";
  }
  return "?";
}

static_assert(std::is_trivially_copyable<Stats>::value, "Stats is exchanged as bytes");

bool lower_pair(const PairRef& p, const PairRef& q) {
  if (p.kind_a != q.kind_a) return p.kind_a < q.kind_a;
  if (p.a != q.a) return p.a < q.a;
  if (p.kind_b != q.kind_b) return p.kind_b < q.kind_b;
  return p.b < q.b;
}

void merge(Stats& into, const Stats& from) {
  auto earlier = [](long f, long g) { return f >= 0 && (g < 0 || f < g); };
  into.frames += from.frames;

  into.nonfinite_frames += from.nonfinite_frames;
  if (earlier(from.nonfinite_frame, into.nonfinite_frame)) {
    into.nonfinite_frame = from.nonfinite_frame;
    into.nonfinite_vertex = from.nonfinite_vertex;
  }

  into.strain_checked += from.strain_checked;
  into.strain_violations += from.strain_violations;
  if (from.strain_frame >= 0 &&
      (from.strain_excess > into.strain_excess ||
       (from.strain_excess == into.strain_excess && earlier(from.strain_frame, into.strain_frame)))) {
    into.strain_excess = from.strain_excess;
    into.strain_sigma = from.strain_sigma;
    into.strain_limit = from.strain_limit;
    into.strain_frame = from.strain_frame;
    into.strain_triangle = from.strain_triangle;
  }

  into.candidate_pairs += from.candidate_pairs;
  into.intersections += from.intersections;
  if (earlier(from.intersection_frame, into.intersection_frame) ||
      (from.intersection_frame >= 0 && from.intersection_frame == into.intersection_frame &&
       lower_pair(from.intersection_pair, into.intersection_pair))) {
    into.intersection_frame = from.intersection_frame;
    into.intersection_pair = from.intersection_pair;
  }

  into.distance_pairs += from.distance_pairs;
  into.distance_violations += from.distance_violations;
  if (from.distance_frame >= 0 &&
      (from.distance_gap < into.distance_gap ||
       (from.distance_gap == into.distance_gap &&
        (earlier(from.distance_frame, into.distance_frame) ||
         (from.distance_frame == into.distance_frame && lower_pair(from.distance_pair, into.distance_pair)))))) {
    into.distance_gap = from.distance_gap;
    into.distance_value = from.distance_value;
    into.distance_offset = from.distance_offset;
    into.distance_frame = from.distance_frame;
    into.distance_pair = from.distance_pair;
  }

  into.aniso_checked += from.aniso_checked;
  into.aniso_violations += from.aniso_violations;
  if (from.aniso_frame >= 0 &&
      (from.aniso_excess > into.aniso_excess ||
       (from.aniso_excess == into.aniso_excess && earlier(from.aniso_frame, into.aniso_frame)))) {
    into.aniso_excess = from.aniso_excess;
    into.aniso_stretch = from.aniso_stretch;
    into.aniso_limit = from.aniso_limit;
    into.aniso_frame = from.aniso_frame;
    into.aniso_triangle = from.aniso_triangle;
    into.aniso_direction = from.aniso_direction;
  }

  into.tet_checks += from.tet_checks;
  into.inversions += from.inversions;
  if (from.inversion_frame >= 0 &&
      (from.inversion_ratio < into.inversion_ratio ||
       (from.inversion_ratio == into.inversion_ratio && earlier(from.inversion_frame, into.inversion_frame)))) {
    into.inversion_ratio = from.inversion_ratio;
    into.inversion_frame = from.inversion_frame;
    into.inversion_tet = from.inversion_tet;
  }
}

// ---------------------------------------------------------------------------------------
// FrameChecker

void FrameChecker::set_triangles(const std::vector<Tri>& tris) {
  tris_ = tris;
  root_ = tear_roots(mesh_.triangles, tris_, int(mesh_.num_vertices()));
  for (std::size_t t = 0; t < tris_.size(); ++t)  // (the triangles are the first prims, by row)
    for (int k = 0; k < 3; ++k) prims_[t].v[k] = tris_[t][k];
}

FrameChecker::FrameChecker(const ResultMesh& mesh, const Options& opt) : mesh_(mesh), tris_(mesh.triangles), opt_(opt) {
  if (!mesh.stitches.empty()) {
    twin_.assign(mesh.num_vertices(), -1);
    for (const Edge& e : mesh.stitches) twin_[e[0]] = e[1], twin_[e[1]] = e[0];
  }
  // The rest-shape inverses of the strain-limited triangles (none: no table, 24 bytes a
  // vertex less; an empty strain_limit means none is limited).
  const double nan = std::nan("");
  const bool limited = std::any_of(mesh.strain_limit.begin(), mesh.strain_limit.end(), [](double l) { return l > 0; });
  if (limited) dm_inv_.assign(3 * mesh.triangles.size(), nan);
  for (std::size_t t = 0; limited && t < mesh.triangles.size(); ++t) {
    if (!(mesh.strain_limit[t] > 0)) continue;
    ++strain_limited_;
    const Tri& tri = mesh.triangles[t];
    const Vec3 e1 = mesh.rest[tri[1]] - mesh.rest[tri[0]], e2 = mesh.rest[tri[2]] - mesh.rest[tri[0]];
    // Rest shape in the triangle's own 2D frame: Dm = [[a, b], [0, c]].
    const double a = e1.norm();
    const double b = a > 0 ? e1.dot(e2) / a : 0.0;
    const double c = a > 0 ? e1.cross(e2).norm() / a : 0.0;
    if (!(a > 0) || !(c > 0) || !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c) ||
        c <= 1e-14 * a) {
      if (degenerate_rest_++ == 0) first_degenerate_ = long(t);
      continue;
    }
    dm_inv_[3 * t] = 1.0 / a;
    dm_inv_[3 * t + 1] = -b / (a * c);
    dm_inv_[3 * t + 2] = 1.0 / c;
  }
  // Contact primitives in one index space: triangles, then segments, then points.
  prims_.reserve(mesh.triangles.size() + mesh.segments.size() + mesh.points.size());
  // (A part's rows carry their whole mesh's indices, ascending: the pair order is the same.)
  auto index = [](const std::vector<long>& of, std::size_t k) { return of.empty() ? long(k) : of[k]; };
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const Tri& tr = mesh.triangles[t];
    prims_.push_back({kTriangle, 3, index(mesh.triangle_index, t), {tr[0], tr[1], tr[2]}, mesh.triangle_offset[t]});
  }
  for (std::size_t e = 0; e < mesh.segments.size(); ++e)
    prims_.push_back({kSegment, 2, index(mesh.segment_index, e), {mesh.segments[e][0], mesh.segments[e][1], -1},
                      mesh.segment_offset[e]});
  for (std::size_t p = 0; p < mesh.points.size(); ++p)
    prims_.push_back({kPoint, 1, index(mesh.point_index, p), {mesh.points[p], -1, -1}, mesh.point_offset[p]});
  // Orthotropic triangles: the rest edge matrix in the (warp, weft) frame of the rest plane.
  for (std::size_t t = 0; t < mesh.warp_direction.size(); ++t) {
    const double lw = mesh.strain_limit_warp[t], lf = mesh.strain_limit_weft[t];
    const Vec3& d1 = mesh.warp_direction[t];
    if (!(d1.squaredNorm() > 0) || !(lw > 0 || lf > 0)) continue;
    const Tri& tri = mesh.triangles[t];
    const Vec3 e1 = mesh.rest[tri[1]] - mesh.rest[tri[0]], e2 = mesh.rest[tri[2]] - mesh.rest[tri[0]];
    const Vec3 n = e1.cross(e2).normalized();
    const Vec3 w = d1.normalized(), f = n.cross(w);
    const double a = e1.dot(w), b = e2.dot(w), c = e1.dot(f), d = e2.dot(f);
    const double det = a * d - b * c;
    if (!(std::abs(det) > 0) || !std::isfinite(det)) continue;  // degenerate rest: no direction to measure
    aniso_.push_back({long(t), {d / det, -b / det, -c / det, a / det}, {lw, lf}});
  }
  rest_volume_.resize(mesh.tets.size());
  for (std::size_t k = 0; k < mesh.tets.size(); ++k) {
    const auto& tt = mesh.tets[k];
    const Vec3& x0 = mesh.rest[tt[0]];
    rest_volume_[k] = (mesh.rest[tt[1]] - x0).dot((mesh.rest[tt[2]] - x0).cross(mesh.rest[tt[3]] - x0)) / 6.0;
  }
}

void FrameChecker::check(long frame, const std::vector<Vec3>& x, Stats& s) {
  ++s.frames;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!x[i].allFinite()) {
      ++s.nonfinite_frames;
      if (s.nonfinite_frame < 0 || frame < s.nonfinite_frame) {
        s.nonfinite_frame = frame;
        s.nonfinite_vertex = long(i);
      }
      return;  // geometry of this frame is meaningless
    }
  }
  check_strain(frame, x, s);
  check_tets(frame, x, s);
  check_aniso(frame, x, s);
  check_contact(frame, x, s);
}

void FrameChecker::check_strain(long frame, const std::vector<Vec3>& x, Stats& s) const {
  const std::size_t nt = dm_inv_.empty() ? 0 : mesh_.triangles.size();
  for (std::size_t t = 0; t < nt; ++t) {
    const double i00 = dm_inv_[3 * t];
    if (std::isnan(i00)) continue;
    const double i01 = dm_inv_[3 * t + 1], i11 = dm_inv_[3 * t + 2];
    const Tri& tri = tris_[t];
    const Vec3 d1 = x[tri[1]] - x[tri[0]], d2 = x[tri[2]] - x[tri[0]];
    const Vec3 f1 = d1 * i00, f2 = d1 * i01 + d2 * i11;  // columns of F = Ds Dm^-1
    const double p = f1.squaredNorm(), q = f1.dot(f2), r = f2.squaredNorm();
    const double half = 0.5 * (p - r);
    const double lambda = 0.5 * (p + r) + std::sqrt(half * half + q * q);  // largest eig of F^T F
    const double sigma = std::sqrt(lambda);
    const double limit = mesh_.strain_limit[t];
    const double excess = sigma - limit;
    ++s.strain_checked;
    if (excess > opt_.tol_strain) ++s.strain_violations;
    if (excess > s.strain_excess) {
      s.strain_excess = excess;
      s.strain_sigma = sigma;
      s.strain_limit = limit;
      s.strain_frame = frame;
      s.strain_triangle = long(t);
    }
  }
}

void FrameChecker::check_aniso(long frame, const std::vector<Vec3>& x, Stats& s) const {
  for (const AnisoTri& at : aniso_) {
    const Tri& tri = tris_[std::size_t(at.t)];
    const Vec3 d1 = x[tri[1]] - x[tri[0]], d2 = x[tri[2]] - x[tri[0]];
    // G = [d1 d2] Dm^-1: column 0 = F d_warp, column 1 = F d_weft.
    const Vec3 g[2] = {d1 * at.m[0] + d2 * at.m[2], d1 * at.m[1] + d2 * at.m[3]};
    for (int dir = 0; dir < 2; ++dir) {
      if (!(at.limit[dir] > 0)) continue;
      const double stretch = g[dir].norm(), excess = stretch - at.limit[dir];
      ++s.aniso_checked;
      if (excess > opt_.tol_strain) ++s.aniso_violations;
      if (excess > s.aniso_excess) {
        s.aniso_excess = excess;
        s.aniso_stretch = stretch;
        s.aniso_limit = at.limit[dir];
        s.aniso_frame = frame;
        s.aniso_triangle = at.t;
        s.aniso_direction = dir;
      }
    }
  }
}

void FrameChecker::check_tets(long frame, const std::vector<Vec3>& x, Stats& s) const {
  for (std::size_t k = 0; k < mesh_.tets.size(); ++k) {
    const auto& tt = mesh_.tets[k];
    const Vec3& x0 = x[tt[0]];
    const double vol = (x[tt[1]] - x0).dot((x[tt[2]] - x0).cross(x[tt[3]] - x0)) / 6.0;
    const double rest = rest_volume_[k];
    const double ratio = rest != 0 ? vol / rest : vol;
    ++s.tet_checks;
    if (!(ratio > 0)) ++s.inversions;
    if (ratio < s.inversion_ratio) {
      s.inversion_ratio = ratio;
      s.inversion_frame = frame;
      s.inversion_tet = long(k);
    }
  }
}

void FrameChecker::check_contact(long frame, const std::vector<Vec3>& x, Stats& s) {
  const std::size_t n = prims_.size();
  if (n < 2) return;
  const std::vector<Prim>& prims = prims_;

  // A primitive's box at x (raw) and the same inflated by half its offset (+ tol): two
  // inflated boxes overlap whenever the primitives are closer than their pair offset
  // (+ 2 tol), so no violating pair is missed.
  auto box_of = [&](std::size_t i, Aabb& raw, Aabb& padded) {
    const Prim& p = prims[i];
    for (int k = 0; k < 3; ++k) raw.lo[k] = raw.hi[k] = x[p.v[0]][k];
    for (int m = 1; m < p.n; ++m)
      for (int k = 0; k < 3; ++k) {
        raw.lo[k] = std::min(raw.lo[k], x[p.v[m]][k]);
        raw.hi[k] = std::max(raw.hi[k], x[p.v[m]][k]);
      }
    padded = raw;
    const double pad = 0.5 * p.offset + opt_.tol_distance;
    for (int k = 0; k < 3; ++k) {
      padded.lo[k] -= pad;
      padded.hi[k] += pad;
    }
  };
  const double tol = opt_.tol_distance, crossing = opt_.crossing_distance;
  // i, j: primitive indices (i < j); ri, rj: their raw boxes.
  auto examine = [&](std::uint32_t i, std::uint32_t j, const Aabb& ri, const Aabb& rj) {
    const Prim &a = prims[i], &b = prims[j];  // a.kind <= b.kind since i < j
    for (int u = 0; u < a.n; ++u)
      for (int w = 0; w < b.n; ++w)
        if (one_material_point(root_, a.v[u], b.v[w], x[a.v[u]], x[b.v[w]]) ||
            (!twin_.empty() && twin_[a.v[u]] == b.v[w]))
          return;  // adjacent: not checked
    ++s.candidate_pairs;
    const double offset = 0.5 * (a.offset + b.offset);
    // Lower bound on the distance: the gap between the raw boxes. A pair that can neither
    // be a violation nor beat the smallest gap so far needs no distance evaluation (its
    // intersection test still runs; intersecting pairs have overlapping raw boxes).
    const bool boxes_touch = overlap(ri, rj);
    ++s.distance_pairs;
    const double needed = std::max(offset - tol, offset + s.distance_gap);  // d below this matters
    double lb = 0;
    if (!boxes_touch) {
      double g2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double g = std::max(rj.lo[k] - ri.hi[k], ri.lo[k] - rj.hi[k]);
        if (g > 0) g2 += g * g;
      }
      lb = std::sqrt(g2);
    }
    if (lb < needed || lb < crossing) {
      // Separation along the axis joining the centroids (any unit axis bounds the distance).
      Vec3 ca = Vec3::Zero(), cb = Vec3::Zero();
      for (int u = 0; u < a.n; ++u) ca += x[a.v[u]];
      for (int w = 0; w < b.n; ++w) cb += x[b.v[w]];
      Vec3 axis = cb / b.n - ca / a.n;
      const double len = axis.norm();
      if (len > 0) {
        axis /= len;
        double amax = -std::numeric_limits<double>::infinity(), bmin = -amax;
        for (int u = 0; u < a.n; ++u) amax = std::max(amax, x[a.v[u]].dot(axis));
        for (int w = 0; w < b.n; ++w) bmin = std::min(bmin, x[b.v[w]].dot(axis));
        // Shrunk by 1e-12 x the coordinate magnitude, far above the dot products' rounding,
        // so it never exceeds the true separation.
        double scale = 0;
        for (int k = 0; k < 3; ++k)
          scale = std::max({scale, std::fabs(ri.lo[k]), std::fabs(ri.hi[k]), std::fabs(rj.lo[k]),
                            std::fabs(rj.hi[k])});
        const double sep = (bmin - amax) - 1e-12 * scale;
        lb = std::max(lb, sep);
      }
    }
    // lb > 0 proves the pair disjoint, so skipping also skips nothing for the intersection check.
    if (lb > 0 && lb >= needed && lb >= crossing) return;
    bool hit = false;
    double d;
    if (a.kind == kTriangle && b.kind == kTriangle) {
      const Vec3 &a0 = x[a.v[0]], &a1 = x[a.v[1]], &a2 = x[a.v[2]];
      const Vec3 &b0 = x[b.v[0]], &b1 = x[b.v[1]], &b2 = x[b.v[2]];
      hit = boxes_touch && triangle_triangle_intersect(a0, a1, a2, b0, b1, b2);
      d = hit ? 0.0 : triangle_triangle_distance(a0, a1, a2, b0, b1, b2);
    } else if (a.kind == kTriangle && b.kind == kSegment) {
      const Vec3 &a0 = x[a.v[0]], &a1 = x[a.v[1]], &a2 = x[a.v[2]];
      const Vec3 &p = x[b.v[0]], &q = x[b.v[1]];
      hit = boxes_touch && segment_triangle_intersect(p, q, a0, a1, a2);
      d = hit ? 0.0 : segment_triangle_distance(p, q, a0, a1, a2);
    } else if (a.kind == kTriangle) {
      d = point_triangle_distance(x[b.v[0]], x[a.v[0]], x[a.v[1]], x[a.v[2]]);
    } else if (a.kind == kSegment && b.kind == kSegment) {
      d = segment_segment_distance(x[a.v[0]], x[a.v[1]], x[b.v[0]], x[b.v[1]]);
      hit = d < crossing;
    } else if (a.kind == kSegment) {
      d = point_segment_distance(x[b.v[0]], x[a.v[0]], x[a.v[1]]);
    } else {
      d = (x[a.v[0]] - x[b.v[0]]).norm();
    }
    // The example pairs: the earliest frame, then the lowest pair (lower_pair), whatever
    // order the grid visits pairs in and however the work is split over processes.
    const PairRef here{a.kind, b.kind, a.index, b.index};
    if (hit) {
      ++s.intersections;
      if (s.intersection_frame < 0 ||
          (s.intersection_frame == frame && lower_pair(here, s.intersection_pair))) {
        s.intersection_frame = frame;
        s.intersection_pair = here;
      }
    }
    const double gap = d - offset;
    if (gap < -tol) ++s.distance_violations;
    if (gap < s.distance_gap ||
        (gap == s.distance_gap && s.distance_frame == frame && lower_pair(here, s.distance_pair))) {
      s.distance_gap = gap;
      s.distance_value = d;
      s.distance_offset = offset;
      s.distance_frame = frame;
      s.distance_pair = here;
    }
  };
  // The primitives whose pairs are examined here (the lower primitive of each pair decides):
  // every one, or this process's share (set_share). They are taken in chunks of at most
  // opt_.chunk_primitives, in index order: the grid of a chunk holds its own primitives and
  // the others whose boxes meet the union of its own (which holds every pair it examines),
  // so the boxes and grid entries held at once are a chunk's and its neighbourhood's, not
  // the whole surface's (~450 bytes per cloth vertex at one grid: the initial check's peak
  // at 4M vertices, issue 20). A mesh in spatially coherent order (generators, most files)
  // gives compact chunks; the counts and example pairs do not depend on the split (as for
  // the split over processes).
  share_.assign(n, 1);
  std::size_t own_count = n;
  if (mine_) {
    own_count = 0;
    for (std::size_t i = 0; i < n; ++i) own_count += share_[i] = mine_(prims[i].v[0]) ? 1 : 0;
  }
  const std::size_t per_chunk = std::max<std::size_t>(1, opt_.chunk_primitives);
  Aabb raw, padded;
  std::size_t next = 0;  // the first primitive not yet in a chunk
  while (next < n) {
    // This chunk: own primitives next.. up to per_chunk of them (all of them in one chunk
    // when they fit: then no overlap test is needed for a process that owns everything).
    // (A chunk also ends where the primitive kind changes: triangles, segments and points
    // are mostly different objects, and a chunk's union box spanning two would hold both.)
    std::size_t end = next, taken = 0;
    while (end < n && taken < per_chunk && (end == next || prims[end].kind == prims[next].kind))
      taken += share_[end++];
    const bool whole = next == 0 && end == n && own_count == n;
    near_.clear();
    raw_.clear();
    boxes_.clear();
    if (whole) {
      raw_.resize(n);
      boxes_.resize(n);
      near_.resize(n);
      for (std::size_t i = 0; i < n; ++i) box_of(i, raw_[i], boxes_[i]), near_[i] = std::uint32_t(i);
    } else {
      Aabb own;
      for (int k = 0; k < 3; ++k) own.lo[k] = HUGE_VAL, own.hi[k] = -HUGE_VAL;
      const std::size_t expect = std::min(n, taken + taken / 4 + 16);  // the chunk and a margin
      near_.reserve(expect), raw_.reserve(expect), boxes_.reserve(expect);
      for (std::size_t i = next; i < end; ++i) {
        if (!share_[i]) continue;
        box_of(i, raw, padded);
        for (int k = 0; k < 3; ++k)
          own.lo[k] = std::min(own.lo[k], padded.lo[k]), own.hi[k] = std::max(own.hi[k], padded.hi[k]);
      }
      for (std::size_t i = 0; i < n; ++i) {
        box_of(i, raw, padded);
        if ((i >= next && i < end && share_[i]) || overlap(padded, own))
          near_.push_back(std::uint32_t(i)), raw_.push_back(raw), boxes_.push_back(padded);
      }
    }
    if (!near_.empty()) {
      grid_.build(boxes_);
      grid_.for_each_pair([&](std::uint32_t ci, std::uint32_t cj) {
        const std::uint32_t i = near_[ci], j = near_[cj];  // ascending, so i < j
        if (i >= next && i < end && share_[i]) examine(i, j, raw_[ci], raw_[cj]);
      });
    }
    next = end;
  }
  // (Released between frames, and the grid pointed at the empty list: a chunk's boxes can be
  // a large fraction of the surface's.)
  std::vector<Aabb>().swap(raw_);
  std::vector<Aabb>().swap(boxes_);
  std::vector<std::uint32_t>().swap(near_);
  grid_.build(boxes_);
}

// ---------------------------------------------------------------------------------------
// Report

bool Report::pass() const {
  for (const auto& c : checks)
    if (!c.pass) return false;
  return true;
}

const CheckLine* Report::find(const std::string& name) const {
  for (const auto& c : checks)
    if (c.name == name) return &c;
  return nullptr;
}

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string pair_text(const PairRef& p) {
  return std::string(kind_name(p.kind_a)) + " " + std::to_string(p.a) + " x " + kind_name(p.kind_b) +
         " " + std::to_string(p.b);
}

CheckLine named(const char* name) {
  CheckLine c;
  c.name = name;
  return c;
}

void add_pair_fields(CheckLine& c, long frame, const PairRef& p) {
  c.numbers.push_back({"frame", double(frame)});
  c.strings.push_back({"kind_a", kind_name(p.kind_a)});
  c.numbers.push_back({"index_a", double(p.a)});
  c.strings.push_back({"kind_b", kind_name(p.kind_b)});
  c.numbers.push_back({"index_b", double(p.b)});
}

}  // namespace

Report make_report(const ResultFile& file, const FrameChecker& checker, const Stats& s, const Options& opt) {
  Report r;
  r.file = file.path();
  r.frames = file.num_frames();

  {  // complete
    CheckLine c = named("complete");
    c.pass = file.has_complete() && file.complete_value() == 1;
    if (!file.has_complete())
      c.message = "file incomplete: root attribute \"complete\" missing (unfinished run)";
    else if (file.complete_value() != 1)
      c.message = "file incomplete: root attribute \"complete\" = " + std::to_string(file.complete_value()) +
                  " (unfinished run)";
    else
      c.message = "run finished, " + std::to_string(r.frames) + " frames";
    if (r.frames == 0) {
      c.pass = false;
      c.message += "; no frames in /frames/positions";
    }
    c.numbers.push_back({"complete", file.has_complete() ? double(file.complete_value()) : std::nan("")});
    c.numbers.push_back({"frames", double(r.frames)});
    r.checks.push_back(c);
  }
  {  // finite
    CheckLine c = named("finite");
    c.pass = s.nonfinite_frames == 0;
    c.numbers.push_back({"violations", double(s.nonfinite_frames)});
    if (c.pass) {
      c.message = "all positions finite (" + std::to_string(s.frames) + " frames x " +
                  std::to_string(file.mesh().num_vertices()) + " vertices)";
    } else {
      c.message = "non-finite position at frame " + std::to_string(s.nonfinite_frame) + " vertex " +
                  std::to_string(s.nonfinite_vertex) + "; " + std::to_string(s.nonfinite_frames) +
                  " frames affected (geometric checks skip them)";
      c.numbers.push_back({"frame", double(s.nonfinite_frame)});
      c.numbers.push_back({"vertex", double(s.nonfinite_vertex)});
    }
    r.checks.push_back(c);
  }
  {  // strain
    CheckLine c = named("strain");
    c.pass = s.strain_violations == 0 && checker.degenerate_rest() == 0;
    c.numbers.push_back({"violations", double(s.strain_violations)});
    c.numbers.push_back({"tolerance", opt.tol_strain});
    if (checker.strain_limited() == 0) {
      c.message = "no strain-limited triangles";
    } else if (s.strain_frame < 0) {
      c.message = "no frame checked";
    } else {
      c.message = "worst " + num(s.strain_sigma) + " (limit " + num(s.strain_limit) + ") at frame " +
                  std::to_string(s.strain_frame) + " triangle " + std::to_string(s.strain_triangle);
      if (s.strain_violations > 0)
        c.message += "; " + std::to_string(s.strain_violations) + " triangle-frames over limit + " +
                     num(opt.tol_strain);
      c.numbers.push_back({"worst", s.strain_sigma});
      c.numbers.push_back({"limit", s.strain_limit});
      c.numbers.push_back({"frame", double(s.strain_frame)});
      c.numbers.push_back({"triangle", double(s.strain_triangle)});
    }
    if (checker.degenerate_rest() > 0)
      c.message += "; " + std::to_string(checker.degenerate_rest()) +
                   " strain-limited triangles have zero rest area (first: triangle " +
                   std::to_string(checker.first_degenerate_rest()) + ")";
    r.checks.push_back(c);
  }
  {  // intersection
    CheckLine c = named("intersection");
    c.pass = s.intersections == 0;
    c.numbers.push_back({"violations", double(s.intersections)});
    c.numbers.push_back({"candidate_pairs", double(s.candidate_pairs)});
    if (c.pass) {
      c.message = "none in " + std::to_string(s.frames) + " frames (" + std::to_string(s.candidate_pairs) +
                  " non-adjacent candidate pairs)";
    } else {
      c.message = std::to_string(s.intersections) + " intersecting pairs; first at frame " +
                  std::to_string(s.intersection_frame) + ": " + pair_text(s.intersection_pair);
      add_pair_fields(c, s.intersection_frame, s.intersection_pair);
    }
    r.checks.push_back(c);
  }
  {  // distance
    CheckLine c = named("distance");
    c.pass = s.distance_violations == 0;
    c.numbers.push_back({"violations", double(s.distance_violations)});
    c.numbers.push_back({"tolerance", opt.tol_distance});
    if (s.distance_frame < 0) {
      c.message = "no non-adjacent pair within offset + " + num(opt.tol_distance) + " in " +
                  std::to_string(s.frames) + " frames";
    } else {
      c.message = "min gap " + num(s.distance_gap) + " (distance " + num(s.distance_value) + ", offset " +
                  num(s.distance_offset) + ") at frame " + std::to_string(s.distance_frame) + ": " +
                  pair_text(s.distance_pair);
      if (s.distance_violations > 0)
        c.message += "; " + std::to_string(s.distance_violations) + " pairs closer than offset - " +
                     num(opt.tol_distance);
      c.numbers.push_back({"worst", s.distance_gap});
      c.numbers.push_back({"distance", s.distance_value});
      c.numbers.push_back({"offset", s.distance_offset});
      add_pair_fields(c, s.distance_frame, s.distance_pair);
    }
    r.checks.push_back(c);
  }
  {  // inversion
    CheckLine c = named("inversion");
    c.pass = s.inversions == 0;
    c.numbers.push_back({"violations", double(s.inversions)});
    if (file.mesh().tets.empty()) {
      c.message = "no tets";
    } else if (s.inversion_frame < 0) {
      c.message = "no frame checked";
    } else {
      c.message = "worst volume ratio " + num(s.inversion_ratio) + " at frame " +
                  std::to_string(s.inversion_frame) + " tet " + std::to_string(s.inversion_tet);
      if (s.inversions > 0) c.message += "; " + std::to_string(s.inversions) + " inverted tet-frames";
      c.numbers.push_back({"worst", s.inversion_ratio});
      c.numbers.push_back({"frame", double(s.inversion_frame)});
      c.numbers.push_back({"tet", double(s.inversion_tet)});
    }
    r.checks.push_back(c);
  }
  {  // anisotropic
    CheckLine c = named("anisotropic");
    c.pass = s.aniso_violations == 0;
    c.numbers.push_back({"violations", double(s.aniso_violations)});
    c.numbers.push_back({"tolerance", opt.tol_strain});
    if (checker.aniso_limited() == 0) {
      c.message = "no warp/weft-limited triangles";
    } else if (s.aniso_frame < 0) {
      c.message = "no frame checked";
    } else {
      const char* dir = s.aniso_direction == 0 ? "warp" : "weft";
      c.message = std::string("worst stretch along ") + dir + " " + num(s.aniso_stretch) + " (limit " +
                  num(s.aniso_limit) + ") at frame " + std::to_string(s.aniso_frame) + " triangle " +
                  std::to_string(s.aniso_triangle);
      if (s.aniso_violations > 0)
        c.message += "; " + std::to_string(s.aniso_violations) + " triangle-direction-frames over limit + " +
                     num(opt.tol_strain);
      c.numbers.push_back({"worst", s.aniso_stretch});
      c.numbers.push_back({"limit", s.aniso_limit});
      c.numbers.push_back({"frame", double(s.aniso_frame)});
      c.numbers.push_back({"triangle", double(s.aniso_triangle)});
      c.strings.push_back({"direction", dir});
    }
    r.checks.push_back(c);
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// verify_file

Report verify_file(const std::string& path, const Options& opt, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  std::unique_ptr<ResultFile> file;
  std::unique_ptr<FrameChecker> checker;
  Stats local;
  int err_kind = 0;  // 1 = InputError, 2 = other failure
  std::string err;
  try {
    file = std::make_unique<ResultFile>(path);
    checker = std::make_unique<FrameChecker>(file->mesh(), opt);
    std::vector<Vec3> x;
    std::vector<Tri> tris;
    for (long f = rank; f < file->num_frames(); f += size) {
      file->read_frame(f, x);
      if (file->has_frame_triangles()) {
        file->read_frame_triangles(f, tris);
        checker->set_triangles(tris);
      }
      checker->check(f, x, local);
    }
  } catch (const InputError& e) {
    err_kind = 1;
    err = e.what();
  } catch (const std::exception& e) {
    err_kind = 2;
    err = path + ": " + e.what();
  }

  // Agree on failure: the lowest failing rank's message is raised on every rank.
  std::vector<int> kinds(std::size_t(size), 0);
  MPI_Allgather(&err_kind, 1, MPI_INT, kinds.data(), 1, MPI_INT, comm);
  for (int r = 0; r < size; ++r) {
    if (kinds[std::size_t(r)] == 0) continue;
    int len = int(err.size());
    MPI_Bcast(&len, 1, MPI_INT, r, comm);
    std::string msg(std::size_t(len), '\0');
    if (rank == r) msg = err;
    if (len > 0) MPI_Bcast(&msg[0], len, MPI_CHAR, r, comm);
    if (kinds[std::size_t(r)] == 1) throw InputError(msg);
    throw RuntimeFailure(msg);
  }

  return make_report(*file, *checker, merge_over(comm, local), opt);
}

Stats merge_over(MPI_Comm comm, const Stats& local) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<Stats> all(static_cast<std::size_t>(size));
  MPI_Allgather(&local, int(sizeof(Stats)), MPI_BYTE, all.data(), int(sizeof(Stats)), MPI_BYTE, comm);
  Stats total;
  for (const Stats& s : all) merge(total, s);
  return total;
}

// ---------------------------------------------------------------------------------------
// Output

std::string to_text(const Report& r) {
  std::string out;
  for (const auto& c : r.checks) out += std::string(c.pass ? "PASS " : "FAIL ") + c.name + "  " + c.message + "\n";
  return out;
}

namespace {

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          o += buf;
        } else {
          o += char(ch);
        }
    }
  }
  return o + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string to_json(const Report& r) {
  std::string o = "{\"file\": " + json_string(r.file) + ", \"frames\": " + std::to_string(r.frames) +
                  ", \"pass\": " + (r.pass() ? "true" : "false") + ", \"exit_code\": " +
                  std::to_string(r.exit_code()) + ", \"checks\": [";
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    const CheckLine& c = r.checks[i];
    o += i ? ",\n  " : "\n  ";
    o += "{\"name\": " + json_string(c.name) + ", \"pass\": " + (c.pass ? "true" : "false") +
         ", \"message\": " + json_string(c.message);
    for (const auto& kv : c.numbers) o += ", " + json_string(kv.first) + ": " + json_number(kv.second);
    for (const auto& kv : c.strings) o += ", " + json_string(kv.first) + ": " + json_string(kv.second);
    o += "}";
  }
  o += "\n]}\n";
  return o;
}

}  // namespace weft::verify
