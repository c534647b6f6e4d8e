// A read-mostly int array indexed by vertex (or triangle) id, stored as runs. Why: the
// per-vertex maps every rank holds for the whole scene (a vertex's object, its motion, a
// surface vertex's object) are constant over long stretches of solver ids (each rank's
// block ascends by input id, objects are input-id ranges, pins are few), so their runs
// number ~ranks x objects + pins, not vertices: 4 bytes a global vertex less each on every
// rank (issue 20). Likewise a triangle's object (triangles in case order: one run an
// object), 8 bytes a cloth vertex. IdRuns: runs of CONSECUTIVE values (v, v+1, ...), for
// the solver <-> input id maps (runs of consecutive input ids within each rank's block:
// one per row segment of a partitioned grid, ~16,000 a rank at 2048^2; one at 1 rank), 8
// bytes a global vertex. An array whose runs would take more than the plain array (e.g. a
// tet mesh's interior / surface vertices interleaved) is kept plain (compact()).
// Reading is O(log runs) (a binary search), O(1) when plain: not for per-iteration loops
// over every vertex (PBD keeps plain copies of the id maps).
#pragma once
#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <vector>

#include "core/byte_stream.hpp"

namespace weft {

template <bool Consecutive>
class Runs {
 public:
  Runs() = default;
  // From a plain array, in the smaller of the two forms (converts: calls that took a
  // vector take one still).
  Runs(const std::vector<int>& values) {  // NOLINT(google-explicit-constructor)
    for (int v : values) push_back(v);
    compact(&values);
  }
  Runs(std::initializer_list<int> values) : Runs(std::vector<int>(values)) {}  // NOLINT

  int operator[](int i) const {
    if (!plain_.empty()) return plain_[i];
    // the run holding i: the last start <= i
    const auto r = (std::upper_bound(start_.begin(), start_.end(), i) - start_.begin()) - 1;
    return Consecutive ? value_[r] + (i - start_[r]) : value_[r];
  }
  std::size_t size() const { return static_cast<std::size_t>(n_); }
  bool empty() const { return n_ == 0; }
  // Runs held (0 when plain): the memory is 8 bytes a run.
  std::size_t runs() const { return start_.size(); }
  std::size_t memory_bytes() const {
    return (start_.capacity() + value_.capacity() + plain_.capacity()) * sizeof(int);
  }

  // Appends (run form; a plain array goes back to runs first: building, not per step).
  void push_back(int v) {
    if (!plain_.empty()) to_runs();
    if (start_.empty() || v != value_.back() + (Consecutive ? n_ - start_.back() : 0))
      start_.push_back(n_), value_.push_back(v);
    ++n_;
  }
  // Whether value x is held, for ascending values (an IdRuns id list such as a surface's
  // `vertices`): O(log runs), not a flag array the length of the ids.
  bool contains(int x) const {
    if (!plain_.empty()) return std::binary_search(plain_.begin(), plain_.end(), x);
    const auto r = std::upper_bound(value_.begin(), value_.end(), x) - value_.begin() - 1;
    if (r < 0) return false;
    const int len = (static_cast<std::size_t>(r) + 1 < start_.size() ? start_[r + 1] : n_) - start_[r];
    return Consecutive ? x < value_[r] + len : x == value_[r];
  }
  // Calls f(first index, count, first value) for each run, ascending (a plain array's
  // entries one by one): O(runs), not O(size).
  template <class F>
  void for_each_run(F f) const {
    if (!plain_.empty()) {
      for (int i = 0; i < n_; ++i) f(i, 1, plain_[i]);
      return;
    }
    for (std::size_t r = 0; r < start_.size(); ++r)
      f(start_[r], (r + 1 < start_.size() ? start_[r + 1] : n_) - start_[r], value_[r]);
  }
  // Appends `count` entries: v, each equal (RunInts) or one more than the last (IdRuns):
  // one run, O(1) (a build from another's runs, e.g. blocks gathered from every rank).
  void append(int count, int v) {
    if (count <= 0) return;
    push_back(v);  // (starts a run, or continues the last)
    n_ += count - 1;
  }
  void assign(std::size_t n, int v) {
    *this = Runs();
    if (n > 0) start_.assign(1, 0), value_.assign(1, v), n_ = static_cast<int>(n);
  }
  // Keeps the smaller form (runs unless they take more than the plain array), no slack.
  // `plain`: the same values as a plain array if the caller has them (saves rebuilding).
  void compact(const std::vector<int>* plain = nullptr) {
    if (plain_.empty() && 2 * start_.size() > static_cast<std::size_t>(n_)) {
      plain_ = plain ? *plain : to_vector();
      start_ = std::vector<int>(), value_ = std::vector<int>();
      return;
    }
    start_.shrink_to_fit(), value_.shrink_to_fit();
  }

