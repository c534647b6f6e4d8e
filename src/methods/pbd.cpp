#include "methods/pbd.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <type_traits>

#include "constraints/colouring.hpp"
#include "constraints/dihedral_bending.hpp"
#include "constraints/distance.hpp"
#include "constraints/hierarchy.hpp"
#include "constraints/edge_strain_limit.hpp"
#include "constraints/isometric_bending.hpp"
#include "constraints/pressure.hpp"
#include "constraints/projection.hpp"
#include "constraints/registry.hpp"
#include "constraints/collision.hpp"
#include "constraints/rod_bending.hpp"
#include "core/error.hpp"
#include "core/material_point.hpp"
#include "core/motion.hpp"

namespace weft {

using PbdKind = ConstraintType;

// One constraint list (constraints/registry.hpp) built over every constraint (identically
// on every rank), then reduced to the ones this rank projects, with local vertex ids,
// sorted by (colour, global index).
struct PbdStepper::Group : ConstraintList {
  std::vector<int> global;         // global constraint index (input order)
  std::vector<char> counted;       // first vertex owned here: counted once in statistics
  std::vector<int> offsets;        // per colour, after reduction
  size_t lambda0 = 0;              // first multiplier in lambda_
};

namespace {

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in ") + what);
}

template <int N>
void gather(const double* x, const int* lv, Stencil3<N>& xs) {
  for (int a = 0; a < N; ++a) xs.col(a) = Eigen::Map<const Vec3>(x + 3 * lv[a]);
}

// Projects constraints [b, e) of one group (a fixed-size kernel, dispatched once per group).
// GS (acc == nullptr): corrections applied at once. Jacobi: summed into acc for the owned
// vertices, in this loop's order (the same at every rank count, see pbd.hpp).
// The sense is a template argument so the equality kernels keep their constant-folded
// projection (the unilateral one serves the hierarchical levels' coarse constraints).
template <int N, ConstraintSense sense, bool xpbd, class Eval>
void project_range_as(const PbdStepper::Group& g, int b, int e, double* x, const double* w, double* lambda,
                      double k_prime, double inv_h2, double* acc, int n_owned, Eval eval) {
  Stencil3<N> xs, grad, dx;
  VecN<N> ws;
  for (int i = b; i < e; ++i) {
    const int* lv = &g.verts[static_cast<size_t>(N) * i];
    gather<N>(x, lv, xs);
    for (int a = 0; a < N; ++a) ws[a] = w[lv[a]];
    const double C = eval(i, xs, &grad);
    if constexpr (xpbd)
      xpbd_project<N>(C, grad, ws, g.alpha[i] * inv_h2, &lambda[i], sense, &dx);
    else
      pbd_project<N>(C, grad, ws, k_prime, sense, &dx);
    if (acc) {
      for (int a = 0; a < N; ++a)
        if (lv[a] < n_owned) Eigen::Map<Vec3>(acc + 3 * lv[a]) += dx.col(a);
    } else {
      for (int a = 0; a < N; ++a) Eigen::Map<Vec3>(x + 3 * lv[a]) += dx.col(a);
    }
  }
}

// The sense and the method are template arguments so each kernel's loop is compiled with
// its projection inlined and no per-constraint branch on them.
template <int N, class Eval>
void project_range(const PbdStepper::Group& g, int b, int e, double* x, const double* w, double* lambda,
                   bool xpbd, double k_prime, double inv_h2, double* acc, int n_owned, Eval eval) {
  auto run = [&](auto sense, auto xp) {
    project_range_as<N, decltype(sense)::value, decltype(xp)::value>(g, b, e, x, w, lambda, k_prime, inv_h2, acc,
                                                                     n_owned, eval);
  };
  using Uni = std::integral_constant<ConstraintSense, ConstraintSense::Unilateral>;
  using Eq = std::integral_constant<ConstraintSense, ConstraintSense::Equality>;
  if (g.type == PbdKind::CoarseStretch)
    xpbd ? run(Uni{}, std::true_type{}) : run(Uni{}, std::false_type{});
  else
    xpbd ? run(Eq{}, std::true_type{}) : run(Eq{}, std::false_type{});
}

// The cloth's two kernels (stretch, dihedral bending; equality constraints) in their fused
// closed forms (constraints/distance.hpp, dihedral_bending.hpp): dx_i = -s w_i grad_i with
// PBD s = k' C / D (001 eq. 8), XPBD s = -dlambda (003 Alg. 2), D = sum_j w_j |grad_j|^2,
// the division taken as a product with the kernel's 1 / (D + alpha~).
// The same projection as project_range_as up to rounding, without its 3 x N temporaries.
// inv = 1 / (D + alpha~) (alpha~ = 0 for PBD), computed by the kernel off the critical path.
template <bool xpbd>
[[gnu::always_inline]] inline double fused_scale(double C, double inv, double k_prime, double alpha_tilde,
                                                 double* lambda) {
  if constexpr (xpbd) {
    const double dlambda = -(C + alpha_tilde * *lambda) * inv;
    *lambda += dlambda;
    return -dlambda;
  } else {
    return k_prime * C * inv;
  }
}

// Adds dx to vertex l: at once (Gauss-Seidel) or into the owned accumulator (Jacobi).
template <bool jacobi>
[[gnu::always_inline]] inline void apply(double* x, double* acc, int n_owned, int l, double d0, double d1,
                                         double d2) {
  if (jacobi && l >= n_owned) return;
  double* p = jacobi ? acc + 3 * l : x + 3 * l;
  p[0] += d0, p[1] += d1, p[2] += d2;
}

// The fused loop over constraints [b, e) of an N-vertex group: kernel(i, lv, ws, at, scale,
// add) evaluates constraint i (local vertices lv, inverse masses ws, alpha~ at), gets s from
// scale(C, 1 / (D + alpha~)) and adds vertex a's correction by add(a, dx).
template <int N, bool xpbd, bool jacobi, class Kernel>
[[gnu::always_inline]] inline void project_fused(const PbdStepper::Group& g, int b, int e, double* x, const double* w,
                                                 double* lambda, double k_prime, double inv_h2, double* acc,
                                                 int n_owned, Kernel&& kernel) {
  for (int i = b; i < e; ++i) {
    const int* lv = &g.verts[N * static_cast<size_t>(i)];
    double ws[N];
    for (int a = 0; a < N; ++a) ws[a] = w[lv[a]];
    const double at = xpbd ? g.alpha[i] * inv_h2 : 0.0;
    auto scale = [&](double C, double inv) __attribute__((always_inline)) { return fused_scale<xpbd>(C, inv, k_prime, at, &lambda[i]); };
    auto add = [&](int a, double d0, double d1, double d2) __attribute__((always_inline)) { apply<jacobi>(x, acc, n_owned, lv[a], d0, d1, d2); };
    kernel(i, lv, ws, at, scale, add);
  }
}

// Projects [b, e) of g by its kernel: project_fused for stretch and dihedral, the generic
// project_range for the rest.
void project_group(const PbdStepper::Group& g, int b, int e, double* x, const double* w, double* lambda, bool xpbd,
                   double k_prime, double inv_h2, double* acc, int n_owned, const PbdSpec& spec);

// Calls f(i, xs, grad) -> C for the group's kernel.
template <class F>
void with_kernel(const PbdStepper::Group& g, bool xpbd, const PbdSpec& spec, F&& f) {
  switch (g.type) {
    case PbdKind::Stretch:
      f(std::integral_constant<int, 2>{}, [&](int i, const Stencil3<2>& xs, Stencil3<2>* gr) {
        return distance_constraint(xs, g.rest[i], gr);
      });
      break;
    case PbdKind::Clamp: {
      const double lo = spec.strain_min, hi = spec.strain_max;
      f(std::integral_constant<int, 2>{}, [&, lo, hi](int i, const Stencil3<2>& xs, Stencil3<2>* gr) {
        return edge_strain_limit_constraint(xs, g.rest[i], lo, hi, gr);
      });
      break;
    }
    case PbdKind::Dihedral:
      f(std::integral_constant<int, 4>{}, [&](int i, const Stencil3<4>& xs, Stencil3<4>* gr) {
        return dihedral_bending_constraint(xs, DihedralRest{g.rest[i]}, gr);
      });
      break;
    case PbdKind::Isometric:
      // PBD projects eq. 5's C; XPBD its square root, whose C^2 / (2 alpha) is the energy.
      if (xpbd)
        f(std::integral_constant<int, 4>{}, [&](int i, const Stencil3<4>& xs, Stencil3<4>* gr) {
          return isometric_bending_xpbd_constraint(xs, g.iso[i], gr);
        });
      else
        f(std::integral_constant<int, 4>{}, [&](int i, const Stencil3<4>& xs, Stencil3<4>* gr) {
          return isometric_bending_constraint(xs, g.iso[i], gr);
        });
      break;
    case PbdKind::CoarseStretch:
      f(std::integral_constant<int, 2>{}, [&](int i, const Stencil3<2>& xs, Stencil3<2>* gr) {
        const double c = distance_constraint(xs, g.rest[i], gr);
        if (gr) *gr = -*gr;
        return -c;
      });
      break;
    case PbdKind::RodBend:
      f(std::integral_constant<int, 3>{}, [&](int i, const Stencil3<3>& xs, Stencil3<3>* gr) {
        return three_point_bending_constraint(xs, ThreePointBendRest{g.rest[i]}, gr);
      });
      break;
  }
}

void project_group(const PbdStepper::Group& g, int b, int e, double* x, const double* w, double* lambda, bool xpbd,
                   double k_prime, double inv_h2, double* acc, int n_owned, const PbdSpec& spec) {
  // Stretch: grad_0 = -d / |d|, grad_1 = d / |d|.
  auto stretch = [&](int i, const int* lv, const double* ws, double at, auto& scale, auto& add)
                     __attribute__((always_inline)) {
    DistanceFused f;
    if (!distance_fused(x + 3 * lv[0], x + 3 * lv[1], g.rest[i], ws[0], ws[1], at, f)) return;
    const double s = scale(f.C, f.inv);
    const double f0 = s * ws[0] * f.inv_len, f1 = -s * ws[1] * f.inv_len;
    add(0, f0 * f.d[0], f0 * f.d[1], f0 * f.d[2]);
    add(1, f1 * f.d[0], f1 * f.d[1], f1 * f.d[2]);
  };
  // Dihedral: grad_a = cA[a] nA + cB[a] nB.
  auto dihedral = [&](int i, const int* lv, const double* ws, double at, auto& scale, auto& add)
                      __attribute__((always_inline)) {
    DihedralFused f;
    if (!dihedral_bending_fused(x + 3 * lv[0], x + 3 * lv[1], x + 3 * lv[2], x + 3 * lv[3], g.rest[i], ws, at, f))
      return;
    const double s = scale(f.C, f.inv);
    for (int a = 0; a < 4; ++a) {
      const double ca = -s * ws[a] * f.cA[a], cb = -s * ws[a] * f.cB[a];
      add(a, ca * f.nA[0] + cb * f.nB[0], ca * f.nA[1] + cb * f.nB[1], ca * f.nA[2] + cb * f.nB[2]);
    }
  };
  auto fused = [&](auto xp, auto jac) {
    constexpr bool X = decltype(xp)::value, J = decltype(jac)::value;
    if (g.type == PbdKind::Stretch)
      project_fused<2, X, J>(g, b, e, x, w, lambda, k_prime, inv_h2, acc, n_owned, stretch);
    else
      project_fused<4, X, J>(g, b, e, x, w, lambda, k_prime, inv_h2, acc, n_owned, dihedral);
  };
  if (g.type == PbdKind::Stretch || g.type == PbdKind::Dihedral) {
    if (xpbd)
      acc ? fused(std::true_type{}, std::true_type{}) : fused(std::true_type{}, std::false_type{});
    else
      acc ? fused(std::false_type{}, std::true_type{}) : fused(std::false_type{}, std::false_type{});
    return;
  }
  with_kernel(g, xpbd, spec, [&](auto N, auto eval) {
    project_range<decltype(N)::value>(g, b, e, x, w, lambda, xpbd, k_prime, inv_h2, acc, n_owned, eval);
  });
}

// A vertex inside an obstacle triangle's region: barycentric coordinates of its projection
// all >= -kInside (a small overlap so that a vertex over a convex edge meets both faces).
constexpr double kInside = 0.05;

}  // namespace

