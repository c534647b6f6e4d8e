// The energy term shared by the tet volume models (volume_fixed_corotated_term.cpp,
// volume_neo_hookean_term.cpp): one 4-vertex stencil per tet, feasible exactly while every
// tet keeps det F > 0, so the line search never lets a tet flatten or invert.
#pragma once
#include <algorithm>
#include <array>

#include "core/scene.hpp"
#include "energy/registry.hpp"
#include "energy/tet_rest.hpp"
#include "energy/volume_elastic.hpp"

namespace weft {

// Per tet: rest data and the object's Lame parameters (read once from its material).
struct VolumeRest {
  TetRest tet;
  VolumeParams p;
};

// Appends the object's tets with rest data and (mu, lambda) from material.youngs / poisson.
void build_tets(const ObjectStencils& o, ElementSet& set);

inline Vec12 gather_tet(const double* xl, const int* l) {
  Vec12 x;
  for (int a = 0; a < 4; ++a) x.segment<3>(3 * a) = Eigen::Map<const Vec3>(xl + 3 * l[a]);
  return x;
}

// Kernel: static double eval(const Vec12&, const TetRest&, const VolumeParams&, Vec12*, Mat12*, bool).
template <class Kernel>
class VolumeTerm final : public EnergyTerm {
 public:
  VolumeTerm(const Scene& scene, int set, const LocalStencils& local)
      : EnergyTerm(set, scene.element_sets[set], local), rest_(set_.rest<VolumeRest>()) {}

  bool add_energy(const double* xl, double& acc) const override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const VolumeRest& r = rest_[stencils_.element_at(k)];
      const Vec12 x = gather_tet(xl, stencils_.local_at(4 * k));
      if (!(tet_jacobian(x, r.tet) > 0.0)) return false;
      acc += Kernel::eval(x, r.tet, r.p, nullptr, nullptr, false);
    }
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
        const VolumeRest& r = rest_[stencils_.element_at(k)];
        Mat12& H = H_[i];
        acc += scale * Kernel::eval(gather_tet(xl, l), r.tet, r.p, &g, &H, true);
        g *= scale;
        H *= scale;
        sink.add_gradient(4, l, g.data());
      }
      sink.add_hessians(set_index_, first, count, 4, stencils_.local_at(4 * first), H_[0].data());
    }
  }

  bool feasible(const double* xl) const override {
    for (int k = 0; k < stencils_.size(); ++k)
      if (!(tet_jacobian(gather_tet(xl, stencils_.local_at(4 * k)), rest_[stencils_.element_at(k)].tet) > 0.0))
        return false;
    return true;
  }

 private:
  static constexpr int kBatch = 16;  // Hessians handed to the sink per call
  static_assert(sizeof(Mat12) == 144 * sizeof(double), "Hessians are handed over as one array");
  const std::vector<VolumeRest>& rest_;
  std::array<Mat12, kBatch> H_;
};

}  // namespace weft
