#include "contact/broad_phase.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace weft {
namespace {

struct Box {
  double lo[3], hi[3];
};

inline bool overlap(const Box& a, const Box& b) {
  return a.lo[0] <= b.hi[0] && b.lo[0] <= a.hi[0] && a.lo[1] <= b.hi[1] && b.lo[1] <= a.hi[1] &&
         a.lo[2] <= b.hi[2] && b.lo[2] <= a.hi[2];
}

inline bool finite(const Box& b) {
  return std::isfinite(b.lo[0]) && std::isfinite(b.lo[1]) && std::isfinite(b.lo[2]) && std::isfinite(b.hi[0]) &&
         std::isfinite(b.hi[1]) && std::isfinite(b.hi[2]);
}

inline double extent(const Box& b) {
  return std::max(b.hi[0] - b.lo[0], std::max(b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]));
}

inline void grow(Box& b, double r) {
  for (int k = 0; k < 3; ++k) {
    b.lo[k] -= r;
    b.hi[k] += r;
  }
}

inline void unite(Box& b, const Box& c) {
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = std::min(b.lo[k], c.lo[k]);
    b.hi[k] = std::max(b.hi[k], c.hi[k]);
  }
}

// A vertex's box: [x, x] (proximity) or [min(x, x + dx), max(x, x + dx)] (swept); a
// vertex with a non-finite end gets lo[0] = inf (std::min may drop a NaN): never paired.
inline Box vertex_box(const Vec3& x, const Vec3* dx) {
  Box b;
  if (!dx) {
    for (int k = 0; k < 3; ++k) b.lo[k] = b.hi[k] = x[k];
    return b;
  }
  bool ok = true;
  for (int k = 0; k < 3; ++k) {
    const double a = x[k], e = x[k] + (*dx)[k];
    b.lo[k] = std::min(a, e);
    b.hi[k] = std::max(a, e);
    ok = ok && std::isfinite(a) && std::isfinite(e);
  }
  if (!ok) b.lo[0] = std::numeric_limits<double>::infinity();
  return b;
}

// A primitive's box: the union of its N vertices' boxes (vertex_box of x, dx) grown by r;
// lo[0] = inf if any vertex box is not finite. Vertex boxes are formed here rather than
// kept per vertex: an array by vertex id would be sized by the surface, not by the rank's
// active lists.
template <int N>
Box primitive_box(const VertexSpan<Vec3>& x, const VertexSpan<Vec3>* dx, const std::array<int, N>& v, double r) {
  Box b = vertex_box(x[v[0]], dx ? &(*dx)[v[0]] : nullptr);
  bool ok = finite(b);
  for (int i = 1; i < N; ++i) {
    const Box c = vertex_box(x[v[i]], dx ? &(*dx)[v[i]] : nullptr);
    unite(b, c);
    ok = ok && finite(c);
  }
  grow(b, r);
  if (!ok) b.lo[0] = std::numeric_limits<double>::infinity();
  return b;
}

// Levels: level L holds the primitives whose box extent (largest side) is in
// (cap 2^(L-B-1), cap 2^(L-B)], B = kBaseLevel, cap = kCapScale * (median edge-box extent),
// so a level's extents differ by at most 2x (its margin is never far above its typical
// size) and the bulk of a uniform cloth sits at level B. Level L's cells are
// kCellScale * cap * 2^(L-B) wide. Measured on folded 256^2 cloth (flat, rotated, static,
// swept) and 512^2 cloth over a sphere: cells of ~1.5-2 x the median extent are the flat
// optimum of cells looked up vs entries scanned (0.5 x is 2x slower).
constexpr double kCapScale = 1.5;
constexpr double kCellScale = 1.2;
constexpr int kBaseLevel = 8;
constexpr size_t kSample = 4096;  // edges sampled for the typical extent
// Cell keys: level (5 bits) | x | y | z (19 bits each). Finest (level-0) cell coordinates
// are floor((x - origin) / h0) clamped to [0, 4e18]; level L's are those >> L, clamped to
// kMaxCoord. Both maps are monotone in x, which is all the search below relies on: clamping
// (only reached in absurd scenes) costs speed, never pairs.
constexpr int kCoordBits = 19;
constexpr int64_t kMaxCoord = (int64_t(1) << kCoordBits) - 1;
constexpr int kMaxLevel = 31;

constexpr uint64_t kNoKey = ~uint64_t(0);
constexpr uint8_t kSkip = 255;  // level of a primitive with a non-finite box: never paired

inline uint64_t mix(uint64_t z) {  // splitmix64 finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct Frame {
  double o[3] = {0, 0, 0};
  double inv_h = 1.0;
  double pad = 0.0;  // absolute rounding allowance on margins (a few ulps of the coordinates)
};

inline int64_t cell0(double x, double o, double inv_h) {
  const double q = (x - o) * inv_h;
  if (!(q > 0.0)) return 0;  // also NaN
  if (q > 4.0e18) return int64_t(4e18);
  return static_cast<int64_t>(q);
}

inline int64_t at_level(int64_t c0, int level) { return std::min(c0 >> level, kMaxCoord); }

inline uint64_t cell_key(int level, int64_t cx, int64_t cy, int64_t cz) {
  return (uint64_t(level) << (3 * kCoordBits)) | (uint64_t(cx) << (2 * kCoordBits)) | (uint64_t(cy) << kCoordBits) |
         uint64_t(cz);
}

int level_of(double ext, double cap) {
  int level = kBaseLevel;
  if (ext > cap) {
    while (ext > cap && level < kMaxLevel) {
      cap *= 2.0;
      ++level;
    }
  } else {
    while (level > 0 && ext <= 0.5 * cap) {  // (NaN: stays at the base level)
      cap *= 0.5;
      --level;
    }
  }
  return level;
}

// A multi-level LOOSE hash grid: each primitive is stored once, in the level-L cell holding
// its box centre, with its box; a query at level L widens its box by the largest half-extent
// (per axis) stored at L and scans the cells that range covers. Any stored box overlapping
// the query has its centre inside the widened box, so it is met exactly once per query — no
// duplicates to remove and one entry per primitive. Entries are bucketed by hash(key) into
// a CSR table of 2^m >= #entries buckets (counting sort: linear, stable) and carry a copy of
// their box, so a cell's scan reads contiguous memory.
class LooseGrid {
 public:
  struct Entry {
    uint64_t key;
    int slot;  // the primitive's position in its kind's list (index of the per-slot arrays)
    int id;    // its surface index (vertex id, edge or triangle index)
    Box box;
  };

  void clear() {
    staged_.clear();
    level_mask_ = 0;
    for (Level& l : levels_) l = Level{};
  }

