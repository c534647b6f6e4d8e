#include "ccd/ccd_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <ostream>

#include "core/error.hpp"

namespace weft {

namespace fs = std::filesystem;

const char* to_string(CcdMethod m) {
  switch (m) {
    case CcdMethod::Accd: return "accd";
    case CcdMethod::RootFinding: return "root";
    case CcdMethod::Interval: return "interval";
  }
  return "?";
}

AccdParams benchmark_accd_params() {
  AccdParams p;
  p.s = 1e-3;
  p.t_max = 1.0;
  p.max_iterations = 100'000;
  return p;
}

void CcdStats::add(const CcdStats& o) {
  queries += o.queries;
  positives += o.positives;
  reported += o.reported;
  false_negatives += o.false_negatives;
  false_positives += o.false_positives;
  iterations += o.iterations;
  seconds += o.seconds;
}

// ---------------------------------------------------------------- files

namespace {

// CPU time of the calling thread: on shared cores it is not inflated by other processes.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

std::optional<QueryKind> kind_from_dir(const std::string& name) {
  if (name == "vertex-face") return QueryKind::VertexFace;
  if (name == "edge-edge") return QueryKind::EdgeEdge;
  return std::nullopt;
}

bool is_csv(const fs::path& p) { return p.extension() == ".csv"; }

}  // namespace

std::vector<QueryFileInfo> collect_query_files(const std::vector<std::string>& inputs,
                                               std::optional<QueryKind> forced) {
  std::vector<fs::path> paths;
  for (const std::string& in : inputs) {
    std::error_code ec;
    const fs::file_status st = fs::status(in, ec);
    if (ec || !fs::exists(st)) throw InputError(in + ": no such file or directory");
    if (fs::is_directory(st)) {
      std::vector<fs::path> found;
      for (fs::recursive_directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file() && is_csv(it->path())) found.push_back(it->path());
      if (ec) throw InputError(in + ": cannot read directory (" + ec.message() + ")");
      if (found.empty()) throw InputError(in + ": no .csv query files found");
      std::sort(found.begin(), found.end());
      paths.insert(paths.end(), found.begin(), found.end());
    } else {
      paths.emplace_back(in);
    }
  }
  std::vector<QueryFileInfo> out;
  for (const fs::path& p : paths) {
    QueryFileInfo info;
    info.path = p.string();
    const fs::path parent = p.parent_path();
    const std::optional<QueryKind> k = kind_from_dir(parent.filename().string());
    if (forced) info.kind = *forced;
    else if (k) info.kind = *k;
    else
      throw InputError(info.path + ": cannot tell vertex-face from edge-edge (parent directory is not "
                                   "vertex-face/ or edge-edge/); pass --type vf|ee");
    info.scene = k && parent.has_parent_path() && !parent.parent_path().filename().empty()
                     ? parent.parent_path().filename().string()
                     : p.stem().string();
    out.push_back(info);
  }
  return out;
}

// ---------------------------------------------------------------- queries

QueryOutcome run_ccd_query(const CcdQuery& q, QueryKind kind, CcdMethod method, double offset,
                           const AccdParams& accd, const RootFindingParams& root) {
  const auto& a = q.x0;
  const auto& b = q.x1;
  QueryOutcome o;
  if (method == CcdMethod::Accd) {
    const CcdResult r = kind == QueryKind::VertexFace
                            ? point_triangle_accd(a[0], a[1], a[2], a[3], b[0] - a[0], b[1] - a[1], b[2] - a[2],
                                                  b[3] - a[3], offset, accd)
                            : edge_edge_accd(a[0], a[1], a[2], a[3], b[0] - a[0], b[1] - a[1], b[2] - a[2],
                                             b[3] - a[3], offset, accd);
    o.hit = r.hit;
    o.toi = r.toi;
    o.iterations = r.iterations;
  } else if (method == CcdMethod::Interval) {
    const IntervalCcdResult r =
        kind == QueryKind::VertexFace
            ? point_triangle_interval_ccd(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
            : edge_edge_interval_ccd(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
    o.hit = r.hit;
    o.toi = r.toi;
    o.iterations = r.boxes;
  } else {
    const RootFindingResult r =
        kind == QueryKind::VertexFace
            ? point_triangle_root_ccd(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], root)
            : edge_edge_root_ccd(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], root);
    o.hit = r.hit;
    o.toi = r.hit ? r.toi : 1.0;
  }
  return o;
}

std::vector<CcdStats> run_ccd_benchmark(const std::vector<QueryFileInfo>& files, CcdMethod method, double offset,
                                        const AccdParams& accd, std::vector<QueryOutcome>* per_query) {
  std::vector<CcdStats> stats;
  std::map<std::pair<std::string, int>, size_t> index;
  for (const QueryFileInfo& f : files) {
    const std::vector<CcdQuery> queries = read_query_file(f.path);
    const auto key = std::make_pair(f.scene, int(f.kind));
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, stats.size()).first;
      CcdStats s;
      s.scene = f.scene;
      s.kind = f.kind;
      stats.push_back(s);
    }
    CcdStats& s = stats[it->second];
    std::vector<QueryOutcome> outcomes(queries.size());
    const double t0 = thread_cpu_seconds();
    for (size_t i = 0; i < queries.size(); ++i) outcomes[i] = run_ccd_query(queries[i], f.kind, method, offset, accd);
    s.seconds += thread_cpu_seconds() - t0;
    for (size_t i = 0; i < queries.size(); ++i) {
      const bool truth = queries[i].truth, hit = outcomes[i].hit;
      ++s.queries;
      s.positives += truth;
      s.reported += hit;
      s.false_negatives += truth && !hit;
      s.false_positives += hit && !truth;
      s.iterations += outcomes[i].iterations;
    }
    if (per_query) per_query->insert(per_query->end(), outcomes.begin(), outcomes.end());
  }
  return stats;
}

