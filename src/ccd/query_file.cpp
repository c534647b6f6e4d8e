#include "ccd/query_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "core/error.hpp"

namespace weft {

const char* to_string(QueryKind k) { return k == QueryKind::VertexFace ? "vf" : "ee"; }

namespace {

bool is_integer(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

}  // namespace

double parse_rational(const std::string& num, const std::string& den) {
  if (!is_integer(num)) throw std::invalid_argument("numerator '" + num + "' is not an integer");
  if (!is_integer(den)) throw std::invalid_argument("denominator '" + den + "' is not an integer");
  errno = 0;
  const double n = std::strtod(num.c_str(), nullptr);
  const double d = std::strtod(den.c_str(), nullptr);
  if (d == 0.0) throw std::invalid_argument("denominator is zero");
  if (!std::isfinite(n) || !std::isfinite(d)) throw std::invalid_argument("value " + num + "/" + den + " out of range");
  int e = 0;
  const double m = std::frexp(std::abs(d), &e);
  double v;
  if (m == 0.5) {  // |d| = 2^(e-1): exact scaling
    v = std::ldexp(n, -(e - 1));
    if (d < 0.0) v = -v;
  } else {
    v = n / d;
  }
  if (!std::isfinite(v)) throw std::invalid_argument("value " + num + "/" + den + " out of range");
  return v;
}

std::vector<CcdQuery> read_query_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open query file");
  std::vector<CcdQuery> out;
  std::string line;
  int lineno = 0, row = 0;
  CcdQuery q;
  auto fail = [&](const std::string& what) { throw InputError(path + ":" + std::to_string(lineno) + ": " + what); };
  while (std::getline(in, line)) {
    ++lineno;
    const std::string t = trim(line);
    if (t.empty()) continue;
    std::vector<std::string> f;
    size_t start = 0;
    for (;;) {
      const size_t c = t.find(',', start);
      f.push_back(trim(t.substr(start, c == std::string::npos ? std::string::npos : c - start)));
      if (c == std::string::npos) break;
      start = c + 1;
    }
    if (f.size() != 7)
      fail("expected 7 comma-separated fields x_num,x_den,y_num,y_den,z_num,z_den,truth, got " +
           std::to_string(f.size()));
    Vec3 v;
    for (int k = 0; k < 3; ++k) {
      try {
        v[k] = parse_rational(f[2 * k], f[2 * k + 1]);
      } catch (const std::invalid_argument& e) {
        fail(std::string("coordinate ") + "xyz"[k] + ": " + e.what());
      }
    }
    if (f[6] != "0" && f[6] != "1") fail("truth must be 0 or 1, got '" + f[6] + "'");
    const bool truth = f[6] == "1";
    if (row == 0) {
      q = CcdQuery();
      q.line = lineno;
      q.truth = truth;
    } else if (truth != q.truth) {
      fail("truth differs from the query's first row (line " + std::to_string(q.line) + ")");
    }
    (row < 4 ? q.x0[row] : q.x1[row - 4]) = v;
    if (++row == 8) {
      out.push_back(q);
      row = 0;
    }
  }
  if (in.bad()) throw InputError(path + ": read error");
  if (row != 0)
    throw InputError(path + ":" + std::to_string(lineno) + ": incomplete query (" + std::to_string(row) +
                     " of 8 rows) starting at line " + std::to_string(q.line));
  return out;
}

}  // namespace weft