  // Stages primitive `id` (at `slot` of its list) with box b at `level`; returns its cell key.
  uint64_t insert(int slot, int id, const Box& b, int level, const Frame& f) {
    Level& l = levels_[level];
    level_mask_ |= 1u << level;
    ++l.count;
    int64_t c[3];
    for (int k = 0; k < 3; ++k) {
      const double centre = 0.5 * (b.lo[k] + b.hi[k]);
      l.margin[k] = std::max(l.margin[k], std::max(centre - b.lo[k], b.hi[k] - centre));
      c[k] = at_level(cell0(centre, f.o[k], f.inv_h), level);
      l.cmin[k] = std::min(l.cmin[k], c[k]);
      l.cmax[k] = std::max(l.cmax[k], c[k]);
    }
    const uint64_t key = cell_key(level, c[0], c[1], c[2]);
    staged_.push_back({key, slot, id});
    return key;
  }

  // Builds the tables; boxes[slot] = the box each staged primitive was inserted with. Each level has
  // its own table (2^m >= its entries buckets), so the few coarse-level entries sit in a
  // small, cache-resident table that fine queries probe cheaply.
  void finish(const Frame& f, const std::vector<Box>& boxes) {
    uint32_t nb = 0;
    for (Level& l : levels_) {
      if (!l.count) continue;
      for (double& v : l.margin) v = v * (1.0 + 1e-9) + f.pad;
      size_t m = 8;
      while (m < l.count) m <<= 1;
      l.mask = m - 1;
      l.base = nb;
      nb += static_cast<uint32_t>(m);
    }
    const size_t n = staged_.size();
    start_.assign(size_t(nb) + 1, 0);
    bucket_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Level& l = levels_[staged_[i].key >> (3 * kCoordBits)];
      const uint32_t b = l.base + static_cast<uint32_t>(mix(staged_[i].key) & l.mask);
      bucket_[i] = b;
      ++start_[b + 1];
    }
    for (size_t b = 0; b < nb; ++b) start_[b + 1] += start_[b];
    entries_.resize(n);
    for (size_t i = 0; i < n; ++i)
      entries_[start_[bucket_[i]]++] = {staged_[i].key, staged_[i].slot, staged_[i].id, boxes[staged_[i].slot]};
    for (size_t b = nb; b > 0; --b) start_[b] = start_[b - 1];
    start_[0] = 0;
  }

  uint32_t level_mask() const { return level_mask_; }
  size_t size() const { return entries_.size(); }
  size_t bytes() const {
    return staged_.capacity() * sizeof(Staged) + entries_.capacity() * sizeof(Entry) +
           (bucket_.capacity() + start_.capacity()) * sizeof(uint32_t);
  }

  // visit(entry, level) for every stored primitive, at levels >= min_level, whose centre
  // cell is within the query box widened by that level's margin; each at most once.
  // With self_key (the key of a primitive stored in this grid, queried with its own box),
  // the cells of self_key's level are restricted to those with key >= self_key: of two
  // overlapping primitives of one level each lies in the other's range, so the pair is met
  // from exactly one side, or from both when they share a cell (the visitor breaks that tie).
  template <class Visit>
  void query(const Box& q, const Frame& f, int min_level, uint64_t self_key, Visit&& visit) const {
    if (min_level > kMaxLevel) return;
    const int self_level = self_key == kNoKey ? -1 : int(self_key >> (3 * kCoordBits));
    uint32_t lm = level_mask_ & (~0u << min_level);
    while (lm) {
      const int level = __builtin_ctz(lm);
      lm &= lm - 1;
      const Level& l = levels_[level];
      int64_t lo[3], hi[3];
      bool empty = false;
      for (int k = 0; k < 3; ++k) {  // widened range, clipped to the occupied cells
        lo[k] = std::max(l.cmin[k], at_level(cell0(q.lo[k] - l.margin[k], f.o[k], f.inv_h), level));
        hi[k] = std::min(l.cmax[k], at_level(cell0(q.hi[k] + l.margin[k], f.o[k], f.inv_h), level));
        empty |= lo[k] > hi[k];
      }
      if (empty) continue;
      int64_t own[3] = {lo[0], lo[1], lo[2]};
      const bool half = level == self_level;
      if (half) {
        own[0] = int64_t(self_key >> (2 * kCoordBits)) & kMaxCoord;
        own[1] = int64_t(self_key >> kCoordBits) & kMaxCoord;
        own[2] = int64_t(self_key) & kMaxCoord;
      }
      for (int64_t cx = std::max(lo[0], own[0]); cx <= hi[0]; ++cx) {
        const bool x_own = half && cx == own[0];
        for (int64_t cy = x_own ? std::max(lo[1], own[1]) : lo[1]; cy <= hi[1]; ++cy) {
          const bool xy_own = x_own && cy == own[1];
          for (int64_t cz = xy_own ? std::max(lo[2], own[2]) : lo[2]; cz <= hi[2]; ++cz) {
            const uint64_t key = cell_key(level, cx, cy, cz);
            const uint32_t bk = l.base + static_cast<uint32_t>(mix(key) & l.mask);
            for (uint32_t j = start_[bk], e = start_[bk + 1]; j < e; ++j)
              if (entries_[j].key == key) visit(entries_[j], level);
          }
        }
      }
    }
  }

 private:
  struct Staged {
    uint64_t key;
    int slot, id;
  };
  struct Level {
    size_t count = 0;
    double margin[3] = {0, 0, 0};  // largest half-extent per axis (+ rounding allowance)
    int64_t cmin[3] = {kMaxCoord, kMaxCoord, kMaxCoord}, cmax[3] = {0, 0, 0};  // occupied cells
    uint32_t base = 0;             // first bucket of this level's table
    uint64_t mask = 0;
  };
  std::vector<Staged> staged_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> bucket_, start_;
  uint32_t level_mask_ = 0;
  Level levels_[kMaxLevel + 1];
};

// Sorts pairs of non-negative ints by (first, second): a counting sort on `first` (skipped
// when the pairs already come grouped by it), then each group — a handful of pairs — by
// `second`. Linear in pairs + range of `first`; buffers reused.
template <class T, class First, class Second>
void sort_pairs(std::vector<T>& v, std::vector<T>& tmp, std::vector<uint32_t>& count, size_t range, First first,
                Second second) {
  const size_t n = v.size();
  if (n < 2) return;
  bool grouped = true;
  for (size_t i = 1; i < n && grouped; ++i) grouped = first(v[i - 1]) <= first(v[i]);
  if (!grouped) {
    count.assign(range + 1, 0);
    for (const T& c : v) ++count[first(c) + 1];
    for (size_t i = 0; i < range; ++i) count[i + 1] += count[i];
    tmp.resize(n);
    for (const T& c : v) tmp[count[first(c)]++] = c;
    v.swap(tmp);
  }
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && first(v[j]) == first(v[i])) ++j;
    for (size_t k = i + 1; k < j; ++k) {  // insertion sort: groups are small
      const T c = v[k];
      size_t p = k;
      while (p > i && second(v[p - 1]) > second(c)) {
        v[p] = v[p - 1];
        --p;
      }
      v[p] = c;
    }
    i = j;
  }
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("BroadPhase: " + what);
}

