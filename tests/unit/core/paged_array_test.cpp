// PagedArray: entries never written read as the fill, written ones as written; pages are
// committed only where a write lands (a rank's block and scattered halo entries hold a few
// pages, not the whole array); copies, swaps and reassignments keep or drop them exactly.
// VertexSpan reads a PagedArray and a flat vector alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/paged_array.hpp"
#include "core/types.hpp"

using weft::PagedArray;
using weft::Vec3;
using weft::VertexSpan;

namespace {
constexpr size_t kPage = PagedArray<double>::kPageSize;
const double kNan = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST(PagedArray, UnwrittenEntriesReadAsTheFillWithNoPageCommitted) {
  PagedArray<double> a(100 * kPage + 7, kNan);
  EXPECT_EQ(a.size(), 100 * kPage + 7);
  EXPECT_EQ(a.committed_pages(), 0u);
  const PagedArray<double>& c = a;
  for (size_t i = 0; i < a.size(); i += 13) EXPECT_TRUE(std::isnan(a[i])) << i;
  EXPECT_TRUE(std::isnan(c[a.size() - 1]));  // (the last, partial page)
  EXPECT_EQ(a.committed_pages(), 0u);        // reads commit nothing
}

TEST(PagedArray, WritesLandInTheirOwnPageOnly) {
  PagedArray<Vec3> a(50 * kPage, Vec3::Constant(kNan));
  // An owned block of 3 pages (not page-aligned: 4 pages touched) and 5 scattered entries.
  const size_t lo = 10 * kPage + 5, hi = lo + 3 * kPage;
  for (size_t i = lo; i < hi; ++i) a.ref(i) = Vec3(double(i), 1.0, 2.0);
  const size_t scattered[] = {0, 20 * kPage + 1, 20 * kPage + 2, 33 * kPage, 50 * kPage - 1};
  for (size_t i : scattered) a.ref(i) = Vec3(-double(i), 0.0, 0.0);
  EXPECT_EQ(a.committed_pages(), 4u + 4u);  // 20 * kPage + 1 and + 2 share a page
  for (size_t i = 0; i < a.size(); ++i) {
    const bool in_block = i >= lo && i < hi;
    bool is_scattered = false;
    for (size_t s : scattered) is_scattered = is_scattered || s == i;
    if (in_block)
      ASSERT_EQ(a[i], Vec3(double(i), 1.0, 2.0)) << i;
    else if (is_scattered)
      ASSERT_EQ(a[i], Vec3(-double(i), 0.0, 0.0)) << i;
    else
      ASSERT_TRUE(std::isnan(a[i][0]) && std::isnan(a[i][2])) << i;  // (the page's other entries too)
  }
  // Held: the committed pages, the fill page and the table, far below the flat array's.
  EXPECT_LT(a.memory_bytes(), 10 * kPage * sizeof(Vec3));
  EXPECT_LT(a.memory_bytes() * 5, a.size() * sizeof(Vec3));
}

TEST(PagedArray, ResettingAnEntryKeepsItsPageAndAssignDropsEveryPage) {
  PagedArray<double> a(4 * kPage, kNan);
  a.ref(kPage + 3) = 1.5;
  a.ref(kPage + 3) = kNan;  // (what the halo does to last exchange's entries)
  EXPECT_EQ(a.committed_pages(), 1u);
  EXPECT_TRUE(std::isnan(a[kPage + 3]));
  a.assign(2 * kPage, 7.0);
  EXPECT_EQ(a.committed_pages(), 0u);
  EXPECT_EQ(a.size(), 2 * kPage);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], 7.0);
}

