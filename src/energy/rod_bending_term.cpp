// Rod bending over a rod object's interior vertices (C-IPC, paper 000, eq. 3: the bending
// part of Psi_rod; discrete curvature |kb| = 2 tan(phi/2) as in energy/rod_bending.hpp):
// at x1 between x0 and x2, Psi = EI / (|E0| + |E1|) (|kb| - |kb_rest|)^2 with
// EI = E pi r^4 / 4 (E = bending_youngs, or youngs when that is < 0). The stencils are the
// triples of energy/rod_topology.hpp (polyline vertices, and straight continuations
// through rod-net crossings). (The stretching part, k = E pi r^2, with the strain-limit
// barrier of eq. 5-7, is rod_stretch_term.cpp.)
#include <algorithm>
#include <array>
#include <cmath>

#include "core/reserve_for_append.hpp"
#include "core/scene.hpp"
#include "energy/registry.hpp"
#include "energy/rod_bending.hpp"
#include "energy/rod_topology.hpp"

namespace weft {
namespace {

constexpr int kBatch = 16;  // Hessians handed to the sink per call

inline Vec9 gather3(const double* xl, const int* l) {
  Vec9 x;
  for (int a = 0; a < 3; ++a) x.segment<3>(3 * a) = Eigen::Map<const Vec3>(xl + 3 * l[a]);
  return x;
}

class RodBendingTerm final : public EnergyTerm {
 public:
  RodBendingTerm(const Scene& scene, int set, const LocalStencils& local)
      : EnergyTerm(set, scene.element_sets[set], local), rest_(set_.rest<RodBendRest>()) {}

  // A rod folded back on itself (turning angle pi) has Psi = +inf: infeasible there.
  bool add_energy(const double* xl, double& acc) const override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const double e =
          rod_bending(gather3(xl, stencils_.local_at(3 * k)), rest_[stencils_.element_at(k)], nullptr, nullptr, false);
      if (!std::isfinite(e)) return false;
      acc += e;
    }
    return true;
  }

  void assemble(const double* xl, double scale, double& acc, AssemblySink& sink) override {
    Vec9 g;
    const int n = stencils_.size();
    for (int first = 0; first < n; first += kBatch) {
      const int count = std::min(kBatch, n - first);
      for (int i = 0; i < count; ++i) {
        const int k = first + i;
        const int* l = stencils_.local_at(3 * k);
        Mat9& H = H_[i];
        acc += scale * rod_bending(gather3(xl, l), rest_[stencils_.element_at(k)], &g, &H, true);
        g *= scale;
        H *= scale;
        sink.add_gradient(3, l, g.data());
      }
      sink.add_hessians(set_index_, first, count, 3, stencils_.local_at(3 * first), H_[0].data());
    }
  }

  bool feasible(const double* xl) const override {
    for (int k = 0; k < stencils_.size(); ++k)
      if (!std::isfinite(rod_curvature(gather3(xl, stencils_.local_at(3 * k))))) return false;
    return true;
  }

 private:
  static_assert(sizeof(Mat9) == 81 * sizeof(double), "Hessians are handed over as one array");
  const std::vector<RodBendRest>& rest_;
  std::array<Mat9, kBatch> H_;
};

// EI from the object's material; a rod without bending stiffness gets no stencils (no
// matrix entries).
void build_bends(const ObjectStencils& o, ElementSet& set) {
  if (o.segments.empty()) return;
  const MaterialSpec& mat = o.spec.material;
  const double E = mat.bending_youngs < 0 ? mat.youngs : mat.bending_youngs;
  if (E == 0) return;
  const double EI = rod_bending_stiffness(E, mat.radius);
  const std::vector<std::array<int, 3>> triples = rod_bend_triples(o.segments, o.rest);
  if (triples.empty()) return;
  std::vector<RodBendRest>& rest = set.rest<RodBendRest>();
  reserve_for_append(rest, triples.size());
  reserve_for_append(set.vertices, 3 * triples.size());
  for (const auto& t : triples) {
    set.vertices.insert(set.vertices.end(), t.begin(), t.end());
    set.push_object(o.object);
    rest.push_back(make_rod_bend_rest(o.rest[t[0]], o.rest[t[1]], o.rest[t[2]], EI));
  }
}

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<RodBendingTerm>(scene, set, local);
}

}  // namespace

extern const TermFactory kRodBending = {ObjectKind::Rod, "", "rod_bending", 3, &build_bends, &make, "", 138};

}  // namespace weft