PbdStepper::PbdStepper(const Scene& scene, const LocalView& lv, bool xpbd)
    : scene_(scene), lv_(lv), xpbd_(xpbd), spec_(xpbd ? scene.spec.xpbd : scene.spec.pbd) {
  // An object moves by its constraints: refused when no registration serves it.
  {
    const std::vector<Vec3> none;
    require_constraints(ConstraintBuild{scene, spec_, xpbd_, none});
  }
  n_owned_ = lv.num_owned();
  input_key_ = scene.input_of_solver.to_vector();
  solver_of_input_ = scene.solver_of_input.to_vector();
  if (!xpbd_) {
    k_stretch_ = pbd_stiffness(spec_.stretch_stiffness, spec_.iterations);
    k_bend_ = pbd_stiffness(spec_.bending_stiffness, spec_.iterations);
  }
  tear_ = scene.tear_stretch();
  if (tear_ > 0) {
    const Scene& s = scene_;
    tm_.triangles = s.triangles.whole();
    tm_.triangle_object = s.triangle_object.to_vector();
    tm_.mass = s.mass.to_vector();
    tm_.rest = s.rest.to_vector();
    tm_.fixed.resize(s.num_vertices);
    tm_.key = input_key_;
    for (int v = 0; v < s.num_vertices; ++v) tm_.fixed[v] = s.kinematic(v);
    for (const ObjectParams& o : s.objects) {
      tm_.tearable.push_back(o.spare_count > 0);
      tm_.spares.emplace_back();
      for (int k = 0; k < o.spare_count; ++k) tm_.spares.back().push_back(s.solver_of(o.spare_first + k));
      tm_.used.push_back(0);
    }
  }
  build_constraints();

  // State: ghosted Vecs over our own storage (lv's local vertices first, as the run loop
  // and restart expect, then the extra ghosts our constraints reach).
  n_local_ = n_owned_ + static_cast<int>(ghosts_.size());
  xs_.assign(3 * n_local_, 0.0);
  vs_.assign(3 * n_local_, 0.0);
  for (int l = 0; l < n_local_; ++l) {
    const int v = l < n_owned_ ? lv.vbegin + l : ghosts_[l - n_owned_];
    for (int d = 0; d < 3; ++d) xs_[3 * l + d] = scene.rest[v][d], vs_[3 * l + d] = scene.velocity0(v)[d];
  }
  std::vector<PetscInt> gh(ghosts_.begin(), ghosts_.end());
  check(VecCreateGhostBlockWithArray(lv.comm, 3, 3 * n_owned_, PETSC_DECIDE, static_cast<PetscInt>(gh.size()),
                                     gh.data(), xs_.data(), &x_),
        "VecCreateGhostBlockWithArray");
  check(VecCreateGhostBlockWithArray(lv.comm, 3, 3 * n_owned_, PETSC_DECIDE, static_cast<PetscInt>(gh.size()),
                                     gh.data(), vs_.data(), &v_),
        "VecCreateGhostBlockWithArray");
  w_.assign(n_local_, 0.0);
  object_of_local_.resize(n_local_);
  for (int l = 0; l < n_local_; ++l) {
    const int v = l < n_owned_ ? lv.vbegin + l : ghosts_[l - n_owned_];
    object_of_local_[l] = scene.vertex_object[v];
    if (!scene.kinematic(v) && mass(v) > 0) w_[l] = 1.0 / mass(v);  // (an unused spare: 0)
  }
  acc_.assign(3 * n_owned_, 0.0);
  pgrad_.assign(balloons_.empty() ? 0 : 3 * n_local_, 0.0);
  x_old_.assign(3 * n_local_, 0.0);
  v_old_.assign(3 * n_local_, 0.0);
  build_collision_surface_();

  if (spec_.chebyshev) {
    rho_ = spec_.chebyshev_rho;
    cheb_prev_.assign(3 * n_owned_, 0.0);
    cheb_cur_.assign(3 * n_owned_, 0.0);
    cheb_contact_.assign(n_owned_, 0);
  }
  self_ = spec_.self_collision;
  if (self_) {
    const Scene& s = scene_;
    const int n = s.num_vertices;
    build_self_();
    for (int r = 0; r < lv.ranks; ++r) {
      gather_counts_.push_back(3 * (s.vertex_range[r + 1] - s.vertex_range[r]));
      gather_displs_.push_back(3 * s.vertex_range[r]);
    }
    if (lv.ranks > 1) xg0_.assign(3 * n, 0.0), xg_.assign(3 * n, 0.0);
    sc_acc_.assign(3 * n_owned_, 0.0);
    sc_cnt_.assign(n_owned_, 0);
    sc_reverted_.assign(n, 0);
  }
}

// The self-collision primitives: the current triangles and the vertices in use of every
// object that is not scripted (an unused spare is in no element: it neither collides nor
// pushes).
void PbdStepper::build_self_() {
  const Scene& s = scene_;
  const int n = s.num_vertices;
  auto owned = [&](int v) { return v >= lv_.vbegin && v < lv_.vend; };
  sc_tris_.clear(), sc_tri_all_.clear(), sc_tri_own_.clear(), sc_verts_all_.clear(), sc_verts_own_.clear();
  const std::vector<Tri>& T = tris();
  for (size_t t = 0; t < T.size(); ++t) {
    if (s.objects[s.triangle_object[t]].scripted) continue;  // obstacles: own constraints
    const Tri& tr = T[t];
    sc_tri_all_.push_back(static_cast<int>(sc_tris_.size()));
    if (owned(tr[0]) || owned(tr[1]) || owned(tr[2])) sc_tri_own_.push_back(static_cast<int>(sc_tris_.size()));
    sc_tris_.push_back(tr);
  }
  sc_rings_ = vertex_rings(sc_tris_, n);
  // The crack rule's roots (core/material_point.hpp): empty without tearing.
  sc_root_.clear();
  if (tear_ > 0) sc_root_ = tear_roots(s.triangles.whole(), T, n);
  sc_edges_ = self_collision_edges(sc_tris_, input_key_);
  sc_patches_.build(sc_tris_, sc_edges_, s.rest);
  sc_edge_own_.clear();
  for (size_t e = 0; e < sc_edges_.size(); ++e)
    if (owned(sc_edges_[e][0]) || owned(sc_edges_[e][1])) sc_edge_own_.push_back(static_cast<int>(e));
  w_global_.assign(n, 0.0);
  for (int v = 0; v < n; ++v) {
    if (s.objects[s.vertex_object[v]].scripted || !(mass(v) > 0)) continue;
    if (!s.kinematic(v)) w_global_[v] = 1.0 / mass(v);
    sc_verts_all_.push_back(v);
    if (owned(v)) sc_verts_own_.push_back(v);
  }
}

long PbdStepper::torn() const {
  long k = 0;
  for (int u : tm_.used) k += u;
  return k;
}

// A tearing pass (constraints/tearing.hpp) on the positions every rank holds whole (all
// vertices are local when tearing): the same splits everywhere. A spare starts as a copy of
// its vertex (position, velocity, BDF2 history). hold_sent_back: the vertices the previous
// substep's final check sent back (held at their start while their neighbours moved on) are
// stretched by the hold, not by the material; they do not split in this pass (the edge's
// other end may). Splitting one left the vertex and its spare at one point that the check
// kept sending back (the separation's moves crossed the held, tangled neighbourhood): on
// xpbd cases/tear.yaml a frame ended with the crack's two fans touching there, which
// weft-verify counts as an intersection. Only within a step (a restart knows no previous
// substep), from the gathered check: the same on every rank.
void PbdStepper::tear_pass_(bool hold_sent_back) {
  const int n = scene_.num_vertices;
  std::vector<Vec3> x(n, Vec3::Zero());
  for (int l = 0; l < n_local_; ++l) {
    const int v = l < n_owned_ ? lv_.vbegin + l : ghosts_[l - n_owned_];
    x[v] = Eigen::Map<const Vec3>(&xs_[3 * l]);
  }
  bool exhausted = false;
  const std::vector<TearSplit> splits =
      tear_pass(tm_, x, tear_, &exhausted, self_ && hold_sent_back ? &sc_reverted_ : nullptr);
  if (exhausted && !tear_warned_) {
    tear_warned_ = true;
    if (lv_.rank == 0)
      std::fprintf(stderr, "weft: warning: %s.tear_stretch: the spare vertices are used up (%ld); tearing stops\n",
                   xpbd_ ? "xpbd" : "pbd", torn());
  }
  if (splits.empty()) return;
  for (const TearSplit& sp : splits) {
    const int a = local_of_global_[sp.vertex], b = local_of_global_[sp.spare];
    for (int d = 0; d < 3; ++d) {
      xs_[3 * b + d] = xs_[3 * a + d], vs_[3 * b + d] = vs_[3 * a + d];
      x_old_[3 * b + d] = x_old_[3 * a + d], v_old_[3 * b + d] = v_old_[3 * a + d];
    }
  }
  rebuild_();
  if (self_) separate_split_(splits, x);
}