// ---- primitive kinds and sets (candidates.hpp, kPairRules)
// A primitive kind: a point (1 vertex, its id is the vertex id), an edge (2) or a triangle
// (3). Boxes, levels, kinematic flags and cell keys are per kind (a segment's box is its
// edge's box); grids are per set.
enum Kind : int { kPoint = 0, kEdge = 1, kTri = 2 };
constexpr int kKinds = 3;
constexpr int kSets = 6;

constexpr int set_index(PrimitiveSet s) { return static_cast<int>(s); }
constexpr Kind kind_of(PrimitiveSet s) {
  return s == PrimitiveSet::Triangles                             ? kTri
         : (s == PrimitiveSet::Edges || s == PrimitiveSet::Segments) ? kEdge
                                                                     : kPoint;
}
static_assert(int(kPairRules[0].kind) == 0 && int(kPairRules[1].kind) == 1 && int(kPairRules[2].kind) == 2 &&
                  int(kPairRules[3].kind) == 3,
              "kPairRules is indexed by PairKind");

// The vertex ids of primitive `id` of kind K (`id` itself for a point: pass an lvalue).
template <Kind K>
inline const int* verts(const CollisionSurface& s, const int& id) {
  if constexpr (K == kPoint) return &id;
  else if constexpr (K == kEdge) return s.edges[id].data();
  else return s.triangles[id].data();
}

// Whether two primitives (their vertex ids) share a vertex: such pairs are never candidates.
// Stitched vertices (surface.twin) count as one: a primitive through a and one through its
// partner b are never a pair, neither while the stitch pulls them together nor once welded.
template <Kind KA, Kind KB>
inline bool incident(const int* va, const int* vb, const PagedArray<int>* twin) {
  for (int i = 0; i <= KA; ++i)
    for (int j = 0; j <= KB; ++j)
      if (va[i] == vb[j] || (twin && (*twin)[static_cast<size_t>(va[i])] == vb[j])) return true;
  return false;
}
template <Kind KA, Kind KB>
inline bool incident(const CollisionSurface& s, const int& a, const int& b) {
  return incident<KA, KB>(verts<KA>(s, a), verts<KB>(s, b), s.twin_ptr());
}

// A set's primitives as slots (positions in its kind's list): slots[i] for i in
// [begin, end), or i itself when slots is null.
struct SlotRange {
  const int* slots;
  int begin, end;
  int at(int i) const { return slots ? slots[i] : i; }
};

// A kind's list: the ascending surface indices of the primitives a query may pair (the
// active list, or every primitive of the surface); ids == null means slot i is index i.
struct KindList {
  const int* ids = nullptr;
  int n = 0;
  int id(int slot) const { return ids ? ids[slot] : slot; }
  // The slot of surface index `id`, or -1 when the list does not hold it.
  int slot_of(int id) const {
    if (!ids) return id >= 0 && id < n ? id : -1;
    const int* p = std::lower_bound(ids, ids + n, id);
    return p != ids + n && *p == id ? static_cast<int>(p - ids) : -1;
  }
};

template <class C>
inline int first_of(const C& c) {
  const auto& [a, b] = c;
  (void)b;
  return a;
}
template <class C>
inline int second_of(const C& c) {
  const auto& [a, b] = c;
  (void)a;
  return b;
}

}  // namespace

// Every per-primitive array here is indexed by SLOT, the primitive's position in its kind's
// list of this query (the rank's active lists: owned + contact halo), so a rank's broad
// phase holds O(owned + halo) boxes, levels and flags, never arrays the length of the whole
// surface (issue 20). Grid entries carry both the slot and the surface index.
struct BroadPhase::Impl {
  // The inputs of one query, as the generic rule code reads them.
  struct Query {
    const CollisionSurface* s = nullptr;
    VertexSpan<Vec3> x;
    VertexSpan<Vec3> dx;                    // swept queries (swept: set)
    PrimitiveFilter pf;                     // point filter (by vertex id)
    PrimitiveFilter ef;                     // edge filter (by edge index / first vertex)
    KinematicFlags kv;                      // kinematic (by vertex id)
    bool swept = false;
    PairPredicate keep;                     // swept queries: the caller's pair predicate
  };
  struct SetGrids {
    LooseGrid grid[2];  // [1]: primitives whose vertices are all kinematic
    LooseGrid stale;    // update_swept: the set's stale primitives, current boxes
    int min_level = kMaxLevel + 1;  // (the B side of an asymmetric rule) lowest level stored
    int max_level = -1;  // (the A side) highest stored level above the B side's min_level
  };

  // The lists of the last query (a copy of the active lists: the caller may change its own
  // between a swept build and its updates), per kind.
  KindList list[kKinds];
  std::vector<int> snapshot[kKinds];
  // Primitives an update met that the build's lists did not hold (the caller's lists grew
  // since: a vertex the halo has just received, and its triangles and edges): appended
  // after the list's slots, by slot (extra_ids) and, sorted, by index (extra).
  std::vector<int> extra_ids[kKinds];
  std::vector<std::pair<int, int>> extra[kKinds];
  std::vector<Box> box[kKinds];       // grown boxes, by slot
  std::vector<uint8_t> level[kKinds];
  std::vector<uint64_t> key[kKinds];  // each primitive's own cell key (symmetric rules)
  std::vector<char> kin[kKinds];      // edges / triangles: all vertices kinematic
  SetGrids sets[kSets];
  Candidates tmp;
  std::vector<uint32_t> count;
  std::vector<double> sample;
  // Incremental updates (update_swept): the frame of the last swept build, whether its
  // grids are current (the A sides of asymmetric rules then hold every owned primitive),
  // the primitives (slots) whose box changed since (their grid entries are stale: paired
  // through grids of their own) and the vertex -> triangle / edge adjacency of the build's
  // lists (CSR by point slot, entries slots; built by the first update after a build, so
  // O(listed), never O(surface)), with the primitives appended since by (vertex, slot).
  Frame frame;
  double level_cap = 0.0;  // level_of's cap of that build
  bool updatable = false;
  double inflation = 0.0;
  const CollisionSurface* built_on = nullptr;  // the surface of the last query
  size_t built_nv = 0;                          // and its x's length
  std::vector<char> stale[kKinds];
  std::vector<int> stale_list[kKinds], fresh[kKinds];
  std::vector<int> vt_start, vt, ve_start, ve;
  std::vector<std::pair<int, int>> extra_adj[kKinds];  // (vertex id, slot), sorted
  PagedArray<int> point_slot;     // vertex id -> slot in the build's points (-1: not listed)
  std::vector<int> point_slot_set;  // the vertices it holds a slot for (reset at a rebuild)
  bool adjacency_valid = false;
  long listed_version = 0;  // the active lists' version the slots (list + extra) hold
  Query q;
  // This query's primitives per set, as slots.
  SlotRange sel[kSets];
  std::vector<int> codim_sel, particle_sel;  // slots of the codim points / particles