TEST(PagedArray, CopySwapAndConversionFromAFlatVector) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> flat(5 * kPage + 11);
  for (double& v : flat) v = u(rng);
  PagedArray<double> a(flat);
  EXPECT_EQ(a.committed_pages(), 6u);
  for (size_t i = 0; i < flat.size(); ++i) ASSERT_EQ(a[i], flat[i]);

  PagedArray<double> b(3 * kPage, kNan);
  b.ref(2 * kPage) = 4.0;
  PagedArray<double> copy = b;  // deep: writing the copy leaves b alone
  copy.ref(2 * kPage) = 5.0;
  copy.ref(0) = 6.0;
  EXPECT_EQ(b[2 * kPage], 4.0);
  EXPECT_TRUE(std::isnan(b[0]));
  EXPECT_EQ(copy.committed_pages(), 2u);
  EXPECT_EQ(b.committed_pages(), 1u);

  a.swap(b);  // (the line search's accept)
  EXPECT_EQ(a.size(), 3 * kPage);
  EXPECT_EQ(a[2 * kPage], 4.0);
  EXPECT_EQ(b.size(), flat.size());
  EXPECT_EQ(b[flat.size() - 1], flat.back());
  b.ref(1) = 0.25;  // b's pages are still its own after the swap
  EXPECT_EQ(b[1], 0.25);
}

TEST(VertexSpan, ReadsPagedAndFlatArraysAlikeAndSurvivesCopies) {
  std::vector<Vec3> flat(3 * kPage + 2);
  for (size_t i = 0; i < flat.size(); ++i) flat[i] = Vec3(double(i), -double(i), 0.5);
  PagedArray<Vec3> paged(flat);
  const VertexSpan<Vec3> from_flat(flat), from_paged(paged);
  VertexSpan<Vec3> copied = from_flat;  // (a flat view points at its own member: fixed on copy)
  VertexSpan<Vec3> assigned;
  assigned = from_paged;
  EXPECT_EQ(from_flat.size(), flat.size());
  EXPECT_EQ(from_paged.size(), flat.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    ASSERT_EQ(from_flat[i], flat[i]);
    ASSERT_EQ(from_paged[i], flat[i]);
    ASSERT_EQ(copied[i], flat[i]);
    ASSERT_EQ(assigned[i], flat[i]);
  }
}

TEST(PagedArray, ADenseArrayIsOneFlatBlockThatSpansReadAsAVector) {
  PagedArray<double> a;
  a.assign(3 * kPage + 5, kNan, /*dense=*/true);
  ASSERT_NE(a.flat_data(), nullptr);
  EXPECT_EQ(a.committed_pages(), 4u);
  for (size_t i = 0; i < a.size(); ++i) a.ref(i) = double(i);
  EXPECT_EQ(a.committed_pages(), 4u);  // (writes commit nothing more)
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.flat_data()[i], double(i));
  const VertexSpan<double> s(a);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(s[i], double(i));
  PagedArray<double> copy = a;  // a copy stays dense and deep
  ASSERT_NE(copy.flat_data(), nullptr);
  ASSERT_NE(copy.flat_data(), a.flat_data());
  copy.ref(7) = -1.0;
  EXPECT_EQ(a[7], 7.0);
  EXPECT_EQ(copy.flat_data()[7], -1.0);
  PagedArray<double> paged(2 * kPage, kNan);
  paged.swap(a);
  EXPECT_EQ(a.flat_data(), nullptr);
  ASSERT_NE(paged.flat_data(), nullptr);
  EXPECT_EQ(paged[3 * kPage + 4], double(3 * kPage + 4));
  a.assign(kPage, 0.0);  // reassigned paged
  EXPECT_EQ(a.flat_data(), nullptr);
  EXPECT_EQ(a.committed_pages(), 0u);
}

// commit_range: a rank's own contiguous range as one block (one allocation), skipping pages
// already committed; the entries read the fill until written; copies, swaps and to_vector
// see them as any page.
TEST(PagedArray, CommitRangeTakesTheUncommittedPagesOfARangeAsOneBlock) {
  PagedArray<int> a(20 * kPage + 3, -1);
  a.ref(5 * kPage + 1) = 7;                    // page 5 committed first
  a.commit_range(3 * kPage + 10, 8 * kPage);   // pages 3..7: 4 new (5 was committed)
  EXPECT_EQ(a.committed_pages(), 5u);
  a.commit_range(4 * kPage, 6 * kPage);        // all committed: nothing new
  a.commit_range(9 * kPage, 9 * kPage);        // empty
  EXPECT_EQ(a.committed_pages(), 5u);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], i == 5 * kPage + 1 ? 7 : -1) << i;
  for (size_t i = 3 * kPage + 10; i < 8 * kPage; ++i) a.ref(i) = static_cast<int>(i);
  EXPECT_EQ(a.committed_pages(), 5u);          // the writes commit nothing more
  a.commit_range(20 * kPage, a.size());        // the last, partial page
  EXPECT_EQ(a.committed_pages(), 6u);
  const std::vector<int> v = a.to_vector();
  ASSERT_EQ(v.size(), a.size());
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i >= 3 * kPage + 10 && i < 8 * kPage ? int(i) : -1) << i;
  PagedArray<int> b = a, c;
  EXPECT_EQ(b.to_vector(), v);
  c.swap(b);
  EXPECT_EQ(c.to_vector(), v);
  EXPECT_EQ(c.committed_pages(), 6u);
  EXPECT_EQ(b.committed_pages(), 0u);
  // Held: the 6 pages, the fill page, the table and the 3 allocations' pointers.
  EXPECT_LT(a.memory_bytes(), 8 * kPage * sizeof(int) + 21 * sizeof(int*) + 8 * sizeof(void*));
}