// A split leaves the vertex and its spare at one point, where the crack's two fans touch: an
// intersection for weft-verify (touching counts) and no side for the self-collision pairs
// between the fans (the signed distance is 0), so the fans could fold through each other at
// the crack and the final check, sending them back to the split, kept them touching. Each of
// the two moves a thousandth of the way towards the mean centroid of its own fan (into its
// own sheet, away from the other side of the split plane), giving both sides a position of
// their own. A move that makes a crossing with any other cloth edge or triangle (exact check,
// find_new_crossings from the positions before) is undone, until none is left. A pure
// function of the gathered positions and the topology: the same on every rank.
void PbdStepper::separate_split_(const std::vector<TearSplit>& splits, const std::vector<Vec3>& xin) {
  const int n = scene_.num_vertices;
  constexpr double kFraction = 1e-3;
  std::vector<Vec3> centroid(n, Vec3::Zero());
  std::vector<int> count(n, 0);
  std::vector<char> moved(n, 0);
  for (const TearSplit& sp : splits) moved[sp.vertex] = moved[sp.spare] = 1;
  for (const Tri& t : sc_tris_) {
    const Vec3 c = (xin[t[0]] + xin[t[1]] + xin[t[2]]) / 3.0;
    for (int v : t)
      if (moved[v]) centroid[v] += c, ++count[v];
  }
  std::vector<double> x0(3 * static_cast<size_t>(n)), x1;
  for (int v = 0; v < n; ++v)
    for (int d = 0; d < 3; ++d) x0[3 * v + d] = xin[v][d];
  x1 = x0;
  for (int v = 0; v < n; ++v) {
    if (!moved[v]) continue;
    if (count[v] == 0 || w_global_[v] == 0) {
      moved[v] = 0;
      continue;
    }
    const Vec3 step = kFraction * (centroid[v] / count[v] - xin[v]);
    for (int d = 0; d < 3; ++d) x1[3 * v + d] += step[d];
  }
  std::vector<std::array<int, 2>> crossings;
  for (;;) {
    find_new_crossings(sc_tris_, sc_edges_, x0.data(), x1.data(), crossings, &moved, nullptr, &sc_root_);
    int undone = 0;
    for (const auto& c : crossings) {
      const Edge& e = sc_edges_[c[0]];
      const Tri& t = sc_tris_[c[1]];
      for (int v : {e[0], e[1], t[0], t[1], t[2]})
        if (moved[v] && (x1[3 * v] != x0[3 * v] || x1[3 * v + 1] != x0[3 * v + 1] || x1[3 * v + 2] != x0[3 * v + 2])) {
          for (int d = 0; d < 3; ++d) x1[3 * v + d] = x0[3 * v + d];
          ++undone;
        }
    }
    if (undone == 0) break;
  }
  for (int l = 0; l < n_local_; ++l) {
    const int v = l < n_owned_ ? lv_.vbegin + l : ghosts_[l - n_owned_];
    if (!moved[v]) continue;
    for (int d = 0; d < 3; ++d) {
      const double dx = x1[3 * v + d] - x0[3 * v + d];
      xs_[3 * l + d] += dx, x_old_[3 * l + d] += dx;  // the history moves along: no velocity
    }
  }
}

// Everything built from the topology, masses and rest positions, again (the colouring from
// the constraints' input-order numbering: the same at every rank count). The ghost set is
// every vertex, so the Vecs stay.
void PbdStepper::rebuild_() {
  groups_.clear();
  levels_.clear();
  balloons_.clear();
  const std::vector<int> before = ghosts_;
  build_constraints();
  if (ghosts_ != before)
    throw RuntimeFailure("pbd tearing: the ghost set changed (" + std::to_string(before.size()) + " -> " + std::to_string(ghosts_.size()) + ")");
  for (int l = 0; l < n_local_; ++l) {
    const int v = l < n_owned_ ? lv_.vbegin + l : ghosts_[l - n_owned_];
    w_[l] = !scene_.kinematic(v) && mass(v) > 0 ? 1.0 / mass(v) : 0.0;
  }
  pgrad_.assign(balloons_.empty() ? 0 : 3 * n_local_, 0.0);
  build_collision_surface_();
  if (self_) build_self_();
}

PbdStepper::~PbdStepper() {
  VecDestroy(&x_);
  VecDestroy(&v_);
}

void PbdStepper::build_constraints() {
  const Scene& s = scene_;
  const int n = s.num_vertices;
  std::vector<Vec3> Xin(n);
  const VertexSpan<Vec3> X = rest();
  for (int i = 0; i < n; ++i) Xin[i] = X[solver_of_input_[i]];

  ConstraintLists lists(spec_);
  weft::build_constraints(ConstraintBuild{s, spec_, xpbd_, Xin, tear_ > 0 ? &tm_.triangles : nullptr}, lists);
  for (ConstraintList* l : {&lists.stretch, &lists.bend, &lists.rod_bend, &lists.clamp}) {
    groups_.push_back(std::make_unique<Group>());
    static_cast<ConstraintList&>(*groups_.back()) = std::move(*l);
  }
  const Group* stretch = groups_[0].get();
  for (VolumeConstraint& v : lists.volumes) balloons_.push_back({v.object, v.target, std::move(v.tris), {}});

  // Obstacle candidates reach one mean rest edge beyond the thickness, so vertices that
  // the projections drag sideways into an obstacle meet its faces too (summed over every
  // constraint in input order: the same at every rank count).
  double lsum = 0.0;
  for (double L : stretch->rest) lsum += L;
  collision_margin_ = stretch->size() > 0 ? lsum / stretch->size() : 0.0;

  // Colouring over every constraint, global index = position in the concatenation.
  ConstraintStencils cs;
  for (const auto& g : groups_) {
    g->global.resize(g->size());
    for (int i = 0; i < g->size(); ++i) {
      g->global[i] = cs.size();
      const int* v = &g->verts[static_cast<size_t>(g->arity) * i];
      cs.vertices.insert(cs.vertices.end(), v, v + g->arity);
      cs.offsets.push_back(static_cast<int>(cs.vertices.size()));
    }
  }
  std::vector<char> dynamic(n);
  for (int v = 0; v < n; ++v) dynamic[v] = !s.kinematic(v);
  const std::vector<int> colour = colour_constraints(cs, dynamic, ColourPriority::Index);
  num_colours_ = colour_count(colour);
  num_constraints_ = cs.size();

  // Keep what this rank projects (a dynamic vertex owned here) or counts (first vertex
  // owned here); collect the ghosts; sort by (colour, global index); local ids.
  auto owned = [&](int v) { return v >= lv_.vbegin && v < lv_.vend; };
  ghosts_ = lv_.ghosts;
  local_of_global_.assign(n, -1);  // (PBD's own table: its tearing pass reaches every vertex)
  for (int l = 0; l < lv_.num_local(); ++l) local_of_global_[lv_.global_of_local(l)] = l;
  std::vector<int> extra;
  auto reduce = [&](std::vector<std::unique_ptr<Group>>& groups, const std::vector<int>& colour, int ncol,
                    std::vector<int>& count) {
  for (auto& gp : groups) {    Group& g = *gp;
    const int a = g.arity;
    std::vector<int> keep;
    for (int i = 0; i < g.size(); ++i) {
      const int* v = &g.verts[static_cast<size_t>(a) * i];
      bool mine = owned(v[0]);
      for (int k = 0; k < a; ++k) mine = mine || (owned(v[k]) && dynamic[v[k]]);
      if (!mine) continue;
      keep.push_back(i);
      for (int k = 0; k < a; ++k) {
        if (!owned(v[k]) && local_of_global_[v[k]] < 0) extra.push_back(v[k]), local_of_global_[v[k]] = -2;
        if (owned(v[k]) && dynamic[v[k]] && g.type != PbdKind::Clamp) ++count[v[k] - lv_.vbegin];
      }
    }
    std::stable_sort(keep.begin(), keep.end(), [&](int x, int y) {
      return colour[g.global[x]] < colour[g.global[y]] || (colour[g.global[x]] == colour[g.global[y]] && x < y);
    });
    Group r;
    r.type = g.type, r.arity = a;
    r.offsets.assign(ncol + 1, 0);
    for (int i : keep) {
      const int* v = &g.verts[static_cast<size_t>(a) * i];
      for (int k = 0; k < a; ++k) r.verts.push_back(v[k]);
      r.rest.push_back(g.rest[i]), r.alpha.push_back(g.alpha[i]), r.alpha_e.push_back(g.alpha_e[i]);
      if (!g.iso.empty()) r.iso.push_back(g.iso[i]);
      r.global.push_back(g.global[i]);
      r.counted.push_back(owned(v[0]));
      ++r.offsets[colour[g.global[i]] + 1];
    }
    std::partial_sum(r.offsets.begin(), r.offsets.end(), r.offsets.begin());
    g = std::move(r);
  }
  };
  std::vector<Edge> e0;  // every stretch constraint (before the reduction to this rank's)
  if (spec_.levels > 1)
    for (int i = 0; i < stretch->size(); ++i) e0.push_back({stretch->verts[2 * i], stretch->verts[2 * i + 1]});
  std::vector<int> count(n_owned_, 0);
  reduce(groups_, colour, num_colours_, count);
  // Hierarchical levels (003 sec. 4.3): built over the stretch constraints' graph in input
  // order, each level's constraints coloured on their own.
  if (spec_.levels > 1) {
    for (HierarchyLevel& H : build_hierarchy(e0, rest(), input_key_, spec_.levels)) {
      CoarseLevel L;
      L.groups.push_back(std::make_unique<Group>());
      Group& g = *L.groups.back();
      g.type = PbdKind::CoarseStretch, g.arity = 2;
      ConstraintStencils lcs;
      for (size_t k = 0; k < H.edges.size(); ++k) {
        g.add({H.edges[k][0], H.edges[k][1]}, H.rest[k], 0.0, 0.0);
        g.global.push_back(static_cast<int>(k));
        lcs.add({H.edges[k][0], H.edges[k][1]});
      }
      const std::vector<int> lcol = colour_constraints(lcs, dynamic, ColourPriority::Index);
      L.colours = colour_count(lcol);
      std::vector<int> lcount(n_owned_, 0);
      reduce(L.groups, lcol, L.colours, lcount);
      L.inv_count.resize(n_owned_);
      for (int l = 0; l < n_owned_; ++l) L.inv_count[l] = lcount[l] > 0 ? 1.0 / lcount[l] : 0.0;
      for (size_t c = 0; c < H.children.size(); ++c) {
        const int v = H.children[c];
        if (!owned(v) || !dynamic[v]) continue;
        L.child.push_back(v);
        for (int k = H.parent_start[c]; k < H.parent_start[c + 1]; ++k) {
          const int p = H.parents[k];
          L.parent.push_back(p), L.weight.push_back(H.weights[k]);
          if (!owned(p) && local_of_global_[p] < 0) extra.push_back(p), local_of_global_[p] = -2;
        }
        L.parent_start.push_back(static_cast<int>(L.parent.size()));
      }
      levels_.push_back(std::move(L));
    }
  }
  // Balloons: keep the triangles that touch an owned vertex (so owned vertices' gradients
  // are complete); count in C those whose first vertex is owned (each triangle once).
  balloon_of_object_.assign(s.objects.size(), -1);
  for (size_t bi = 0; bi < balloons_.size(); ++bi) {
    Balloon& b = balloons_[bi];
    balloon_of_object_[b.object] = static_cast<int>(bi);
    std::vector<int> kept;
    for (size_t t = 0; t < b.tris.size() / 3; ++t) {
      const int* v = &b.tris[3 * t];
      if (!owned(v[0]) && !owned(v[1]) && !owned(v[2])) continue;
      for (int k = 0; k < 3; ++k) {
        kept.push_back(v[k]);
        if (!owned(v[k]) && local_of_global_[v[k]] < 0) extra.push_back(v[k]), local_of_global_[v[k]] = -2;
      }
      b.counted.push_back(owned(v[0]));
    }
    b.tris = std::move(kept);
  }
  // Tearing: every vertex is local, so each rank runs the same tearing pass on the same
  // positions and the ghost set never changes.
  if (tear_ > 0)
    for (int v = 0; v < n; ++v)
      if (!owned(v) && local_of_global_[v] == -1) extra.push_back(v), local_of_global_[v] = -2;
  // (-2 marks a vertex already collected; a vertex reached through several constraints is
  // pushed once per constraint, so keep one of each.)
  std::sort(extra.begin(), extra.end());
  extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
  for (int v : extra) {
    local_of_global_[v] = n_owned_ + static_cast<int>(ghosts_.size());
    ghosts_.push_back(v);
  }
  for (Balloon& b : balloons_)
    for (int& v : b.tris) v = local_of_global_[v];
  size_t nl = 0;
  for (auto& g : groups_) {
    for (int& v : g->verts) v = local_of_global_[v];
    g->lambda0 = nl;
    nl += g->size();
  }
  for (CoarseLevel& L : levels_) {
    for (auto& g : L.groups) {
      for (int& v : g->verts) v = local_of_global_[v];
      g->lambda0 = nl;
      nl += g->size();
    }
    for (int& v : L.child) v = local_of_global_[v];
    for (int& v : L.parent) v = local_of_global_[v];
  }
  lambda_.assign(nl, 0.0);
  inv_count_.resize(n_owned_);
  for (int l = 0; l < n_owned_; ++l) inv_count_[l] = count[l] > 0 ? 1.0 / count[l] : 0.0;
}

