// Broad phase of weft-verify: a uniform grid hash over axis-aligned boxes.
//
// Boxes are binned into cubic cells of edge ~ the mean box extent; the (cell, box) entries
// are sorted by cell and every pair of boxes sharing a cell is tested. A pair that shares
// several cells is reported once, from the cell holding the minimum corner of the two
// boxes' intersection. Boxes spanning more than max(kMinLargeCells, n/16) cells (e.g. two
// big ground triangles under a fine cloth) are kept out of the grid and tested against all
// boxes, which then costs less than binning them.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace weft::verify {

struct Aabb {
  double lo[3], hi[3];
};

// Closed overlap.
inline bool overlap(const Aabb& a, const Aabb& b) {
  return a.lo[0] <= b.hi[0] && b.lo[0] <= a.hi[0] && a.lo[1] <= b.hi[1] && b.lo[1] <= a.hi[1] &&
         a.lo[2] <= b.hi[2] && b.lo[2] <= a.hi[2];
}

class GridBroadPhase {
 public:
  static constexpr long kMinLargeCells = 64;

  // Bins `boxes` (kept by reference until the next build). Boxes must be finite.
  void build(const std::vector<Aabb>& boxes);

  // Calls f(i, j), i < j, once for every pair of overlapping boxes, in a deterministic order.
  template <class F>
  void for_each_pair(F&& f) const;

  double cell_size() const { return cell_; }
  std::size_t num_large() const { return large_.size(); }

 private:
  static constexpr int kBits = 21;
  int cell_coord(double x, int axis) const {
    double c = (x - origin_[axis]) * inv_cell_;
    if (!(c > 0)) return 0;
    if (c >= dims_[axis] - 1) return dims_[axis] - 1;
    return static_cast<int>(c);
  }
  static std::uint64_t key(int x, int y, int z) {
    return (std::uint64_t(x) << (2 * kBits)) | (std::uint64_t(y) << kBits) | std::uint64_t(z);
  }

  const std::vector<Aabb>* boxes_ = nullptr;
  double origin_[3] = {0, 0, 0};
  int dims_[3] = {1, 1, 1};
  double cell_ = 1.0, inv_cell_ = 1.0;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> entries_;  // (cell key, box), sorted
  std::vector<std::uint32_t> large_;
  std::vector<char> is_large_;
};

template <class F>
void GridBroadPhase::for_each_pair(F&& f) const {
  const std::vector<Aabb>& boxes = *boxes_;
  const std::size_t m = entries_.size();
  const std::uint64_t mask = (std::uint64_t(1) << kBits) - 1;
  for (std::size_t s = 0; s < m;) {
    std::size_t e = s + 1;
    while (e < m && entries_[e].first == entries_[s].first) ++e;
    if (e - s > 1) {
      const std::uint64_t k = entries_[s].first;
      const int cx = int((k >> (2 * kBits)) & mask), cy = int((k >> kBits) & mask), cz = int(k & mask);
      for (std::size_t a = s; a < e; ++a) {
        const std::uint32_t i = entries_[a].second;
        const Aabb& bi = boxes[i];
        for (std::size_t b = a + 1; b < e; ++b) {
          const std::uint32_t j = entries_[b].second;
          const Aabb& bj = boxes[j];
          if (!overlap(bi, bj)) continue;
          // Report only from the cell of the intersection's minimum corner.
          if (cell_coord(bi.lo[0] > bj.lo[0] ? bi.lo[0] : bj.lo[0], 0) != cx ||
              cell_coord(bi.lo[1] > bj.lo[1] ? bi.lo[1] : bj.lo[1], 1) != cy ||
              cell_coord(bi.lo[2] > bj.lo[2] ? bi.lo[2] : bj.lo[2], 2) != cz)
            continue;
          f(i, j);  // entries are sorted by (cell, box), so i < j
        }
      }
    }
    s = e;
  }
  for (std::uint32_t i : large_) {
    const Aabb& bi = boxes[i];
    for (std::uint32_t j = 0; j < boxes.size(); ++j) {
      if (j == i || (is_large_[j] && j < i)) continue;
      if (!overlap(bi, boxes[j])) continue;
      if (i < j) f(i, j);
      else f(j, i);
    }
  }
}

}  // namespace weft::verify
