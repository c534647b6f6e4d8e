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

// A primitive's box: the union of its N vertices' boxes grown by r; lo[0] = inf if any
// vertex box is not finite.
template <int N>
Box primitive_box(const std::vector<Box>& vbox, const std::array<int, N>& v, double r) {
  Box b = vbox[v[0]];
  for (int i = 1; i < N; ++i) unite(b, vbox[v[i]]);
  grow(b, r);
  for (int i = 0; i < N; ++i)
    if (!finite(vbox[v[i]])) b.lo[0] = std::numeric_limits<double>::infinity();
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
    int id;
    Box box;
  };

  void clear() {
    staged_.clear();
    level_mask_ = 0;
    for (Level& l : levels_) l = Level{};
  }

  // Stages primitive `id` with box b at `level`; returns its cell key.
  uint64_t insert(int id, const Box& b, int level, const Frame& f) {
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
    staged_.push_back({key, id});
    return key;
  }

  // Builds the tables; boxes[id] = the box each staged id was inserted with. Each level has
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
      entries_[start_[bucket_[i]]++] = {staged_[i].key, staged_[i].id, boxes[staged_[i].id]};
    for (size_t b = nb; b > 0; --b) start_[b] = start_[b - 1];
    start_[0] = 0;
  }

  uint32_t level_mask() const { return level_mask_; }
  size_t size() const { return entries_.size(); }

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
    int id;
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

}  // namespace

struct BroadPhase::Impl {
  std::vector<Box> vbox, pbox, tbox, ebox;  // vbox / pbox by vertex id (raw / inflated)
  std::vector<uint8_t> plevel, tlevel, elevel;
  std::vector<uint64_t> ekey;  // each edge's own cell key
  std::vector<char> tkin, ekin;
  LooseGrid tri_grid[2], edge_grid[2], point_grid[2];  // [1]: all vertices kinematic
  std::vector<PointTriangleCandidate> tmp_pt;
  std::vector<EdgeEdgeCandidate> tmp_ee;
  std::vector<uint32_t> count;
  std::vector<double> sample;
  // Incremental updates (update_swept): the frame of the last swept build, whether its
  // grids are current (point_grid then holds every owned point), the primitives whose box
  // changed since (their grid entries are stale: paired through grids of their own) and
  // the vertex -> triangle / edge adjacency of that build's surface (CSR, built by the
  // first update after the build).
  Frame frame;
  double level_cap = 0.0;  // level_of's cap of that build
  LooseGrid stale_tri_grid, stale_edge_grid, stale_point_grid;  // the stale primitives, current boxes
  bool updatable = false;
  double inflation = 0.0;
  std::vector<char> stale_p, stale_t, stale_e, moved_v;
  std::vector<int> stale_points, stale_tris, stale_edges;
  std::vector<int> new_points, new_tris, new_edges;
  std::vector<int> vt_start, vt, ve_start, ve;
  bool adjacency_valid = false;
};

BroadPhase::BroadPhase() : impl_(std::make_unique<Impl>()) {}
BroadPhase::~BroadPhase() = default;
BroadPhase::BroadPhase(const BroadPhase&) : impl_(std::make_unique<Impl>()) {}
BroadPhase& BroadPhase::operator=(const BroadPhase& o) {
  if (this != &o) stats_ = Stats{};
  return *this;
}
BroadPhase::BroadPhase(BroadPhase&&) noexcept = default;
BroadPhase& BroadPhase::operator=(BroadPhase&&) noexcept = default;

void BroadPhase::find_proximity(const CollisionSurface& surface, const std::vector<Vec3>& x, double inflation,
                                const std::vector<char>* point_filter, const std::vector<char>* edge_filter,
                                const std::vector<char>* kinematic, Candidates& out) {
  run(surface, x, nullptr, inflation, point_filter, edge_filter, kinematic, out);
}

