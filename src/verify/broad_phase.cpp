#include "verify/broad_phase.hpp"

#include <algorithm>
#include <cmath>

namespace weft::verify {

void GridBroadPhase::build(const std::vector<Aabb>& boxes) {
  boxes_ = &boxes;
  entries_.clear();
  large_.clear();
  is_large_.assign(boxes.size(), 0);
  if (boxes.empty()) return;

  double lo[3] = {boxes[0].lo[0], boxes[0].lo[1], boxes[0].lo[2]};
  double hi[3] = {boxes[0].hi[0], boxes[0].hi[1], boxes[0].hi[2]};
  double mean_extent = 0;
  for (const Aabb& b : boxes) {
    double ext = 0;
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], b.lo[k]);
      hi[k] = std::max(hi[k], b.hi[k]);
      ext = std::max(ext, b.hi[k] - b.lo[k]);
    }
    mean_extent += ext;
  }
  mean_extent /= double(boxes.size());
  double span = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  // Cell edge: twice the mean extent (fewer entries to sort; a box then spans ~1.5 cells per
  // axis), but never so small that an axis needs more than 2^21 cells.
  double cell = 2.0 * mean_extent;
  const double max_dim = double((1 << kBits) - 2);
  if (!(cell > span / max_dim)) cell = span / max_dim;
  if (!(cell > 0)) cell = 1.0;  // all boxes are the same point
  cell_ = cell;
  inv_cell_ = 1.0 / cell;
  for (int k = 0; k < 3; ++k) {
    origin_[k] = lo[k];
    dims_[k] = std::max(1, std::min(int(max_dim) + 1, int((hi[k] - lo[k]) * inv_cell_) + 1));
  }

  // A box covering more cells than this is cheaper to test against every box directly.
  const long max_cells = std::max<long>(kMinLargeCells, long(boxes.size() / 16));
  entries_.reserve(boxes.size() * 4);
  for (std::uint32_t i = 0; i < boxes.size(); ++i) {
    const Aabb& b = boxes[i];
    int c0[3], c1[3];
    long cells = 1;
    for (int k = 0; k < 3; ++k) {
      c0[k] = cell_coord(b.lo[k], k);
      c1[k] = cell_coord(b.hi[k], k);
      cells *= long(c1[k] - c0[k] + 1);
    }
    if (cells > max_cells) {
      large_.push_back(i);
      is_large_[i] = 1;
      continue;
    }
    for (int x = c0[0]; x <= c1[0]; ++x)
      for (int y = c0[1]; y <= c1[1]; ++y)
        for (int z = c0[2]; z <= c1[2]; ++z) entries_.emplace_back(key(x, y, z), i);
  }
  // LSD radix sort on the 63-bit (cell key, box) order: boxes were appended in increasing
  // order, and a stable sort by key keeps that order within a cell.
  const int key_bits = 3 * kBits;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> tmp(entries_.size());
  std::vector<std::size_t> count(1 << 16);
  for (int shift = 0; shift < key_bits; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (const auto& e : entries_) ++count[(e.first >> shift) & 0xffff];
    std::size_t sum = 0;
    for (auto& c : count) {
      const std::size_t v = c;
      c = sum;
      sum += v;
    }
    for (const auto& e : entries_) tmp[count[(e.first >> shift) & 0xffff]++] = e;
    entries_.swap(tmp);
  }
}

}  // namespace weft::verify