// ---------------------------------------------------------------- command line

namespace {

constexpr const char* kUsage =
    "usage: weft-ccd QUERIES... [--type vf|ee] [--offset XI] [--method accd|root|interval] [--per-query] [--json] "
    "[--accd-s S]";

// --help: the usage line, then one line per option.
constexpr const char* kHelp =
    "  Runs continuous collision detection over query files or directories of them (DESIGN.md,\n"
    "  \"CCD query files\") and prints, per scene and in all, queries, positives, false\n"
    "  negatives and positives against each query's ground truth, and queries per second.\n"
    "  Exit 0 = ran, 2 = bad input.\n"
    "  --type vf|ee        the queries' kind when a file's name does not tell (vertex-face,\n"
    "                      edge-edge)\n"
    "  --offset XI         thickness offset: impact when the distance reaches XI (default 0)\n"
    "  --method M          accd (additive CCD, default), root (cubic root finding), interval\n"
    "                      (interval arithmetic)\n"
    "  --per-query         one line per query instead: \"1 TOI\" (impact at time TOI) or \"0 1\"\n"
    "  --json              one JSON object instead of text\n"
    "  --accd-s S          ACCD's s, the share of the gap left at impact, 0 < S < 1 (C-IPC\n"
    "                      sec. 5.4; default 1e-3 here, 0.1 in the simulator)\n"
    "  -h, --help          this text";

// A finite number accepted by ok(x); otherwise InputError "OPT: expected WHAT, got 'V'".
template <class Ok>
double parse_number(const std::string& opt, const std::string& v, const char* what, const Ok& ok) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(x) || !ok(x))
    throw InputError(opt + ": expected " + what + ", got '" + v + "'");
  return x;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else
      o += c;
  }
  return o;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double qps(const CcdStats& s) { return s.seconds > 0.0 ? s.queries / s.seconds : 0.0; }

}  // namespace