void BroadPhase::find_swept(const CollisionSurface& surface, const std::vector<Vec3>& x,
                            const std::vector<Vec3>& dx, double inflation, const std::vector<char>* point_filter,
                            const std::vector<char>* edge_filter, const std::vector<char>* kinematic,
                            Candidates& out) {
  require(dx.size() == x.size(), "dx has " + std::to_string(dx.size()) + " entries, x has " +
                                     std::to_string(x.size()));
  run(surface, x, &dx, inflation, point_filter, edge_filter, kinematic, out);
}

void BroadPhase::run(const CollisionSurface& s, const std::vector<Vec3>& x, const std::vector<Vec3>* dx,
                     double inflation, const std::vector<char>* pf, const std::vector<char>* ef,
                     const std::vector<char>* kin, Candidates& out) {
  if (!impl_) impl_ = std::make_unique<Impl>();  // a moved-from object stays usable
  Impl& m = *impl_;
  const size_t nv = x.size();
  const int nt = static_cast<int>(s.triangles.size());
  const int ne = static_cast<int>(s.edges.size());
  require(s.vertex_offset.size() == nv && s.vertex_object.size() == nv,
          "surface built for " + std::to_string(s.vertex_offset.size()) + " vertices, x has " + std::to_string(nv));
  require(s.triangle_offset.size() == size_t(nt) && s.edge_offset.size() == size_t(ne),
          "surface offset arrays do not match its primitives");
  require(!pf || pf->size() == nv, "point_filter size != number of vertices");
  require(!ef || ef->size() == size_t(ne), "edge_filter size != number of edges");
  require(!kin || kin->size() == nv, "kinematic size != number of vertices");
  require(inflation >= 0.0 && std::isfinite(inflation), "inflation must be finite and >= 0");
  out.clear();
  stats_ = Stats{};
  m.updatable = false;
  m.adjacency_valid = false;
  for (int p : m.stale_points) m.stale_p[p] = 0;
  for (int t : m.stale_tris) m.stale_t[t] = 0;
  for (int e : m.stale_edges) m.stale_e[e] = 0;
  m.stale_points.clear();
  m.stale_tris.clear();
  m.stale_edges.clear();

  // ---- boxes
  m.vbox.resize(nv);
  m.pbox.resize(nv);
  m.tbox.resize(nt);
  m.ebox.resize(ne);
  const double inf = std::numeric_limits<double>::infinity();
  Box scene{{inf, inf, inf}, {-inf, -inf, -inf}};
  for (int v : s.vertices) {
    m.vbox[v] = vertex_box(x[v], dx ? &(*dx)[v] : nullptr);
    Box& p = m.pbox[v];
    p = m.vbox[v];
    grow(p, 0.5 * (inflation + s.vertex_offset[v]));
    if (finite(p)) unite(scene, p);
  }
  for (int t = 0; t < nt; ++t) {
    m.tbox[t] = primitive_box<3>(m.vbox, s.triangles[t], 0.5 * (inflation + s.triangle_offset[t]));
    if (finite(m.tbox[t])) unite(scene, m.tbox[t]);
  }
  for (int e = 0; e < ne; ++e) {
    m.ebox[e] = primitive_box<2>(m.vbox, s.edges[e], 0.5 * (inflation + s.edge_offset[e]));
    if (finite(m.ebox[e])) unite(scene, m.ebox[e]);
  }
  if (s.vertices.empty()) return;

  // ---- grid frame: base cell h from the typical (median) edge-box extent, estimated on an
  // evenly spaced sample (robust to a few huge or stretched primitives, unlike the mean);
  // kept >= span / 2^18 so that base-level cell coordinates never clamp in a sane scene.
  double typical = 0.0;
  {
    const std::vector<Box>& boxes = ne > 0 ? m.ebox : m.tbox;
    const size_t n = boxes.size(), stride = std::max<size_t>(1, n / kSample);
    m.sample.clear();
    for (size_t i = 0; i < n; i += stride) {
      if (finite(boxes[i])) m.sample.push_back(extent(boxes[i]));
    }
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

  // ---- levels, kinematic flags, grids. Primitives whose vertices are all kinematic go to
  // grids of their own ([1]; the rest in [0]): an obstacle never looks for pairs among
  // obstacles, which are never reported, so a scene with a large obstacle pays for its
  // contacts with the cloth only.
  m.plevel.resize(nv);
  m.tlevel.resize(nt);
  m.elevel.resize(ne);
  m.ekey.resize(ne);
  m.tkin.assign(nt, 0);
  m.ekin.assign(ne, 0);
  if (kin) {
    const std::vector<char>& k = *kin;
    for (int t = 0; t < nt; ++t) {
      const Tri& tri = s.triangles[t];
      m.tkin[t] = k[tri[0]] && k[tri[1]] && k[tri[2]];
    }
    for (int e = 0; e < ne; ++e) m.ekin[e] = k[s.edges[e][0]] && k[s.edges[e][1]];
  }
  for (int v : s.vertices)
    m.plevel[v] = finite(m.pbox[v]) ? static_cast<uint8_t>(level_of(extent(m.pbox[v]), cap)) : kSkip;
  int min_tlevel = kMaxLevel + 1;
  for (LooseGrid& g : m.tri_grid) g.clear();
  for (int t = 0; t < nt; ++t) {
    if (!finite(m.tbox[t])) {
      m.tlevel[t] = kSkip;
      continue;
    }
    const int level = level_of(extent(m.tbox[t]), cap);
    m.tlevel[t] = static_cast<uint8_t>(level);
    min_tlevel = std::min(min_tlevel, level);
    m.tri_grid[m.tkin[t] ? 1 : 0].insert(t, m.tbox[t], level, f);
  }
  for (LooseGrid& g : m.tri_grid) g.finish(f, m.tbox);
  for (LooseGrid& g : m.edge_grid) g.clear();
  for (int e = 0; e < ne; ++e) {
    if (!finite(m.ebox[e])) {
      m.elevel[e] = kSkip;
      continue;
    }
    const int level = level_of(extent(m.ebox[e]), cap);
    m.elevel[e] = static_cast<uint8_t>(level);
    m.ekey[e] = m.edge_grid[m.ekin[e] ? 1 : 0].insert(e, m.ebox[e], level, f);
  }
  for (LooseGrid& g : m.edge_grid) g.finish(f, m.ebox);
  // Points coarser than some triangle: stored so that those (finer) triangles find them.
  const char* kv = kin ? kin->data() : nullptr;
  // A swept build stores every (owned) point, so that update_swept can pair a moved
  // triangle with the points around it; the points at or below min_tlevel are never met by
  // the queries below (they look at levels above their triangle's).
  for (LooseGrid& g : m.point_grid) g.clear();
  int max_plevel = -1;
  for (int v : s.vertices)
    if (m.plevel[v] != kSkip && (!pf || (*pf)[v]) && (m.plevel[v] > min_tlevel || dx)) {
      m.point_grid[kv && kv[v] ? 1 : 0].insert(v, m.pbox[v], m.plevel[v], f);
      if (m.plevel[v] > min_tlevel) max_plevel = std::max<int>(max_plevel, m.plevel[v]);
    }
  for (LooseGrid& g : m.point_grid) g.finish(f, m.pbox);
  for (int g = 0; g < 2; ++g) {
    stats_.grid_entries += m.tri_grid[g].size() + m.edge_grid[g].size() + m.point_grid[g].size();
    stats_.boxed += m.tri_grid[g].size() + m.edge_grid[g].size();
  }
  for (int v : s.vertices) stats_.boxed += m.plevel[v] != kSkip;
  stats_.levels_used = __builtin_popcount(m.tri_grid[0].level_mask() | m.tri_grid[1].level_mask() |
                                          m.edge_grid[0].level_mask() | m.edge_grid[1].level_mask());

  // ---- point-triangle: a pair is met from its finer side: each (owned) point queries the
  // triangles at its level and above, each triangle the points at strictly coarser levels;
  // a kinematic point only the triangles with a dynamic vertex, and a kinematic triangle only
  // the dynamic points.
  std::vector<PointTriangleCandidate>& pt = out.pt;
  for (int v : s.vertices) {
    if ((pf && !(*pf)[v]) || m.plevel[v] == kSkip) continue;
    const Box& pb = m.pbox[v];
    const int grids = kv && kv[v] ? 1 : 2;
    for (int g = 0; g < grids; ++g)
      m.tri_grid[g].query(pb, f, m.plevel[v], kNoKey, [&](const LooseGrid::Entry& e, int) {
        if (!overlap(pb, e.box)) return;
        const Tri& tri = s.triangles[e.id];
        if (tri[0] == v || tri[1] == v || tri[2] == v) return;
        pt.push_back({v, e.id});
      });
  }
  if (max_plevel >= 0) {
    for (int t = 0; t < nt; ++t) {
      if (m.tlevel[t] >= max_plevel) continue;
      const Box& tb = m.tbox[t];
      const Tri& tri = s.triangles[t];
      const int grids = m.tkin[t] ? 1 : 2;
      for (int g = 0; g < grids; ++g)
        m.point_grid[g].query(tb, f, m.tlevel[t] + 1, kNoKey, [&](const LooseGrid::Entry& e, int) {
          if (!overlap(tb, e.box)) return;
          const int v = e.id;
          if (tri[0] == v || tri[1] == v || tri[2] == v) return;
          pt.push_back({v, t});
          ++stats_.cross_level_pairs;
        });
    }
  }

  // ---- edge-edge: each dynamic edge queries its own grid at its own level over the half of
  // its cell range at or after its own cell (same cell: only larger ids) and at coarser
  // levels in full, and the kinematic grid at its own level and coarser; a kinematic edge
  // queries the dynamic grid at strictly coarser levels only. So every pair is met from its
  // finer edge, a dynamic-kinematic pair of equal levels from the dynamic one. The pair's
  // owner is its smaller edge.
  std::vector<EdgeEdgeCandidate>& ee = out.ee;
  const char* efd = ef ? ef->data() : nullptr;
  for (int a = 0; a < ne; ++a) {
    if (m.elevel[a] == kSkip) continue;
    const Box& ab = m.ebox[a];
    const Edge& ea = s.edges[a];
    const uint64_t own_key = m.ekey[a];
    const int la = m.elevel[a];
    auto visit = [&](const LooseGrid::Entry& en, int level) {
      const int b = en.id;
      const int lo = std::min(a, b);
      if (efd && !efd[lo]) return;
      if (!overlap(ab, en.box)) return;
      const Edge& eb = s.edges[b];
      if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1]) return;
      ee.push_back({lo, a + b - lo});
      if (level != la) ++stats_.cross_level_pairs;
    };
    if (m.ekin[a]) {
      m.edge_grid[0].query(ab, f, la + 1, kNoKey, visit);
      continue;
    }
    m.edge_grid[0].query(ab, f, la, own_key, [&](const LooseGrid::Entry& en, int level) {
      if (en.key == own_key && en.id <= a) return;
      visit(en, level);
    });
    m.edge_grid[1].query(ab, f, la, kNoKey, visit);
  }

  // ---- deterministic order
  sort_pairs(pt, m.tmp_pt, m.count, nv, [](const PointTriangleCandidate& c) { return c.v; },
             [](const PointTriangleCandidate& c) { return c.t; });
  sort_pairs(ee, m.tmp_ee, m.count, ne, [](const EdgeEdgeCandidate& c) { return c.ea; },
             [](const EdgeEdgeCandidate& c) { return c.eb; });
  if (dx) {
    m.frame = f;
    m.level_cap = cap;
    m.inflation = inflation;
    m.updatable = true;
    m.stale_p.resize(nv, 0);
    m.stale_t.resize(nt, 0);
    m.stale_e.resize(ne, 0);
  }
}

