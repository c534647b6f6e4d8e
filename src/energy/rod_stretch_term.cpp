// Rod stretching over a rod object's segments (C-IPC, paper 000, eq. 3: the stretching
// part of Psi_rod), per segment of rest length L
//   Psi = 1/2 k L (|e|/L - 1)^2,   k = E pi r^2  (axial stiffness EA),
// plus, when the object has a strain limit, the segment strain-limit barrier of eq. 5-7
// (C-IPC sec. 4.1) on the segment's one singular value, its stretch |e|/L, with volume
// A L, A = pi r^2, and a per-segment adaptive kappa_s. Both are summed per segment before
// assembly, as one block. (The bending part of Psi_rod, EI = E pi r^4 / 4, is
// rod_bending_term.cpp.)
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "core/error.hpp"
#include "core/reserve_for_append.hpp"
#include "core/scene.hpp"
#include "energy/registry.hpp"
#include "energy/rod_stretch.hpp"
#include "energy/strain_limit.hpp"

namespace weft {
namespace {

constexpr int kBatch = 16;           // Hessians handed to the sink per call

inline Vec6 gather2(const double* xl, const int* l) {
  Vec6 x;
  x << Eigen::Map<const Vec3>(xl + 3 * l[0]), Eigen::Map<const Vec3>(xl + 3 * l[1]);
  return x;
}

class RodStretchTerm final : public EnergyTerm {
 public:
  RodStretchTerm(const Scene& scene, int set, const LocalStencils& local)
      : EnergyTerm(set, scene.element_sets[set], local),
        objects_(scene.objects),
        rest_(set_.rest<RodStretchRest>()),
        area_(scene.objects.size(), 0.0),
        kappa_(local.size(), scene.spec.kappa_s),
        small_gap_(local.size(), 0) {
    // The barrier's volume A L needs the cross-section of each strain-limited rod.
    for (size_t o = 0; o < scene.objects.size(); ++o) {
      if (scene.objects[o].strain_limit <= 0) continue;
      if (o >= scene.spec.objects.size()) throw std::logic_error("rod_stretch: scene object without its spec");
      const double r = scene.spec.objects[o].material.radius;
      area_[o] = M_PI * r * r;
    }
  }

  bool add_energy(const double* xl, double& acc) const override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const int e = stencils_.element_at(k), o = set_.object_of(e);
      const ObjectParams& op = objects_[o];
      const Vec6 x = gather2(xl, stencils_.local_at(2 * k));
      const RodStretchRest& r = rest_[e];
      acc += rod_stretch(x, r, nullptr, nullptr, false);
      if (op.strain_limit > 0) {
        const double s = segment_strain_limit(x, r.length, limit_params(op, o, k, r), nullptr, nullptr);
        if (!std::isfinite(s)) return false;
        acc += s;
      }
    }
    return true;
  }

  void assemble(const double* xl, double scale, double& acc, AssemblySink& sink) override {
    Vec6 g, gs;
    Mat6 Hs;
    const int n = stencils_.size();
    for (int first = 0; first < n; first += kBatch) {
      const int count = std::min(kBatch, n - first);
      for (int i = 0; i < count; ++i) {
        const int k = first + i, e = stencils_.element_at(k), o = set_.object_of(e);
        const ObjectParams& op = objects_[o];
        const int* l = stencils_.local_at(2 * k);
        const Vec6 x = gather2(xl, l);
        const RodStretchRest& r = rest_[e];
        Mat6& H = H_[i];
        double en = rod_stretch(x, r, &g, &H, true);
        if (op.strain_limit > 0) {
          en += segment_strain_limit(x, r.length, limit_params(op, o, k, r), &gs, &Hs);
          g += gs;
          H += Hs;
        }
        acc += scale * en;
        g *= scale;
        H *= scale;
        sink.add_gradient(2, l, g.data());
      }
      sink.add_hessians(set_index_, first, count, 2, stencils_.local_at(2 * first), H_[0].data());
    }
  }

  bool feasible(const double* xl) const override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const int e = stencils_.element_at(k);
      const ObjectParams& op = objects_[set_.object_of(e)];
      if (op.strain_limit > 0 && !(segment_stretch(gather2(xl, stencils_.local_at(2 * k)), rest_[e]) < op.strain_limit))
        return false;
    }
    return true;
  }

  void begin_step() override { std::fill(small_gap_.begin(), small_gap_.end(), 0); }

  // Section 4.1: adaptive kappa_s (energy/strain_limit.hpp).
  void update_stiffness(const double* xl) override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const int e = stencils_.element_at(k);
      const ObjectParams& op = objects_[set_.object_of(e)];
      if (op.strain_limit <= 0) continue;
      const double gap = op.strain_limit - segment_stretch(gather2(xl, stencils_.local_at(2 * k)), rest_[e]);
      adapt_strain_stiffness(gap, op.strain_limit, op.strain_threshold, kappa_[k], small_gap_[k]);
    }
  }

  std::vector<double>* stiffness() override { return &kappa_; }

  // A segment's one principal stretch is |e| / L.
  double max_strain(const double* xl) const override {
    double worst = 0.0;
    for (int k = 0; k < stencils_.size(); ++k)
      worst = std::max(worst, segment_stretch(gather2(xl, stencils_.local_at(2 * k)), rest_[stencils_.element_at(k)]));
    return worst;
  }

 private:
  StrainLimitParams limit_params(const ObjectParams& op, int o, int k, const RodStretchRest& r) const {
    return {op.strain_limit, op.strain_threshold, kappa_[k], area_[o] * r.length};
  }

  static_assert(sizeof(Mat6) == 36 * sizeof(double), "Hessians are handed over as one array");
  const std::vector<ObjectParams>& objects_;
  const std::vector<RodStretchRest>& rest_;
  std::vector<double> area_;    // A = pi r^2 per scene object (strain-limited rods only)
  std::vector<double> kappa_;   // strain-limit stiffness kappa_s per local segment (adaptive)
  std::vector<int> small_gap_;  // consecutive iterations near the limit
  std::array<Mat6, kBatch> H_;
};

// One stencil per segment, in the segment's direction a -> b.
void build_segments(const ObjectStencils& o, ElementSet& set) {
  if (o.segments.empty()) return;
  std::vector<RodStretchRest>& rest = set.rest<RodStretchRest>();
  const MaterialSpec& mat = o.spec.material;
  if (!(mat.radius > 0)) throw InputError("rod stretching needs radius > 0");
  const double k = mat.youngs * M_PI * mat.radius * mat.radius;
  reserve_for_append(rest, o.segments.size());
  reserve_for_append(set.vertices, 2 * o.segments.size());
  for (const Edge& s : o.segments) {
    const double L = (o.rest[s[1]] - o.rest[s[0]]).norm();
    if (!(L > 0)) throw InputError("rod has a zero-length rest segment");
    set.vertices.insert(set.vertices.end(), s.begin(), s.end());
    set.push_object(o.object);
    rest.push_back({L, k});
  }
}

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<RodStretchTerm>(scene, set, local);
}

}  // namespace

extern const TermFactory kRodStretch = {ObjectKind::Rod, "", "rod_stretch", 2, &build_segments, &make, "", 9};

}  // namespace weft
