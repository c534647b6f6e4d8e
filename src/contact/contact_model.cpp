#include "contact/contact_model.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "contact/barrier.hpp"
#include "core/gallop.hpp"
#include "contact/distance_type.hpp"
#include "contact/friction.hpp"
#include "contact/mollifier.hpp"
#include "contact/pair_potential.hpp"
#include "contact/point_point.hpp"

namespace weft {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// How far beyond the barrier's support (in units of dhat) a pair already joins the matrix
// pattern (active_couplings).
constexpr double kCouplingReach = 1.0;
// Margin (in units of dhat) by which the swept query's vertex boxes are grown, on top of the
// vertex's own step, when the skin candidate set is rebuilt (update_swept); no skin set is
// built for a query whose largest vertex step exceeds kSkinMaxStep dhat. Tuned on
// drape_default (2 / 10: 11-12% less swept broad-phase time at 1 and 2 ranks than no skin;
// 1 dhat or a half-step growth rebuild too often, no cap builds sets of millions of pairs
// in the first iterations).
constexpr double kSkin = 2.0;
constexpr double kSkinMaxStep = 10.0;
// Growth by this fraction of a vertex's own step (on top of kSkin dhat) beyond that cap
// (measured on drape_default, 1 rank: 0 / 0.25 / 0.5 / 1 -> 85 / 74 / 68 / 64 broad-phase
// builds in 138 Newton iterations, skin sets 130K / 152K / 158K / 165K pairs).
constexpr double kSkinLargeStep = 0.5;
// ... and none whose growth (kSkin dhat + step) exceeds this fraction of the median rest
// edge length of the dynamic surface: the skin set grows with ((edge + 2 growth) / edge)^2,
// and on fine cloth a growth of a few dhat spans several edges (hang_two_corners at 256^2,
// 3.9 mm edges: 60M skin pairs, 1 GB, against 0.6M swept pairs).
constexpr double kSkinMaxGrowthPerEdge = 0.5;
// The swept set leaves out the pairs no consumer of the query needs (swept_pair_needed) on
// queries whose largest vertex step exceeds kSkinMaxStep dhat and this many median rest
// edge lengths: the sets whose size grows with (step / edge)^2 (hang_two_corners 128^2,
// 7.8 mm edges: steps of 18 edges in a time step's first Newton iteration, 3.2M pairs of
// which 95% are dropped). On shorter steps the test costs more than the pairs it drops save
// (soft drape 64^2 at 10 dhat: swept broad phase +24%, 18% of the pairs dropped).
constexpr double kDropStepPerEdge = 2.0;
// ... and only while it pays: once kDropProbe pairs of a query are tested, the test stops
// for the rest of that query when fewer than kDropShare of them were dropped. A dropped
// pair saves its CCD bound, its line-search trials and its proximity filter; a test costs
// about as much as the CCD bound when it drops the pair, less when it keeps it. Testing
// every pair of far queries cost the swept broad phase +11% on the soft drape 64^2 (about
// half of those pairs dropped; CCD -18%, trial energies -7%) and +23% on cloth_stack (2%:
// stacked layers in contact); a swinging cloth's far queries drop 80-95%. Which droppable
// pairs are left in changes no consumer's result (swept_pair_needed).
constexpr long kDropProbe = 4096;
constexpr double kDropShare = 0.6;

}  // namespace

ContactModel::ContactModel(CollisionSurface surface, VertexSpan<Vec3> rest, PagedArray<char> kinematic,
                           std::vector<double> object_friction, int owned_begin, int owned_end,
                           const ContactParams& params, const SumOverRanks& sum_over_ranks)
    : ContactModel(std::move(surface), rest, std::move(kinematic), std::move(object_friction), std::vector<char>(),
                   std::vector<char>(), params) {
  owned_range_ = true;
  owned_begin_ = owned_begin, owned_end_ = owned_end;
  // A rank that owns every vertex writes every entry: its per-vertex arrays as flat blocks.
  dense_arrays_ = owned_begin == 0 && owned_end == surface_.num_vertices();
  // A rank's share of the edges (EdgeShare): the median over every rank's own edges. (Every
  // rank of a run holds a share, so every rank joins the sum; a rank whose share happens to
  // hold every edge, e.g. the whole ground under a particle slab, too: deciding by its
  // own counts left the others waiting in the sum.)
  if (surface_.share) {
    if (!sum_over_ranks) throw std::logic_error("ContactModel: a share of the edges needs sum_over_ranks");
    skin_max_growth_ = kSkinMaxGrowthPerEdge * median_dynamic_edge_length(sum_over_ranks);
  }
}

ContactModel::ContactModel(CollisionSurface surface, VertexSpan<Vec3> rest, PagedArray<char> kinematic,
                           std::vector<double> object_friction, std::vector<char> point_owned,
                           std::vector<char> edge_owned, const ContactParams& params)
    : surface_(std::move(surface)),
      rest_(rest),
      kinematic_(std::move(kinematic)),
      object_friction_(std::move(object_friction)),
      point_owned_(std::move(point_owned)),
      edge_owned_(std::move(edge_owned)),
      params_(params) {
  // The largest offset of a surface point: over the vertex objects' runs (a surface vertex
  // is one with an object), not every vertex.
  surface_.vertex_object.for_each_run([&](int, int, int o) {
    if (o >= 0) max_offset_ = std::max(max_offset_, surface_.uniform_offset ? surface_.common_offset
                                                                            : surface_.object_offset[o]);
  });
  if (surface_.share) {
    // Its held edges are two runs of ids (triangle edges, segments): one block each.
    PagedArray<double>& len2 = surface_.edge_rest_length2;
    len2.assign(surface_.edges.size(), std::numeric_limits<double>::quiet_NaN());
    for (auto it = surface_.held_edges.begin(), end = surface_.held_edges.end(); it != end;) {
      const int first = *it;
      int next = first;
      while (it != end && *it == next) ++it, ++next;
      len2.commit_range(static_cast<size_t>(first), static_cast<size_t>(next));
    }
    for (int e : surface_.held_edges) {
      const Edge& g = surface_.edges[e];
      len2.ref(e) = (rest_[g[1]] - rest_[g[0]]).squaredNorm();
      // (a share's rest positions may be a rank's part: its own edges' vertices are in it)
      if (!std::isfinite(len2[e]))
        throw std::logic_error("contact share: no rest position for edge " + std::to_string(e) + "'s vertices");
    }
    rest_ = VertexSpan<Vec3>();
  }
  if (!surface_.share) skin_max_growth_ = kSkinMaxGrowthPerEdge * median_dynamic_edge_length(SumOverRanks());
}

// The median rest length of the dynamic edges, element count / 2 of them in ascending order
// (what nth_element gives; infinity when there is none: no growth bound), selected without
// a list of the lengths (at 4.2M vertices, the list and its growth were the stepper setup's
// largest transient, ~40 bytes a vertex on every rank): lengths are >= 0, so their order is
// that of their bit patterns, and a radix select finds the element 16 bits a pass. Over the
// held edges, their counts summed over the ranks by `sum` when given (a share's: the whole
// surface's median, the same bits at every rank count).
double ContactModel::median_dynamic_edge_length(const SumOverRanks& sum) const {
  auto dynamic = [&](int e) { return !kinematic_[surface_.edges[e][0]] || !kinematic_[surface_.edges[e][1]]; };
  auto bits = [&](int e) {
    const double len = std::sqrt(rest_length2(e));
    std::uint64_t u;
    std::memcpy(&u, &len, sizeof u);
    return u;
  };
  std::uint64_t count = 0;
  for (int e : surface_.held_edges) count += dynamic(e);
  if (sum) sum(&count, 1);
  if (count == 0) return std::numeric_limits<double>::infinity();
  std::uint64_t k = count / 2, prefix = 0, mask = 0;
  std::vector<std::uint64_t> hist(std::size_t(1) << 16);
  for (int shift = 48; shift >= 0; shift -= 16) {
    std::fill(hist.begin(), hist.end(), 0);
    for (int e : surface_.held_edges) {
      if (!dynamic(e)) continue;
      const std::uint64_t u = bits(e);
      if ((u & mask) == prefix) ++hist[(u >> shift) & 0xFFFF];
    }
    if (sum) sum(hist.data(), static_cast<int>(hist.size()));
    std::uint64_t b = 0;
    while (k >= hist[b]) k -= hist[b++];
    prefix |= b << shift;
    mask |= std::uint64_t(0xFFFF) << shift;
  }
  double median;
  std::memcpy(&median, &prefix, sizeof median);
  return median;
}

void ContactModel::set_active(const ActivePrimitives* active) {
  active_ = active;
  if (active_ && all_built_) all_ = ActivePrimitives(), all_built_ = false;
  broad_phase_.set_active(active);
  skin_phase_.set_active(active);
}

void ContactModel::count_broad(const BroadPhase& bp) {
  const long n = static_cast<long>(bp.last_stats().boxed);
  timers_.broad_primitives += n;
  timers_.broad_primitives_max = std::max(timers_.broad_primitives_max, n);
  ++timers_.broad_runs;
}

void ContactModel::store_swept(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx) {
  const Vec3 nan = Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
  if (swept_x_.size() != x.size()) {
    swept_x_.assign(x.size(), nan, dense_arrays_);
    swept_dx_.assign(x.size(), nan, dense_arrays_);
    swept_filled_.clear();
  }
  for (int v : swept_filled_) swept_x_.ref(v) = swept_dx_.ref(v) = nan;
  swept_filled_ = act().points;
  for (int v : swept_filled_) swept_x_.ref(v) = x[v], swept_dx_.ref(v) = dx[v];
}

bool ContactModel::all_kinematic(const int* v, int n) const {
  for (int i = 0; i < n; ++i)
    if (!kinematic_[v[i]]) return false;
  return true;
}

void ContactModel::set_free_kinematic(std::vector<int> free) { free_kinematic_ = std::move(free); }

namespace {

// a := a u b for sorted, duplicate-free candidate lists (tmp: scratch).
template <class T>
void merge_into(std::vector<T>& a, const std::vector<T>& b, std::vector<T>& tmp) {
  if (b.empty()) return;
  tmp.clear();
  tmp.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(tmp));
  a.swap(tmp);
}