  int id_of(int k, int slot) const {
    return slot < list[k].n ? list[k].id(slot) : extra_ids[k][slot - list[k].n];
  }
  // The slot of surface index `id` of kind k, appending it (box to be set by the caller)
  // when neither the build's list nor an earlier update holds it.
  int slot_or_append(int k, int id) {
    const int sl = list[k].slot_of(id);
    if (sl >= 0) return sl;
    auto it = std::lower_bound(extra[k].begin(), extra[k].end(), std::make_pair(id, -1));
    if (it != extra[k].end() && it->first == id) return it->second;
    const int ns = static_cast<int>(box[k].size());
    const double inf = std::numeric_limits<double>::infinity();
    box[k].push_back(Box{{inf, inf, inf}, {inf, inf, inf}});  // (never paired until boxed)
    stale[k].push_back(0);
    extra_ids[k].push_back(id);
    extra[k].insert(it, {id, ns});
    return ns;
  }
  template <Kind K>
  bool is_kin(int slot, int id) const {
    if constexpr (K == kPoint) return q.kv && q.kv[id];
    else return kin[K][slot];
  }
  // Is primitive `id` of kind K kept as a pair's owner (the filters)?
  template <Kind K>
  bool kept(int id) const {
    if constexpr (K == kPoint) return q.pf.keeps(id, id);
    else if constexpr (K == kEdge) return q.ef.keeps(id, q.s->edges[id][0]);
    else return true;
  }
  bool member(PrimitiveSet set, int id) const {
    switch (set) {
      case PrimitiveSet::SurfacePoints: return q.s->vertex_object[id] >= 0;
      case PrimitiveSet::Triangles:
      case PrimitiveSet::Edges: return true;
      case PrimitiveSet::CodimPoints: return q.s->codim_vertices.contains(id);
      case PrimitiveSet::Segments: return q.s->is_segment(id);
      case PrimitiveSet::Particles: return q.s->points.contains(id);
    }
    return false;
  }
  // The grown box of primitive `id` of kind K at the query's positions.
  template <Kind K>
  Box box_of(int id, double inflation) const {
    const CollisionSurface& s = *q.s;
    if constexpr (K == kPoint) {
      Box b = vertex_box(q.x[id], q.swept ? &q.dx[id] : nullptr);
      grow(b, 0.5 * (inflation + s.point_offset(id)));
      return b;
    } else if constexpr (K == kEdge) {
      return primitive_box<2>(q.x, q.swept ? &q.dx : nullptr, s.edges[id], 0.5 * (inflation + s.edge_offset(id)));
    } else {
      return primitive_box<3>(q.x, q.swept ? &q.dx : nullptr, s.triangles[id], 0.5 * (inflation + s.triangle_offset(id)));
    }
  }

  // ---- one rule's grids. Asymmetric (A, B): every B primitive is stored; the A primitives
  // (owned) that some finer B primitive must find (or all of them in a swept build, for
  // update_swept). Symmetric: every primitive, with its own cell key.
  template <Kind KA, Kind KB>
  void build_grids(const PairRule& r, const Frame& f) {
    SetGrids& A = sets[set_index(r.a)];
    for (LooseGrid& g : A.grid) g.clear();
    const SlotRange ia = sel[set_index(r.a)];
    const KindList& la_list = list[KA];
    if (r.a == r.b) {
      if (ia.end > ia.begin) key[KA].resize(box[KA].size());
      for (int i = ia.begin; i < ia.end; ++i) {
        const int a = ia.at(i), id = la_list.id(a);
        if (level[KA][a] == kSkip) continue;
        key[KA][a] = A.grid[is_kin<KA>(a, id) ? 1 : 0].insert(a, id, box[KA][a], level[KA][a], f);
      }
      for (LooseGrid& g : A.grid) g.finish(f, box[KA]);
      return;
    }
    SetGrids& B = sets[set_index(r.b)];
    for (LooseGrid& g : B.grid) g.clear();
    const SlotRange ib = sel[set_index(r.b)];
    B.min_level = kMaxLevel + 1;
    for (int i = ib.begin; i < ib.end; ++i) {
      const int b = ib.at(i), id = list[KB].id(b);
      const int l = level[KB][b];
      if (l == kSkip) continue;
      B.min_level = std::min(B.min_level, l);
      B.grid[is_kin<KB>(b, id) ? 1 : 0].insert(b, id, box[KB][b], l, f);
    }
    for (LooseGrid& g : B.grid) g.finish(f, box[KB]);
    A.max_level = -1;
    for (int i = ia.begin; i < ia.end; ++i) {
      const int a = ia.at(i), id = la_list.id(a);
      const int l = level[KA][a];
      if (l == kSkip || !kept<KA>(id) || !(l > B.min_level || q.swept)) continue;
      A.grid[is_kin<KA>(a, id) ? 1 : 0].insert(a, id, box[KA][a], l, f);
      if (l > B.min_level) A.max_level = std::max(A.max_level, l);
    }
    for (LooseGrid& g : A.grid) g.finish(f, box[KA]);
  }

