// Galloping (exponential) search in a sorted sequence: for a run of ascending queries over
// one list, each search starts where the last one ended and costs O(log of how far it
// moves), not O(log n) from scratch, nor a linear scan.
#pragma once

#include <algorithm>
#include <cstddef>

namespace weft {

// The first index i in [from, n) with !(key(i) < v), keys ascending over [from, n): steps
// doubling from `from`, then a binary search within the last step.
template <typename V, typename Key>
std::size_t gallop(std::size_t from, std::size_t n, const V& v, const Key& key) {
  std::size_t lo = from, hi = from, step = 1;  // key(i) < v for every i < lo
  while (hi < n && key(hi) < v) {
    lo = hi + 1;
    hi += step;
    step <<= 1;
  }
  hi = std::min(hi, n);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (key(mid) < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace weft
