// ACCD over ALL vendored benchmark queries (tests/data/ccd/sample-queries): zero false
// negatives. Also the weft-ccd command-line logic.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "ccd/ccd_benchmark.hpp"
#include "core/error.hpp"

using namespace weft;

namespace {
const std::string kSamples = std::string(WEFT_DATA_DIR) + "/ccd/sample-queries";
}

TEST(SampleQueries, AccdHasNoFalseNegatives) {
  const std::vector<QueryFileInfo> files = collect_query_files({kSamples}, std::nullopt);
  EXPECT_EQ(files.size(), 42u);
  const std::vector<CcdStats> stats = run_ccd_benchmark(files, CcdMethod::Accd, 0.0, benchmark_accd_params());
  CcdStats total;
  for (const CcdStats& s : stats) {
    EXPECT_EQ(s.false_negatives, 0) << s.scene << " " << to_string(s.kind);
    total.add(s);
  }
  EXPECT_EQ(stats.size(), 22u);  // 11 scenes x {vf, ee}
  EXPECT_EQ(total.queries, 7279);
  EXPECT_EQ(total.positives, 435);
  EXPECT_EQ(total.false_negatives, 0);
  RecordProperty("false_positives", int(total.false_positives));
  std::printf("ACCD over %ld sample queries: %ld positives, %ld FN, %ld FP, %.1f us/query\n", total.queries,
              total.positives, total.false_negatives, total.false_positives, 1e6 * total.seconds / total.queries);
}

TEST(SampleQueries, AccdWithSimulationRescalingAlsoHasNoFalseNegatives) {
  AccdParams p = benchmark_accd_params();
  p.s = 0.1;  // C-IPC's simulation default: more false positives, still none missed
  CcdStats total;
  for (const CcdStats& s : run_ccd_benchmark(collect_query_files({kSamples}, std::nullopt), CcdMethod::Accd, 0.0, p))
    total.add(s);
  EXPECT_EQ(total.false_negatives, 0);
}

TEST(SampleQueries, RootFindingBaselineRuns) {
  CcdStats total;
  for (const CcdStats& s :
       run_ccd_benchmark(collect_query_files({kSamples}, std::nullopt), CcdMethod::RootFinding, 0.0, {}))
    total.add(s);
  EXPECT_EQ(total.queries, 7279);
  RecordProperty("root_false_negatives", int(total.false_negatives));
}

TEST(SampleQueries, FileDiscovery) {
  const auto vf = collect_query_files({kSamples + "/unit-tests/vertex-face"}, std::nullopt);
  ASSERT_EQ(vf.size(), 2u);
  EXPECT_EQ(vf[0].kind, QueryKind::VertexFace);
  EXPECT_EQ(vf[0].scene, "unit-tests");
  const auto forced = collect_query_files({kSamples + "/unit-tests/vertex-face/data_0_0.csv"}, QueryKind::EdgeEdge);
  EXPECT_EQ(forced[0].kind, QueryKind::EdgeEdge);
  EXPECT_THROW(collect_query_files({kSamples + "/nope"}, std::nullopt), InputError);
  EXPECT_THROW(collect_query_files({std::string(WEFT_DATA_DIR) + "/ccd/README.md"}, std::nullopt), InputError);
}

namespace {
int run_cli(std::vector<std::string> args, std::string* out, std::string* err) {
  args.insert(args.begin(), "weft-ccd");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream o, e;
  const int rc = run_weft_ccd(int(argv.size()), argv.data(), o, e);
  *out = o.str();
  *err = e.str();
  return rc;
}
}  // namespace

TEST(WeftCcdCli, SummaryJsonAndPerQuery) {
  std::string out, err;
  const std::string ee = kSamples + "/unit-tests/edge-edge";
  ASSERT_EQ(run_cli({ee}, &out, &err), 0) << err;
  EXPECT_NE(out.find("queries/s"), std::string::npos);
  ASSERT_EQ(run_cli({ee, "--json"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"false_negatives\": 0"), std::string::npos) << out;
  EXPECT_NE(out.find("\"queries\": 74"), std::string::npos) << out;
  ASSERT_EQ(run_cli({ee, "--per-query"}, &out, &err), 0) << err;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 74);
  EXPECT_TRUE(out.rfind("0 1\n", 0) == 0 || out.rfind("1 ", 0) == 0) << out.substr(0, 40);
  ASSERT_EQ(run_cli({ee, "--method", "root", "--offset", "1e-6"}, &out, &err), 0) << err;
}

TEST(WeftCcdCli, ErrorsAreOneLineExit2) {
  std::string out, err;
  const std::string ee = kSamples + "/unit-tests/edge-edge";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, {ee, "--bogus"}, {ee, "--type", "xx"}, {ee, "--type"}, {ee, "--offset", "abc"},
        {ee, "--offset", "-1"}, {ee, "--method", "magic"}, {ee, "--accd-s", "1.5"}, {kSamples + "/missing"}}) {
    EXPECT_EQ(run_cli(args, &out, &err), 2) << (args.empty() ? "" : args.back());
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(err.rfind("weft-ccd: ", 0), 0u) << err;
  }
}