// The first element of the sorted range [b, e) not less than q, searched from b outwards
// (core/gallop.hpp: O(log distance), for a sequence of ascending queries).
template <class T>
const T* gallop_lower_bound(const T* b, const T* e, const T& q) {
  return b + gallop(0, static_cast<size_t>(e - b), q, [b](size_t i) -> const T& { return b[i]; });
}

// An update's added pairs (sorted) less those already in the sorted set s, in place.
template <class T>
void drop_present(std::vector<T>& add, const std::vector<T>& s) {
  size_t n = 0;
  const T *it = s.data(), *end = s.data() + s.size();
  for (const T& p : add) {
    it = gallop_lower_bound(it, end, p);
    if (it == end || !(*it == p)) add[n++] = p;
  }
  add.resize(n);
}

using Box = ContactModel::Box;

inline bool finite3(const Vec3& a) { return std::isfinite(a[0]) && std::isfinite(a[1]) && std::isfinite(a[2]); }

// The broad phase's proximity boxes (broad_phase.cpp, same operations in the same order):
// the union of the vertices' points, grown on every side by r = (inflation + xi) / 2.
template <int N>
[[gnu::always_inline]] inline Box prim_box(const VertexSpan<Vec3>& x, const int* v, double r) {
  Box b;
  for (int k = 0; k < 3; ++k) b.lo[k] = b.hi[k] = x[v[0]][k];
  for (int i = 1; i < N; ++i)
    for (int k = 0; k < 3; ++k) {
      b.lo[k] = std::min(b.lo[k], x[v[i]][k]);
      b.hi[k] = std::max(b.hi[k], x[v[i]][k]);
    }
  for (int k = 0; k < 3; ++k) {
    b.lo[k] -= r;
    b.hi[k] += r;
  }
  return b;
}

inline bool box_finite(const Box& b) {
  return std::isfinite(b.lo[0]) && std::isfinite(b.lo[1]) && std::isfinite(b.lo[2]) && std::isfinite(b.hi[0]) &&
         std::isfinite(b.hi[1]) && std::isfinite(b.hi[2]);
}

// A primitive is paired only if every vertex is finite (std::min / max may drop a NaN).
template <int N>
[[gnu::always_inline]] inline bool all_finite(const VertexSpan<Vec3>& x, const int* v) {
  for (int i = 0; i < N; ++i)
    if (!finite3(x[v[i]])) return false;
  return true;
}

inline bool overlap(const Box& a, const Box& b) {
  return a.lo[0] <= b.hi[0] && b.lo[0] <= a.hi[0] && a.lo[1] <= b.hi[1] && b.lo[1] <= a.hi[1] &&
         a.lo[2] <= b.hi[2] && b.lo[2] <= a.hi[2];
}

// ---- the pair kinds (candidates.hpp), one traits class each: the stencil (vertex ids,
// in the argument order of the kind's kernels), the two sides' primitive kinds (for the
// broad phase's boxes), the pair offset, the objects (friction), and the kernels: distance
// type and squared distance, barrier energy / potential, friction operator, ACCD. Every
// loop of ContactModel runs over the kinds with for_each_pair_kind and these traits: one
// generic body per operation, no per-kind copies.
enum Side : int { kSidePoint = 0, kSideEdge = 1, kSideTri = 2 };

template <PairKind K>
struct PairTraits;

template <>
struct PairTraits<PairKind::PT> {
  static constexpr int N = 4;
  static constexpr Side A = kSidePoint, B = kSideTri;
  using Cand = PointTriangleCandidate;
  using Type = PointTriangleType;
  static int a(const Cand& p) { return p.v; }
  static int b(const Cand& p) { return p.t; }
  static void stencil(const CollisionSurface& s, const Cand& p, int* v) {
    const Tri& t = s.triangles[p.t];
    v[0] = p.v, v[1] = t[0], v[2] = t[1], v[3] = t[2];
  }
  static Type classify(const VertexSpan<Vec3>& x, const int* v) {
    return classify_point_triangle(x[v[0]], x[v[1]], x[v[2]], x[v[3]]);
  }
  static double d2(const VertexSpan<Vec3>& x, const int* v, Type t) {
    return point_triangle_distance_sq(x[v[0]], x[v[1]], x[v[2]], x[v[3]], t);
  }
  static double d2(const VertexSpan<Vec3>& x, const int* v) {
    return point_triangle_distance_sq(x[v[0]], x[v[1]], x[v[2]], x[v[3]]);
  }
  static double energy(const VertexSpan<Vec3>& x, const int* v, double, const BarrierParams& bp) {
    return point_triangle_barrier_energy(x[v[0]], x[v[1]], x[v[2]], x[v[3]], bp);
  }
  static LocalEnergy<12> barrier(const VertexSpan<Vec3>& x, const int* v, Type t, double d2, double,
                                 const BarrierParams& bp) {
    return point_triangle_barrier(x[v[0]], x[v[1]], x[v[2]], x[v[3]], t, d2, bp);
  }
  static TangentOperator<12> friction(const VertexSpan<Vec3>& x, const int* v) {
    return point_triangle_friction_operator(x[v[0]], x[v[1]], x[v[2]], x[v[3]]);
  }
  static CcdResult accd(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, const int* v, double xi,
                        const AccdParams& ap) {
    return point_triangle_accd(x[v[0]], x[v[1]], x[v[2]], x[v[3]], dx[v[0]], dx[v[1]], dx[v[2]], dx[v[3]], xi, ap);
  }
};

template <>
struct PairTraits<PairKind::EE> {
  static constexpr int N = 4;
  static constexpr Side A = kSideEdge, B = kSideEdge;
  using Cand = EdgeEdgeCandidate;
  using Type = EdgeEdgeType;
  static int a(const Cand& p) { return p.ea; }
  static int b(const Cand& p) { return p.eb; }
  static void stencil(const CollisionSurface& s, const Cand& p, int* v) {
    const Edge &a = s.edges[p.ea], &b = s.edges[p.eb];
    v[0] = a[0], v[1] = a[1], v[2] = b[0], v[3] = b[1];
  }
  static Type classify(const VertexSpan<Vec3>& x, const int* v) {
    return classify_edge_edge(x[v[0]], x[v[1]], x[v[2]], x[v[3]]);
  }
  static double d2(const VertexSpan<Vec3>& x, const int* v, Type t) {
    return edge_edge_distance_sq(x[v[0]], x[v[1]], x[v[2]], x[v[3]], t);
  }
  static double d2(const VertexSpan<Vec3>& x, const int* v) {
    return edge_edge_distance_sq(x[v[0]], x[v[1]], x[v[2]], x[v[3]]);
  }
  static double energy(const VertexSpan<Vec3>& x, const int* v, double eps_x, const BarrierParams& bp) {
    return edge_edge_barrier_energy(x[v[0]], x[v[1]], x[v[2]], x[v[3]], eps_x, bp);
  }
  static LocalEnergy<12> barrier(const VertexSpan<Vec3>& x, const int* v, Type t, double d2, double eps_x,
                                 const BarrierParams& bp) {
    return edge_edge_barrier(x[v[0]], x[v[1]], x[v[2]], x[v[3]], t, d2, eps_x, bp);
  }
  static TangentOperator<12> friction(const VertexSpan<Vec3>& x, const int* v) {
    return edge_edge_friction_operator(x[v[0]], x[v[1]], x[v[2]], x[v[3]]);
  }
  static CcdResult accd(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, const int* v, double xi,
                        const AccdParams& ap) {
    return edge_edge_accd(x[v[0]], x[v[1]], x[v[2]], x[v[3]], dx[v[0]], dx[v[1]], dx[v[2]], dx[v[3]], xi, ap);
  }
};

template <>
struct PairTraits<PairKind::PE> {
  static constexpr int N = 3;
  static constexpr Side A = kSidePoint, B = kSideEdge;
  using Cand = PointEdgeCandidate;
  using Type = PointEdgeType;
  static int a(const Cand& p) { return p.v; }
  static int b(const Cand& p) { return p.e; }
  static void stencil(const CollisionSurface& s, const Cand& p, int* v) {
    const Edge& e = s.edges[p.e];
    v[0] = p.v, v[1] = e[0], v[2] = e[1];
  }
  static Type classify(const VertexSpan<Vec3>& x, const int* v) {
    return classify_point_edge(x[v[0]], x[v[1]], x[v[2]]);
  }
  static double d2(const VertexSpan<Vec3>& x, const int* v, Type t) {
    return point_edge_distance_sq(x[v[0]], x[v[1]], x[v[2]], t);
  }
  static double d2(const VertexSpan<Vec3>& x, const int* v) { return point_edge_distance_sq(x[v[0]], x[v[1]], x[v[2]]); }
  static double energy(const VertexSpan<Vec3>& x, const int* v, double, const BarrierParams& bp) {
    return point_edge_barrier_energy(x[v[0]], x[v[1]], x[v[2]], bp);
  }
  static LocalEnergy<9> barrier(const VertexSpan<Vec3>& x, const int* v, Type t, double d2, double,
                                const BarrierParams& bp) {
    return point_edge_barrier(x[v[0]], x[v[1]], x[v[2]], t, d2, bp);
  }
  static TangentOperator<9> friction(const VertexSpan<Vec3>& x, const int* v) {
    return point_edge_friction_operator(x[v[0]], x[v[1]], x[v[2]]);
  }
  static CcdResult accd(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, const int* v, double xi,
                        const AccdParams& ap) {
    return point_edge_accd(x[v[0]], x[v[1]], x[v[2]], dx[v[0]], dx[v[1]], dx[v[2]], xi, ap);
  }
};

template <>
struct PairTraits<PairKind::PP> {
  static constexpr int N = 2;
  static constexpr Side A = kSidePoint, B = kSidePoint;
  using Cand = PointPointCandidate;
  using Type = int;  // a single type
  static int a(const Cand& p) { return p.v; }
  static int b(const Cand& p) { return p.w; }
  static void stencil(const CollisionSurface&, const Cand& p, int* v) { v[0] = p.v, v[1] = p.w; }
  static Type classify(const VertexSpan<Vec3>&, const int*) { return 0; }
  static double d2(const VertexSpan<Vec3>& x, const int* v, Type) { return point_point_distance_sq(x[v[0]], x[v[1]]); }
  static double d2(const VertexSpan<Vec3>& x, const int* v) { return point_point_distance_sq(x[v[0]], x[v[1]]); }
  static double energy(const VertexSpan<Vec3>& x, const int* v, double, const BarrierParams& bp) {
    return point_point_barrier_energy(x[v[0]], x[v[1]], bp);
  }
  static LocalEnergy<6> barrier(const VertexSpan<Vec3>& x, const int* v, Type, double, double,
                                const BarrierParams& bp) {
    return point_point_barrier(x[v[0]], x[v[1]], bp);
  }
  static TangentOperator<6> friction(const VertexSpan<Vec3>& x, const int* v) {
    return point_point_friction_operator(x[v[0]], x[v[1]]);
  }
  static CcdResult accd(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, const int* v, double xi,
                        const AccdParams& ap) {
    return point_point_accd(x[v[0]], x[v[1]], dx[v[0]], dx[v[1]], xi, ap);
  }
};