  // Reads with locality (a scan, a galloping search): a read in the last read's run or the
  // next costs O(1), any other O(log runs).
  class Cursor {
   public:
    explicit Cursor(const Runs& a) : a_(&a) {}
    int operator[](int i) {
      const Runs& a = *a_;
      if (!a.plain_.empty()) return a.plain_[i];
      const std::size_t nr = a.start_.size();
      auto holds = [&](std::size_t r) { return i >= a.start_[r] && (r + 1 == nr || i < a.start_[r + 1]); };
      if (!holds(r_)) {
        if (r_ + 1 < nr && holds(r_ + 1))
          ++r_;
        else
          r_ = (std::upper_bound(a.start_.begin(), a.start_.end(), i) - a.start_.begin()) - 1;
      }
      return Consecutive ? a.value_[r_] + (i - a.start_[r_]) : a.value_[r_];
    }

   private:
    const Runs* a_;
    std::size_t r_ = 0;
  };

  // Ascending-index iteration (through a Cursor): `for (int v : runs)`.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = int;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = int;
    const_iterator(const Runs& a, int i) : c_(a), i_(i) {}
    int operator*() const { return c_[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    mutable Cursor c_;
    int i_;
  };
  const_iterator begin() const { return const_iterator(*this, 0); }
  const_iterator end() const { return const_iterator(*this, n_); }

  std::vector<int> to_vector() const {
    if (!plain_.empty()) return plain_;
    std::vector<int> out;
    out.reserve(n_);
    for (std::size_t r = 0; r < start_.size(); ++r) {
      const int end = r + 1 < start_.size() ? start_[r + 1] : n_;
      for (int i = start_[r]; i < end; ++i) out.push_back(Consecutive ? value_[r] + (i - start_[r]) : value_[r]);
    }
    return out;
  }
  // As bytes, in the form held (a message from one rank to another: io/scene_parts).
  void pack(ByteWriter& w) const {
    w.put<int>(n_);
    w.put_vector(start_), w.put_vector(value_), w.put_vector(plain_);
  }
  void unpack(ByteReader& r) {
    n_ = r.get<int>();
    start_ = r.get_vector<int>(), value_ = r.get_vector<int>(), plain_ = r.get_vector<int>();
  }
  friend bool operator==(const Runs& a, const std::vector<int>& b) { return a.to_vector() == b; }
  friend bool operator==(const Runs& a, const Runs& b) { return a.to_vector() == b.to_vector(); }

 private:
  void to_runs() {
    std::vector<int> p;
    p.swap(plain_);
    n_ = 0;
    for (int v : p) push_back(v);
  }
  std::vector<int> start_;  // first index of each run, ascending (start_[0] == 0)
  std::vector<int> value_;  // each run's value
  std::vector<int> plain_;  // the plain form (then no runs)
  int n_ = 0;
};

using RunInts = Runs<false>;  // runs of equal values
using IdRuns = Runs<true>;    // runs of consecutive values

}  // namespace weft