int run_weft_ccd(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    std::vector<std::string> inputs;
    std::optional<QueryKind> type;
    double offset = 0.0;
    CcdMethod method = CcdMethod::Accd;
    bool per_query = false, json = false;
    AccdParams accd = benchmark_accd_params();
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw InputError(a + ": missing value; " + kUsage);
        return argv[++i];
      };
      if (a == "--type") {
        const std::string v = value();
        if (v == "vf") type = QueryKind::VertexFace;
        else if (v == "ee") type = QueryKind::EdgeEdge;
        else throw InputError("--type: expected vf or ee, got '" + v + "'");
      } else if (a == "--offset") {
        offset = parse_number("--offset", value(), "a number >= 0", [](double x) { return x >= 0.0; });
      } else if (a == "--method") {
        const std::string v = value();
        if (v == "accd") method = CcdMethod::Accd;
        else if (v == "root") method = CcdMethod::RootFinding;
        else if (v == "interval") method = CcdMethod::Interval;
        else throw InputError("--method: expected accd, root or interval, got '" + v + "'");
      } else if (a == "--accd-s") {
        accd.s = parse_number("--accd-s", value(), "a number in (0, 1)", [](double x) { return x > 0.0 && x < 1.0; });
      } else if (a == "--per-query") {
        per_query = true;
      } else if (a == "--json") {
        json = true;
      } else if (a == "-h" || a == "--help") {
        out << kUsage << "\n" << kHelp << "\n";
        return 0;
      } else if (a.size() > 1 && a[0] == '-') {
        throw InputError("unknown option '" + a + "'; " + kUsage);
      } else {
        inputs.push_back(a);
      }
    }
    if (inputs.empty()) throw InputError(std::string("no query files given; ") + kUsage);

    const std::vector<QueryFileInfo> files = collect_query_files(inputs, type);
    std::vector<QueryOutcome> outcomes;
    const std::vector<CcdStats> stats = run_ccd_benchmark(files, method, offset, accd, per_query ? &outcomes : nullptr);
    CcdStats total;
    total.scene = "total";
    for (const CcdStats& s : stats) total.add(s);

    if (per_query) {
      char buf[64];
      for (const QueryOutcome& o : outcomes) {
        if (o.hit) std::snprintf(buf, sizeof buf, "1 %.17g\n", o.toi);
        else std::snprintf(buf, sizeof buf, "0 1\n");
        out << buf;
      }
      return 0;
    }
    if (json) {
      auto obj = [&](const CcdStats& s, bool with_scene) {
        std::string o = "{";
        if (with_scene) o += "\"scene\": \"" + json_escape(s.scene) + "\", \"type\": \"" + to_string(s.kind) + "\", ";
        o += "\"queries\": " + std::to_string(s.queries) + ", \"positives\": " + std::to_string(s.positives) +
             ", \"reported_positives\": " + std::to_string(s.reported) +
             ", \"false_negatives\": " + std::to_string(s.false_negatives) +
             ", \"false_positives\": " + std::to_string(s.false_positives) + ", \"seconds\": " + fmt("%.6g", s.seconds) +
             ", \"queries_per_second\": " + fmt("%.6g", qps(s)) + "}";
        return o;
      };
      out << "{\"method\": \"" << to_string(method) << "\", \"offset\": " << fmt("%.17g", offset);
      if (method == CcdMethod::Accd) out << ", \"accd_s\": " << fmt("%.17g", accd.s);
      out << ",\n \"total\": " << obj(total, false) << ",\n \"scenes\": [";
      for (size_t i = 0; i < stats.size(); ++i) out << (i ? ",\n   " : "\n   ") << obj(stats[i], true);
      out << "\n ]}\n";
      return 0;
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, "method %s, offset %g%s\n", to_string(method), offset,
                  method == CcdMethod::Accd ? (", accd s " + fmt("%g", accd.s)).c_str() : "");
    out << buf;
    auto row = [&](const CcdStats& s, const char* type_name) {
      std::snprintf(buf, sizeof buf, "%-30s %-4s %9ld %9ld %6ld %6ld %12.0f\n", s.scene.c_str(), type_name, s.queries,
                    s.positives, s.false_negatives, s.false_positives, qps(s));
      out << buf;
    };
    std::snprintf(buf, sizeof buf, "%-30s %-4s %9s %9s %6s %6s %12s\n", "scene", "type", "queries", "positives", "FN",
                  "FP", "queries/s");
    out << buf;
    if (stats.size() > 1)
      for (const CcdStats& s : stats) row(s, to_string(s.kind));
    row(total, "all");
    return 0;
  } catch (const InputError& e) {
    err << "weft-ccd: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "weft-ccd: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace weft