// Offset and object of one side of a pair.
inline double side_offset(const CollisionSurface& s, Side k, int id) {
  return k == kSidePoint ? s.point_offset(id) : k == kSideEdge ? s.edge_offset(id) : s.triangle_offset(id);
}
inline int side_object(const CollisionSurface& s, Side k, int id) {
  return k == kSidePoint ? s.vertex_object[id] : k == kSideEdge ? s.edge_object(id) : s.triangle_object[id];
}
inline const int* side_verts(const CollisionSurface& s, Side k, const int& id) {
  return k == kSidePoint ? &id : k == kSideEdge ? s.edges[id].data() : s.triangles[id].data();
}
template <PairKind K>
inline double pair_xi(const CollisionSurface& s, const typename PairTraits<K>::Cand& p) {
  using P = PairTraits<K>;
  return 0.5 * (side_offset(s, P::A, P::a(p)) + side_offset(s, P::B, P::b(p)));
}

#define WEFT_PAIR_KIND(k) constexpr PairKind K = decltype(k)::value; using P = PairTraits<K>

// Mollifier threshold (IPC: eps_x = 1e-3 |ea|^2 |eb|^2 at rest), edge-edge pairs only.
template <PairKind K, class RestLength2>
inline double mollifier_eps(const RestLength2& length2, const typename PairTraits<K>::Cand& p) {
  if constexpr (K == PairKind::EE) return 1e-3 * length2(p.ea) * length2(p.eb);
  else return 0.0;
}

}  // namespace

bool ContactModel::proximity_from_swept(const VertexSpan<Vec3>& x) {
  if (!swept_stored_ || swept_x_.size() != x.size()) return false;
  // Every vertex the broad phase could pair at x (finite there) must have had a finite
  // swept box containing it. Then a pair reported at x has vertex boxes inside its swept
  // vertex boxes, so its (equally grown) primitive boxes overlapped in the swept phase:
  // the swept set holds every pair the broad phase would report at x.
  // A swept set built in a shifted frame (update_swept) covers x when ONE translation s puts
  // every vertex inside its box (distances are translation invariant; the set was built with
  // a margin for the rounding): intersect, per axis, the translations each vertex allows.
  // The set's extra inflation (2 tol per pair of boxes) absorbs a translation that misses a
  // vertex box by tol: the median vertex's box is a point, so the translations it allows
  // and a resting vertex allows meet in a single value, up to rounding.
  const double tol = swept_shifted_ ? 0.25 * swept_margin_ : 0.0;
  const double free_shift = swept_shifted_ ? std::numeric_limits<double>::infinity() : 0.0;
  double slo[3] = {-free_shift, -free_shift, -free_shift}, shi[3] = {free_shift, free_shift, free_shift};
  for (int v : act().points) {
    const Vec3& a = x[v];
    if (!finite3(a)) continue;  // never paired at x
    for (int k = 0; k < 3; ++k) {
      const double s = swept_x_[v][k], e = swept_x_[v][k] + swept_dx_[v][k];
      if (!std::isfinite(s) || !std::isfinite(e)) return false;
      slo[k] = std::max(slo[k], a[k] - std::max(s, e));
      shi[k] = std::min(shi[k], a[k] - std::min(s, e));
      if (!(slo[k] <= shi[k] + tol)) return false;
    }
  }
  // ... and, the set lacking pairs that stay apart over the step (update_swept), x on the
  // query's segment (the accepted iterate, or its copy from the minimiser).
  if (swept_dropped_ && !on_swept_segment(x)) return false;
  // Keep the swept pairs whose boxes at x overlap: the broad phase's test on the broad
  // phase's boxes (ownership, incidence and kinematic filters are the same for both sets).
  // Each listed primitive's box is formed once (a swept set names each primitive in ~8
  // pairs), by position in the active lists as in update_swept; a primitive with a vertex
  // that is not finite, or a box that is not, gets the empty box, which overlaps nothing
  // (the pairs the per-pair test skipped). The kept pairs are written without a branch.
  const double infl = params_.dhat;
  const double inf = std::numeric_limits<double>::infinity();
  const Box none{{inf, inf, inf}, {-inf, -inf, -inf}};
  const ActivePrimitives& act_lists = act();
  const std::vector<int>* lists[3] = {&act_lists.points, &act_lists.edges, &act_lists.triangles};  // by Side
  const size_t qn[3] = {x.size(), surface_.edges.size(), surface_.triangles.size()};
  std::vector<Box>* qbox[3] = {&query_pbox_, &query_ebox_, &query_tbox_};
  auto box_at = [&](auto n, const int* vs, double r) {
    constexpr int N = decltype(n)::value;
    if (!all_finite<N>(x, vs)) return none;
    const Box b = prim_box<N>(x, vs, r);
    return box_finite(b) ? b : none;
  };
  auto unlisted_box = [&](auto side, int id) {
    constexpr int S = decltype(side)::value;
    return box_at(std::integral_constant<int, S + 1>(), side_verts(surface_, static_cast<Side>(S), id),
                  0.5 * (infl + side_offset(surface_, static_cast<Side>(S), id)));
  };
  for (int k = 0; k < 3; ++k) {
    if (query_slot_[k].size() != qn[k]) query_slot_[k].assign(qn[k], -1, dense_arrays_);
    const std::vector<int>& ids = *lists[k];
    std::vector<Box>& boxes = *qbox[k];
    boxes.resize(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      const int id = ids[i];
      query_slot_[k].ref(id) = static_cast<int>(i);
      const Side side = static_cast<Side>(k);
      const int* vs = side_verts(surface_, side, id);
      const double r = 0.5 * (infl + side_offset(surface_, side, id));
      boxes[i] = k == kSidePoint  ? box_at(std::integral_constant<int, 1>(), vs, r)
                 : k == kSideEdge ? box_at(std::integral_constant<int, 2>(), vs, r)
                                  : box_at(std::integral_constant<int, 3>(), vs, r);
    }
  }
  proximity_.clear();
  for_each_pair_kind([&](auto k) {
    WEFT_PAIR_KIND(k);
    const Box *ba = qbox[P::A]->data(), *bb = qbox[P::B]->data();
    const VertexSpan<int> sa(query_slot_[P::A]), sb(query_slot_[P::B]);
    const auto& sw = swept_.get<K>();
    auto& out = proximity_.get<K>();
    out.resize(sw.size());
    auto* o = out.data();
    size_t n = 0;
    for (const auto& p : sw) {
      const int a = P::a(p), b = P::b(p);
      const int ia = sa[a], ib = sb[b];
      // (A primitive outside the lists, which the swept set never names, gets its box here.)
      const Box pa = ia >= 0 ? ba[ia] : unlisted_box(std::integral_constant<int, P::A>(), a);
      const Box pb = ib >= 0 ? bb[ib] : unlisted_box(std::integral_constant<int, P::B>(), b);
      o[n] = p;
      n += static_cast<size_t>((pa.lo[0] <= pb.hi[0]) & (pb.lo[0] <= pa.hi[0]) & (pa.lo[1] <= pb.hi[1]) &
                               (pb.lo[1] <= pa.hi[1]) & (pa.lo[2] <= pb.hi[2]) & (pb.lo[2] <= pa.hi[2]));
    }
    out.resize(n);
  });
  for (int k = 0; k < 3; ++k)
    for (int id : *lists[k]) query_slot_[k].ref(id) = -1;
  return true;
}

template <int N>
void ContactModel::emit_dynamic(const int* v, int nv, const double* g, const double* H,
                                const ContactSink& sink) const {
  int keep[4], ids[4], n = 0;
  for (int a = 0; a < nv; ++a)
    if (!fixed(v[a])) keep[n] = a, ids[n++] = v[a];
  if (n == N) {
    sink(N, ids, g, H);
    return;
  }
  if (n == 0) return;
  double gc[12], Hc[144];
  const int m = 3 * n;
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < 3; ++r) {
      gc[3 * i + r] = g[3 * keep[i] + r];
      for (int j = 0; j < n; ++j)
        for (int c = 0; c < 3; ++c)
          Hc[(3 * j + c) * m + 3 * i + r] = H[(3 * keep[j] + c) * (3 * N) + 3 * keep[i] + r];
    }
  sink(n, ids, gc, Hc);
}

const std::vector<ContactModel::PairDistance>& ContactModel::proximity_distances(const VertexSpan<Vec3>& x) const {
  // The distances depend on the stencils' positions only: the cache is valid while those
  // are bitwise the same (a NaN never compares equal, so it is then recomputed).
  if (prox_dist_valid_ && prox_dist_x_.size() == prox_vertices_.size() &&
      std::equal(prox_vertices_.begin(), prox_vertices_.end(), prox_dist_x_.begin(), [&](int v, const Vec3& b) {
        return x[v][0] == b[0] && x[v][1] == b[1] && x[v][2] == b[2];
      }))
    return prox_dist_;
  if (vmark_.size() != x.size()) vmark_.assign(x.size(), 0, dense_arrays_);
  prox_vertices_.clear();
  prox_dist_.resize(proximity_.size());
  size_t i = 0;
  for_each_pair_kind([&](auto k) {
    WEFT_PAIR_KIND(k);
    for (const auto& p : proximity_.get<K>()) {
      int v[P::N];
      P::stencil(surface_, p, v);
      const typename P::Type type = P::classify(x, v);
      prox_dist_[i++] = {static_cast<int>(type), P::d2(x, v, type)};
      for (int a = 0; a < P::N; ++a)
        if (!vmark_[v[a]]) vmark_.ref(v[a]) = 1, prox_vertices_.push_back(v[a]);
    }
  });
  prox_dist_x_.resize(prox_vertices_.size());
  for (size_t j = 0; j < prox_vertices_.size(); ++j) {
    prox_dist_x_[j] = x[prox_vertices_[j]];
    vmark_.ref(prox_vertices_[j]) = 0;
  }
  prox_dist_valid_ = true;
  return prox_dist_;
}