  // ---- one rule's pairs: THE candidate loop, for every kind of pair.
  // Asymmetric (A, B): a pair is met from its finer side: each (owned) A primitive queries
  // the B grids at its level and above, each B primitive the A grid at strictly coarser
  // levels; a kinematic primitive only the other side's dynamic grid. The owner is A's.
  // Symmetric: each dynamic primitive queries its own grid at its own level over the half of
  // its cell range at or after its own cell (same cell: only larger ids) and at coarser
  // levels in full, and the kinematic grid at its own level and coarser; a kinematic one
  // queries the dynamic grid at strictly coarser levels only. So every pair is met from its
  // finer primitive, a dynamic-kinematic pair of equal levels from the dynamic one. The
  // pair's owner is its smaller id.
  // Pairs are emitted as (slot of the first primitive, surface index of the second): the
  // sort below orders them by slot, which is the order by index (lists are ascending),
  // over a range of the list's length, and then turns the slot into the index.
  template <Kind KA, Kind KB, class Cand>
  void find_pairs(const PairRule& r, const Frame& f, std::vector<Cand>& out, size_t& cross) {
    const CollisionSurface& s = *q.s;
    const SetGrids& A = sets[set_index(r.a)];
    const SlotRange ia = sel[set_index(r.a)];
    if (r.a == r.b) {
      for (int i = ia.begin; i < ia.end; ++i) {
        const int as = ia.at(i), a = list[KA].id(as);
        const int la = level[KA][as];
        if (la == kSkip) continue;
        const Box& ab = box[KA][as];
        const int* va = verts<KA>(s, a);
        const uint64_t own_key = key[KA][as];
        auto visit = [&](const LooseGrid::Entry& en, int lev) {
          const int b = en.id;
          const int lo = std::min(a, b);
          if (!kept<KA>(lo)) return;
          if (!overlap(ab, en.box)) return;
          if (incident<KA, KA>(va, verts<KA>(s, en.id), s.twin_ptr())) return;
          if (q.keep.keep && !q.keep.keep(q.keep.ctx, r.kind, lo, a + b - lo)) return;
          out.push_back(Cand{a < b ? as : en.slot, a + b - lo});
          if (lev != la) ++cross;
        };
        if (is_kin<KA>(as, a)) {
          A.grid[0].query(ab, f, la + 1, kNoKey, visit);
          continue;
        }
        A.grid[0].query(ab, f, la, own_key, [&](const LooseGrid::Entry& en, int lev) {
          if (en.key == own_key && en.id <= a) return;
          visit(en, lev);
        });
        A.grid[1].query(ab, f, la, kNoKey, visit);
      }
      return;
    }
    const SetGrids& B = sets[set_index(r.b)];
    for (int i = ia.begin; i < ia.end; ++i) {
      const int as = ia.at(i), a = list[KA].id(as);
      if (!kept<KA>(a) || level[KA][as] == kSkip) continue;
      const Box& ab = box[KA][as];
      const int* va = verts<KA>(s, a);
      const int grids = is_kin<KA>(as, a) ? 1 : 2;
      for (int g = 0; g < grids; ++g)
        B.grid[g].query(ab, f, level[KA][as], kNoKey, [&](const LooseGrid::Entry& e, int) {
          if (!overlap(ab, e.box)) return;
          if (incident<KA, KB>(va, verts<KB>(s, e.id), s.twin_ptr())) return;
          if (q.keep.keep && !q.keep.keep(q.keep.ctx, r.kind, a, e.id)) return;
          out.push_back(Cand{as, e.id});
        });
    }
    if (A.max_level < 0) return;
    const SlotRange ib = sel[set_index(r.b)];
    for (int i = ib.begin; i < ib.end; ++i) {
      const int bs = ib.at(i), b = list[KB].id(bs);
      if (level[KB][bs] >= A.max_level) continue;
      const Box& bb = box[KB][bs];
      const int* vb = verts<KB>(s, b);
      const int grids = is_kin<KB>(bs, b) ? 1 : 2;
      for (int g = 0; g < grids; ++g)
        A.grid[g].query(bb, f, level[KB][bs] + 1, kNoKey, [&](const LooseGrid::Entry& e, int) {
          if (!overlap(bb, e.box)) return;
          if (incident<KA, KB>(verts<KA>(s, e.id), vb, s.twin_ptr())) return;
          if (q.keep.keep && !q.keep.keep(q.keep.ctx, r.kind, e.id, b)) return;
          out.push_back(Cand{e.slot, b});
          ++cross;
        });
    }
  }

  // ---- update_swept's pairs of one rule: each moving primitive (of the rule's sets)
  // against the up-to-date entries of the stored grids of the other side (their stale ones
  // skipped) and against that side's stale grid. Emits surface indices.
  template <Kind KA, Kind KB, class Cand>
  void update_pairs(const PairRule& r, const Frame& f, std::vector<Cand>& added) {
    const CollisionSurface& s = *q.s;
    auto all_kin = [&](int a, int b) {
      if (!q.kv) return false;
      const int* va = verts<KA>(s, a);
      const int* vb = verts<KB>(s, b);
      for (int i = 0; i <= KA; ++i)
        if (!q.kv[va[i]]) return false;
      for (int i = 0; i <= KB; ++i)
        if (!q.kv[vb[i]]) return false;
      return true;
    };
    // (a, b): surface indices; as, bs: their slots
    auto try_pair = [&](int as, int a, int bs, int b) {
      int lo = a, hi = b;
      if (r.a == r.b) {
        if (a == b) return;
        lo = std::min(a, b), hi = a + b - lo;
      }
      if (!kept<KA>(lo)) return;
      if (incident<KA, KB>(s, a, b)) return;
      const Box &ab = box[KA][as], &bb = box[KB][bs];
      if (!finite(ab) || !finite(bb) || !overlap(ab, bb)) return;
      if (all_kin(a, b)) return;
      added.push_back(Cand{lo, hi});
    };
    // moving primitives of kind K in `set`, against the grids of `other`
    auto pair_moving = [&](auto kind, PrimitiveSet set, PrimitiveSet other, auto&& try_ab) {
      constexpr Kind K = decltype(kind)::value;
      constexpr Kind KO = K == KA ? KB : KA;
      const SetGrids& o = sets[set_index(other)];
      const std::vector<char>& ostale = stale[KO];
      for (int as : fresh[K]) {
        const int a = id_of(K, as);
        if (!member(set, a) || !finite(box[K][as])) continue;
        // An entry's box is its primitive's current one (a stale entry is skipped, the stale
        // grids hold the current boxes): the overlap test on it first, as find_pairs does,
        // before the filter and incidence lookups (most entries a wide skin box's cell range
        // meets do not overlap it). try_pair repeats it: the pairs are the same.
        const Box& ab = box[K][as];
        auto visit = [&](const LooseGrid::Entry& e, int) {
          if (overlap(ab, e.box)) try_ab(as, a, e.slot, e.id);
        };
        for (const LooseGrid& g : o.grid)
          g.query(box[K][as], f, 0, kNoKey, [&](const LooseGrid::Entry& e, int lev) {
            if (!ostale[e.slot]) visit(e, lev);
          });
        o.stale.query(box[K][as], f, 0, kNoKey, visit);
      }
    };
    pair_moving(std::integral_constant<Kind, KA>{}, r.a, r.b, try_pair);
    if (r.a != r.b)
      pair_moving(std::integral_constant<Kind, KB>{}, r.b, r.a,
                  [&](int bs, int b, int as, int a) { try_pair(as, a, bs, b); });
  }
};

namespace {

template <class F>
void for_each_rule(F&& f) {
  for_each_pair_kind([&](auto k) {
    constexpr PairRule r = kPairRules[static_cast<int>(decltype(k)::value)];
    f(k, std::integral_constant<Kind, kind_of(r.a)>{}, std::integral_constant<Kind, kind_of(r.b)>{}, r);
  });
}

}  // namespace

BroadPhase::BroadPhase() : impl_(std::make_unique<Impl>()) {}
BroadPhase::~BroadPhase() = default;
BroadPhase::BroadPhase(const BroadPhase&) : impl_(std::make_unique<Impl>()) {}
BroadPhase& BroadPhase::operator=(const BroadPhase& o) {
  if (this != &o) stats_ = Stats{};
  return *this;
}
BroadPhase::BroadPhase(BroadPhase&&) noexcept = default;
BroadPhase& BroadPhase::operator=(BroadPhase&&) noexcept = default;

void BroadPhase::find_proximity(const CollisionSurface& surface, const VertexSpan<Vec3>& x, double inflation,
                                PrimitiveFilter point_filter, PrimitiveFilter edge_filter,
                                KinematicFlags kinematic, Candidates& out) {
  run(surface, x, nullptr, inflation, point_filter, edge_filter, kinematic, out);
}

