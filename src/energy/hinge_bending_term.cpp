// Discrete-shells hinge bending over a shell's interior edges (energy/hinge_bending.hpp),
// with the Gauss-Newton (PSD) Hessian.
#include <algorithm>
#include <array>

#include "core/scene.hpp"
#include "energy/hinge_bending.hpp"
#include "energy/registry.hpp"

namespace weft {
namespace {

constexpr int kBatch = 16;  // Hessians handed to the sink per call

inline Vec12 gather4(const double* xl, const int* l) {
  Vec12 x;
  for (int a = 0; a < 4; ++a) x.segment<3>(3 * a) = Eigen::Map<const Vec3>(xl + 3 * l[a]);
  return x;
}

class HingeBendingTerm final : public EnergyTerm {
 public:
  HingeBendingTerm(const Scene& scene, int set, const LocalStencils& local)
      : EnergyTerm(set, scene.element_sets[set], local), rest_(set_.rest<HingeRest>()) {}

  bool add_energy(const double* xl, double& acc) const override {
    for (int k = 0; k < stencils_.size(); ++k)
      acc += hinge_bending(gather4(xl, stencils_.local_at(4 * k)), rest_[stencils_.element_at(k)], nullptr, nullptr, false);
    return true;
  }

  void assemble(const double* xl, double scale, double& acc, AssemblySink& sink) override {
    Vec12 g;
    const int n = stencils_.size();
    for (int first = 0; first < n; first += kBatch) {
      const int count = std::min(kBatch, n - first);
      for (int i = 0; i < count; ++i) {
        const int k = first + i;
        const int* l = stencils_.local_at(4 * k);
        Mat12& H = H_[i];
        acc += hinge_bending_gauss_newton(gather4(xl, l), rest_[stencils_.element_at(k)], scale, g, H);
        sink.add_gradient(4, l, g.data());
      }
      sink.add_hessians(set_index_, first, count, 4, stencils_.local_at(4 * first), H_[0].data());
    }
  }

 private:
  static_assert(sizeof(Mat12) == 144 * sizeof(double), "Hessians are handed over as one array");
  const std::vector<HingeRest>& rest_;
  std::array<Mat12, kBatch> H_;
};

// k_b from the object's material; hinges of a shell without bending stiffness are left out
// (no stencil, no matrix entries).
void build_hinges(const ObjectStencils& o, ElementSet& set) {
  if (o.hinges.empty()) return;
  std::vector<HingeRest>& rest = set.rest<HingeRest>();
  const MaterialSpec& mat = o.spec.material;
  const double Eb = mat.bending_youngs < 0 ? mat.youngs : mat.bending_youngs;
  const double kb = bending_stiffness(Eb, mat.poisson, mat.thickness);
  if (kb <= 0) return;
  reserve_for_append(rest, o.hinges.size());
  reserve_for_append(set.vertices, 4 * o.hinges.size());
  for (const auto& h : o.hinges) {
    set.vertices.insert(set.vertices.end(), h.begin(), h.end());
    set.push_object(o.object);
    rest.push_back(make_hinge_rest(o.rest[h[0]], o.rest[h[1]], o.rest[h[2]], o.rest[h[3]], kb));
  }
}

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<HingeBendingTerm>(scene, set, local);
}

}  // namespace

extern const TermFactory kShellHingeBending = {ObjectKind::Shell, "", "hinge_bending", 4, &build_hinges, &make, "", 14};

}  // namespace weft