void ContactModel::update_proximity(const VertexSpan<Vec3>& x) {
  ContactScope scope(&timers_, ContactPhase::ProximityBroad);
  prox_dist_valid_ = false;
  if (proximity_from_swept(x)) {
    ++timers_.proximity_filtered;
  } else {
    broad_phase_.find_proximity(surface_, x, params_.dhat, point_filter(), edge_filter(), &kinematic_, proximity_);
    count_broad(broad_phase_);
  }
  timers_.proximity_candidates += static_cast<long>(proximity_.size());
}

void ContactModel::update_swept(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, const Vec3* shift) {
  ContactScope scope(&timers_, ContactPhase::SweptBroad);
  ccd_bound_valid_ = false;  // (max_step's bounds are for the last swept set)
  if (x.size() != dx.size() || x.size() != size_t(surface_.num_vertices())) {
    // Let the broad phase report the misuse.
    broad_phase_.find_swept(surface_, x, dx, params_.dhat, point_filter(), edge_filter(), &kinematic_, swept_);
  }
  const double inf = std::numeric_limits<double>::infinity();
  // This query's vertex boxes, exactly as the broad phase forms them (a vertex with a
  // non-finite end is never paired: lo = +inf marks it), by position in the active points
  // (vlo_[i] is pts[i]'s: O(active), not O(vertices)).
  const std::vector<int>& pts = act().points;
  vlo_.resize(pts.size());
  vhi_.resize(pts.size());
  // The vertices whose query box leaves the box the skin set was built with (all of them
  // count as outside when there is no skin set), and their positions in pts.
  skin_moved_.clear();
  skin_moved_slot_.clear();
  double scale = 0.0;  // the largest coordinate of the query's boxes ...
  double step = 0.0;   // ... and the largest vertex step
  for (size_t i = 0; i < pts.size(); ++i) {
    const int v = pts[i];
    bool ok = true;
    for (int k = 0; k < 3; ++k) {
      const double a = x[v][k], e = x[v][k] + dx[v][k];
      vlo_[i][k] = std::min(a, e);
      vhi_[i][k] = std::max(a, e);
      ok = ok && std::isfinite(a) && std::isfinite(e);
    }
    if (!ok) {
      vlo_[i][0] = inf;
      continue;
    }
    scale = std::max(scale, std::max(vlo_[i].cwiseAbs().maxCoeff(), vhi_[i].cwiseAbs().maxCoeff()));
    step = std::max(step, (vhi_[i] - vlo_[i]).maxCoeff());
    if (!skin_valid_) continue;
    bool in = true;
    for (int k = 0; k < 3; ++k) in = in && skin_lo_[v][k] <= vlo_[i][k] && vhi_[i][k] <= skin_hi_[v][k];
    if (!in) skin_moved_.push_back(v), skin_moved_slot_.push_back(static_cast<int>(i));
  }
  // A skin set that has outgrown the swept sets it serves is rebuilt from this query, with
  // its (smaller) steps: updates only ever add pairs, so a skin built in a time step's first,
  // long Newton steps stays large while the steps shrink, and every later query filters all
  // of it (soft drape 64^2: 1.2M skin pairs for 46K swept pairs, 13 % of the process).
  // At 8 times (ContactParams::skin_shrink) one or two rebuilds per time step there; 4 or 3
  // rebuild more often than they save (bench/results/newton_split.md). The swept set is the
  // same either way (a superset filtered by the broad phase's own test, in sorted order).
  // On a far query (kDropStepPerEdge), the pairs no consumer of it needs are left out of the
  // swept set (swept_pair_needed), with a rounding margin 8 eps: the set then serves
  // proximity queries within eps of the segment (on_swept_segment; |dx| <= 2 scale, |c| for
  // a shifted set). (skin_max_growth_ is kSkinMaxGrowthPerEdge median edges.)
  const bool drop_far = !(step <= kSkinMaxStep * params_.dhat) &&
                        step > kDropStepPerEdge / kSkinMaxGrowthPerEdge * skin_max_growth_;
  const bool shifted = shift && shift->allFinite() && shift->squaredNorm() > 0.0;
  const double seg_eps =
      1e-12 * (2.0 * scale + (shifted ? shift->cwiseAbs().maxCoeff() : 0.0)) + 1e-9 * params_.dhat;
  SweptDrop drop{this, &x, &dx, params_.accd, 8.0 * seg_eps};
  drop.ap.t_max = 1.0;
  drop.on = drop_far;
  const PairPredicate keep = drop_far ? PairPredicate{&ContactModel::keep_swept_pair, &drop} : PairPredicate{};
  swept_seg_eps_ = seg_eps;
  swept_dropped_ = drop_far;
  if (skin_valid_ && static_cast<double>(skin_.size() + skin_delta_.size()) >
                         params_.skin_shrink * static_cast<double>(std::max(swept_last_, params_.skin_shrink_min))) {
    skin_valid_ = false;
    ++timers_.swept_shrinks;
  }
  // (A halo can list a primitive anew with none of its vertices new or moved: a partner
  // another rank sent once it came within reach. The skin set, built or updated on the
  // lists of its time, is then updated too: BroadPhase::update_swept takes it up.)
  const bool relisted = active_ && active_->version != skin_lists_version_;
  if (!skin_valid_ || !skin_moved_.empty() || relisted) {
    // Large steps (the first Newton iterations of a time step): the next query rarely fits
    // a skin grown by this whole step, and such a skin set is huge.
    const bool large = !(step <= kSkinMaxStep * params_.dhat) || !(kSkin * params_.dhat + step <= skin_max_growth_);
    if (large && (shifted || !(kSkin * params_.dhat <= skin_max_growth_))) {
      // Plain broad phase, in the shifted frame when the caller gives one (see the
      // declaration), or on cloth too fine for even a kSkin dhat skin.
      const Vec3 c = shifted ? *shift : Vec3::Zero();
      store_swept(x, dx);
      double infl = params_.dhat;
      if (shifted) {
        double scale = 0.0;
        for (size_t i = 0; i < pts.size(); ++i)
          if (const int v = pts[i]; vlo_[i][0] < inf) {
            swept_dx_.ref(v) -= c;
            scale = std::max(scale, std::max(x[v].cwiseAbs().maxCoeff(), (x[v] + dx[v]).cwiseAbs().maxCoeff()));
          }
        // Translating by c is exact in real arithmetic only: a margin far above the rounding
        // of coordinates keeps every pair that can come within dhat (and serves the
        // proximity queries of the line search's iterates, proximity_from_swept).
        swept_margin_ = 1e-6 * params_.dhat + 1e-12 * scale;
        infl += swept_margin_;
      }
      broad_phase_.find_swept(surface_, swept_x_, swept_dx_, infl, point_filter(), edge_filter(), &kinematic_,
                              swept_, keep);
      swept_shift_ = c;
      count_broad(broad_phase_);
      timers_.swept_candidates += static_cast<long>(swept_.size());
      ++timers_.swept_rebuilds;
      skin_valid_ = false;
      swept_shifted_ = shifted;
      swept_stored_ = true;
      return;
    }
    // Rebuild the skin set: every vertex box grown by kSkin dhat + its own step (a later
    // iterate's step that stays inside is served from it), as a swept query the broad
    // phase answers for boxes [x', x' + dx']. After a large step by kSkin dhat + half its
    // own step, at most skin_max_growth_: landing cloth repeats CCD-cut steps for tens of
    // Newton iterations, each a little shorter (drape_default: 131, 110, 89, ... dhat), and
    // half-step skins serve about every other one (swept broad phase -10%).
    const double skin0 = kSkin * params_.dhat;
    const Vec3 nan = Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
    auto set_skin = [&](int v, int i) {  // (vertex v = pts[i])
      if (!skin_mark_[v]) skin_mark_.ref(v) = 1, skin_filled_.push_back(v);
      if (!(vlo_[i][0] < inf)) {
        skin_lo_.ref(v) = skin_hi_.ref(v) = nan;
        return;
      }
      const double sv = (vhi_[i] - vlo_[i]).maxCoeff();
      const double grow = large ? std::min(skin0 + kSkinLargeStep * sv, skin_max_growth_) : skin0 + sv;
      Vec3 &sx = skin_x_.ref(v), &sdx = skin_dx_.ref(v), &slo = skin_lo_.ref(v), &shi = skin_hi_.ref(v);
      for (int k = 0; k < 3; ++k) {
        sx[k] = vlo_[i][k] - grow;
        sdx[k] = (vhi_[i][k] + grow) - sx[k];
        // The box the broad phase will use for this vertex, bit for bit.
        const double a = sx[k], e = sx[k] + sdx[k];
        slo[k] = std::min(a, e);
        shi[k] = std::max(a, e);
      }
    };
    // Usually only a handful of vertices leave their skin boxes (drape_default: 1-80 of
    // 6.7K in a landing step): those get new skin boxes and the skin broad phase adds their
    // pairs to the set (BroadPhase::update_swept) instead of rebuilding it. The skin set
    // then is the set a rebuild with these boxes would give, plus pairs of the old boxes
    // that the filter below drops.
    bool updated = false;
    if (skin_x_.size() != x.size()) {
      skin_x_.assign(x.size(), nan, dense_arrays_);
      skin_dx_.assign(x.size(), nan, dense_arrays_);
      skin_lo_.assign(x.size(), nan, dense_arrays_);
      skin_hi_.assign(x.size(), nan, dense_arrays_);
      skin_mark_.assign(x.size(), 0, dense_arrays_);
      skin_filled_.clear();
      skin_valid_ = false;
    }
    if (skin_valid_) {
      for (size_t j = 0; j < skin_moved_.size(); ++j) set_skin(skin_moved_[j], skin_moved_slot_[j]);
      updated = skin_phase_.update_swept(surface_, skin_x_, skin_dx_, params_.dhat, point_filter(), edge_filter(),
                                         &kinematic_, skin_moved_, skin_added_);
      if (updated) {
        if (active_) skin_lists_version_ = active_->version;
        // The added pairs go to a small set of their own (those new to the skin set: the
        // update reports every pair of a moved primitive), which the filter below merges on
        // the fly: re-merging the whole skin set (1.2M pairs on the soft drape) on every
        // update cost more than the update. Folded in once it is a sixteenth of the skin set.
        for_each_pair_kind([&](auto k) {
          constexpr PairKind K = decltype(k)::value;
          drop_present(skin_added_.get<K>(), skin_.get<K>());
          merge_into(skin_delta_.get<K>(), skin_added_.get<K>(), skin_merge_.get<K>());
        });
        if (16 * skin_delta_.size() > skin_.size()) fold_skin_delta();
        ++timers_.swept_updates;
      }
    }
    if (!updated) {
      for (int v : skin_filled_) skin_x_.ref(v) = skin_dx_.ref(v) = skin_lo_.ref(v) = skin_hi_.ref(v) = nan, skin_mark_.ref(v) = 0;
      skin_filled_.clear();
      for (size_t i = 0; i < pts.size(); ++i) set_skin(pts[i], static_cast<int>(i));
      skin_phase_.find_swept(surface_, skin_x_, skin_dx_, params_.dhat, point_filter(), edge_filter(), &kinematic_,
                             skin_);
      skin_delta_.clear();
      count_broad(skin_phase_);
      skin_valid_ = true;
      if (active_) skin_lists_version_ = active_->version;
      ++timers_.swept_rebuilds;
    }
  }
  // The swept set: the skin pairs whose boxes for this query overlap (the broad phase's
  // test on the broad phase's boxes; every such pair is a skin pair since each of its
  // vertex boxes lies inside the skin box).
  const double infl = params_.dhat;
  swept_.clear();
  // Positions in the active lists by surface index (-1 outside them): the vertex and
  // primitive boxes of this query are stored by position, O(active); the maps are set for
  // the listed entries and reset after, O(active) too.
  const ActivePrimitives& a = act();
  const std::vector<int>* lists[3] = {&a.points, &a.edges, &a.triangles};  // by Side
  const size_t qn[3] = {x.size(), surface_.edges.size(), surface_.triangles.size()};
  for (int k = 0; k < 3; ++k) {
    if (query_slot_[k].size() != qn[k]) query_slot_[k].assign(qn[k], -1, dense_arrays_);
    for (size_t i = 0; i < lists[k]->size(); ++i) query_slot_[k].ref((*lists[k])[i]) = static_cast<int>(i);
  }
  const VertexSpan<int> vslot(query_slot_[0]);
  auto prim = [&](const int* v, int n, double xi, Box& b) {
    int sl[3];
    for (int i = 0; i < n; ++i) {
      sl[i] = vslot[v[i]];  // (every vertex of a listed primitive is a listed point)
      if (!(vlo_[sl[i]][0] < inf)) return false;
    }
    for (int k = 0; k < 3; ++k) {
      b.lo[k] = vlo_[sl[0]][k];
      b.hi[k] = vhi_[sl[0]][k];
    }
    for (int i = 1; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        b.lo[k] = std::min(b.lo[k], vlo_[sl[i]][k]);
        b.hi[k] = std::max(b.hi[k], vhi_[sl[i]][k]);
      }
    const double r = 0.5 * (infl + xi);
    for (int k = 0; k < 3; ++k) {
      b.lo[k] -= r;
      b.hi[k] += r;
    }
    return box_finite(b);
  };
  // Each primitive's box once (a skin set names each primitive in ~10 pairs); a primitive
  // outside the active lists, or that is never paired, gets an empty box.
  const Box none{{inf, inf, inf}, {-inf, -inf, -inf}};
  // (One more box each, empty: the filter below reads it for a primitive outside the lists.)
  query_pbox_.resize(a.points.size() + 1);
  query_ebox_.resize(a.edges.size() + 1);
  query_tbox_.resize(a.triangles.size() + 1);
  query_pbox_.back() = query_ebox_.back() = query_tbox_.back() = none;
  for (size_t i = 0; i < a.points.size(); ++i) {
    const int v = a.points[i];
    if (!prim(&v, 1, surface_.point_offset(v), query_pbox_[i])) query_pbox_[i] = none;
  }
  for (size_t i = 0; i < a.triangles.size(); ++i) {
    const int t = a.triangles[i];
    if (!prim(surface_.triangles[t].data(), 3, surface_.triangle_offset(t), query_tbox_[i])) query_tbox_[i] = none;
  }
  for (size_t i = 0; i < a.edges.size(); ++i) {
    const int e = a.edges[i];
    if (!prim(surface_.edges[e].data(), 2, surface_.edge_offset(e), query_ebox_[i])) query_ebox_[i] = none;
  }
  const std::vector<Box>* qbox[3] = {&query_pbox_, &query_ebox_, &query_tbox_};  // by Side
  // Without a branch per pair: every skin pair is written, the count advances by the test
  // (a fifth of the skin pairs pass on the soft drape, so a branch on it is mispredicted
  // often); the kept pairs are then copied out, in the same order, less (drop_far) those no
  // consumer needs. In chunks, so the scratch is O(chunk), not O(skin set): a
  // large step's skin set holds millions of pairs (128^2 swinging cloth: 7M).
  constexpr size_t kChunk = size_t(1) << 14;
  size_t boxed = 0;  // the pairs that pass the box test (the skin shrink's measure, as before)
  for_each_pair_kind([&](auto k) {
    WEFT_PAIR_KIND(k);
    const Box *ba = qbox[P::A]->data(), *bb = qbox[P::B]->data();
    const int na = static_cast<int>(qbox[P::A]->size()) - 1, nb = static_cast<int>(qbox[P::B]->size()) - 1;
    const VertexSpan<int> sa(query_slot_[P::A]), sb(query_slot_[P::B]);
    const auto& skin = skin_.get<K>();
    const auto& delta = skin_delta_.get<K>();
    auto& buf = swept_scratch_.get<K>();
    if (buf.size() < 2 * kChunk) buf.resize(2 * kChunk);
    auto* o = buf.data();
    auto& out = swept_.get<K>();
    out.clear();
    size_t n = 0;
    using T = typename std::decay_t<decltype(skin)>::value_type;
    auto flush = [&] {
      boxed += n;
      if (drop.on) {
        for (size_t i = 0; i < n; ++i)
          if (swept_pair_kept<K>(drop, P::a(o[i]), P::b(o[i]))) out.push_back(o[i]);
      } else {
        out.insert(out.end(), o, o + n);
      }
      n = 0;
    };
    auto filter = [&](const T* b, const T* e) {
      while (b != e) {  // (n < kChunk here: a round writes at most 2 kChunk - 1 entries)
        const T* stop = b + std::min(static_cast<size_t>(e - b), kChunk);
        for (const T* q = b; q != stop; ++q) {
          const T& p = *q;
          int ia = sa[P::a(p)], ib = sb[P::b(p)];
          ia = ia < 0 ? na : ia;
          ib = ib < 0 ? nb : ib;
          const Box &A = ba[ia], &B = bb[ib];
          o[n] = p;
          n += static_cast<size_t>((A.lo[0] <= B.hi[0]) & (B.lo[0] <= A.hi[0]) & (A.lo[1] <= B.hi[1]) &
                                   (B.lo[1] <= A.hi[1]) & (A.lo[2] <= B.hi[2]) & (B.lo[2] <= A.hi[2]));
        }
        b = stop;
        if (n >= kChunk) flush();
      }
    };
    // skin u delta in order (disjoint sets): the skin pairs up to each delta pair, then it.
    const T *s = skin.data(), *se = skin.data() + skin.size();
    for (const T& d : delta) {
      const T* m = gallop_lower_bound(s, se, d);
      filter(s, m);
      filter(&d, &d + 1);
      s = m;
    }
    filter(s, se);
    flush();
  });
  for (int k = 0; k < 3; ++k)
    for (int id : *lists[k]) query_slot_[k].ref(id) = -1;
  timers_.swept_candidates += static_cast<long>(swept_.size());
  swept_last_ = boxed;
  store_swept(x, dx);
  swept_shifted_ = false;
  swept_stored_ = true;
}