void BroadPhase::find_swept(const CollisionSurface& surface, const VertexSpan<Vec3>& x,
                            const VertexSpan<Vec3>& dx, double inflation, PrimitiveFilter point_filter,
                            PrimitiveFilter edge_filter, KinematicFlags kinematic,
                            Candidates& out, PairPredicate keep) {
  require(dx.size() == x.size(), "dx has " + std::to_string(dx.size()) + " entries, x has " +
                                     std::to_string(x.size()));
  run(surface, x, &dx, inflation, point_filter, edge_filter, kinematic, out, keep);
}

void BroadPhase::run(const CollisionSurface& s, const VertexSpan<Vec3>& x, const VertexSpan<Vec3>* dx,
                     double inflation, PrimitiveFilter pf, PrimitiveFilter ef,
                     KinematicFlags kin, Candidates& out, PairPredicate keep) {
  if (!impl_) impl_ = std::make_unique<Impl>();  // a moved-from object stays usable
  Impl& m = *impl_;
  const size_t nv = x.size();
  const int nt = static_cast<int>(s.triangles.size());
  const int ne = static_cast<int>(s.edges.size());
  const ActivePrimitives* act = active_;
  require(s.vertex_object.size() == nv,
          "surface built for " + std::to_string(s.vertex_object.size()) + " vertices, x has " + std::to_string(nv));
  require(s.triangle_object.size() == size_t(nt) && (s.edge_object_table.empty() || s.edge_object_table.size() == size_t(ne)),
          "surface object arrays do not match its primitives");
  require(!pf.flags || pf.flags->size() == nv, "point_filter size != number of vertices");
  require(!ef.flags || ef.flags->size() == size_t(ne), "edge_filter size != number of edges");
  require(!kin || kin.size() == nv, "kinematic size != number of vertices");
  require(inflation >= 0.0 && std::isfinite(inflation), "inflation must be finite and >= 0");
  out.clear();
  stats_ = Stats{};
  m.updatable = false;
  m.adjacency_valid = false;  // (the lists may differ: rebuilt by the next update)
  for (auto& l : m.extra_adj) l.clear();
  for (int k = 0; k < kKinds; ++k) m.stale_list[k].clear();
  m.q = Impl::Query{&s, x, dx ? *dx : VertexSpan<Vec3>(), pf, ef, kin, dx != nullptr,
                    dx ? keep : PairPredicate{}};
  m.built_on = &s;
  m.built_nv = nv;
  // Per-vertex set membership depends on the surface only: built once per surface.

  // ---- this query's lists (a copy of the active lists, or the whole surface's) and sets
  for (int k = 0; k < kKinds; ++k) m.extra_ids[k].clear(), m.extra[k].clear();
  if (act) {
    m.snapshot[kPoint] = act->points;
    m.snapshot[kEdge] = act->edges;
    m.snapshot[kTri] = act->triangles;
    for (int k = 0; k < kKinds; ++k) m.list[k] = {m.snapshot[k].data(), static_cast<int>(m.snapshot[k].size())};
    m.listed_version = act->version;
  } else {
    for (std::vector<int>& l : m.snapshot) l.clear();
    m.snapshot[kPoint] = s.vertices.to_vector();  // (the whole surface: O(surface) anyway)
    m.list[kPoint] = {m.snapshot[kPoint].data(), static_cast<int>(m.snapshot[kPoint].size())};
    m.list[kEdge] = {nullptr, ne};
    m.list[kTri] = {nullptr, nt};
  }
  const KindList &pl = m.list[kPoint], &el = m.list[kEdge], &tl = m.list[kTri];
  m.codim_sel.clear();
  m.particle_sel.clear();
  if (!s.codim_vertices.empty())
    for (int i = 0; i < pl.n; ++i) {
      const int v = pl.id(i);
      if (!s.codim_vertices.contains(v)) continue;
      m.codim_sel.push_back(i);
      if (s.points.contains(v)) m.particle_sel.push_back(i);
    }
  // segments: a suffix of the (ascending) edge list
  const int first_seg = el.ids ? static_cast<int>(std::lower_bound(el.ids, el.ids + el.n, s.num_triangle_edges) - el.ids)
                               : std::min(s.num_triangle_edges, el.n);
  m.sel[set_index(PrimitiveSet::SurfacePoints)] = {nullptr, 0, pl.n};
  m.sel[set_index(PrimitiveSet::Triangles)] = {nullptr, 0, tl.n};
  m.sel[set_index(PrimitiveSet::Edges)] = {nullptr, 0, el.n};
  m.sel[set_index(PrimitiveSet::CodimPoints)] = {m.codim_sel.data(), 0, static_cast<int>(m.codim_sel.size())};
  m.sel[set_index(PrimitiveSet::Segments)] = {nullptr, first_seg, el.n};
  m.sel[set_index(PrimitiveSet::Particles)] = {m.particle_sel.data(), 0, static_cast<int>(m.particle_sel.size())};

  // ---- boxes, by slot
  const double inf = std::numeric_limits<double>::infinity();
  Box scene{{inf, inf, inf}, {-inf, -inf, -inf}};
  auto boxes = [&](auto kind) {
    constexpr Kind K = decltype(kind)::value;
    const KindList& l = m.list[K];
    std::vector<Box>& b = m.box[K];
    b.resize(l.n);
    for (int i = 0; i < l.n; ++i) {
      b[i] = m.template box_of<K>(l.id(i), inflation);
      if (finite(b[i])) unite(scene, b[i]);
    }
  };
  boxes(std::integral_constant<Kind, kPoint>{});
  boxes(std::integral_constant<Kind, kTri>{});
  boxes(std::integral_constant<Kind, kEdge>{});
  stats_.boxed = size_t(pl.n) + size_t(tl.n) + size_t(el.n);
  if (s.vertices.empty()) return;

  // ---- grid frame: base cell h from the typical (median) edge-box extent (triangle-box
  // without edges, point-box without either), estimated on an evenly spaced sample of the
  // listed primitives (robust to a few huge or stretched primitives, unlike the mean);
  // kept >= span / 2^18 so that base-level cell coordinates never clamp in a sane scene.
  double typical = 0.0;
  {
    m.sample.clear();
    auto sample_of = [&](const std::vector<Box>& b) {
      const size_t n = b.size();
      const size_t stride = std::max<size_t>(1, n / kSample);
      for (size_t i = 0; i < n; i += stride)
        if (finite(b[i])) m.sample.push_back(extent(b[i]));
    };
    if (ne > 0)
      sample_of(m.box[kEdge]);
    else if (nt > 0)
      sample_of(m.box[kTri]);
    else
      sample_of(m.box[kPoint]);
    if (!m.sample.empty()) {
      auto mid = m.sample.begin() + m.sample.size() / 2;
      std::nth_element(m.sample.begin(), mid, m.sample.end());
      typical = *mid;
    }
  }
  const double span = extent(scene);
  double h = kCellScale * kCapScale * typical;
  if (!(h > 0.0) || !std::isfinite(h))  // all boxes degenerate: a fraction of the scene
    h = span > 0.0 && std::isfinite(span) ? span / 64.0 : 1.0;
  if (span > 0.0 && std::isfinite(span)) h = std::max(h, span / double(kMaxCoord / 2));
  const double cap = h / kCellScale;
  Frame f;
  for (int k = 0; k < 3; ++k) f.o[k] = span >= 0.0 ? scene.lo[k] : 0.0;
  f.inv_h = double(1 << kBaseLevel) / h;
  double abs_max = 0.0;
  for (int k = 0; k < 3; ++k)
    for (double c : {scene.lo[k], scene.hi[k]})
      if (span >= 0.0) abs_max = std::max(abs_max, std::abs(c));
  f.pad = 8.0 * std::numeric_limits<double>::epsilon() * abs_max;
  stats_.cell_size = h;

  // ---- levels and kinematic flags. Primitives whose vertices are all kinematic go to
  // grids of their own ([1]; the rest in [0]): an obstacle never looks for pairs among
  // obstacles, which are never reported, so a scene with a large obstacle pays for its
  // contacts with the cloth only.
  m.kin[kTri].resize(tl.n);
  m.kin[kEdge].resize(el.n);
  for (int i = 0; i < tl.n; ++i) {
    const Tri& tri = s.triangles[tl.id(i)];
    m.kin[kTri][i] = kin && kin[tri[0]] && kin[tri[1]] && kin[tri[2]];
  }
  for (int i = 0; i < el.n; ++i) {
    const Edge& e = s.edges[el.id(i)];
    m.kin[kEdge][i] = kin && kin[e[0]] && kin[e[1]];
  }
  for (int k = 0; k < kKinds; ++k) {
    m.level[k].resize(m.box[k].size());
    for (size_t i = 0; i < m.box[k].size(); ++i)
      m.level[k][i] = finite(m.box[k][i]) ? static_cast<uint8_t>(level_of(extent(m.box[k][i]), cap)) : kSkip;
  }

  // ---- grids and pairs, rule by rule (candidates.hpp, kPairRules)
  for_each_rule([&](auto, auto ka, auto kb, const PairRule& r) {
    m.template build_grids<decltype(ka)::value, decltype(kb)::value>(r, f);
  });
  for (const Impl::SetGrids& g : m.sets)
    for (const LooseGrid& l : g.grid) stats_.grid_entries += l.size();
  const Impl::SetGrids &tris = m.sets[set_index(PrimitiveSet::Triangles)],
                       &edges = m.sets[set_index(PrimitiveSet::Edges)];
  stats_.levels_used = __builtin_popcount(tris.grid[0].level_mask() | tris.grid[1].level_mask() |
                                          edges.grid[0].level_mask() | edges.grid[1].level_mask());
  for_each_rule([&](auto kind, auto ka, auto kb, const PairRule& r) {
    m.template find_pairs<decltype(ka)::value, decltype(kb)::value>(r, f, out.get<decltype(kind)::value>(),
                                                                     stats_.cross_level_pairs);
  });

  // ---- deterministic order: by the first id, then the second. The first entries are
  // slots until here: a counting sort over the list's length, O(pairs + active), then
  // slot -> index (the same order, lists being ascending).
  for_each_rule([&](auto kind, auto ka, auto, const PairRule&) {
    constexpr PairKind K = decltype(kind)::value;
    auto& v = out.get<K>();
    using C = typename std::decay_t<decltype(v)>::value_type;
    constexpr Kind KF = decltype(ka)::value == kPoint ? kPoint : kEdge;
    const KindList& l = m.list[KF];
    sort_pairs(v, m.tmp.get<K>(), m.count, size_t(l.n), [](const C& c) { return first_of(c); },
               [](const C& c) { return second_of(c); });
    if (l.ids)
      for (C& c : v) {
        auto& [a, b] = c;
        (void)b;
        a = l.ids[a];
      }
  });
  if (dx && !keep.keep) {  // (a predicate's set is not the whole set an update extends)
    m.frame = f;
    m.level_cap = cap;
    m.inflation = inflation;
    m.updatable = true;
    for (int k = 0; k < kKinds; ++k) m.stale[k].assign(m.box[k].size(), 0);
  }
}

