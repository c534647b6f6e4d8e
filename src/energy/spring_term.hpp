// The energy term every spring set shares (structural, shear and bending springs, shells
// and rods; spring_*_term.cpp differ only in which vertex pairs they build and their
// stiffness): E = sum of 1/2 k (|x0 - x1| - L)^2 over the set's 2-vertex stencils.
#pragma once
#include <algorithm>
#include <array>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "core/scene.hpp"
#include "energy/registry.hpp"
#include "energy/spring.hpp"

namespace weft {

class SpringTerm final : public EnergyTerm {
 public:
  // strain: the springs measure the material's stretch (structural springs), reported by
  // max_strain; shear and bending springs report 0.
  SpringTerm(const Scene& scene, int set, const LocalStencils& local, bool strain)
      : EnergyTerm(set, scene.element_sets[set], local), rest_(set_.rest<SpringRest>()), strain_(strain) {}

  bool add_energy(const double* xl, double& acc) const override {
    for (int k = 0; k < stencils_.size(); ++k)
      acc += spring_energy(gather(xl, stencils_.local_at(2 * k)), rest_[stencils_.element_at(k)], nullptr, nullptr, false);
    return true;
  }

  void assemble(const double* xl, double scale, double& acc, AssemblySink& sink) override {
    Vec6 g;
    const int n = stencils_.size();
    for (int first = 0; first < n; first += kBatch) {
      const int count = std::min(kBatch, n - first);
      for (int i = 0; i < count; ++i) {
        const int k = first + i;
        const int* l = stencils_.local_at(2 * k);
        Mat6& H = H_[i];
        acc += scale * spring_energy(gather(xl, l), rest_[stencils_.element_at(k)], &g, &H, true);
        g *= scale;
        H *= scale;
        sink.add_gradient(2, l, g.data());
      }
      sink.add_hessians(set_index_, first, count, 2, stencils_.local_at(2 * first), H_[0].data());
    }
  }

  double max_strain(const double* xl) const override {
    if (!strain_) return 0.0;
    double worst = 0.0;
    for (int k = 0; k < stencils_.size(); ++k)
      worst = std::max(worst, spring_stretch(gather(xl, stencils_.local_at(2 * k)), rest_[stencils_.element_at(k)]));
    return worst;
  }

 private:
  static constexpr int kBatch = 16;  // Hessians handed to the sink per call
  static Vec6 gather(const double* xl, const int* l) {
    Vec6 x;
    x << Eigen::Map<const Vec3>(xl + 3 * l[0]), Eigen::Map<const Vec3>(xl + 3 * l[1]);
    return x;
  }
  static_assert(sizeof(Mat6) == 36 * sizeof(double), "Hessians are handed over as one array");
  const std::vector<SpringRest>& rest_;
  const bool strain_;
  std::array<Mat6, kBatch> H_;
};

// Appends the spring (a, b) with stiffness k (N/m) and its rest length to `set`.
inline void add_spring(const ObjectStencils& o, ElementSet& set, int a, int b, double k) {
  const double L = (o.rest[a] - o.rest[b]).norm();
  if (!(L > 0)) throw InputError("object '" + o.spec.name + "': a spring has zero rest length (coincident vertices)");
  set.vertices.push_back(a);
  set.vertices.push_back(b);
  set.push_object(o.object);
  set.rest<SpringRest>().push_back({L, k});
}

// Plate flexural rigidity D = E_b t^3 / (12 (1 - nu^2)) of a shell object (spring.hpp).
inline double shell_flexural_rigidity(const MaterialSpec& m) {
  const double Eb = m.bending_youngs < 0 ? m.youngs : m.bending_youngs;
  return Eb * m.thickness * m.thickness * m.thickness / (12.0 * (1.0 - m.poisson * m.poisson));
}

// Whether the hinge's shared edge (h[0], h[1]) is the longest edge of both its triangles:
// the hinge is then the diagonal of the quad the two triangles make, and the pair of
// opposite vertices (h[2], h[3]) the quad's other diagonal, a shear spring; otherwise that
// pair spans two triangles across the hinge, a bending spring (spring_*_term.cpp).
inline bool hinge_is_quad_diagonal(const std::vector<Vec3>& X, const std::array<int, 4>& h) {
  const double e2 = (X[h[0]] - X[h[1]]).squaredNorm();
  for (int w = 2; w < 4; ++w)
    if (!(e2 > (X[h[w]] - X[h[0]]).squaredNorm() && e2 > (X[h[w]] - X[h[1]]).squaredNorm())) return false;
  return true;
}

}  // namespace weft