namespace {

// Whether the two sides of a stencil (its first NA points, the rest) are farther apart than
// r along some axis: then the pair's distance exceeds r. False whenever a coordinate is not
// finite (the kernel then decides, as before).
template <int NA, int N>
[[gnu::always_inline]] inline bool axis_separated(const VertexSpan<Vec3>& x, const int* v, double r) {
  double sum = 0.0;
  bool sep = false;
  for (int k = 0; k < 3; ++k) {
    double alo = x[v[0]][k], ahi = alo, blo = x[v[NA]][k], bhi = blo;
    for (int i = 1; i < NA; ++i) alo = std::min(alo, x[v[i]][k]), ahi = std::max(ahi, x[v[i]][k]);
    for (int i = NA + 1; i < N; ++i) blo = std::min(blo, x[v[i]][k]), bhi = std::max(bhi, x[v[i]][k]);
    for (int i = 0; i < N; ++i) sum += x[v[i]][k];  // (min / max would drop a NaN)
    sep = sep || blo - ahi > r || alo - bhi > r;
  }
  return sep && std::isfinite(sum);
}

// The squared Euclidean gap between the bounding boxes of the two sides of a stencil (its
// first NA points, the rest): a lower bound of the squared distance between the sides
// (every distance type's), from their axis gaps. NaN whenever a coordinate is not finite
// (the kernel then decides, as before).
template <int NA, int N>
[[gnu::always_inline]] inline double box_gap_sq(const VertexSpan<Vec3>& x, const int* v) {
  double sum = 0.0, g2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    double alo = x[v[0]][k], ahi = alo, blo = x[v[NA]][k], bhi = blo;
    for (int i = 1; i < NA; ++i) alo = std::min(alo, x[v[i]][k]), ahi = std::max(ahi, x[v[i]][k]);
    for (int i = NA + 1; i < N; ++i) blo = std::min(blo, x[v[i]][k]), bhi = std::max(bhi, x[v[i]][k]);
    for (int i = 0; i < N; ++i) sum += x[v[i]][k];  // (min / max would drop a NaN)
    const double gk = std::max(0.0, std::max(blo - ahi, alo - bhi));
    g2 += gk * gk;
  }
  return std::isfinite(sum) ? g2 : std::numeric_limits<double>::quiet_NaN();
}