void PbdStepper::build_collision_surface_() {
  const Scene& s = scene_;
  std::vector<Tri> tris;
  std::vector<int> tobj, points, pobj;
  for (size_t t = 0; t < s.triangles.size(); ++t)
    if (s.objects[s.triangle_object[t]].scripted)  // obstacles: they follow their motion
      tris.push_back(s.triangles[t]), tobj.push_back(s.triangle_object[t]);
  has_obstacles_ = !tris.empty();
  // Contact keeps a vertex at least this far from an obstacle triangle's plane: the case's
  // thickness, at least contact.dhat (a positive gap decides the side robustly).
  collision_thickness_ = std::max(spec_.thickness, s.spec.dhat);
  if (!has_obstacles_ || !s.spec.contact_enabled) {
    has_obstacles_ = false;
    return;
  }
  kinematic_.assign(s.num_vertices, 0);
  point_filter_.assign(s.num_vertices, 0);
  for (int v = 0; v < s.num_vertices; ++v) {
    kinematic_[v] = s.kinematic(v);
    if (!s.kinematic(v) && mass(v) > 0) {  // (a scripted object's vertices are all kinematic; an unused spare: none)
      points.push_back(v), pobj.push_back(s.vertex_object[v]);
      point_filter_[v] = v >= lv_.vbegin && v < lv_.vend;
    }
  }
  std::vector<double> offsets(s.objects.size(), 0.0);
  surface_ = build_collision_surface(std::move(tris), std::move(tobj), offsets, s.num_vertices, {}, {}, points, pobj);
}

