// weft-verify's checks (DESIGN.md "weft-verify"): library code; drivers/weft_verify.cpp
// only parses arguments and prints.
//
// Checks, each reported as one PASS/FAIL line with its worst value and where:
//   complete      root attribute "complete" present and 1 (else "file incomplete")
//   finite        every position of every frame finite (frames with a non-finite
//                 position are skipped by the geometric checks below)
//   strain        largest singular value of each strain-limited triangle's 3x2 deformation
//                 gradient F = [x1-x0, x2-x0] Dm^-1 <= strain_limit + tol_strain
//   (stitched vertex pairs, /mesh/stitches, count as one vertex for "sharing" below)
//   intersection  no two primitives sharing no vertex intersect: triangle-triangle and
//                 segment-triangle by exact closed predicates (touching counts);
//                 segment-segment when their distance < crossing_distance
//   distance      every pair of primitives sharing no vertex whose boxes, inflated by half
//                 their offsets + tol_distance, overlap: distance >= (xi_i+xi_j)/2 - tol_distance
//                 (intersecting pairs have distance 0). Reports the minimum gap
//                 (distance - offset) over those pairs.
//   inversion     every tet's signed volume has the sign of its rest volume (> 0 when the
//                 rest volume is 0); passes trivially without /mesh/tets
//   anisotropic   orthotropic triangles (/mesh/warp_direction non-zero): the stretch along
//                 warp |F d_warp| <= strain_limit_warp + tol_strain and along weft
//                 |F d_weft| <= strain_limit_weft + tol_strain (d_weft = n x d_warp at rest),
//                 where those limits are > 0; passes trivially without them
#pragma once
#include <mpi.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "verify/broad_phase.hpp"
#include "verify/result_file.hpp"

namespace weft::verify {

struct Options {
  double tol_distance = 1e-8;       // absolute, in length units
  double tol_strain = 1e-6;         // absolute, on the singular value
  double crossing_distance = 1e-12; // segment-segment pairs closer than this intersect
  // Contact pairs are examined in chunks of at most this many (lower) primitives, each with
  // a grid of its neighbourhood only: bounds the check's memory on large meshes. The
  // results do not depend on it.
  std::size_t chunk_primitives = std::size_t(1) << 20;
};

enum PrimKind : int { kTriangle = 0, kSegment = 1, kPoint = 2 };
const char* kind_name(int kind);

struct PairRef {
  int kind_a = -1, kind_b = -1;
  long a = -1, b = -1;  // index within /mesh/triangles, /mesh/segments or /mesh/points
};

// Accumulated over frames; trivially copyable so ranks can exchange it as bytes.
struct Stats {
  long frames = 0;  // frames examined
  // finite
  long nonfinite_frames = 0, nonfinite_frame = -1, nonfinite_vertex = -1;
  // strain
  long strain_checked = 0, strain_violations = 0, strain_frame = -1, strain_triangle = -1;
  double strain_excess = -1e300, strain_sigma = 0, strain_limit = 0;  // worst sigma - limit
  // intersection
  long candidate_pairs = 0, intersections = 0, intersection_frame = -1;
  PairRef intersection_pair;
  // distance
  long distance_pairs = 0, distance_violations = 0, distance_frame = -1;
  double distance_gap = 1e300, distance_value = 0, distance_offset = 0;
  PairRef distance_pair;
  // inversion
  long tet_checks = 0, inversions = 0, inversion_frame = -1, inversion_tet = -1;
  double inversion_ratio = 1e300;  // worst signed volume / rest volume
  // anisotropic (per-direction stretch of orthotropic triangles)
  long aniso_checked = 0, aniso_violations = 0, aniso_frame = -1, aniso_triangle = -1, aniso_direction = 0;
  double aniso_excess = -1e300, aniso_stretch = 0, aniso_limit = 0;  // worst stretch - limit
};

// Combines `from` into `into` (counts add; the worse value wins, ties go to the earlier frame,
// then to the lower pair, so the example named does not depend on how the work was split).
void merge(Stats& into, const Stats& from);
// Every process's `local` merged, on every process. Collective.
Stats merge_over(MPI_Comm comm, const Stats& local);
// Pair order for the examples: by (kind_a, a, kind_b, b).
bool lower_pair(const PairRef& p, const PairRef& q);

// Per-frame checker over one mesh: precomputes the rest shapes once.
class FrameChecker {
 public:
  FrameChecker(const ResultMesh& mesh, const Options& opt);
  // Checks positions x (one per vertex) of frame `frame`, accumulating into s.
  void check(long frame, const std::vector<Vec3>& x, Stats& s);
  // Tearing: the triangles' corners of the next frames (same count and rest shapes as
  // /mesh/triangles: a spare replaces a vertex with the same rest position). Adjacency,
  // contact and strain then use them; vertices no primitive references are ignored. A vertex
  // and a spare of it (by the corners' roots in /mesh/triangles) at bitwise one position are
  // one material point: primitives through the two are adjacent (the crack rule).
  void set_triangles(const std::vector<Tri>& tris);
  // Distributed checking (the simulator's initial check): this process examines only the
  // contact pairs whose lower primitive (triangles, segments, points, each by index) has
  // its first vertex in `mine`; merge_over of every process's Stats then gives the whole
  // check's counts and examples. Unset: every pair.
  void set_share(std::function<bool(int vertex)> mine) { mine_ = std::move(mine); }

