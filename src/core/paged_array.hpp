// Per-vertex values indexed by a global vertex id, of which a rank writes only its share
// (issue 20: no rank holds the whole scene). The contact layer keys its pairs by solver
// vertex id, so its per-vertex arrays (the halo's positions and steps, the broad phase's
// stored boxes, the CCD bounds' anchors) are indexed by ids up to the global vertex count
// while a rank only ever writes its owned block and its contact halo. A PagedArray holds
// them in pages of kPageSize entries committed on first write: every page starts as one
// shared page of the fill value (NaN, say), so an entry never written reads as the fill
// with no test on the read path, and the memory is the pages a rank touched (its owned
// block and the pages its halo vertices fall in) plus a page table of one pointer per
// kPageSize ids (1/8 byte a vertex), not 24 bytes a vertex on every rank.
//
// Paged reads cost one more load than a flat array (the page pointer, from a table that
// stays in cache); writes (ref()) test whether the page is committed, reads never commit
// one. One rank writes every entry: its arrays are assigned dense, one block read as flat.
// VertexSpan<T> reads a PagedArray or a flat std::vector alike (tools and tests keep flat
// vectors).
#pragma once
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace weft {

template <class T>
class PagedArray {
 public:
  static constexpr unsigned kPageBits = 6;  // 64 entries: 1.5 KB pages of Vec3
  static constexpr size_t kPageSize = size_t(1) << kPageBits;
  static constexpr size_t kMask = kPageSize - 1;

  PagedArray() = default;
  PagedArray(size_t n, const T& fill) { assign(n, fill); }
  // A copy of a flat array (tests and tools): every page committed.
  explicit PagedArray(const std::vector<T>& v) {
    assign(v.size(), v.empty() ? T{} : v[0]);  // (every page is written below)
    for (size_t i = 0; i < v.size(); ++i) ref(i) = v[i];
  }
  PagedArray(const PagedArray& o) { *this = o; }
  PagedArray& operator=(const PagedArray& o) {
    if (this == &o) return *this;
    if (o.borrowed_ || !o.held_.empty()) {  // (a borrowed block stays borrowed, a held one is copied)
      assign(0, T());
      n_ = o.n_;
      borrowed_ = o.borrowed_;
      held_ = o.held_;
      flat_ = borrowed_ ? o.flat_ : held_.data();
      return *this;
    }
    assign(o.n_, o.fill_page_ ? o.fill_page_[0] : T(), o.flat_ != nullptr);
    for (size_t p = 0; p < o.pages_.size(); ++p)
      if (o.pages_[p] != o.fill_page_.get()) {
        T* q = pages_[p] == fill_page_.get() ? commit(p) : pages_[p];
        for (size_t j = 0; j < kPageSize; ++j) q[j] = o.pages_[p][j];
      }
    return *this;
  }
  PagedArray(PagedArray&&) noexcept = default;
  PagedArray& operator=(PagedArray&&) noexcept = default;

  // A whole array as one flat block that is not this array's pages: `owner`'s elements,
  // borrowed (owner must outlive the array and its copies; never written through ref()),
  // or a vector taken over (no copy either way). A whole build's collision-surface
  // triangles are the Scene's own (issue 20: not held twice on every rank).
  static PagedArray borrow(const std::vector<T>& owner) {
    PagedArray a;
    a.n_ = owner.size();
    a.flat_ = const_cast<T*>(owner.data());  // (read only: see above)
    a.borrowed_ = true;
    return a;
  }
  static PagedArray adopt(std::vector<T> v) {
    PagedArray a;
    a.n_ = v.size();
    a.held_ = std::move(v);
    a.flat_ = a.held_.data();
    return a;
  }
  bool borrowed() const { return borrowed_; }
  // An adopted array's vector (what callers that take whole vectors read while the array is
  // whole); std::logic_error on any other (a part, or borrowed).
  const std::vector<T>& whole() const {
    if (held_.size() != n_ || borrowed_) throw std::logic_error("PagedArray::whole() of an array not adopted whole");
    return held_;
  }

  // n entries, every one `fill`; drops every committed page. dense: a rank that writes
  // every entry (one rank) commits them all at once as one block, which VertexSpan then
  // reads as a flat array (one load, as a std::vector).
  void assign(size_t n, const T& fill, bool dense = false) {
    n_ = n;
    held_.clear();
    held_.shrink_to_fit();
    borrowed_ = false;
    committed_.clear();
    committed_count_ = 0;
    flat_ = nullptr;
    fill_page_.reset(new T[kPageSize]);
    for (size_t j = 0; j < kPageSize; ++j) fill_page_[j] = fill;
    pages_.assign((n + kMask) >> kPageBits, fill_page_.get());
    if (dense && !pages_.empty()) {
      std::unique_ptr<T[]> block(new T[pages_.size() * kPageSize]);
      for (size_t i = 0; i < pages_.size() * kPageSize; ++i) block[i] = fill;
      for (size_t p = 0; p < pages_.size(); ++p) pages_[p] = block.get() + p * kPageSize;
      flat_ = block.get();
      committed_.push_back(std::move(block));
    }
  }
  // The entries as one contiguous block (assigned dense), else null.
  const T* flat_data() const { return flat_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

  // Reads never commit a page (an unwritten entry reads as the fill) ...
  const T& operator[](size_t i) const { return flat_ ? flat_[i] : pages_[i >> kPageBits][i & kMask]; }
  // ... writes go through ref(), which commits i's page on its first write.
  T& ref(size_t i) {
    if (flat_) return flat_[i];
    T* p = pages_[i >> kPageBits];
    if (p == fill_page_.get()) p = commit(i >> kPageBits);
    return p[i & kMask];
  }

  // Commits the pages of entries [i0, i1) that are not yet committed as one block (a rank's
  // own contiguous range: one allocation, not one a page).
  void commit_range(size_t i0, size_t i1) {
    if (flat_ || i0 >= i1) return;
    const size_t p0 = i0 >> kPageBits, p1 = ((i1 - 1) >> kPageBits) + 1;
    size_t fresh = 0;
    for (size_t p = p0; p < p1; ++p) fresh += pages_[p] == fill_page_.get();
    if (fresh == 0) return;
    std::unique_ptr<T[]> block(new T[fresh * kPageSize]);
    for (size_t p = p0, k = 0; p < p1; ++p) {
      if (pages_[p] != fill_page_.get()) continue;
      T* q = block.get() + kPageSize * k++;
      for (size_t j = 0; j < kPageSize; ++j) q[j] = fill_page_[j];
      pages_[p] = q;
    }
    committed_.push_back(std::move(block));
    committed_count_ += fresh;
  }

  // A copy holding only the entries [i0, i1) (one block) and those listed in `ids`; every
  // other entry reads `fill` (a rank keeping its part of an array built whole).
  PagedArray part(size_t i0, size_t i1, const std::vector<int>& ids, const T& fill) const {
    PagedArray p(n_, fill);
    p.commit_range(i0, i1);
    for (size_t i = i0; i < i1; ++i) p.ref(i) = (*this)[i];
    for (int i : ids) p.ref(static_cast<size_t>(i)) = (*this)[static_cast<size_t>(i)];
    return p;
  }
  // The dense block, writable (a builder filling an array assigned dense), else null.
  T* flat_data() { return flat_; }

  // Every entry as a flat vector (tests and tools).
  std::vector<T> to_vector() const {
    std::vector<T> v(n_);
    for (size_t i = 0; i < n_; ++i) v[i] = (*this)[i];
    return v;
  }

  void swap(PagedArray& o) noexcept {
    std::swap(n_, o.n_);
    pages_.swap(o.pages_);
    committed_.swap(o.committed_);
    fill_page_.swap(o.fill_page_);
    std::swap(flat_, o.flat_);
    std::swap(committed_count_, o.committed_count_);
    held_.swap(o.held_);
    std::swap(borrowed_, o.borrowed_);
  }

  // Pages written so far and the bytes held (page table + committed pages + the fill page).
  size_t committed_pages() const { return flat_ ? pages_.size() : committed_count_; }
  size_t memory_bytes() const {
    if (borrowed_) return 0;  // (the owner's)
    if (!held_.empty()) return held_.capacity() * sizeof(T);
    return pages_.capacity() * sizeof(T*) + committed_.capacity() * sizeof(committed_[0]) +
           (committed_pages() + (fill_page_ ? 1 : 0)) * kPageSize * sizeof(T);
  }
  const T* const* page_table() const { return pages_.data(); }

 private:
  T* commit(size_t p) {
    std::unique_ptr<T[]> page(new T[kPageSize]);
    for (size_t j = 0; j < kPageSize; ++j) page[j] = fill_page_[j];
    pages_[p] = page.get();
    committed_.push_back(std::move(page));
    ++committed_count_;
    return pages_[p];
  }

  size_t n_ = 0;
  std::vector<T*> pages_;                       // page p: committed, or fill_page_
  std::vector<std::unique_ptr<T[]>> committed_;
  std::unique_ptr<T[]> fill_page_;
  size_t committed_count_ = 0;                  // pages committed (not fill_page_)
  T* flat_ = nullptr;  // the dense block (assign(..., true)), committed_[0]: every page
  std::vector<T> held_;    // an adopted vector (adopt): flat_ is its data, no pages
  bool borrowed_ = false;  // flat_ is another's (borrow): no pages
};

// Read-only view of per-vertex values: a flat block (a std::vector, or a dense PagedArray)
// or a PagedArray's pages. A read tests which (the same answer at every read of a loop: the
// branch predicts) and then costs one load for a flat block, two for pages.
template <class T>
class VertexSpan {
 public:
  VertexSpan() = default;
  VertexSpan(const std::vector<T>& v) : flat_(v.data()), n_(v.size()) {}  // NOLINT: implicit
  VertexSpan(const PagedArray<T>& a)                                         // NOLINT
      : flat_(a.flat_data()), pages_(a.page_table()), n_(a.size()) {}
  const T& operator[](size_t i) const {
    return flat_ ? flat_[i] : pages_[i >> PagedArray<T>::kPageBits][i & PagedArray<T>::kMask];
  }
  size_t size() const { return n_; }

 private:
  const T* flat_ = nullptr;
  const T* const* pages_ = nullptr;
  size_t n_ = 0;
};

}  // namespace weft