void PbdStepper::ghost_update(Vec v) {
  if (lv_.ranks == 1) return;
  check(VecGhostUpdateBegin(v, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateBegin");
  check(VecGhostUpdateEnd(v, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateEnd");
}

// 001 sec. 3.5: per object, v_i += k (v_cm + omega x r_i - v_i), omega = I^-1 L: damps every
// velocity except the object's rigid translation and rotation.
void PbdStepper::damp(std::vector<double>& vel) {
  const int no = static_cast<int>(scene_.objects.size());
  std::vector<double> a(7 * no, 0.0);
  for (int l = 0; l < n_owned_; ++l) {
    if (w_[l] == 0) continue;
    const int o = object_of_local_[l];
    const double m = 1.0 / w_[l];
    a[7 * o] += m;
    for (int d = 0; d < 3; ++d) a[7 * o + 1 + d] += m * xs_[3 * l + d], a[7 * o + 4 + d] += m * vel[3 * l + d];
  }
  MPI_Allreduce(MPI_IN_PLACE, a.data(), 7 * no, MPI_DOUBLE, MPI_SUM, lv_.comm);
  std::vector<double> b(9 * no, 0.0);
  for (int l = 0; l < n_owned_; ++l) {
    if (w_[l] == 0) continue;
    const int o = object_of_local_[l];
    const double m = 1.0 / w_[l];
    const Vec3 r = Eigen::Map<const Vec3>(&xs_[3 * l]) - Eigen::Map<const Vec3>(&a[7 * o + 1]) / a[7 * o];
    const Vec3 L = r.cross(m * Eigen::Map<const Vec3>(&vel[3 * l]));
    for (int d = 0; d < 3; ++d) b[9 * o + d] += L[d];
    // r~ r~^T = |r|^2 I - r r^T, upper triangle
    const double rr = r.squaredNorm();
    b[9 * o + 3] += m * (rr - r[0] * r[0]), b[9 * o + 4] += m * (rr - r[1] * r[1]);
    b[9 * o + 5] += m * (rr - r[2] * r[2]), b[9 * o + 6] -= m * r[0] * r[1];
    b[9 * o + 7] -= m * r[0] * r[2], b[9 * o + 8] -= m * r[1] * r[2];
  }
  MPI_Allreduce(MPI_IN_PLACE, b.data(), 9 * no, MPI_DOUBLE, MPI_SUM, lv_.comm);
  std::vector<Vec3> omega(no, Vec3::Zero());
  for (int o = 0; o < no; ++o) {
    if (!(a[7 * o] > 0)) continue;
    Mat3 I;
    I << b[9 * o + 3], b[9 * o + 6], b[9 * o + 7], b[9 * o + 6], b[9 * o + 4], b[9 * o + 8], b[9 * o + 7],
        b[9 * o + 8], b[9 * o + 5];
    // Pseudo-inverse: a straight rod has no inertia about its axis.
    omega[o] = I.completeOrthogonalDecomposition().solve(Eigen::Map<const Vec3>(&b[9 * o]));
  }
  const double k = spec_.damping;
  for (int l = 0; l < n_owned_; ++l) {
    if (w_[l] == 0) continue;
    const int o = object_of_local_[l];
    const Vec3 xcm = Eigen::Map<const Vec3>(&a[7 * o + 1]) / a[7 * o];
    const Vec3 vcm = Eigen::Map<const Vec3>(&a[7 * o + 4]) / a[7 * o];
    const Vec3 r = Eigen::Map<const Vec3>(&xs_[3 * l]) - xcm;
    Eigen::Map<Vec3> v(&vel[3 * l]);
    v += k * (vcm + omega[o].cross(r) - v);
  }
}

void PbdStepper::find_collisions(double t0, double t1, const std::vector<double>& vstar) {
  contacts_.clear();
  if (!has_obstacles_) return;
  const Scene& s = scene_;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<Vec3> x0(s.num_vertices, Vec3::Constant(nan)), dx(s.num_vertices, Vec3::Constant(nan));
  for (int l = 0; l < n_owned_; ++l) {
    const int v = lv_.vbegin + l;
    if (!point_filter_[v]) continue;
    x0[v] = Eigen::Map<const Vec3>(&x_old_step_[3 * l]);
    dx[v] = Eigen::Map<const Vec3>(&xs_[3 * l]) - x0[v];
  }
  for (size_t t = 0; t < surface_.triangles.size(); ++t)
    for (int v : surface_.triangles[t])
      if (!std::isfinite(x0[v][0])) {
        const MotionSpec& mo = s.motions[s.vertex_motion[v]];
        x0[v] = scripted_position(mo, s.rest[v], t0);
        dx[v] = scripted_position(mo, s.rest[v], t1) - x0[v];
      }
  Candidates cand;
  const double h = collision_thickness_, reach = h + collision_margin_;
  broad_.find_swept(surface_, x0, dx, reach, &point_filter_, nullptr, &kinematic_, cand);
  const double inv_dt = 1.0 / (t1 - t0);
  for (const PointTriangleCandidate& c : cand.pt) {
    const Tri& tr = surface_.triangles[c.t];
    Contact k;
    k.a = x0[tr[0]] + dx[tr[0]], k.b = x0[tr[1]] + dx[tr[1]], k.c = x0[tr[2]] + dx[tr[2]];
    const Vec3 N = (k.b - k.a).cross(k.c - k.a);
    if (!(N.norm() > 0)) continue;
    // Obstacles are one-sided: each face pushes along its normal (closed meshes are
    // oriented outward, a grid's normal is +y). A vertex that started well behind the
    // face, or whose prediction stays beyond reach in front of it, gets no constraint.
    k.n = N.normalized();
    const Vec3 xa = x0[c.v], xb = xa + dx[c.v];
    const Vec3 a0 = x0[tr[0]], b0 = x0[tr[1]], c0 = x0[tr[2]];
    const Vec3 n0 = (b0 - a0).cross(c0 - a0).normalized();
    if ((xa - a0).dot(n0) < -reach || (xb - k.a).dot(k.n) >= reach) continue;
    k.l = c.v - lv_.vbegin;
    k.v_obs = (dx[tr[0]] + dx[tr[1]] + dx[tr[2]]) * (inv_dt / 3.0);
    k.friction = s.objects[s.vertex_object[c.v]].friction;
    k.vn_pre = (Eigen::Map<const Vec3>(&vstar[3 * k.l]) - k.v_obs).dot(k.n);
    contacts_.push_back(k);
  }
}

void PbdStepper::project_collisions(double* x) {
  const double h = collision_thickness_;
  for (Contact& c : contacts_) {
    Eigen::Map<Vec3> p(x + 3 * c.l);
    // The plane of the face, where the vertex is over it (001 sec. 3.4's static constraint
    // with q_c on the face; k = 1, alpha = 0). Tested at the current position, so a vertex
    // that the other constraints drag into the obstacle is caught too.
    const double C = (p - c.a).dot(c.n) - h;
    if (C < 0 && projects_into_triangle(p, c.a, c.b, c.c, kInside)) {
      p -= C * c.n, c.hit = true;
      if (!cheb_contact_.empty()) cheb_contact_[c.l] = 1;
    }
  }
}

void PbdStepper::find_self_collisions(bool vertex_pairs) {
  const double *x0 = x_old_step_.data(), *x1 = xs_.data();
  if (lv_.ranks > 1) {
    MPI_Allgatherv(x_old_step_.data(), 3 * n_owned_, MPI_DOUBLE, xg0_.data(), gather_counts_.data(),
                   gather_displs_.data(), MPI_DOUBLE, lv_.comm);
    MPI_Allgatherv(xs_.data(), 3 * n_owned_, MPI_DOUBLE, xg_.data(), gather_counts_.data(), gather_displs_.data(),
                   MPI_DOUBLE, lv_.comm);
    x0 = xg0_.data(), x1 = xg_.data();
  }
  // The pairs this rank needs: its vertices against every triangle, and (ranks > 1) every
  // vertex against the triangles with a vertex here.
  // The search frame moves by the mean displacement of the moving vertices, summed in input
  // order from the same global positions: the same shift, hence pairs, at every rank count.
  const double reach = collision_thickness_ + collision_margin_;
  Vec3 shift = Vec3::Zero();
  long moving = 0;
  for (int i = 0; i < scene_.num_vertices; ++i) {
    const int v = solver_of_input_[i];
    if (w_global_[v] == 0) continue;
    for (int d = 0; d < 3; ++d) shift[d] += x1[3 * v + d] - x0[3 * v + d];
    ++moving;
  }
  if (moving > 0) shift /= static_cast<double>(moving);
  if (vertex_pairs) {
    self_pairs_.clear();
    find_self_collision_pairs(sc_tris_, sc_tri_all_, sc_verts_own_, x0, x1, reach, shift, sc_rings_, self_pairs_);
    if (lv_.ranks > 1)
      find_self_collision_pairs(sc_tris_, sc_tri_own_, sc_verts_all_, x0, x1, reach, shift, sc_rings_, self_pairs_);
    sort_self_collision_pairs(self_pairs_, input_key_);
  }
  // Edge-edge pairs with an edge here (either one: the pair's four vertices may belong to
  // two ranks, and each moves its own), found only after the sweeps, from x to where the
  // sweeps left the vertices (settle_self): the sweeps move vertices far from the
  // prediction, and edge pairs found from it and projected in the sweeps' averaging did
  // worse (crossed strips under xpbd: 26 vertices sent back by the final check, 7 with the
  // edge pairs after the sweeps only) at twice the search cost. Their reach is twice the
  // thickness, not the vertex pairs' edge-length margin, which made the search the
  // costliest part of a substep (every edge met every edge within an edge length).
  edge_pairs_.clear();
  if (!vertex_pairs)
    find_self_collision_edge_pairs(sc_edges_, sc_edge_own_, x0, x1, 2.0 * collision_thickness_, sc_rings_, edge_pairs_);
  sort_self_collision_edge_pairs(edge_pairs_);
  if (vertex_pairs) sc_hit_vt_.assign(self_pairs_.size(), 0);
  sc_hit_ee_.assign(edge_pairs_.size(), 0);
  int any = self_pairs_.empty() && edge_pairs_.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, lv_.comm);
  any_self_pairs_ = any != 0;
}

// Eqs. 12-13 with k = 1 (XPBD: compliance 0, the same update), Jacobi with averaging over the
// pairs (003 sec. 4.2.1): every pair is evaluated at the positions the sweep left, each
// owned vertex moves by the mean of its active pairs' corrections (summed in pair order:
// the same at every rank count). Active: C < 0 with q over the triangle (barycentric
// coordinates >= -kInside at the current positions).
int PbdStepper::project_self(double* x, bool last_sweep) {
  if (!any_self_pairs_) return 0;
  int active = 0;
  const double* xg = x;
  if (lv_.ranks > 1) {
    MPI_Allgatherv(xs_.data(), 3 * n_owned_, MPI_DOUBLE, xg_.data(), gather_counts_.data(), gather_displs_.data(),
                   MPI_DOUBLE, lv_.comm);
    xg = xg_.data();
  }
  const int vb = lv_.vbegin, ve = lv_.vend;
  Stencil3<4> xs, grad, dx;
  VecN<4> ws;
  const double h2 = 4.0 * collision_thickness_ * collision_thickness_;
  auto far_side = [h2](const Stencil3<4>& x, int side) {
    if (!(h2 > 0)) return false;
    const Vec3 N = Vec3(x.col(2) - x.col(1)).cross(Vec3(x.col(3) - x.col(1)));
    const double o = (side >= 0 ? 1.0 : -1.0) * Vec3(x.col(0) - x.col(1)).dot(N);
    return o > 0 && o * o > h2 * N.squaredNorm();
  };
  for (const SelfCollisionPair& p : self_pairs_) {
    const Tri& t = sc_tris_[p.t];
    const int ids[4] = {p.v, t[0], t[1], t[2]};
    gather<4>(xg, ids, xs);
    // Most pairs are inactive in most sweeps. One whose vertex is more than twice the
    // thickness away on its side of the plane (o / |N| > 2 h, squared: no root or division;
    // the factor 2 lies far beyond rounding at these sizes) has C > 0 and is skipped; the
    // others get the value alone first (the same value with or without the gradient).
    if (far_side(xs, p.side)) continue;
    const double C = point_triangle_collision_constraint(xs, collision_thickness_, p.side, nullptr);
    if (!(C < 0) || !projects_into_triangle(xs.col(0), xs.col(1), xs.col(2), xs.col(3), kInside)) continue;
    point_triangle_collision_constraint(xs, collision_thickness_, p.side, &grad);
    sc_hit_vt_[&p - self_pairs_.data()] = 1;
    for (int a = 0; a < 4; ++a) ws[a] = w_global_[ids[a]];
    pbd_project<4>(C, grad, ws, 1.0, ConstraintSense::Unilateral, &dx);
    // Counted while it still moves something by more than 1% of the thickness (the settle
    // passes' stopping rule: averaging converges geometrically, pinned pairs not at all).
    if (C < -0.01 * collision_thickness_ && dx.cwiseAbs().maxCoeff() > 0) ++active;
    if (last_sweep && p.v >= vb && p.v < ve) ++self_contacts_;
    for (int a = 0; a < 4; ++a)
      if (ids[a] >= vb && ids[a] < ve && ws[a] > 0) {
        const int l = ids[a] - vb;
        Eigen::Map<Vec3>(&sc_acc_[3 * l]) += dx.col(a);
        ++sc_cnt_[l];
      }
  }
  // Edge against edge, the same way (after the vertex-triangle pairs: a fixed order).
  for (const SelfCollisionEdgePair& p : edge_pairs_) {
    const Edge &ea = sc_edges_[p.a], &eb = sc_edges_[p.b];
    const int ids[4] = {ea[0], ea[1], eb[0], eb[1]};
    gather<4>(xg, ids, xs);
    if (!edges_face_each_other(xs.col(0), xs.col(1), xs.col(2), xs.col(3), kInside)) continue;
    const double C = edge_edge_collision_constraint(xs, collision_thickness_, p.side, &grad);
    if (!(C < 0)) continue;
    sc_hit_ee_[&p - edge_pairs_.data()] = 1;
    for (int a = 0; a < 4; ++a) ws[a] = w_global_[ids[a]];
    pbd_project<4>(C, grad, ws, 1.0, ConstraintSense::Unilateral, &dx);
    // Counted while it still moves something by more than 1% of the thickness (the settle
    // passes' stopping rule: averaging converges geometrically, pinned pairs not at all).
    if (C < -0.01 * collision_thickness_ && dx.cwiseAbs().maxCoeff() > 0) ++active;
    if (last_sweep && ea[0] >= vb && ea[0] < ve) ++self_contacts_;
    for (int a = 0; a < 4; ++a)
      if (ids[a] >= vb && ids[a] < ve && ws[a] > 0) {
        const int l = ids[a] - vb;
        Eigen::Map<Vec3>(&sc_acc_[3 * l]) += dx.col(a);
        ++sc_cnt_[l];
      }
  }
  for (int l = 0; l < n_owned_; ++l) {
    if (sc_cnt_[l] == 0) continue;
    if (!cheb_contact_.empty()) cheb_contact_[l] = 1;
    const double inv = 1.0 / sc_cnt_[l];
    for (int d = 0; d < 3; ++d) x[3 * l + d] += sc_acc_[3 * l + d] * inv, sc_acc_[3 * l + d] = 0.0;
    sc_cnt_[l] = 0;
  }
  return active;
}

// After the sweeps: the averaged self-collision projection of the last sweep leaves part of
// a deep pair's correction undone (a vertex in several pairs moves by their mean), and the
// next step would take the crossed side as the side it came from. Up to kSettlePasses more
// passes of the pairs alone (and the obstacles after them) until none is active on any
// rank (Bridson et al. 2002's final collision pass, here on PBD's pair list).
void PbdStepper::settle_self(double* x) {
  constexpr int kSettlePasses = 20;
  for (int pass = 0; pass < kSettlePasses; ++pass) {
    // The edge pairs, from the substep's start to where the sweeps left x (the vertex pairs
    // stay: their edge-length margin covers the sweeps' moves).
    if (pass == 0) find_self_collisions(false);
    int active = project_self(x, false);
    MPI_Allreduce(MPI_IN_PLACE, &active, 1, MPI_INT, MPI_SUM, lv_.comm);
    if (active == 0) break;
    project_collisions(x);
    ghost_update(x_);
  }
}

// The final check (the guarantee of DESIGN.md "Cloth self-collision"): any cloth edge that
// meets a cloth triangle at the end of the substep but did not at its start (found exactly,
// on the gathered positions: the same on every rank) sends the pair's moving vertices back
// to their start positions (a failsafe in the spirit of Bridson et al. 2002's impact zones:
// they lose this substep's motion), repeated until no new crossing is left. It terminates:
// each round sends back at least one more vertex, and with all of them back the state is
// the start's.
void PbdStepper::failsafe_self(double* x) {
  const int vb = lv_.vbegin, ve = lv_.vend;
  const double* x0 = lv_.ranks > 1 ? xg0_.data() : x_old_step_.data();
  std::fill(sc_reverted_.begin(), sc_reverted_.end(), 0);
  // After the first round only pairs with a vertex just sent back can have changed.
  std::vector<char> just;
  for (int round = 0;; ++round) {
    const double* x1 = x;
    if (lv_.ranks > 1) {
      MPI_Allgatherv(xs_.data(), 3 * n_owned_, MPI_DOUBLE, xg_.data(), gather_counts_.data(), gather_displs_.data(),
                     MPI_DOUBLE, lv_.comm);
      x1 = xg_.data();
    }
    find_new_crossings(sc_tris_, sc_edges_, x0, x1, sc_crossings_, round == 0 ? nullptr : &just, &sc_patches_,
                       &sc_root_);
    just.assign(sc_reverted_.size(), 0);
    int fresh = 0;
    for (const auto& c : sc_crossings_) {
      const Edge& e = sc_edges_[c[0]];
      const Tri& t = sc_tris_[c[1]];
      for (int v : {e[0], e[1], t[0], t[1], t[2]}) {
        if (w_global_[v] == 0 || sc_reverted_[v]) continue;
        sc_reverted_[v] = 1, just[v] = 1, ++fresh, ++self_reverted_;
        if (v >= vb && v < ve)
          for (int d = 0; d < 3; ++d) x[3 * (v - vb) + d] = x0[3 * v + d];
      }
    }
    if (fresh == 0) break;
  }
  ghost_update(x_);
}

// Cloth-cloth friction and restitution (self_contact_velocity_change) for the self-collision
// pairs that acted in the substep (projected at least once, and for edge pairs still found
// after the sweeps), Gauss-Seidel over the pairs: each pair's change applies at once, so a
// vertex in several contacts is not stopped several times over, and every pair's change
// conserves momentum. Rank-independent: the acting pairs of all ranks are gathered, ordered
// by their vertices' input ids and processed by every rank on the gathered velocities (each
// keeps its own vertices'). The pair's coefficient combines the objects' `friction` as the
// barrier contact does (contact_model.cpp): sqrt(mu_a mu_b).
void PbdStepper::self_friction_(const std::vector<double>& vstar) {
  const Scene& s = scene_;
  const int n = s.num_vertices, vb = lv_.vbegin;
  std::vector<int> rec;  // per acting pair: kind (0 vertex-triangle, 1 edge-edge), 4 vertices, side
  for (size_t i = 0; i < self_pairs_.size(); ++i)
    if (sc_hit_vt_[i]) {
      const SelfCollisionPair& p = self_pairs_[i];
      const Tri& t = sc_tris_[p.t];
      rec.insert(rec.end(), {0, p.v, t[0], t[1], t[2], p.side});
    }
  for (size_t i = 0; i < edge_pairs_.size(); ++i)
    if (sc_hit_ee_[i]) {
      const SelfCollisionEdgePair& p = edge_pairs_[i];
      const Edge &ea = sc_edges_[p.a], &eb = sc_edges_[p.b];
      rec.insert(rec.end(), {1, ea[0], ea[1], eb[0], eb[1], p.side});
    }
  constexpr int kRec = 6;
  const double *xg = xs_.data(), *pg = vstar.data();
  sc_vg_.assign(vs_.begin(), vs_.begin() + 3 * n_owned_);
  if (lv_.ranks > 1) {
    int mine = static_cast<int>(rec.size());
    std::vector<int> counts(lv_.ranks), displs(lv_.ranks + 1, 0);
    MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, lv_.comm);
    for (int r = 0; r < lv_.ranks; ++r) displs[r + 1] = displs[r] + counts[r];
    std::vector<int> all(displs[lv_.ranks]);
    MPI_Allgatherv(rec.data(), mine, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, lv_.comm);
    rec = std::move(all);
    sc_vg_.resize(3 * static_cast<size_t>(n)), sc_pg_.resize(3 * static_cast<size_t>(n));
    MPI_Allgatherv(xs_.data(), 3 * n_owned_, MPI_DOUBLE, xg_.data(), gather_counts_.data(), gather_displs_.data(),
                   MPI_DOUBLE, lv_.comm);
    MPI_Allgatherv(vs_.data(), 3 * n_owned_, MPI_DOUBLE, sc_vg_.data(), gather_counts_.data(), gather_displs_.data(),
                   MPI_DOUBLE, lv_.comm);
    MPI_Allgatherv(vstar.data(), 3 * n_owned_, MPI_DOUBLE, sc_pg_.data(), gather_counts_.data(),
                   gather_displs_.data(), MPI_DOUBLE, lv_.comm);
    xg = xg_.data(), pg = sc_pg_.data();
  }
  // Order by (kind, input ids): the same list in the same order at every rank count.
  const int np = static_cast<int>(rec.size()) / kRec;
  std::vector<int> order(np);
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int i, int k) { return k == 0 ? rec[kRec * i] : input_key_[rec[kRec * i + k]]; };
  auto less = [&](int i, int j) {
    for (int k = 0; k < 5; ++k)
      if (key(i, k) != key(j, k)) return key(i, k) < key(j, k);
    return false;
  };
  std::sort(order.begin(), order.end(), less);
  order.erase(std::unique(order.begin(), order.end(), [&](int i, int j) { return !less(i, j) && !less(j, i); }),
              order.end());
  // A contact area holds several pairs per vertex (a vertex over two triangles, the other
  // sheet's vertices under its triangles): each pair gets 1 / (the most acting pairs at one
  // of its moving vertices) of the Coulomb budget, so a vertex's friction is bounded by one
  // normal response, not by one per pair.
  std::vector<int> in_pairs(n, 0);
  for (int i : order)
    for (int a = 1; a <= 4; ++a) ++in_pairs[rec[kRec * i + a]];
  double* vg = sc_vg_.data();
  Stencil3<4> xs, v, p, dv;
  VecN<4> c, w;
  for (int i : order) {
    const int* ids = &rec[kRec * i + 1];
    const bool edge = rec[kRec * i] == 1;
    const int side = ids[4];
    gather<4>(xg, ids, xs);
    gather<4>(vg, ids, v);
    gather<4>(pg, ids, p);
    int most = 1;
    for (int a = 0; a < 4; ++a) {
      w[a] = w_global_[ids[a]];
      if (w[a] > 0) most = std::max(most, in_pairs[ids[a]]);
    }
    Vec3 N;
    if (edge) {
      double sa, tb;
      if (!edge_edge_line_parameters(xs.col(0), xs.col(1), xs.col(2), xs.col(3), &sa, &tb)) continue;
      sa = std::clamp(sa, 0.0, 1.0), tb = std::clamp(tb, 0.0, 1.0);
      c << 1 - sa, sa, -(1 - tb), -tb;
      N = (xs.col(1) - xs.col(0)).cross(xs.col(3) - xs.col(2));
    } else {
      N = (xs.col(2) - xs.col(1)).cross(xs.col(3) - xs.col(1));
      const Vec3 bc = barycentric_weights(xs.col(0), xs.col(1), xs.col(2), xs.col(3));
      c << 1, -bc[0], -bc[1], -bc[2];
    }
    if (!(N.norm() > 0)) continue;
    const Vec3 nrm = (side >= 0 ? 1.0 : -1.0) * N.normalized();
    const double mu = std::sqrt(std::max(0.0, s.objects[s.vertex_object[ids[0]]].friction) *
                                std::max(0.0, s.objects[s.vertex_object[ids[3]]].friction));
    self_contact_velocity_change(c, nrm, w, v, (p * c).dot(nrm), mu, spec_.restitution, 1.0 / most, &dv);
    for (int a = 0; a < 4; ++a) Eigen::Map<Vec3>(vg + 3 * ids[a]) += dv.col(a);
  }
  const double* own = lv_.ranks > 1 ? vg + 3 * static_cast<size_t>(vb) : vg;
  std::copy(own, own + 3 * n_owned_, vs_.begin());
}

// One coarse level: `iterations` sweeps over its constraints (Gauss-Seidel by its colours,
// or Jacobi with averaging over its own counts), then the prolongation to the particles of
// the next finer level it left out (Mueller 2008: each moves by the weighted mean of its
// parents' moves during this level's sweeps).
void PbdStepper::solve_level(CoarseLevel& L, double* x, double inv_h2) {
  const double* w = w_.data();
  x_level_.assign(xs_.begin(), xs_.end());
  const bool jacobi = spec_.solver == "jacobi";
  for (int it = 0; it < spec_.iterations; ++it) {
    if (jacobi) {
      for (auto& gp : L.groups) {
        const Group& g = *gp;
        with_kernel(g, xpbd_, spec_, [&](auto N, auto eval) {
          project_range<decltype(N)::value>(g, 0, g.size(), x, w, lambda_.data() + g.lambda0, xpbd_, k_stretch_,
                                            inv_h2, acc_.data(), n_owned_, eval);
        });
      }
      for (int l = 0; l < n_owned_; ++l) {
        for (int d = 0; d < 3; ++d) x[3 * l + d] += acc_[3 * l + d] * L.inv_count[l];
        acc_[3 * l] = acc_[3 * l + 1] = acc_[3 * l + 2] = 0.0;
      }
      ghost_update(x_);
    } else {
      for (int c = 0; c < L.colours; ++c) {
        for (auto& gp : L.groups) {
          const Group& g = *gp;
          const int b = g.offsets[c], e = g.offsets[c + 1];
          if (b == e) continue;
          with_kernel(g, xpbd_, spec_, [&](auto N, auto eval) {
            project_range<decltype(N)::value>(g, b, e, x, w, lambda_.data() + g.lambda0, xpbd_, k_stretch_, inv_h2,
                                              nullptr, n_owned_, eval);
          });
        }
        ghost_update(x_);
      }
    }
  }
  for (size_t k = 0; k < L.child.size(); ++k) {
    Vec3 d = Vec3::Zero();
    for (int j = L.parent_start[k]; j < L.parent_start[k + 1]; ++j) {
      const int p = L.parent[j];
      d += L.weight[j] * (Eigen::Map<const Vec3>(x + 3 * p) - Eigen::Map<const Vec3>(&x_level_[3 * p]));
    }
    Eigen::Map<Vec3>(x + 3 * L.child[k]) += d;
  }
  ghost_update(x_);
}

void PbdStepper::solve(double inv_h2) {
  double* x = xs_.data();
  const double* w = w_.data();
  std::fill(lambda_.begin(), lambda_.end(), 0.0);
  const bool jacobi = spec_.solver == "jacobi";
  const bool late = !balloons_.empty() || self_;  // obstacles after the pressure / self-collisions
  const bool cheb = jacobi && spec_.chebyshev;
  const bool estimate = cheb && rho_ == 0.0;
  const int no3 = 3 * n_owned_;
  std::vector<double> dmax;  // estimation: max-norm of each sweep's update
  double omega = 1.0;
  for (size_t li = levels_.size(); li-- > 0;) solve_level(levels_[li], x, inv_h2);
  for (int it = 0; it < spec_.iterations; ++it) {
    if (cheb) std::copy(x, x + no3, cheb_cur_.begin());
    if (jacobi) {
      for (auto& gp : groups_) {
        const Group& g = *gp;
        const double kp = g.type == PbdKind::Stretch ? k_stretch_ : g.type == PbdKind::Clamp ? 1.0 : k_bend_;
        project_group(g, 0, g.size(), x, w, lambda_.data() + g.lambda0, xpbd_, kp, inv_h2, acc_.data(), n_owned_,
                      spec_);
      }
      // Averaging (003 sec. 4.2.1): each vertex moves by the mean of its corrections.
      for (int l = 0; l < n_owned_; ++l) {
        for (int d = 0; d < 3; ++d) x[3 * l + d] += acc_[3 * l + d] * inv_count_[l];
        acc_[3 * l] = acc_[3 * l + 1] = acc_[3 * l + 2] = 0.0;
      }
      if (estimate) {
        double m = 0.0;
        for (int i = 0; i < no3; ++i) m = std::max(m, std::abs(x[i] - cheb_cur_[i]));
        MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
        dmax.push_back(m);
      } else if (cheb) {
        // Wang 2015 eq. 12 (omega_1 = 1: the first sweep is plain).
        omega = it == 0 ? 1.0 : it == 1 ? 2.0 / (2.0 - rho_ * rho_) : 4.0 / (4.0 - rho_ * rho_ * omega);
        // Vertices a contact moved in the previous sweep are not extrapolated: the
        // acceleration would amplify the contact's correction and push them through.
        if (it > 0)
          for (int l = 0; l < n_owned_; ++l)
            if (w_[l] > 0 && !cheb_contact_[l])
              for (int d = 0; d < 3; ++d) {
                const int i = 3 * l + d;
                x[i] = omega * (x[i] - cheb_prev_[i]) + cheb_prev_[i];
              }
      }
      if (cheb) {
        std::swap(cheb_prev_, cheb_cur_);
        std::fill(cheb_contact_.begin(), cheb_contact_.end(), 0);
      }
      // The pressure constraint spans the whole balloon: projected after the averaging,
      // on current ghosts, not averaged.
      if (!balloons_.empty()) {
        ghost_update(x_);
        project_pressure(x);
      }
      if (self_) project_self(x, it + 1 == spec_.iterations);
      project_collisions(x);
      ghost_update(x_);
    } else {
      for (int c = 0; c < num_colours_; ++c) {
        for (auto& gp : groups_) {
          const Group& g = *gp;
          const int b = g.offsets[c], e = g.offsets[c + 1];
          if (b == e) continue;
          const double kp = g.type == PbdKind::Stretch ? k_stretch_ : g.type == PbdKind::Clamp ? 1.0 : k_bend_;
          project_group(g, b, e, x, w, lambda_.data() + g.lambda0, xpbd_, kp, inv_h2, nullptr, n_owned_, spec_);
        }
        if (c == num_colours_ - 1 && !late) project_collisions(x);
        ghost_update(x_);
      }
      // The pressure constraint touches every vertex of its balloon: its own turn after
      // the colours (ghosts current), then self-collisions, then the obstacles.
      if (!balloons_.empty()) project_pressure(x);
      if (self_) project_self(x, it + 1 == spec_.iterations);
      if (num_colours_ == 0 || late) {
        project_collisions(x);
        ghost_update(x_);
      }
    }
  }
  if (self_) {
    settle_self(x);
    failsafe_self(x);
  }
  // Spectral radius from the second half of the plain sweeps: the update shrinks by rho per
  // sweep once the slowest mode dominates. Clamped below 1 (a diverging start is no rate).
  const int nd = static_cast<int>(dmax.size());
  if (estimate && nd >= 3) {
    const int m = nd / 2;
    if (dmax[m] > 0 && dmax[nd - 1] > 0)
      rho_ = std::min(0.99, std::pow(dmax[nd - 1] / dmax[m], 1.0 / (nd - 1 - m)));
  }
}

// 001 eq. 14 with stiffness 1 (XPBD: compliance 0, the same update): per balloon
// s = C / sum_i w_i |grad_i C|^2 and x_i -= s w_i grad_i C. C and the denominator are sums
// over this rank's counted triangles and owned vertices, in local order, then one
// MPI_Allreduce for every balloon: the result differs across rank counts only by the
// reduction's rounding. Objects share no vertex, so one gradient array serves them all.
void PbdStepper::project_pressure(double* x) {
  const size_t nb = balloons_.size();
  std::vector<double> cd(2 * nb, 0.0);
  std::fill(pgrad_.begin(), pgrad_.end(), 0.0);
  Stencil3<3> xs, gt;
  for (size_t bi = 0; bi < nb; ++bi) {
    const Balloon& b = balloons_[bi];
    for (size_t t = 0; t < b.counted.size(); ++t) {
      const int* lv = &b.tris[3 * t];
      gather<3>(x, lv, xs);
      const double c = triangle_volume_term(xs, &gt);
      if (b.counted[t]) cd[2 * bi] += c;
      for (int a = 0; a < 3; ++a) Eigen::Map<Vec3>(&pgrad_[3 * lv[a]]) += gt.col(a);
    }
    cd[2 * bi] -= b.target * (lv_.rank == 0 ? 1.0 : 0.0);
  }
  for (int l = 0; l < n_owned_; ++l) {
    const int bi = balloon_of_object_[object_of_local_[l]];
    if (bi >= 0) cd[2 * bi + 1] += w_[l] * Eigen::Map<const Vec3>(&pgrad_[3 * l]).squaredNorm();
  }
  if (lv_.ranks > 1) MPI_Allreduce(MPI_IN_PLACE, cd.data(), static_cast<int>(2 * nb), MPI_DOUBLE, MPI_SUM, lv_.comm);
  for (int l = 0; l < n_owned_; ++l) {
    const int bi = balloon_of_object_[object_of_local_[l]];
    if (bi < 0 || w_[l] == 0 || !(cd[2 * bi + 1] > 0)) continue;
    const double sc = cd[2 * bi] / cd[2 * bi + 1];
    Eigen::Map<Vec3>(x + 3 * l) -= sc * w_[l] * Eigen::Map<const Vec3>(&pgrad_[3 * l]);
  }
}

double PbdStepper::pressure_error() {
  const size_t nb = balloons_.size();
  std::vector<double> c(nb, 0.0);
  Stencil3<3> xs;
  for (size_t bi = 0; bi < nb; ++bi) {
    const Balloon& b = balloons_[bi];
    for (size_t t = 0; t < b.counted.size(); ++t)
      if (b.counted[t]) {
        gather<3>(xs_.data(), &b.tris[3 * t], xs);
        c[bi] += triangle_volume_term(xs, nullptr);
      }
  }
  MPI_Allreduce(MPI_IN_PLACE, c.data(), static_cast<int>(nb), MPI_DOUBLE, MPI_SUM, lv_.comm);
  double err = 0.0;
  for (size_t bi = 0; bi < nb; ++bi)
    err = std::max(err, std::abs(c[bi] - balloons_[bi].target) / std::abs(balloons_[bi].target));
  return err;
}

double PbdStepper::measure(const double* x, double* max_rel, double* elastic) const {
  double strain = 0.0, rel = 0.0, energy = 0.0;
  for (const auto& gp : groups_) {
    const Group& g = *gp;
    if (g.type == PbdKind::Clamp) continue;
    // The energy uses the XPBD form of each constraint (isometric: its square root).
    with_kernel(g, true, spec_, [&](auto Nc, auto eval) {
      constexpr int N = decltype(Nc)::value;
      Stencil3<N> xs;
      for (int i = 0; i < g.size(); ++i) {
        if (!g.counted[i]) continue;
        gather<N>(x, &g.verts[static_cast<size_t>(N) * i], xs);
        const double C = eval(i, xs, nullptr);
        if (g.alpha_e[i] > 0) energy += C * C / (2.0 * g.alpha_e[i]);
        if (g.type == PbdKind::Stretch && g.rest[i] > 0) {
          strain = std::max(strain, 1.0 + C / g.rest[i]);
          rel = std::max(rel, std::abs(C) / g.rest[i]);
        }
      }
    });
  }
  double in[2] = {strain, rel}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, lv_.comm);
  MPI_Allreduce(MPI_IN_PLACE, &energy, 1, MPI_DOUBLE, MPI_SUM, lv_.comm);
  if (max_rel) *max_rel = out[1];
  if (elastic) *elastic = energy;
  return out[0];
}

