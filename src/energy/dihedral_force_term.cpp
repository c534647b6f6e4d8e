// Dihedral-angle bending of the mass-spring method (`mass_spring.bending: dihedral`, paper
// 002 sec. 11.1; kernel in dihedral_force.hpp) over a shell's hinges, in place of the
// bending springs. The rest-angle variant with psi0 from the rest mesh (on a flat rest mesh
// that is the planar variant). 002's k (N m) = mass_spring.bending_stiffness (N/m) x |E|^2
// per hinge of rest edge E; absent, k = D, the plate's flexural rigidity (spring.hpp), so
// the bending energy does not depend on the resolution. Method mass_spring only: PD's local
// steps project springs.
#include <algorithm>
#include <array>

#include "core/reserve_for_append.hpp"
#include "core/scene.hpp"
#include "energy/dihedral_force.hpp"
#include "energy/registry.hpp"
#include "energy/spring_term.hpp"

namespace weft {
namespace {

constexpr int kBatch = 16;  // Hessians handed to the sink per call

inline Vec12 gather4(const double* xl, const int* l) {
  Vec12 x;
  for (int a = 0; a < 4; ++a) x.segment<3>(3 * a) = Eigen::Map<const Vec3>(xl + 3 * l[a]);
  return x;
}

class DihedralForceTerm final : public EnergyTerm {
 public:
  DihedralForceTerm(const Scene& scene, int set, const LocalStencils& local)
      : EnergyTerm(set, scene.element_sets[set], local), rest_(set_.rest<DihedralForceRest>()) {}

  bool add_energy(const double* xl, double& acc) const override {
    for (int k = 0; k < stencils_.size(); ++k)
      acc += dihedral_force_energy(gather4(xl, stencils_.local_at(4 * k)), rest_[stencils_.element_at(k)], nullptr,
                                   nullptr, true);
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
        acc += scale * dihedral_force_energy(gather4(xl, l), rest_[stencils_.element_at(k)], &g, &H, true);
        g *= scale;
        H *= scale;
        sink.add_gradient(4, l, g.data());
      }
      sink.add_hessians(set_index_, first, count, 4, stencils_.local_at(4 * first), H_[0].data());
    }
  }

 private:
  static_assert(sizeof(Mat12) == 144 * sizeof(double), "Hessians are handed over as one array");
  const std::vector<DihedralForceRest>& rest_;
  std::array<Mat12, kBatch> H_;
};

void build(const ObjectStencils& o, ElementSet& set) {
  if (o.spec.springs.bending != "dihedral" || o.hinges.empty()) return;
  const double given = o.spec.springs.bending_stiffness;
  if (given == 0) return;
  const double D = shell_flexural_rigidity(o.spec.material);
  std::vector<DihedralForceRest>& rest = set.rest<DihedralForceRest>();
  reserve_for_append(rest, o.hinges.size());  // (at most: hinges with k = 0 are left out)
  reserve_for_append(set.vertices, 4 * o.hinges.size());
  for (const auto& h : o.hinges) {
    Vec12 X;
    X << o.rest[h[0]], o.rest[h[1]], o.rest[h[2]], o.rest[h[3]];
    const double k = given > 0 ? given * (o.rest[h[1]] - o.rest[h[0]]).squaredNorm() : D;
    if (!(k > 0)) continue;
    set.vertices.insert(set.vertices.end(), h.begin(), h.end());
    set.push_object(o.object);
    rest.push_back(make_dihedral_force_rest(X, k, false));
  }
}

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<DihedralForceTerm>(scene, set, local);
}

}  // namespace

extern const TermFactory kSpringDihedral = {ObjectKind::Shell, "", "spring_dihedral", 4, &build, &make, "mass_spring"};

}  // namespace weft
