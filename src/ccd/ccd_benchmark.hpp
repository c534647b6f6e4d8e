// Running CCD over benchmark query files: file discovery, per-query evaluation with the
// benchmark's truth convention, per-scene statistics, and the weft-ccd command line
// (drivers/weft_ccd.cpp is a thin main around run_weft_ccd).
//
// Truth convention: a query is positive when the primitives touch for some t in [0, 1].
// A method reports a collision when it finds one with toi <= 1 — for ACCD, when
// AccdResult::hit (its toi is then < 1, or 0 for a start already touching). ACCD runs with
// the given offset (default 0) and the benchmark's small rescaling s (default 1e-3), so a
// reported collision means the pair came within s * d0 of touching.
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ccd/accd.hpp"
#include "ccd/interval_ccd.hpp"
#include "ccd/query_file.hpp"
#include "ccd/root_finding_ccd.hpp"

namespace weft {

enum class CcdMethod { Accd, RootFinding, Interval };
const char* to_string(CcdMethod m);

// ACCD parameters used for benchmark truth comparisons.
AccdParams benchmark_accd_params();

struct QueryFileInfo {
  std::string path;
  std::string scene;  // directory above vertex-face/ or edge-edge/, else the file's stem
  QueryKind kind;
};

// CSV files named by `inputs` (files, or directories searched recursively), sorted by path.
// The kind comes from the parent directory name (vertex-face / edge-edge) unless forced.
// Throws InputError for a missing path, an undetectable kind, or no CSV found.
std::vector<QueryFileInfo> collect_query_files(const std::vector<std::string>& inputs,
                                               std::optional<QueryKind> forced);

struct QueryOutcome {
  bool hit = false;
  double toi = 1.0;
  long iterations = 0;  // ACCD iterations / interval boxes
};

QueryOutcome run_ccd_query(const CcdQuery& q, QueryKind kind, CcdMethod method, double offset,
                           const AccdParams& accd = benchmark_accd_params(),
                           const RootFindingParams& root = {});

struct CcdStats {
  std::string scene;
  QueryKind kind = QueryKind::VertexFace;
  long queries = 0;
  long positives = 0;        // ground truth
  long reported = 0;         // reported by the method
  long false_negatives = 0;
  long false_positives = 0;
  long iterations = 0;       // ACCD iterations / interval boxes (0 for root finding)
  double seconds = 0.0;      // CPU time of the CCD calls only (parsing excluded)
  void add(const CcdStats& o);
};

// Runs a method over files; one CcdStats per (scene, kind) in first-seen order. When
// per_query is non-null every outcome is appended to it in file order.
std::vector<CcdStats> run_ccd_benchmark(const std::vector<QueryFileInfo>& files, CcdMethod method, double offset,
                                        const AccdParams& accd, std::vector<QueryOutcome>* per_query = nullptr);

// weft-ccd QUERIES... [--type vf|ee] [--offset XI] [--method accd|root|interval] [--per-query] [--json]
//                     [--accd-s S]
// Returns the exit code; InputError -> one line on err, 2.
int run_weft_ccd(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace weft