double PbdStepper::max_strain() { return measure(xs_.data(), nullptr, nullptr); }

NamedValues PbdStepper::start_stats() {
  double rel = 0, el = 0;
  const double ms = measure(xs_.data(), &rel, &el);
  NamedValues out = {{"iterations", 0}, {"max_strain", ms}, {"constraint_error", rel}};
  if (!balloons_.empty() || spec_.pressure > 0)
    out.push_back({"pressure_error", balloons_.empty() ? std::numeric_limits<double>::quiet_NaN() : pressure_error()});
  if (self_) out.push_back({"self_contacts", 0.0}), out.push_back({"self_reverted", 0.0});
  if (spec_.chebyshev) out.push_back({"chebyshev_rho", rho_});
  if (tear_ > 0) out.push_back({"torn_vertices", double(torn())});
  return out;
}

std::string PbdStepper::describe() const {
  return std::string("method ") + (xpbd_ ? "xpbd" : "pbd") + " (" +
         (spec_.solver == "jacobi" ? std::string("Jacobi with averaging") + (spec_.chebyshev ? " and Chebyshev acceleration" : "") : "Gauss-Seidel over " + std::to_string(num_colours_) +
                                                                  " colours") +
         (levels_.empty() ? std::string() : ", " + std::to_string(levels_.size() + 1) + " hierarchical levels") +
         ", " + std::to_string(spec_.iterations) + " iterations x " + std::to_string(spec_.substeps) +
         " substeps, " + spec_.integrator + ", " + std::to_string(num_constraints_) + " constraints)";
}