bool BroadPhase::update_swept(const CollisionSurface& s, const std::vector<Vec3>& x, const std::vector<Vec3>& dx,
                              double inflation, const std::vector<char>* pf, const std::vector<char>* ef,
                              const std::vector<char>* kin, const std::vector<int>& moved, Candidates& added) {
  added.clear();
  if (!impl_) return false;
  Impl& m = *impl_;
  const size_t nv = x.size();
  const int nt = static_cast<int>(s.triangles.size());
  const int ne = static_cast<int>(s.edges.size());
  if (!m.updatable || dx.size() != nv || m.vbox.size() != nv || m.tbox.size() != size_t(nt) ||
      m.ebox.size() != size_t(ne) || inflation != m.inflation)
    return false;
  require(!pf || pf->size() == nv, "point_filter size != number of vertices");
  require(!ef || ef->size() == size_t(ne), "edge_filter size != number of edges");
  require(!kin || kin->size() == nv, "kinematic size != number of vertices");

  // ---- adjacency of the build's surface (the caller passes that same surface)
  if (!m.adjacency_valid) {
    auto csr = [&](int n_prim, int per, auto vertex_of, std::vector<int>& start, std::vector<int>& list) {
      start.assign(nv + 1, 0);
      for (int p = 0; p < n_prim; ++p)
        for (int i = 0; i < per; ++i) ++start[vertex_of(p, i) + 1];
      for (size_t v = 0; v < nv; ++v) start[v + 1] += start[v];
      list.resize(start[nv]);
      std::vector<int> fill(start.begin(), start.end() - 1);
      for (int p = 0; p < n_prim; ++p)
        for (int i = 0; i < per; ++i) list[fill[vertex_of(p, i)]++] = p;
    };
    csr(nt, 3, [&](int t, int i) { return s.triangles[t][i]; }, m.vt_start, m.vt);
    csr(ne, 2, [&](int e, int i) { return s.edges[e][i]; }, m.ve_start, m.ve);
    m.adjacency_valid = true;
  }

  // ---- the primitives that move now (new_*), with their new boxes
  m.moved_v.resize(nv, 0);
  m.new_points.clear();
  m.new_tris.clear();
  m.new_edges.clear();
  for (int v : moved) {
    require(v >= 0 && size_t(v) < nv, "moved vertex id out of range");
    if (m.moved_v[v]) continue;
    m.moved_v[v] = 1;
    if (s.vertex_object[v] >= 0) m.new_points.push_back(v);  // (a surface point)
    for (int j = m.vt_start[v]; j < m.vt_start[v + 1]; ++j) m.new_tris.push_back(m.vt[j]);
    for (int j = m.ve_start[v]; j < m.ve_start[v + 1]; ++j) m.new_edges.push_back(m.ve[j]);
  }
  for (int v : moved) m.moved_v[v] = 0;
  for (std::vector<int>* l : {&m.new_tris, &m.new_edges}) {
    std::sort(l->begin(), l->end());
    l->erase(std::unique(l->begin(), l->end()), l->end());
  }
  size_t fresh = 0;
  for (int v : m.new_points) fresh += !m.stale_p[v];
  for (int t : m.new_tris) fresh += !m.stale_t[t];
  for (int e : m.new_edges) fresh += !m.stale_e[e];
  const size_t stale = m.stale_points.size() + m.stale_tris.size() + m.stale_edges.size();
  const size_t max_stale = std::max<size_t>(256, (s.vertices.size() + size_t(nt) + size_t(ne)) / 8);
  if (stale + fresh > max_stale) return false;

  for (int v : m.new_points) {  // the boxes exactly as run() forms them
    m.vbox[v] = vertex_box(x[v], &dx[v]);
    m.pbox[v] = m.vbox[v];
    grow(m.pbox[v], 0.5 * (inflation + s.vertex_offset[v]));
    if (!m.stale_p[v]) m.stale_p[v] = 1, m.stale_points.push_back(v);
  }
  for (int t : m.new_tris) {
    m.tbox[t] = primitive_box<3>(m.vbox, s.triangles[t], 0.5 * (inflation + s.triangle_offset[t]));
    if (!m.stale_t[t]) m.stale_t[t] = 1, m.stale_tris.push_back(t);
  }
  for (int e : m.new_edges) {
    m.ebox[e] = primitive_box<2>(m.vbox, s.edges[e], 0.5 * (inflation + s.edge_offset[e]));
    if (!m.stale_e[e]) m.stale_e[e] = 1, m.stale_edges.push_back(e);
  }

  // ---- pairs of a moving primitive: against the stored grids' up-to-date entries (the
  // stale ones skipped) and against every primitive moved since the build, in small grids
  // of their own with their current boxes.
  const Frame& f = m.frame;
  const char* kv = kin ? kin->data() : nullptr;
  auto all_kin = [&](const int* a, int na, const int* b, int nb) {
    if (!kv) return false;
    for (int i = 0; i < na; ++i)
      if (!kv[a[i]]) return false;
    for (int i = 0; i < nb; ++i)
      if (!kv[b[i]]) return false;
    return true;
  };
  auto try_pt = [&](int v, int t) {
    if (pf && !(*pf)[v]) return;
    const Tri& tri = s.triangles[t];
    if (tri[0] == v || tri[1] == v || tri[2] == v) return;
    if (!finite(m.pbox[v]) || !finite(m.tbox[t]) || !overlap(m.pbox[v], m.tbox[t])) return;
    if (all_kin(&v, 1, tri.data(), 3)) return;
    added.pt.push_back({v, t});
  };
  auto try_ee = [&](int a, int b) {
    if (a == b) return;
    const int lo = std::min(a, b), hi = a + b - lo;
    if (ef && !(*ef)[lo]) return;
    const Edge &ea = s.edges[a], &eb = s.edges[b];
    if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1]) return;
    if (!finite(m.ebox[a]) || !finite(m.ebox[b]) || !overlap(m.ebox[a], m.ebox[b])) return;
    if (all_kin(ea.data(), 2, eb.data(), 2)) return;
    added.ee.push_back({lo, hi});
  };
  // The stale primitives (the moving ones included) in small grids of their own, with
  // their current boxes: rebuilt per update, linear in their number.
  auto build_stale_grid = [&](LooseGrid& g, const std::vector<int>& ids, const std::vector<Box>& boxes) {
    g.clear();
    for (int id : ids)
      if (finite(boxes[id])) g.insert(id, boxes[id], level_of(extent(boxes[id]), m.level_cap), f);
    g.finish(f, boxes);
  };
  build_stale_grid(m.stale_tri_grid, m.stale_tris, m.tbox);
  build_stale_grid(m.stale_point_grid, m.stale_points, m.pbox);
  build_stale_grid(m.stale_edge_grid, m.stale_edges, m.ebox);
  // Each moving primitive against the up-to-date entries of the stored grids of the other
  // kind (their stale ones skipped) and against that kind's stale grid.
  auto pair_moving = [&](const std::vector<int>& moving, const std::vector<Box>& boxes, const LooseGrid(&grids)[2],
                         const std::vector<char>& stale, const LooseGrid& stale_grid, auto&& try_pair) {
    for (int a : moving) {
      if (!finite(boxes[a])) continue;
      auto visit = [&](const LooseGrid::Entry& e, int) { try_pair(a, e.id); };
      for (const LooseGrid& g : grids)
        g.query(boxes[a], f, 0, kNoKey, [&](const LooseGrid::Entry& e, int level) {
          if (!stale[e.id]) visit(e, level);
        });
      stale_grid.query(boxes[a], f, 0, kNoKey, visit);
    }
  };
  pair_moving(m.new_points, m.pbox, m.tri_grid, m.stale_t, m.stale_tri_grid, [&](int v, int t) { try_pt(v, t); });
  pair_moving(m.new_tris, m.tbox, m.point_grid, m.stale_p, m.stale_point_grid, [&](int t, int v) { try_pt(v, t); });
  pair_moving(m.new_edges, m.ebox, m.edge_grid, m.stale_e, m.stale_edge_grid, try_ee);
  std::sort(added.pt.begin(), added.pt.end());
  added.pt.erase(std::unique(added.pt.begin(), added.pt.end()), added.pt.end());
  std::sort(added.ee.begin(), added.ee.end());
  added.ee.erase(std::unique(added.ee.begin(), added.ee.end()), added.ee.end());
  return true;
}

}  // namespace weft
