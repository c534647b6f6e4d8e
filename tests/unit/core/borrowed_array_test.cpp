// BorrowedArray: a held array owns its elements through copies and moves; a borrowed one
// keeps reading its owner (no copy), and sees the owner's elements, not a snapshot.
#include <gtest/gtest.h>

#include <vector>

#include "core/borrowed_array.hpp"

using weft::BorrowedArray;

TEST(BorrowedArray, HeldArraysOwnTheirElementsThroughCopiesAndMoves) {
  std::vector<int> source = {4, 5, 6};
  BorrowedArray<int> a = source;  // a copy
  source[0] = 9;
  EXPECT_FALSE(a.borrowed());
  EXPECT_EQ(a, (std::vector<int>{4, 5, 6}));
  BorrowedArray<int> b = a;
  BorrowedArray<int> c = std::move(a);
  EXPECT_EQ(b, (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(c, (std::vector<int>{4, 5, 6}));
  EXPECT_NE(b.data(), c.data());
  const BorrowedArray<int> d = {1, 2};
  EXPECT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1], 2);
}

TEST(BorrowedArray, BorrowedArraysReadTheirOwnerThroughCopiesAndMoves) {
  std::vector<int> owner = {1, 2, 3};
  const BorrowedArray<int> a = BorrowedArray<int>::borrow(owner);
  BorrowedArray<int> b = a;
  const BorrowedArray<int> c = std::move(b);
  for (const BorrowedArray<int>* x : {&a, &c}) {
    EXPECT_TRUE(x->borrowed());
    EXPECT_EQ(x->data(), owner.data());  // no copy
  }
  owner[2] = 7;
  EXPECT_EQ(c[2], 7);
  int sum = 0;
  for (int v : c) sum += v;
  EXPECT_EQ(sum, 10);
}