// A rank keeping its part of an array built whole (Scene::keep_vertex_part): its block and
// the listed ids read as before, every other entry as the fill, and only their pages held.
TEST(PagedArray, PartKeepsABlockAndListedEntriesOnly) {
  const size_t n = 40 * kPage + 5;
  PagedArray<double> whole(n, 0.0);
  whole.assign(n, 0.0, true);
  for (size_t i = 0; i < n; ++i) whole.ref(i) = 0.5 * static_cast<double>(i);
  const size_t b = 10 * kPage + 7, e = 20 * kPage + 3;
  const std::vector<int> ids = {3, int(kPage) + 1, int(kPage) + 2, int(30 * kPage), int(n - 1)};
  const PagedArray<double> p = whole.part(b, e, ids, kNan);
  ASSERT_EQ(p.size(), n);
  EXPECT_EQ(p.flat_data(), nullptr);
  for (size_t i = 0; i < n; ++i) {
    const bool kept = (i >= b && i < e) || std::find(ids.begin(), ids.end(), int(i)) != ids.end();
    if (kept)
      ASSERT_EQ(p[i], 0.5 * static_cast<double>(i)) << i;
    else
      ASSERT_TRUE(std::isnan(p[i])) << i;
  }
  // The block's 11 pages and the 4 pages of the ids: not the 41 of the whole.
  EXPECT_EQ(p.committed_pages(), 15u);
  EXPECT_LT(p.memory_bytes(), whole.memory_bytes() / 2);
}

// A whole array that is not paged: a borrowed vector (read in place, its copies borrowed
// too, no bytes of its own) or an adopted one (its buffer taken over, no copy); whole()
// gives an adopted array's vector and refuses a part.
TEST(PagedArray, BorrowedAndAdoptedArraysReadTheirVectorInPlace) {
  const std::vector<int> owner = {4, 5, 6, 7};
  const PagedArray<int> b = PagedArray<int>::borrow(owner);
  EXPECT_TRUE(b.borrowed());
  EXPECT_EQ(b.flat_data(), owner.data());
  EXPECT_EQ(b.to_vector(), owner);
  EXPECT_EQ(b.memory_bytes(), 0u);
  const PagedArray<int> b2 = b;  // (a copy borrows the same elements)
  EXPECT_EQ(b2.flat_data(), owner.data());
  EXPECT_THROW(b.whole(), std::logic_error);

  std::vector<int> v(3 * kPage + 1);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i);
  const int* buffer = v.data();
  PagedArray<int> a = PagedArray<int>::adopt(std::move(v));
  EXPECT_FALSE(a.borrowed());
  EXPECT_EQ(a.flat_data(), buffer);  // taken over, not copied
  EXPECT_EQ(&a.whole()[0], buffer);
  PagedArray<int> moved = std::move(a);
  EXPECT_EQ(moved.flat_data(), buffer);
  const PagedArray<int> copy = moved;  // (a copy holds its own vector)
  EXPECT_NE(copy.flat_data(), buffer);
  EXPECT_EQ(copy.whole(), moved.whole());
  const PagedArray<int> p = moved.part(0, 0, {1, int(2 * kPage) + 5}, -1);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2 * kPage + 5], int(2 * kPage) + 5);
  EXPECT_EQ(p[0], -1);
  EXPECT_EQ(p.committed_pages(), 2u);
  EXPECT_THROW(p.whole(), std::logic_error);
}