size_t BroadPhase::memory_bytes() const {
  if (!impl_) return 0;
  const Impl& m = *impl_;
  auto b = [](const auto& v) { return v.capacity() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
  size_t n = sizeof(Impl) + b(m.sample) + b(m.count) + b(m.codim_sel) + b(m.particle_sel) + b(m.vt_start) +
             b(m.vt) + b(m.ve_start) + b(m.ve) + b(m.point_slot_set) + m.point_slot.memory_bytes();
  for (int k = 0; k < kKinds; ++k)
    n += b(m.extra_adj[k]) + b(m.snapshot[k]) + b(m.extra_ids[k]) + b(m.extra[k]) + b(m.box[k]) + b(m.level[k]) + b(m.key[k]) + b(m.kin[k]) + b(m.stale[k]) +
         b(m.stale_list[k]) + b(m.fresh[k]);
  for (const Impl::SetGrids& g : m.sets) n += g.grid[0].bytes() + g.grid[1].bytes() + g.stale.bytes();
  for_each_pair_kind([&](auto kind) { n += b(m.tmp.get<decltype(kind)::value>()); });
  return n;
}

bool BroadPhase::update_swept(const CollisionSurface& s, const VertexSpan<Vec3>& x, const VertexSpan<Vec3>& dx,
                              double inflation, PrimitiveFilter pf, PrimitiveFilter ef,
                              KinematicFlags kin, const std::vector<int>& moved, Candidates& added) {
  added.clear();
  if (!impl_) return false;
  Impl& m = *impl_;
  const size_t nv = x.size();
  const int nt = static_cast<int>(s.triangles.size());
  const int ne = static_cast<int>(s.edges.size());
  if (!m.updatable || m.built_on != &s || m.built_nv != nv || dx.size() != nv || inflation != m.inflation)
    return false;
  require(!pf.flags || pf.flags->size() == nv, "point_filter size != number of vertices");
  require(!ef.flags || ef.flags->size() == size_t(ne), "edge_filter size != number of edges");
  require(!kin || kin.size() == nv, "kinematic size != number of vertices");
  m.q = Impl::Query{&s, x, dx, pf, ef, kin, true,
                    PairPredicate{}};

  // ---- adjacency of the build's lists, by point slot (every vertex of a listed primitive
  // is a listed point): O(listed), once per build
  const KindList& pl = m.list[kPoint];
  if (!m.adjacency_valid) {
    const int np = pl.n;
    if (m.point_slot.size() != nv) m.point_slot.assign(nv, -1, !active_);  // (whole surface: dense)
    for (int v : m.point_slot_set) m.point_slot.ref(v) = -1;
    m.point_slot_set.clear();
    for (int p = 0; p < np; ++p) m.point_slot.ref(pl.id(p)) = p, m.point_slot_set.push_back(pl.id(p));
    auto csr = [&](int k, int per, auto vertex_of, std::vector<int>& start, std::vector<int>& adj) {
      const int n = m.list[k].n;
      start.assign(static_cast<size_t>(np) + 1, 0);
      for (int p = 0; p < n; ++p)
        for (int i = 0; i < per; ++i) ++start[m.point_slot[vertex_of(m.list[k].id(p), i)] + 1];
      for (int q = 0; q < np; ++q) start[q + 1] += start[q];
      adj.resize(start[np]);
      std::vector<int> fill(start.begin(), start.end() - 1);
      for (int p = 0; p < n; ++p)
        for (int i = 0; i < per; ++i) adj[fill[m.point_slot[vertex_of(m.list[k].id(p), i)]]++] = p;
    };
    csr(kTri, 3, [&](int t, int i) { return s.triangles[t][i]; }, m.vt_start, m.vt);
    csr(kEdge, 2, [&](int e, int i) { return s.edges[e][i]; }, m.ve_start, m.ve);
    m.adjacency_valid = true;
  }
  // (A primitive appended since the build: its slot under each of its vertices.)
  auto note_appended = [&](int k, int slot) {
    const int id = m.id_of(k, slot);
    const int* vs = k == kTri ? s.triangles[id].data() : s.edges[id].data();
    for (int i = 0; i < (k == kTri ? 3 : 2); ++i) {
      auto& l = m.extra_adj[k];
      const std::pair<int, int> e{vs[i], slot};
      l.insert(std::lower_bound(l.begin(), l.end(), e), e);
    }
  };
  // The slot of primitive id of kind k, appending it (and noting its vertices) when new;
  // *appended says which.
  auto take = [&](int k, int id, bool* appended = nullptr) {
    const size_t before = m.box[k].size();
    const int sl = m.slot_or_append(k, id);
    const bool added = m.box[k].size() != before;
    if (k != kPoint && added) note_appended(k, sl);
    if (appended) *appended = added;
    return sl;
  };

  // ---- the primitives that move now (fresh[kind], slots), with their new boxes: a moved
  // vertex's listed triangles and edges (those its build listed, and those appended since).
  // A primitive the build's lists do not hold (the caller's lists grew since) is appended
  // after them (slot_or_append); it is not in the stored grids, only in the stale ones.
  for (std::vector<int>& l : m.fresh) l.clear();
  for (int v : moved) {
    require(v >= 0 && size_t(v) < nv, "moved vertex id out of range");
    if (s.vertex_object[v] >= 0) m.fresh[kPoint].push_back(take(kPoint, v));  // (a surface point)
    if (const int ps = m.point_slot[v]; ps >= 0) {
      for (int j = m.vt_start[ps]; j < m.vt_start[ps + 1]; ++j) m.fresh[kTri].push_back(m.vt[j]);
      for (int j = m.ve_start[ps]; j < m.ve_start[ps + 1]; ++j) m.fresh[kEdge].push_back(m.ve[j]);
    }
    for (int k : {int(kTri), int(kEdge)})
      for (auto it = std::lower_bound(m.extra_adj[k].begin(), m.extra_adj[k].end(), std::make_pair(v, -1));
           it != m.extra_adj[k].end() && it->first == v; ++it)
        m.fresh[k].push_back(it->second);
  }
  // Primitives the active lists took up since the build (or the last update) with no vertex
  // among `moved`: a rank's halo lists the partners other ranks sent, and one can arrive
  // whose vertices were already known. Each is taken as moved. A walk over the sorted lists
  // against the build's (O(listed), only after the lists changed: never at one rank).
  if (active_ && active_->version != m.listed_version) {
    const std::vector<int>* now[kKinds];
    now[kPoint] = &active_->points, now[kEdge] = &active_->edges, now[kTri] = &active_->triangles;
    for (int k = 0; k < kKinds; ++k) {
      const KindList& built = m.list[k];
      int j = 0;
      for (int id : *now[k]) {
        while (j < built.n && built.id(j) < id) ++j;
        if (j < built.n && built.id(j) == id) continue;
        bool appended = false;
        const int sl = take(k, id, &appended);
        if (appended) m.fresh[k].push_back(sl);  // (not listed before: not an update's earlier append)
      }
    }
    m.listed_version = active_->version;
  }
  for (std::vector<int>& l : m.fresh) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
  }
  size_t fresh = 0, stale = 0;
  for (int k = 0; k < kKinds; ++k) {
    for (int p : m.fresh[k]) fresh += !m.stale[k][p];
    stale += m.stale_list[k].size();
  }
  const size_t max_stale = std::max<size_t>(256, (s.vertices.size() + size_t(nt) + size_t(ne)) / 8);
  if (stale + fresh > max_stale) return false;

  // the boxes exactly as run() forms them
  for (int p : m.fresh[kPoint]) m.box[kPoint][p] = m.box_of<kPoint>(m.id_of(kPoint, p), inflation);
  for (int p : m.fresh[kTri]) m.box[kTri][p] = m.box_of<kTri>(m.id_of(kTri, p), inflation);
  for (int p : m.fresh[kEdge]) m.box[kEdge][p] = m.box_of<kEdge>(m.id_of(kEdge, p), inflation);
  for (int k = 0; k < kKinds; ++k)
    for (int p : m.fresh[k])
      if (!m.stale[k][p]) m.stale[k][p] = 1, m.stale_list[k].push_back(p);

  // ---- pairs of a moving primitive: against the stored grids' up-to-date entries (the
  // stale ones skipped) and against every primitive moved since the build, in small grids
  // of their own with their current boxes (rebuilt per update, linear in their number).
  const Frame& f = m.frame;
  for (int si = 0; si < kSets; ++si) {
    const PrimitiveSet set = static_cast<PrimitiveSet>(si);
    const Kind k = kind_of(set);
    LooseGrid& g = m.sets[si].stale;
    g.clear();
    for (int p : m.stale_list[k]) {
      const int id = m.id_of(k, p);
      if (m.member(set, id) && finite(m.box[k][p]))
        g.insert(p, id, m.box[k][p], level_of(extent(m.box[k][p]), m.level_cap), f);
    }
    g.finish(f, m.box[k]);
  }
  for_each_rule([&](auto kind, auto ka, auto kb, const PairRule& r) {
    m.template update_pairs<decltype(ka)::value, decltype(kb)::value>(r, f, added.get<decltype(kind)::value>());
  });
  for_each_pair_kind([&](auto kind) {
    auto& v = added.get<decltype(kind)::value>();
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  });
  return true;
}

}  // namespace weft