// The largest per-vertex value w over each side of a stencil (its first NA points: wa; the
// rest: wb), e.g. how far each side's vertices have moved at most.
template <int NA, int N>
[[gnu::always_inline]] inline void side_max(const VertexSpan<double>& w, const int* v, double& wa, double& wb) {
  wa = w[v[0]], wb = w[v[NA]];
  for (int a = 1; a < NA; ++a) wa = std::max(wa, w[v[a]]);
  for (int a = NA + 1; a < N; ++a) wb = std::max(wb, w[v[a]]);
}

// An upper bound of |a - b| (1e-6 above the rounding of the norm), +inf where it is not finite.
inline double moved_bound(const Vec3& a, const Vec3& b) {
  const double m = (a - b).norm();
  return std::isfinite(m) ? m * (1.0 + 1e-6) : std::numeric_limits<double>::infinity();
}

// Whether ACCD (ccd/accd.cpp, additive_ccd) on this stencil ends at its first step without
// an impact: its first step (1 - s)(d0 - xi) / l_p reaches t_max. Decided on a lower bound
// of d0: d_prev (the caller's, from an earlier query; -inf if none) or else the box gap at x
// less 1e-6 of itself (far above the rounding of the kernels' d0 and of d0 - xi), with l_p
// formed as ACCD forms it and another 1e-6 on the product; then the query's answer (no
// impact) is known without its distance kernel. False whenever a coordinate of dx is not
// finite, or of x (the box gap is then NaN, and the caller's d_prev -inf). d_lb: the lower
// bound of d0 that decided; by_prev: whether that was d_prev.
template <int NA, int N>
[[gnu::always_inline]] inline bool accd_clears_first_step(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, const int* v, double xi,
                                   const AccdParams& ap, double d_prev, double& d_lb, bool& by_prev) {
  // l_p (eq. 16) of the centred displacements, as additive_ccd forms it.
  Vec3 mean = Vec3::Zero();
  for (int i = 0; i < N; ++i) mean += dx[v[i]];
  mean /= double(N);
  double m1 = 0.0, m2 = 0.0;
  for (int i = 0; i < NA; ++i) m1 = std::max(m1, (dx[v[i]] - mean).squaredNorm());
  for (int i = NA; i < N; ++i) m2 = std::max(m2, (dx[v[i]] - mean).squaredNorm());
  const double lp = std::sqrt(m1) + std::sqrt(m2);
  if (!std::isfinite(lp)) return false;
  const double need = ap.t_max * lp * (1.0 + 1e-6);
  auto clears = [&](double d) { return d > xi && (1.0 - ap.s) * (d - xi) >= need; };
  by_prev = clears(d_prev);
  if (by_prev) {
    d_lb = d_prev;
    return true;
  }
  const double g2 = box_gap_sq<NA, N>(x, v);
  if (!(g2 > 0.0)) return false;
  d_lb = std::sqrt(g2) * (1.0 - 1e-6);
  return clears(d_lb);
}

// Whether the two sides of a stencil (its first NA points, the rest) stay apart by more
// than `reach` along one axis over the whole step x + t dx, t in [0, 1]: along an axis a
// side's coordinates each move by at least the side's least and at most its largest dx, so
// the gap between the sides' boxes shrinks by at most the difference of those (a common
// translation changes nothing). False whenever a coordinate of x or dx is not finite.
template <int NA, int N>
[[gnu::always_inline]] inline bool axis_apart_over_step(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, const int* v,
                                 double reach) {
  double sum = 0.0;
  bool apart = false;
  for (int k = 0; k < 3; ++k) {
    double alo = x[v[0]][k], ahi = alo, blo = x[v[NA]][k], bhi = blo;
    double palo = dx[v[0]][k], pahi = palo, pblo = dx[v[NA]][k], pbhi = pblo;
    for (int i = 1; i < NA; ++i) {
      alo = std::min(alo, x[v[i]][k]), ahi = std::max(ahi, x[v[i]][k]);
      palo = std::min(palo, dx[v[i]][k]), pahi = std::max(pahi, dx[v[i]][k]);
    }
    for (int i = NA + 1; i < N; ++i) {
      blo = std::min(blo, x[v[i]][k]), bhi = std::max(bhi, x[v[i]][k]);
      pblo = std::min(pblo, dx[v[i]][k]), pbhi = std::max(pbhi, dx[v[i]][k]);
    }
    for (int i = 0; i < N; ++i) sum += x[v[i]][k] + dx[v[i]][k];  // (min / max would drop a NaN)
    apart = apart || (blo - ahi) - std::max(0.0, pahi - pblo) > reach ||
            (alo - bhi) - std::max(0.0, pbhi - palo) > reach;
  }
  return apart && std::isfinite(sum);
}

}  // namespace

// A swept pair is needed by none of the query's consumers when
//  * ACCD clears it at its first step for t_max = 1 (accd_clears_first_step on the box gap at
//    x: max_step's kernel then reports no impact for any t_max, so the step bound, a minimum
//    over impacts, is the same without it), and
//  * along one axis its sides stay apart by more than its support xi + dhat (+ 1e-6 of it,
//    + tol) at every point of the step (axis_apart_over_step): at every point within tol / 4
//    of x + t dx, t in [0, 1], in each coordinate (the line search's trials, the accepted
//    iterate, the minimiser's own copy of it: on_swept_segment admits 2 eps = tol / 4 and
//    rounding), the gap shrinks by at most tol / 2, so the line search's energy skips the
//    pair on that axis (axis_separated: exactly 0 either way), and its proximity boxes,
//    grown by (dhat + xi) / 2 each, do not overlap: no proximity set (from this set or a
//    broad phase) holds it.
// Such pairs are most of a large step's set: on a swinging 128^2 cloth a first Newton step
// moves vertices by 18 edge lengths, the swept boxes of neighbours far apart on the sheet
// overlap, yet the cloth moves nearly rigidly across them.
template <PairKind K>
bool ContactModel::swept_pair_needed(const SweptDrop& d, int a, int b) const {
  using P = PairTraits<K>;
  const typename P::Cand p{a, b};
  int v[P::N];
  P::stencil(surface_, p, v);
  const double xi = pair_xi<K>(surface_, p);
  // (The axis test first: it needs no square root, and decides most kept pairs.)
  if (!axis_apart_over_step<P::A + 1, P::N>(*d.x, *d.dx, v, (xi + params_.dhat) * (1.0 + 1e-6) + d.tol)) return true;
  double d_lb;
  bool by_prev;
  return !accd_clears_first_step<P::A + 1, P::N>(*d.x, *d.dx, v, xi, d.ap, -kInf, d_lb, by_prev);
}

template <PairKind K>
bool ContactModel::swept_pair_kept(const SweptDrop& d, int a, int b) const {
  if (!d.on) return true;
  const bool need = swept_pair_needed<K>(d, a, b);
  ++d.tested;
  d.dropped += !need;
  if (d.tested >= kDropProbe && static_cast<double>(d.dropped) < kDropShare * static_cast<double>(d.tested))
    d.on = false;
  return need;
}

bool ContactModel::keep_swept_pair(const void* ctx, PairKind kind, int a, int b) {
  const SweptDrop& d = *static_cast<const SweptDrop*>(ctx);
  switch (kind) {
    case PairKind::PT: return d.model->swept_pair_kept<PairKind::PT>(d, a, b);
    case PairKind::EE: return d.model->swept_pair_kept<PairKind::EE>(d, a, b);
    case PairKind::PE: return d.model->swept_pair_kept<PairKind::PE>(d, a, b);
    case PairKind::PP: return d.model->swept_pair_kept<PairKind::PP>(d, a, b);
  }
  return true;
}

bool ContactModel::on_swept_segment(const VertexSpan<Vec3>& x) const {
  // Per vertex and axis the t with |x - (x0 + t dx)| <= eps form an interval; they must
  // meet. (dx is the query's: swept_dx_ + c for a shifted set, within rounding, which eps
  // dwarfs; the rounding of the divisions moves a bound by far less than eps / |dx|.) A
  // point so found lies within 2 eps + rounding of x0 + t dx at every vertex.
  const double eps = swept_seg_eps_;
  const Vec3 c = swept_shifted_ ? swept_shift_ : Vec3::Zero();
  double tlo = 0.0, thi = 1.0;
  for (int v : act().points) {
    const Vec3& a = x[v];
    if (!finite3(a)) continue;  // never paired at x
    for (int k = 0; k < 3; ++k) {
      const double d = a[k] - swept_x_[v][k], m = swept_dx_[v][k] + c[k];
      if (!std::isfinite(d) || !std::isfinite(m)) return false;
      if (std::abs(m) <= eps) {
        if (!(std::abs(d) <= eps)) return false;
        continue;
      }
      double lo = (d - eps) / m, hi = (d + eps) / m;
      if (m < 0) std::swap(lo, hi);
      tlo = std::max(tlo, lo);
      thi = std::min(thi, hi);
      if (!(tlo <= thi)) return false;
    }
  }
  return true;
}

void ContactModel::fold_skin_delta() {
  for_each_pair_kind([&](auto k) {
    constexpr PairKind K = decltype(k)::value;
    merge_into(skin_.get<K>(), skin_delta_.get<K>(), skin_merge_.get<K>());
    skin_delta_.get<K>().clear();
  });
}

double ContactModel::energy_over(const Candidates& c, const VertexSpan<Vec3>& x, double kappa, const double* lb,
                                 const VertexSpan<double>* u) const {
  size_t i = 0;  // the pair's position in c (lb's index)
  BarrierParams bp;
  bp.kappa = kappa;
  bp.dhat = params_.dhat;
  double e = 0.0;
  bool infeasible = false;
  const auto len2 = [this](int edge) { return rest_length2(edge); };
  for_each_pair_kind([&](auto k) {
    WEFT_PAIR_KIND(k);
    if (infeasible) return;
    for (const auto& p : c.get<K>()) {
      int v[P::N];
      P::stencil(surface_, p, v);
      bp.xi = pair_xi<K>(surface_, p);
      // A pair farther apart than the support radius xi + dhat has energy exactly 0 (its
      // kernel's d^2 - xi^2 >= S: the 1e-6 margin dwarfs the rounding of d^2): skipped
      // before the distance kernel, the sum is the same bit for bit. Most line-search pairs
      // are such (soft drape 64^2: ~90K per trial, ~5K active). First by the bound from
      // the CCD query at the base point (lb: its distance there, less what each side's
      // vertices have moved since, at most u each), then by an axis between the sides.
      const double r = (bp.xi + bp.dhat) * (1.0 + 1e-6);
      if (lb) {
        double ua, ub;
        side_max<P::A + 1, P::N>(*u, v, ua, ub);
        if (lb[i++] - ua - ub > r) continue;
      }
      if (axis_separated<P::A + 1, P::N>(x, v, r)) continue;
      const double val = P::energy(x, v, mollifier_eps<K>(len2, p), bp);
      if (!std::isfinite(val)) {
        infeasible = true;
        return;
      }
      e += val;
    }
  });
  return infeasible ? kInf : e;
}

