#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/types.hpp"

// The aliases are fixed-size: a kernel's locals never touch the heap.
TEST(CoreTypes, FixedSizeAliases) {
  static_assert(weft::Vec9::SizeAtCompileTime == 9);
  static_assert(weft::Mat12::RowsAtCompileTime == 12);
  EXPECT_THROW(throw weft::InputError("x"), std::runtime_error);
}
