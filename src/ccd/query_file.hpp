// Reader for the CCD benchmark query files (Wang et al. 2021, "A Large Scale Benchmark and
// an Inclusion-Based Algorithm for Continuous Collision Detection"; DESIGN.md "CCD query
// files"). A CSV of 8-row queries; each row is
//   x_num,x_den,y_num,y_den,z_num,z_den,truth
// with integer numerators / denominators of any length. Rows 0-3 are the 4 vertices at t=0,
// rows 4-7 the same vertices at t=1 (vertex-face: point then triangle; edge-edge: edge a
// then edge b). `truth` is 0/1 and the same on all 8 rows.
//
// Coordinates are converted with one rounding: numerator and denominator are parsed with
// strtod (correctly rounded); a power-of-two denominator (the benchmark's case) is then
// applied exactly by ldexp, so a numerator that fits a double gives the exact rational.
// Malformed input throws InputError naming file and line.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace weft {

enum class QueryKind { VertexFace, EdgeEdge };

const char* to_string(QueryKind k);  // "vf" / "ee"

struct CcdQuery {
  std::array<Vec3, 4> x0;  // at t = 0
  std::array<Vec3, 4> x1;  // at t = 1
  bool truth = false;
  int line = 0;            // 1-based line of the query's first row
};

// num / den as a double (see above). Throws std::invalid_argument with a short reason.
double parse_rational(const std::string& num, const std::string& den);

std::vector<CcdQuery> read_query_file(const std::string& path);

}  // namespace weft