  long strain_limited() const { return strain_limited_; }
  long degenerate_rest() const { return degenerate_rest_; }        // limited, zero rest area
  long first_degenerate_rest() const { return first_degenerate_; }
  long aniso_limited() const { return long(aniso_.size()); }  // orthotropic triangles with a warp/weft limit

 private:
  void check_strain(long frame, const std::vector<Vec3>& x, Stats& s) const;
  void check_tets(long frame, const std::vector<Vec3>& x, Stats& s) const;
  void check_aniso(long frame, const std::vector<Vec3>& x, Stats& s) const;
  void check_contact(long frame, const std::vector<Vec3>& x, Stats& s);

  struct Prim {
    int kind, n;  // n = vertex count
    long index;   // within its dataset
    int v[3];
    double offset;
  };

  const ResultMesh& mesh_;
  std::vector<Tri> tris_;  // current corners (mesh_.triangles unless set_triangles)
  Options opt_;
  std::vector<Prim> prims_;
  // Stitch partner per vertex (/mesh/stitches), -1 for none; empty without stitches. A
  // stitched pair is one vertex: primitives through the two count as adjacent.
  std::vector<int> twin_;
  // Tearing (set_triangles): per vertex its untorn-mesh vertex (core/material_point.hpp's
  // tear_roots); a vertex and a spare of it at bitwise one position are one material point,
  // so primitives through the two count as adjacent (the crack rule the simulator's final
  // self-collision check uses). Empty without tearing.
  std::vector<int> root_;
  std::vector<double> dm_inv_;  // 3 entries per triangle (upper-triangular 2x2), NaN = unlimited
  std::vector<double> rest_volume_;
  struct AnisoTri {
    long t;
    double m[4];          // (d_warp, d_weft)-frame rest edge matrix inverse, row-major
    double limit[2];      // warp, weft stretch ratios (0 = none)
  };
  std::vector<AnisoTri> aniso_;
  long strain_limited_ = 0, degenerate_rest_ = 0, first_degenerate_ = -1;
  // The grid's primitives' boxes (inflated, raw): every primitive's, or with set_share
  // those of near_ only, in near_'s order.
  std::vector<Aabb> boxes_, raw_;
  GridBroadPhase grid_;
  std::function<bool(int)> mine_;
  std::vector<char> share_;  // per primitive: examined here (set_share)
  std::vector<std::uint32_t> near_;  // set_share: the primitives in the grid, ascending
};

struct CheckLine {
  std::string name;
  bool pass = true;
  std::string message;  // text after the name, e.g. "worst 1.00998 (limit 1.01) at frame 12 triangle 345"
  std::vector<std::pair<std::string, double>> numbers;      // JSON fields
  std::vector<std::pair<std::string, std::string>> strings;  // JSON fields
};

struct Report {
  std::string file;
  long frames = 0;
  std::vector<CheckLine> checks;  // complete, finite, strain, intersection, distance, inversion, anisotropic
  bool pass() const;
  int exit_code() const { return pass() ? 0 : 1; }
  const CheckLine* find(const std::string& name) const;
};

// Runs every check on the result file `path`. Frames are split cyclically over the ranks of
// `comm` (collective); every rank returns the same report. Throws InputError (exit 2) for
// an unreadable file or dataset, on every rank.
Report verify_file(const std::string& path, const Options& opt = {}, MPI_Comm comm = MPI_COMM_SELF);

// The report from already-accumulated statistics (used by verify_file; public for tests).
Report make_report(const ResultFile& file, const FrameChecker& checker, const Stats& s,
                   const Options& opt);

std::string to_text(const Report& r);  // one line per check: "PASS strain  worst ..."
std::string to_json(const Report& r);  // {"file":..., "pass":..., "checks":[...]}

}  // namespace weft::verify
