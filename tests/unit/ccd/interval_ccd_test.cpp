// The conservative Boost.Interval inclusion CCD.
#include <gtest/gtest.h>

#include "ccd/ccd_benchmark.hpp"
#include "ccd/interval_ccd.hpp"

using namespace weft;

TEST(IntervalCcd, ConstructedHitsAndMisses) {
  const Vec3 a(-1, -1, 0), b(3, -1, 0), c(-1, 3, 0);
  IntervalCcdResult r = point_triangle_interval_ccd(Vec3(0.2, 0.3, 1), a, b, c, Vec3(0.2, 0.3, -1), a, b, c);
  ASSERT_TRUE(r.hit);
  EXPECT_LE(r.toi, 0.5);  // a lower bound of the contact time
  EXPECT_GT(r.toi, 0.5 - 1e-5);
  r = point_triangle_interval_ccd(Vec3(5, 5, 1), a, b, c, Vec3(5, 5, -1), a, b, c);
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(r.toi, 1.0);
  // Touching exactly at t = 1 is a contact.
  r = point_triangle_interval_ccd(Vec3(0.2, 0.3, 1), a, b, c, Vec3(0.2, 0.3, 0), a, b, c);
  EXPECT_TRUE(r.hit);
  IntervalCcdResult e = edge_edge_interval_ccd(Vec3(-1, 0, 1), Vec3(1, 0, 1), Vec3(0, -1, 0), Vec3(0, 1, 0),
                                               Vec3(-1, 0, -1), Vec3(1, 0, -1), Vec3(0, -1, 0), Vec3(0, 1, 0));
  ASSERT_TRUE(e.hit);
  EXPECT_LE(e.toi, 0.5);
  EXPECT_GT(e.toi, 0.5 - 1e-5);
  e = edge_edge_interval_ccd(Vec3(2, 0, 1), Vec3(3, 0, 1), Vec3(0, -1, 0), Vec3(0, 1, 0), Vec3(2, 0, -1),
                             Vec3(3, 0, -1), Vec3(0, -1, 0), Vec3(0, 1, 0));
  EXPECT_FALSE(e.hit);
}

TEST(IntervalCcd, NoFalseNegativesOnSampleQueries) {
  CcdStats total;
  for (const CcdStats& s : run_ccd_benchmark(
           collect_query_files({std::string(WEFT_DATA_DIR) + "/ccd/sample-queries"}, std::nullopt),
           CcdMethod::Interval, 0.0, {}))
    total.add(s);
  EXPECT_EQ(total.queries, 7279);
  EXPECT_EQ(total.false_negatives, 0);
  RecordProperty("interval_false_positives", int(total.false_positives));
}
