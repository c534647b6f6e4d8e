#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "core/memory_usage.hpp"

using namespace weft;

// VmHWM follows a 256 MB allocation that is touched, and reset_peak_rss brings it back
// down once the block is freed: what the size estimate's trials rely on.
TEST(MemoryUsage, PeakFollowsAllocationAndResets) {
  ASSERT_GT(node_memory_bytes(), 0);
  ASSERT_GT(current_rss_bytes(), 0);
  ASSERT_TRUE(reset_peak_rss());
  const std::int64_t before = peak_rss_bytes();
  const std::int64_t size = 256LL << 20;
  {
    std::unique_ptr<char[]> block(new char[size]);
    std::memset(block.get(), 1, size);
    volatile char sink = block[size / 2];
    (void)sink;
    EXPECT_GT(peak_rss_bytes(), before + size * 9 / 10);
  }
  ASSERT_TRUE(reset_peak_rss());
  EXPECT_LT(peak_rss_bytes(), before + size / 2);
  EXPECT_GE(peak_rss_bytes(), current_rss_bytes() - (4 << 20));
}