NamedArrays PbdStepper::save() const {
  NamedArrays out;
  if (spec_.chebyshev) out.push_back({"chebyshev.rho", {rho_}});
  const int n = scene_.num_vertices;
  if (tear_ > 0) {
    // Whole on every rank already: the torn triangles (input ids), masses and rest positions
    // (input order) and each object's spares taken.
    const Scene& s = scene_;
    std::vector<double> tri, m(n), X(3 * static_cast<size_t>(n)), used(tm_.used.begin(), tm_.used.end());
    for (const Tri& t : tm_.triangles)
      for (int v : t) tri.push_back(s.input_of(v));
    for (int v = 0; v < n; ++v) {
      m[s.input_of(v)] = tm_.mass[v];
      for (int d = 0; d < 3; ++d) X[3 * s.input_of(v) + d] = tm_.rest[v][d];
    }
    out.push_back({"tear.triangles", std::move(tri)});
    out.push_back({"tear.mass", std::move(m)});
    out.push_back({"tear.rest", std::move(X)});
    out.push_back({"tear.used", std::move(used)});
  }
  if (spec_.integrator != "bdf2") return out;
  for (auto [name, src] : {std::pair<const char*, const std::vector<double>*>{"bdf2.x_prev", &x_old_},
                           {"bdf2.v_prev", &v_old_}}) {
    std::vector<double> all(3 * n, 0.0);
    for (int l = 0; l < n_owned_; ++l)
      for (int d = 0; d < 3; ++d) all[3 * input_key_[lv_.vbegin + l] + d] = (*src)[3 * l + d];
    MPI_Allreduce(MPI_IN_PLACE, all.data(), 3 * n, MPI_DOUBLE, MPI_SUM, lv_.comm);
    out.push_back({name, std::move(all)});
  }
  out.push_back({"bdf2.history", {history_ ? 1.0 : 0.0}});
  return out;
}