size_t ContactModel::vertex_array_bytes() const {
  size_t b = swept_x_.memory_bytes() + swept_dx_.memory_bytes() + skin_x_.memory_bytes() + skin_dx_.memory_bytes() +
             skin_lo_.memory_bytes() + skin_hi_.memory_bytes() + skin_mark_.memory_bytes() + vmark_.memory_bytes() +
             vslot_.memory_bytes() + col_seen_.memory_bytes() + ccd_x_.memory_bytes() + ccd_move_.memory_bytes() +
             ccd_step_.memory_bytes() + trial_move_.memory_bytes();
  for (const PagedArray<int>& q : query_slot_) b += q.memory_bytes();
  return b;
}

double ContactModel::barrier_energy(const VertexSpan<Vec3>& x, double kappa) const {
  ContactScope scope(&timers_, ContactPhase::BarrierEnergy);
  timers_.energy_pairs += static_cast<long>(swept_.size());
  // The line search's trials x lie on the segment max_step was queried on: its distance
  // bounds at the base point, less how far each vertex has moved from there (+inf where a
  // position is not finite), skip most pairs. The bounds are max_step's for this swept set.
  if (!ccd_bound_valid_ || ccd_bound_.size() != swept_.size() || ccd_x_.size() != x.size())
    return energy_over(swept_, x, kappa, nullptr, nullptr);
  if (trial_move_.size() != x.size()) trial_move_.assign(x.size(), kInf, dense_arrays_);
  for (int v : act().points) {
    trial_move_.ref(v) = moved_bound(x[v], ccd_x_[v]);
  }
  const VertexSpan<double> u(trial_move_);
  return energy_over(swept_, x, kappa, ccd_bound_.data(), &u);
}

double ContactModel::assemble_barrier(const VertexSpan<Vec3>& x, double kappa, const ContactSink& sink) const {
  ContactScope scope(&timers_, ContactPhase::Barrier);
  timers_.barrier_pairs += static_cast<long>(proximity_.size());
  const std::vector<PairDistance>& dist = proximity_distances(x);
  size_t k = 0;
  BarrierParams bp;
  bp.kappa = kappa;
  bp.dhat = params_.dhat;
  double e = 0.0;
  // Obstacle points have no unknowns: the Hessian is projected on the block of the others
  // (pair_potential.hpp), which for a cloth point on an obstacle triangle is 3x3.
  auto fixed_mask = [&](const int* v, int n) {
    unsigned m = 0;
    for (int a = 0; a < n; ++a) m |= fixed(v[a]) ? 1u << a : 0u;
    return m;
  };
  // Most proximity pairs lie beyond the support (drape_default: 5K of 33K active): the
  // cached squared distance decides that with the potentials' own test, before a 12 x 12
  // LocalEnergy is even zeroed.
  auto beyond = [&](const PairDistance& pd) {
    return pd.d2 - bp.xi * bp.xi >= offset_barrier_threshold(bp.xi, bp.dhat);
  };
  bool infeasible = false;
  const auto len2 = [this](int edge) { return rest_length2(edge); };
  for_each_pair_kind([&](auto kind) {
    WEFT_PAIR_KIND(kind);
    if (infeasible) return;
    for (const auto& p : proximity_.get<K>()) {
      bp.xi = pair_xi<K>(surface_, p);
      const PairDistance& pd = dist[k++];
      if (beyond(pd)) continue;
      int v[P::N];
      P::stencil(surface_, p, v);
      bp.fixed_points = fixed_mask(v, P::N);
      const auto le = P::barrier(x, v, typename P::Type(pd.type), pd.d2, mollifier_eps<K>(len2, p), bp);
      if (!le.feasible) {
        infeasible = true;
        return;
      }
      e += le.value;
      if (!le.active) continue;
      ++timers_.barrier_active;
      emit_dynamic<P::N>(v, P::N, le.gradient.data(), le.hessian.data(), sink);
    }
  });
  return infeasible ? kInf : e;
}

void ContactModel::active_couplings(const VertexSpan<Vec3>& x, std::vector<std::pair<int, int>>& out,
                                    double reach_dhat) const {
  // (Timed by the caller, with the matrix re-preallocation, as ContactPhase::Couplings.)
  // The pairs that can emit a Hessian block at x are those inside the barrier's support,
  // d^2 - xi^2 < S; a pair counts here when it is within kCouplingReach * dhat beyond that
  // (the same distance functions as the potential, so rounding cannot disagree at the
  // support's edge, and pairs about to touch are in the pattern before they do: the matrix
  // is re-preallocated only when the pattern grows). Only couplings between two different
  // dynamic vertices are listed: the diagonal blocks are always in the matrix, and a
  // kinematic vertex has no rows or columns, so a point on an obstacle adds nothing.
  out.clear();
  const double reach = (1.0 + (reach_dhat < 0 ? kCouplingReach : reach_dhat)) * params_.dhat;
  // The coupling set is symmetric: each stencil lists its couplings once, as (smaller,
  // larger) vertex; the deduplicated half is mirrored below (half the couplings to sort
  // and deduplicate: soft drape 64^2, ~80K a call, 6-20 per distinct one).
  auto add = [&](const int* v, int nv) {
    int dyn[4], n = 0;
    for (int a = 0; a < nv; ++a)
      if (!fixed(v[a])) dyn[n++] = v[a];
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (dyn[a] != dyn[b]) out.emplace_back(std::min(dyn[a], dyn[b]), std::max(dyn[a], dyn[b]));
  };
  auto dynamic_count = [&](const int* v, int nv) {
    int n = 0;
    for (int a = 0; a < nv; ++a) n += !fixed(v[a]);
    return n;
  };
  const std::vector<PairDistance>& dist = proximity_distances(x);
  size_t k = 0;
  for_each_pair_kind([&](auto kind) {
    WEFT_PAIR_KIND(kind);
    for (const auto& p : proximity_.get<K>()) {
      int v[P::N];
      P::stencil(surface_, p, v);
      const double d2 = dist[k++].d2;
      if (dynamic_count(v, P::N) < 2) continue;
      const double xi = pair_xi<K>(surface_, p);
      if (d2 - xi * xi < offset_barrier_threshold(xi, reach)) add(v, P::N);
    }
  });
  // Friction pairs keep their stencil for the whole lagged solve.
  for (const auto& f : friction_) add(f.ids, f.nv);
  // Sorted and unique, both directions: a counting sort of the halves on their row, each
  // row's repeats dropped (a pair of vertices recurs once per stencil holding both, tens of
  // times on a draped cloth); then the distinct halves and their mirrors, counting-sorted
  // on the row again and each row's few columns sorted. The same list as listing every
  // ordered coupling and sort + unique.
  // The rows are stencil vertices, all among the active points: the counting sorts run
  // over their positions in that (ascending) list, O(couplings + active), not O(vertices).
  const std::vector<int>& pts = act().points;
  const size_t np = pts.size();
  if (vslot_.size() != size_t(surface_.num_vertices())) vslot_.assign(surface_.num_vertices(), -1, dense_arrays_);
  for (size_t i = 0; i < np; ++i) vslot_.ref(pts[i]) = static_cast<int>(i);
  auto& count = couple_count_;
  auto& tmp = couple_tmp_;
  bool listed = true;
  for (const auto& c : out)
    if (vslot_[c.first] < 0 || vslot_[c.second] < 0) {
      listed = false;
      break;
    }
  if (!listed) {  // (a vertex outside the lists: cannot happen with the halo's lists; sort plainly)
    for (int v : pts) vslot_.ref(v) = -1;
    const size_t n = out.size();
    for (size_t i = 0; i < n; ++i) out.emplace_back(out[i].second, out[i].first);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    timers_.couplings += static_cast<long>(out.size());
    return;
  }
  // (rows by position in pts: vslot_ holds it for every listed vertex during the sorts)
  auto by_row = [&](const std::vector<std::pair<int, int>>& in, std::vector<std::pair<int, int>>& to, bool mirror) {
    count.assign(np + 1, 0);
    for (const auto& c : in) {
      ++count[vslot_[c.first] + 1];
      if (mirror) ++count[vslot_[c.second] + 1];
    }
    for (size_t v = 0; v < np; ++v) count[v + 1] += count[v];
    to.resize(count[np]);
    for (const auto& c : in) {
      to[count[vslot_[c.first]]++] = c;
      if (mirror) to[count[vslot_[c.second]]++] = {c.second, c.first};
    }
  };
  // Within a row, a column's first occurrence kept (mark: col_seen_, reset right after).
  if (col_seen_.size() != vslot_.size()) col_seen_.assign(vslot_.size(), 0, dense_arrays_);
  auto dedup_rows = [&](const std::vector<std::pair<int, int>>& in, std::vector<std::pair<int, int>>& to) {
    to.clear();
    const size_t n = in.size();
    for (size_t i = 0; i < n;) {
      const size_t first = to.size();
      size_t j = i;
      for (; j < n && in[j].first == in[i].first; ++j) {
        char& seen = col_seen_.ref(in[j].second);
        if (!seen) seen = 1, to.push_back(in[j]);
      }
      for (size_t k = first; k < to.size(); ++k) col_seen_.ref(to[k].second) = 0;
      i = j;
    }
  };
  by_row(out, tmp, false);       // the halves by row
  dedup_rows(tmp, out);          // ... distinct
  by_row(out, tmp, true);        // ... and their mirrors, by row (each coupling once now)
  for (int v : pts) vslot_.ref(v) = -1;
  // each row's columns in order (a row holds each column once: no marks needed)
  const size_t n = tmp.size();
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && tmp[j].first == tmp[i].first;) ++j;
    std::sort(tmp.begin() + static_cast<std::ptrdiff_t>(i), tmp.begin() + static_cast<std::ptrdiff_t>(j));
  }
  out.assign(tmp.begin(), tmp.end());
  timers_.couplings += static_cast<long>(out.size());
}

