// bench-ccd_queries: ACCD vs the floating-point root-finding baseline (and the conservative
// Boost.Interval inclusion CCD) over every scene of the vendored CCD benchmark sample; writes
// a markdown table.
//   bench-ccd_queries [SAMPLES_DIR] [-o OUT.md] [--repeat N]
// Defaults: tests/data/ccd/sample-queries, bench/results/ccd_queries.md, 5 repeats (run from
// the repository root). Times are CPU time of the CCD calls (parsing excluded), the minimum
// over the repeats, in microseconds per query.
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "ccd/ccd_benchmark.hpp"
#include "core/error.hpp"

using namespace weft;

int main(int argc, char** argv) {
  std::string samples = "tests/data/ccd/sample-queries", out_path = "bench/results/ccd_queries.md";
  int repeat = 5;
  std::string command = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    command += " " + a;
    if (a == "-o" && i + 1 < argc) out_path = argv[++i], command += std::string(" ") + argv[i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i])), command += std::string(" ") + argv[i];
    else if (!a.empty() && a[0] != '-') samples = a;
    else {
      std::cerr << "usage: bench-ccd_queries [SAMPLES_DIR] [-o OUT.md] [--repeat N]\n";
      return 2;
    }
  }
  try {
    const std::vector<QueryFileInfo> files = collect_query_files({samples}, std::nullopt);
    const AccdParams accd = benchmark_accd_params();
    auto best_of = [&](CcdMethod m) {
      std::vector<CcdStats> best;
      for (int r = 0; r < repeat; ++r) {
        std::vector<CcdStats> s = run_ccd_benchmark(files, m, 0.0, accd);
        if (best.empty()) best = s;
        else
          for (size_t i = 0; i < s.size(); ++i) best[i].seconds = std::min(best[i].seconds, s[i].seconds);
      }
      return best;
    };
    const std::vector<CcdStats> a = best_of(CcdMethod::Accd), r = best_of(CcdMethod::RootFinding),
                                iv = best_of(CcdMethod::Interval);

    std::ostringstream md;
    char date[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    md << "# CCD benchmark sample: ACCD vs root finding (and the interval inclusion CCD)\n\n"
       << "- command: `" << command << "`\n"
       << "- date: " << date << ", cores (nproc): " << sysconf(_SC_NPROCESSORS_ONLN) << "\n"
       << "- ACCD: C-IPC Algorithm 1, offset xi = 0, rescaling s = " << accd.s
       << " (a collision is reported when the pair comes within s * d0), max " << accd.max_iterations
       << " iterations\n"
       << "- root finding: coplanarity cubic + inside test with tolerance 1e-6 (floating point)\n"
       << "- interval: Boost.Interval inclusion CCD (conservative), tolerances 1e-6 in t, u, v\n"
       << "- us/query: CPU time of the CCD calls only, minimum over " << repeat << " runs\n\n"
       << "| scene | type | queries | positives | ACCD FN | ACCD FP | ACCD us/query | ACCD iters/query | root FN | root FP | "
          "root us/query | interval FN | interval FP | interval us/query |\n"
       << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    CcdStats ta, tr, ti;
    double worst_us = 0.0;
    std::string worst;
    char buf[512];
    for (size_t i = 0; i < a.size(); ++i) {
      const double ua = 1e6 * a[i].seconds / a[i].queries, ur = 1e6 * r[i].seconds / r[i].queries;
      if (ua > worst_us) worst_us = ua, worst = a[i].scene + " " + to_string(a[i].kind);
      std::snprintf(buf, sizeof buf,
                    "| %s | %s | %ld | %ld | %ld | %ld | %.2f | %.1f | %ld | %ld | %.2f | %ld | %ld | %.1f |\n",
                    a[i].scene.c_str(), to_string(a[i].kind), a[i].queries, a[i].positives, a[i].false_negatives,
                    a[i].false_positives, ua, double(a[i].iterations) / a[i].queries, r[i].false_negatives,
                    r[i].false_positives, ur, iv[i].false_negatives, iv[i].false_positives,
                    1e6 * iv[i].seconds / iv[i].queries);
      md << buf;
      ta.add(a[i]);
      tr.add(r[i]);
      ti.add(iv[i]);
    }
    std::snprintf(buf, sizeof buf,
                  "| **all** | | %ld | %ld | %ld | %ld | %.2f | %.1f | %ld | %ld | %.2f | %ld | %ld | %.1f |\n",
                  ta.queries, ta.positives, ta.false_negatives, ta.false_positives, 1e6 * ta.seconds / ta.queries,
                  double(ta.iterations) / ta.queries, tr.false_negatives, tr.false_positives,
                  1e6 * tr.seconds / tr.queries, ti.false_negatives, ti.false_positives, 1e6 * ti.seconds / ti.queries);
    md << buf;
    std::snprintf(buf, sizeof buf,
                  "\nSlowest ACCD scene: %s at %.2f us/query (target: < 20 us/query on average per scene).\n",
                  worst.c_str(), worst_us);
    md << buf;
    std::ofstream f(out_path);
    if (!f) throw InputError(out_path + ": cannot write");
    f << md.str();
    std::cout << md.str();
    return 0;
  } catch (const InputError& e) {
    std::cerr << "bench-ccd_queries: " << e.what() << "\n";
    return 2;
  }
}
