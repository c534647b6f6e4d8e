// Orthotropic shell membrane with per-direction strain limits (C-IPC sec. 4.2,
// energy/membrane_orthotropic.hpp) over a shell's triangles, material.model: orthotropic.
// The limits are barriers inside the energy (eq. 10), so there is no separate strain-limit
// stiffness to adapt; the term is feasible exactly while every limit holds.
#include <algorithm>
#include <array>
#include <string>

#include "core/error.hpp"
#include "core/scene.hpp"
#include "energy/membrane_orthotropic.hpp"
#include "energy/registry.hpp"
#include "energy/strain_limit.hpp"
#include "energy/warp_direction.hpp"

namespace weft {
namespace {

constexpr int kBatch = 16;  // Hessians handed to the sink per call

inline Vec9 gather3(const double* xl, const int* l) {
  Vec9 x;
  for (int a = 0; a < 3; ++a) x.segment<3>(3 * a) = Eigen::Map<const Vec3>(xl + 3 * l[a]);
  return x;
}

class ShellOrthotropicTerm final : public EnergyTerm {
 public:
  ShellOrthotropicTerm(const Scene& scene, int set, const LocalStencils& local)
      : EnergyTerm(set, scene.element_sets[set], local), rest_(set_.rest<OrthotropicRest>()) {}

  bool add_energy(const double* xl, double& acc) const override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const OrthotropicRest& r = rest_[stencils_.element_at(k)];
      const double e = membrane_orthotropic(gather3(xl, stencils_.local_at(3 * k)), r.tri, r.p, nullptr, nullptr, false);
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
        const OrthotropicRest& r = rest_[stencils_.element_at(k)];
        Mat9& H = H_[i];
        acc += scale * membrane_orthotropic(gather3(xl, l), r.tri, r.p, &g, &H, true);
        g *= scale;
        H *= scale;
        sink.add_gradient(3, l, g.data());
      }
      sink.add_hessians(set_index_, first, count, 3, stencils_.local_at(3 * first), H_[0].data());
    }
  }

  bool feasible(const double* xl) const override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const OrthotropicRest& r = rest_[stencils_.element_at(k)];
      if (!orthotropic_feasible(aligned_green_strain(gather3(xl, stencils_.local_at(3 * k)), r.tri), r.p)) return false;
    }
    return true;
  }

  // Largest principal stretch (frame-independent), as for the isotropic membranes.
  double max_strain(const double* xl) const override {
    double worst = 0.0;
    for (int k = 0; k < stencils_.size(); ++k)
      worst = std::max(worst, max_singular_value(gather3(xl, stencils_.local_at(3 * k)), rest_[stencils_.element_at(k)].tri));
    return worst;
  }

 private:
  static_assert(sizeof(Mat9) == 81 * sizeof(double), "Hessians are handed over as one array");
  const std::vector<OrthotropicRest>& rest_;
  std::array<Mat9, kBatch> H_;
};

double stretch_limit(double s, const ObjectSpec& spec, const char* key) {
  if (s == 0.0) return 0.0;
  if (!(s > 1.0))
    throw InputError("object '" + spec.name + "': strain_limit." + key + " must be a stretch ratio > 1, got " +
                     std::to_string(s));
  return green_strain_of_stretch(s);
}

void build_orthotropic(const ObjectStencils& o, ElementSet& set) {
  std::vector<OrthotropicRest>& rest = set.rest<OrthotropicRest>();
  const MaterialSpec& mat = o.spec.material;
  const AnisoLimitSpec& lim = mat.aniso_limit;
  OrthotropicParams p{mat.a11, mat.a22, mat.a12, mat.g12, mat.thickness,
                      stretch_limit(lim.warp, o.spec, "warp"), stretch_limit(lim.weft, o.spec, "weft"), lim.shear};
  if (!(p.m12 >= 0.0))
    throw InputError("object '" + o.spec.name + "': strain_limit.shear must be >= 0, got " + std::to_string(lim.shear));
  reserve_for_append(rest, o.triangles.size());
  reserve_for_append(set.vertices, 3 * o.triangles.size());
  for (size_t t = 0; t < o.triangles.size(); ++t) {
    const Tri& tri = o.triangles[t];
    const Vec3 &X0 = o.rest[tri[0]], &X1 = o.rest[tri[1]], &X2 = o.rest[tri[2]];
    set.vertices.insert(set.vertices.end(), tri.begin(), tri.end());
    set.push_object(o.object);
    const Vec3 warp = orthotropic_warp(X0, X1, X2, lim, o.triangle_uv ? &(*o.triangle_uv)[t] : nullptr);
    rest.push_back({make_aligned_tri_rest(X0, X1, X2, warp), p, warp});
  }
}

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<ShellOrthotropicTerm>(scene, set, local);
}

}  // namespace

extern const TermFactory kShellOrthotropic = {ObjectKind::Shell, "orthotropic", "membrane_orthotropic", 3,
                                              &build_orthotropic, &make, "", 129};

}  // namespace weft