double ContactModel::min_gap(const VertexSpan<Vec3>& x) const {
  ContactScope scope(&timers_, ContactPhase::Gap);
  double g = kInf;
  const std::vector<PairDistance>& dist = proximity_distances(x);
  size_t k = 0;
  for_each_pair_kind([&](auto kind) {
    constexpr PairKind K = decltype(kind)::value;
    for (const auto& p : proximity_.get<K>()) g = std::min(g, std::sqrt(dist[k++].d2) - pair_xi<K>(surface_, p));
  });
  return g;
}

double ContactModel::max_step(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx, long* queries) const {
  ContactScope scope(&timers_, ContactPhase::Ccd);
  double t_max = 1.0;
  long n = 0;
  AccdParams ap = params_.accd;
  // Each pair's distance at x (a lower bound, less 1e-6 of itself: 0 when unknown) for the
  // line search's barrier energy (barrier_energy) and the next query, and the positions it
  // is for. The last query's bounds (its pairs ccd_pairs_, at ccd_x_), less how far each
  // side's vertices have moved since (at most u each; +inf where a position is not finite),
  // bound this query's d0 for the pairs both sets hold: in the Newton iterations that
  // settle a drape nearly every swept pair is such, and apart by far more than its step.
  // A bound that came from a distance kernel (ccd_exact_, kept while later queries carry it)
  // clears a pair for good; a box gap clears it only when it also lies beyond the barrier's
  // support after this whole step, so that the line search's trials skip the pair too:
  // otherwise the kernel runs (once: its bound is then carried).
  const bool have_prev = ccd_have_prev_ && ccd_x_.size() == x.size();
  ccd_bound_.swap(ccd_prev_bound_);
  ccd_exact_.swap(ccd_prev_exact_);
  ccd_bound_.resize(swept_.size());
  ccd_exact_.resize(swept_.size());
  if (ccd_x_.size() != x.size()) ccd_x_.assign(x.size(), Vec3::Constant(kInf), dense_arrays_);
  if (ccd_move_.size() != x.size()) ccd_move_.assign(x.size(), kInf, dense_arrays_), ccd_step_.assign(x.size(), kInf, dense_arrays_);
  for (int v : act().points) {
    const double st = dx[v].norm();
    ccd_move_.ref(v) = moved_bound(x[v], ccd_x_[v]);
    ccd_step_.ref(v) = std::isfinite(st) ? st : kInf;
    ccd_x_.ref(v) = x[v];
  }
  const VertexSpan<double> u(ccd_move_), w(ccd_step_);
  size_t prev_base = 0;  // the kind's first position in ccd_prev_bound_
  for_each_pair_kind([&](auto kind) {
    WEFT_PAIR_KIND(kind);
    const auto& prev = ccd_pairs_.get<K>();
    size_t j = 0;  // (both lists are sorted: a merge walk)
    for (const auto& p : swept_.get<K>()) {
      int v[P::N];
      P::stencil(surface_, p, v);
      ap.t_max = t_max;  // only an earlier impact can lower the bound
      const double xi = pair_xi<K>(surface_, p);
      double d_prev = -kInf;
      bool prev_exact = false;
      double moved = kInf;
      if (have_prev) {
        while (j < prev.size() && prev[j] < p) ++j;
        if (j < prev.size() && prev[j] == p) {
          double ua, ub;
          side_max<P::A + 1, P::N>(u, v, ua, ub);
          d_prev = ccd_prev_bound_[prev_base + j] - ua - ub;
          prev_exact = ccd_prev_exact_[prev_base + j];
          moved = ua + ub;
        }
      }
      char& exact = ccd_exact_[n];
      double& lb = ccd_bound_[n++];
      // Most swept pairs are apart by many of their steps: ACCD's first step clears them
      // (no impact), which a lower bound of their distance shows without the kernel.
      bool by_prev = false;
      if (accd_clears_first_step<P::A + 1, P::N>(x, dx, v, xi, ap, d_prev, lb, by_prev)) {
        exact = by_prev && prev_exact;
        if (exact && moved <= 0.5 * params_.dhat) continue;
        double wa, wb;
        side_max<P::A + 1, P::N>(w, v, wa, wb);
        if (lb - wa - wb > (xi + params_.dhat) * (1.0 + 1e-3)) continue;
        if (!exact && wa + wb > 0.5 * params_.dhat) continue;
      }
      // (ACCD gives the same answer when a bound cleared the pair: it is run for its distance.)
      const CcdResult r = P::accd(x, dx, v, xi, ap);
      lb = std::max(r.d0_sq > 0.0 ? std::sqrt(r.d0_sq) * (1.0 - 1e-6) : 0.0, d_prev);  // (0 if NaN)
      exact = 1;
      if (r.hit) t_max = std::min(t_max, r.toi);
    }
    prev_base += prev.size();
  });
  ccd_pairs_ = swept_;
  ccd_have_prev_ = true;
  ccd_bound_valid_ = true;
  if (queries) *queries += n;
  timers_.ccd_queries += n;
  return t_max;
}

void ContactModel::lag_friction(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& x_ref, double kappa) {
  ContactScope scope(&timers_, ContactPhase::FrictionLag);
  friction_.clear();
  const double dhat = params_.dhat;
  auto mu_of = [&](int obj_a, int obj_b) {
    // Per-object coefficients combine as the geometric mean (0 if either is frictionless).
    return std::sqrt(std::max(0.0, object_friction_[obj_a]) * std::max(0.0, object_friction_[obj_b]));
  };
  for_each_pair_kind([&](auto kind) {
    WEFT_PAIR_KIND(kind);
    for (const auto& p : proximity_.get<K>()) {
      const double mu = mu_of(side_object(surface_, P::A, P::a(p)), side_object(surface_, P::B, P::b(p)));
      if (mu <= 0) continue;
      int v[P::N];
      P::stencil(surface_, p, v);
      const double d2 = P::d2(x, v);
      const double lambda = barrier_force_magnitude(d2, pair_xi<K>(surface_, p), dhat, kappa);
      if (!(lambda > 0) || !std::isfinite(lambda)) continue;
      FrictionPair f;
      f.nv = P::N;
      for (int a = 0; a < 4; ++a) {
        f.ids[a] = a < P::N ? v[a] : -1;
        f.ref[a] = a < P::N ? x_ref[v[a]] : Vec3::Zero();
      }
      if constexpr (P::N == 4) {
        f.T = P::friction(x, v);
      } else {
        f.T.setZero();
        f.T.template topRows<3 * P::N>() = P::friction(x, v);
      }
      f.mu_lambda = mu * lambda;
      friction_.push_back(f);
    }
  });
}

std::vector<int> ContactModel::friction_vertices() const {
  std::vector<int> ids;
  ids.reserve(4 * friction_.size());
  for (const auto& f : friction_) ids.insert(ids.end(), f.ids, f.ids + f.nv);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

void ContactModel::set_friction_reference(const VertexSpan<Vec3>& x_ref) {
  for (auto& f : friction_)
    for (int a = 0; a < f.nv; ++a) f.ref[a] = x_ref[f.ids[a]];
}

void ContactModel::set_friction_reference(const std::vector<int>& ids, const std::vector<Vec3>& values) {
  for (auto& f : friction_)
    for (int a = 0; a < f.nv; ++a) {
      const auto it = std::lower_bound(ids.begin(), ids.end(), f.ids[a]);
      f.ref[a] = values[it - ids.begin()];
    }
}

double ContactModel::friction_energy(const VertexSpan<Vec3>& x) const {
  ContactScope scope(&timers_, ContactPhase::FrictionEnergy);
  timers_.friction_pairs += static_cast<long>(friction_.size());
  const double eps = params_.eps_v * params_.dt;
  double e = 0.0;
  for (const auto& f : friction_) {
    Vec12 dx = Vec12::Zero();  // (rows past the stencil stay 0, as do those of T)
    for (int a = 0; a < f.nv; ++a) dx.segment<3>(3 * a) = x[f.ids[a]] - f.ref[a];
    const Vec2 u = f.T.transpose() * dx;
    e += f.mu_lambda * friction_f0(u.norm(), eps);
  }
  return e;
}

double ContactModel::assemble_friction(const VertexSpan<Vec3>& x, const ContactSink& sink) const {
  ContactScope scope(&timers_, ContactPhase::Friction);
  timers_.friction_pairs += static_cast<long>(friction_.size());
  const double eps = params_.eps_v * params_.dt;
  double e = 0.0;
  // Pairs with points that are not unknowns (cloth on an obstacle, the common case) compute
  // only their unknowns' rows (friction_potential_rows: the same entries bit for bit).
  auto rows = [&](auto k, const FrictionPair& f, const Vec12& dx, const int* keep, const int* ids) {
    constexpr int K = decltype(k)::value;
    const LocalEnergy<3 * K> le = friction_potential_rows<K>(f.T, dx, f.mu_lambda, eps, keep);
    sink(K, ids, le.gradient.data(), le.hessian.data());
    return le.value;
  };
  for (const auto& f : friction_) {
    Vec12 dx = Vec12::Zero();
    for (int a = 0; a < f.nv; ++a) dx.segment<3>(3 * a) = x[f.ids[a]] - f.ref[a];
    int keep[4], ids[4], n = 0;
    for (int a = 0; a < f.nv; ++a)
      if (!fixed(f.ids[a])) keep[n] = a, ids[n++] = f.ids[a];
    switch (n) {
      case 1: e += rows(std::integral_constant<int, 1>(), f, dx, keep, ids); continue;
      case 2: e += rows(std::integral_constant<int, 2>(), f, dx, keep, ids); continue;
      case 3: e += rows(std::integral_constant<int, 3>(), f, dx, keep, ids); continue;
      default: break;
    }
    const LocalEnergy<12> le = friction_potential<12>(f.T, dx, f.mu_lambda, eps);
    e += le.value;
    emit_dynamic<4>(f.ids, f.nv, le.gradient.data(), le.hessian.data(), sink);
  }
  return e;
}

}  // namespace weft