void PbdStepper::load(const NamedArrays& arrays) {
  // The run loop wrote lv's local vertices; our extra ghosts follow from their owners.
  ghost_update(x_);
  ghost_update(v_);
  if (spec_.chebyshev) {
    const NamedArray* a = find_array(arrays, "chebyshev.rho");
    if (!a || a->values.size() != 1) throw InputError("checkpoint array 'chebyshev.rho' missing");
    rho_ = a->values[0];
  }
  const int n = scene_.num_vertices;
  auto get = [&](const std::string& name, size_t size) {
    const NamedArray* a = find_array(arrays, name);
    if (!a) throw InputError("checkpoint array '" + name + "' missing");
    if (a->values.size() != size)
      throw InputError("checkpoint array '" + name + "' has " + std::to_string(a->values.size()) +
                       " values but the case has " + std::to_string(size));
    return &a->values;
  };
  if (tear_ > 0) {
    const Scene& s = scene_;
    const std::vector<double>& tri = *get("tear.triangles", 3 * tm_.triangles.size());
    const std::vector<double>& m = *get("tear.mass", n);
    const std::vector<double>& X = *get("tear.rest", 3 * static_cast<size_t>(n));
    const std::vector<double>& used = *get("tear.used", tm_.used.size());
    for (size_t t = 0; t < tm_.triangles.size(); ++t)
      for (int a = 0; a < 3; ++a) {
        const double v = tri[3 * t + a];
        if (!(v >= 0 && v < n)) throw InputError("checkpoint array 'tear.triangles' holds vertex " + std::to_string(v));
        tm_.triangles[t][a] = s.solver_of(static_cast<int>(v));
      }
    for (int v = 0; v < n; ++v) {
      tm_.mass[v] = m[s.input_of(v)];
      for (int d = 0; d < 3; ++d) tm_.rest[v][d] = X[3 * s.input_of(v) + d];
    }
    for (size_t o = 0; o < tm_.used.size(); ++o) tm_.used[o] = static_cast<int>(used[o]);
    rebuild_();
  }
  if (spec_.integrator != "bdf2") return;
  history_ = (*get("bdf2.history", 1))[0] != 0;
  for (auto [name, dst] : {std::pair<const char*, std::vector<double>*>{"bdf2.x_prev", &x_old_},
                           {"bdf2.v_prev", &v_old_}}) {
    const std::vector<double>& all = *get(name, 3 * static_cast<size_t>(n));
    for (int l = 0; l < n_local_; ++l) {
      const int v = l < n_owned_ ? lv_.vbegin + l : ghosts_[l - n_owned_];
      for (int d = 0; d < 3; ++d) (*dst)[3 * l + d] = all[3 * input_key_[v] + d];
    }
  }
}

StepReport PbdStepper::step(double t) {
  const auto t_start = std::chrono::steady_clock::now();
  const Scene& s = scene_;
  const int ns = spec_.substeps;
  const double dt = s.spec.dt, h = dt / ns;
  const Vec3 g = s.spec.gravity;
  const bool bdf2 = spec_.integrator == "bdf2";
  std::vector<double> vstar(3 * n_owned_), x_start(3 * n_local_);
  x_old_step_.resize(3 * n_owned_);
  long contacts = 0;
  self_contacts_ = 0;
  self_reverted_ = 0;
  for (int k = 0; k < ns; ++k) {
    const double t0 = t + k * h, t1 = (k + 1 == ns) ? t + dt : t + (k + 1) * h;
    const bool second = bdf2 && history_;
    // 0. Tearing: splits from the positions the last substep left.
    if (tear_ > 0) tear_pass_(k > 0);
    // 1. Velocity prediction (external forces), damping, position prediction.
    for (int l = 0; l < n_owned_; ++l)
      for (int d = 0; d < 3; ++d) {
        const int i = 3 * l + d;
        vstar[i] = w_[l] == 0 ? 0.0
                   : second   ? 4.0 / 3.0 * vs_[i] - 1.0 / 3.0 * v_old_[i] + 2.0 / 3.0 * h * g[d]
                              : vs_[i] + h * g[d];
      }
    if (spec_.damping > 0) damp(vstar);
    std::copy(xs_.begin(), xs_.end(), x_start.begin());
    std::copy(xs_.begin(), xs_.begin() + 3 * n_owned_, x_old_step_.begin());
    for (int l = 0; l < n_local_; ++l) {
      const int v = l < n_owned_ ? lv_.vbegin + l : ghosts_[l - n_owned_];
      if (s.kinematic(v)) {
        const Vec3 pk = scripted_position(s.motions[s.vertex_motion[v]], s.rest[v], t1);
        for (int d = 0; d < 3; ++d) xs_[3 * l + d] = pk[d];
      } else if (l < n_owned_) {
        for (int d = 0; d < 3; ++d) {
          const int i = 3 * l + d;
          xs_[i] = second ? 4.0 / 3.0 * x_start[i] - 1.0 / 3.0 * x_old_[i] + 2.0 / 3.0 * h * vstar[i]
                          : x_start[i] + h * vstar[i];
        }
      }
    }
    ghost_update(x_);
    // 2. Obstacle collisions, 3. projections. BDF2's implicit step is 2h/3, so XPBD scales
    // the compliance by (3 / 2h)^2.
    find_collisions(t0, t1, vstar);
    contacts += static_cast<long>(contacts_.size());
    if (self_) find_self_collisions(true);
    const double he = second ? 2.0 * h / 3.0 : h;
    solve(1.0 / (he * he));
    // 4. Velocities, restitution and friction (001 sec. 3.4), history.
    for (int l = 0; l < n_local_; ++l)
      for (int d = 0; d < 3; ++d) {
        const int i = 3 * l + d;
        const double vn = second ? (3.0 * xs_[i] - 4.0 * x_start[i] + x_old_[i]) / (2.0 * h)
                                 : (xs_[i] - x_start[i]) / h;
        v_old_[i] = vs_[i];
        x_old_[i] = x_start[i];
        vs_[i] = vn;
      }
    int last = -1;
    for (const Contact& c : contacts_) {
      if (!c.hit || c.l == last) continue;
      last = c.l;
      Eigen::Map<Vec3> v(&vs_[3 * c.l]);
      const Vec3 vr = v - c.v_obs;
      const double vn = vr.dot(c.n);
      Vec3 vt = vr - vn * c.n;
      double vn_new = vn;
      if (c.vn_pre < 0) vn_new = std::max(vn, -spec_.restitution * c.vn_pre);
      const double dvn = std::max(0.0, vn_new - std::min(c.vn_pre, 0.0));
      const double vtn = vt.norm();
      if (vtn > 0) vt *= std::max(0.0, 1.0 - c.friction * dvn / vtn);
      v = c.v_obs + vt + vn_new * c.n;
    }
    if (self_ && any_self_pairs_) self_friction_(vstar);
    ghost_update(v_);
    history_ = bdf2;
  }
  for (Vec vec : {x_, v_}) {  // we wrote the arrays directly: tell PETSc they changed
    PetscScalar* a = nullptr;
    check(VecGetArray(vec, &a), "VecGetArray");
    check(VecRestoreArray(vec, &a), "VecRestoreArray");
  }

  // Statistics.
  double rel = 0, elastic = 0;
  const double ms = measure(xs_.data(), &rel, &elastic);
  double e[3] = {0, 0, 0};  // kinetic, gravity potential, non-finite count
  for (int l = 0; l < n_owned_; ++l) {
    for (int d = 0; d < 3; ++d) e[2] += std::isfinite(xs_[3 * l + d]) ? 0.0 : 1.0;
    if (w_[l] == 0) continue;
    const double m = 1.0 / w_[l];
    const Eigen::Map<const Vec3> x(&xs_[3 * l]), v(&vs_[3 * l]);
    e[0] += 0.5 * m * v.squaredNorm();
    e[1] -= m * g.dot(x);
  }
  MPI_Allreduce(MPI_IN_PLACE, e, 3, MPI_DOUBLE, MPI_SUM, lv_.comm);
  MPI_Allreduce(MPI_IN_PLACE, &contacts, 1, MPI_LONG, MPI_SUM, lv_.comm);
  if (self_) MPI_Allreduce(MPI_IN_PLACE, &self_contacts_, 1, MPI_LONG, MPI_SUM, lv_.comm);
  // (self_reverted_ counts every vertex sent back, on every rank alike: no reduction.)
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  StepReport r;
  r.iterations = spec_.iterations * ns;
  r.max_strain = ms;
  r.converged = e[2] == 0;  // fixed iteration count: the verdict is a finite state
  r.stats = {{"iterations", double(r.iterations)},
             {"substeps", double(ns)},
             {"constraint_error", rel},
             {"max_strain", ms},
             {"energy", e[0] + e[1] + elastic},
             {"kinetic_energy", e[0]},
             {"elastic_energy", elastic},
             {"contacts", double(contacts)},
             {"colours", double(num_colours_)},
             {"converged", r.converged ? 1.0 : 0.0},
             {"solve_s", secs}};
  // A balloon torn open loses its constraint: the figure stays, NaN (every frame has a row).
  if (!balloons_.empty() || spec_.pressure > 0)
    r.stats.insert(r.stats.end() - 1,
                   {"pressure_error", balloons_.empty() ? std::numeric_limits<double>::quiet_NaN() : pressure_error()});
  if (self_) r.stats.insert(r.stats.end() - 1, {"self_contacts", double(self_contacts_)});
  if (self_) r.stats.insert(r.stats.end() - 1, {"self_reverted", double(self_reverted_)});
  if (spec_.chebyshev) r.stats.insert(r.stats.end() - 1, {"chebyshev_rho", rho_});
  if (tear_ > 0) r.stats.insert(r.stats.end() - 1, {"torn_vertices", double(torn())});
  return r;
}

}  // namespace weft
