// Query-file parsing: exact rationals, malformed input -> InputError with file and line.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "ccd/query_file.hpp"
#include "core/error.hpp"

using namespace weft;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string rows(int n, const char* truth = "0") {
  std::string s;
  for (int i = 0; i < n; ++i) s += std::to_string(i) + ",4,-1,2,3,1," + truth + "\n";
  return s;
}

}  // namespace

TEST(QueryFile, ParseRationalIsExact) {
  EXPECT_EQ(parse_rational("6004799503160661", "36028797018963968"), std::ldexp(6004799503160661.0, -55));
  EXPECT_EQ(parse_rational("-4803839602228289", "9007199254740992"), -std::ldexp(4803839602228289.0, -53));
  EXPECT_EQ(parse_rational("3", "4"), 0.75);
  EXPECT_EQ(parse_rational("+3", "-4"), -0.75);
  EXPECT_EQ(parse_rational("0", "1"), 0.0);
  // Long integers (beyond 64 bits) with a power-of-two denominator.
  EXPECT_EQ(parse_rational("1267650600228229401496703205376", "2535301200456458802993406410752"), 0.5);
  EXPECT_DOUBLE_EQ(parse_rational("1", "3"), 1.0 / 3.0);  // non power of two: one extra rounding
  EXPECT_THROW(parse_rational("1.5", "2"), std::invalid_argument);
  EXPECT_THROW(parse_rational("1", "0"), std::invalid_argument);
  EXPECT_THROW(parse_rational("", "2"), std::invalid_argument);
  EXPECT_THROW(parse_rational("1e3", "2"), std::invalid_argument);
}

TEST(QueryFile, ReadsQueries) {
  const std::string p = write_temp("q_ok.csv", rows(8, "1") + "\n" + rows(8, "0"));
  const std::vector<CcdQuery> q = read_query_file(p);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_TRUE(q[0].truth);
  EXPECT_FALSE(q[1].truth);
  EXPECT_EQ(q[0].line, 1);
  EXPECT_EQ(q[1].line, 10);  // blank line skipped
  EXPECT_EQ(q[0].x0[1], Vec3(0.25, -0.5, 3));
  EXPECT_EQ(q[0].x1[3], Vec3(7 * 0.25, -0.5, 3));
}

TEST(QueryFile, SampleFile) {
  const std::vector<CcdQuery> q =
      read_query_file(std::string(WEFT_DATA_DIR) + "/ccd/sample-queries/unit-tests/vertex-face/data_0_0.csv");
  EXPECT_EQ(q.size(), 125u);
}

TEST(QueryFile, MalformedInputNamesFileAndLine) {
  auto expect_error = [](const std::string& name, const std::string& text, const std::string& needle) {
    const std::string p = write_temp(name, text);
    try {
      read_query_file(p);
      ADD_FAILURE() << "no error for " << name;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(p), std::string::npos) << msg;
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    }
  };
  expect_error("q_short.csv", rows(7), ":7: incomplete query");
  expect_error("q_fields.csv", rows(2) + "1,2,3,4,5,6\n", ":3: expected 7");
  expect_error("q_truth.csv", rows(2) + "1,2,3,4,5,6,2\n", ":3: truth must be 0 or 1");
  expect_error("q_mixed.csv", rows(3, "1") + rows(1, "0"), ":4: truth differs");
  expect_error("q_num.csv", rows(4) + "1,2,x,4,5,6,0\n", ":5: coordinate y");
  expect_error("q_den.csv", "1,0,3,4,5,6,0\n", ":1: coordinate x: denominator is zero");
  EXPECT_THROW(read_query_file(::testing::TempDir() + "does-not-exist.csv"), InputError);
}
