// Shell membrane (StVK or neo-Hookean) with the optional isotropic strain-limit barrier
// over the shell's triangles (C-IPC eq. 6, section 4.1). Both kernels share the stencil,
// F and its SVD, and give one gradient and one (projected) Hessian block per triangle.
#include <algorithm>
#include <array>
#include <cmath>

#include "core/scene.hpp"
#include "energy/membrane_neo_hookean.hpp"
#include "energy/membrane_stvk.hpp"
#include "energy/registry.hpp"
#include "energy/strain_limit.hpp"

namespace weft {
namespace {

constexpr int kBatch = 16;           // Hessians handed to the sink per call

struct StvkKernel {
  static double eval(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g, Mat9* H, bool project) {
    return membrane_stvk(x, r, p, g, H, project);
  }
  static double derivs(const Mat32& F, const Svd32& svd, const TriRest& r, const MembraneParams& p, IsoDerivs& d) {
    return membrane_stvk_derivs(F, svd, r, p, d);
  }
};
struct NeoHookeanKernel {
  static double eval(const Vec9& x, const TriRest& r, const MembraneParams& p, Vec9* g, Mat9* H, bool project) {
    return membrane_neo_hookean(x, r, p, g, H, project);
  }
  static double derivs(const Mat32& F, const Svd32& svd, const TriRest& r, const MembraneParams& p, IsoDerivs& d) {
    return membrane_neo_hookean_derivs(F, svd, r, p, d);
  }
};

inline Vec9 gather3(const double* xl, const int* l) {
  Vec9 x;
  for (int a = 0; a < 3; ++a) x.segment<3>(3 * a) = Eigen::Map<const Vec3>(xl + 3 * l[a]);
  return x;
}

template <class Kernel>
class ShellMembraneTerm final : public EnergyTerm {
 public:
  ShellMembraneTerm(const Scene& scene, int set, const LocalStencils& local)
      : EnergyTerm(set, scene.element_sets[set], local),
        objects_(scene.objects),
        rest_(set_.rest<TriRest>()),
        kappa_(local.size(), scene.spec.kappa_s),
        small_gap_(local.size(), 0) {}

  bool add_energy(const double* xl, double& acc) const override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const int e = stencils_.element_at(k);
      const ObjectParams& op = objects_[set_.object_of(e)];
      const Vec9 x = gather3(xl, stencils_.local_at(3 * k));
      const TriRest& r = rest_[e];
      acc += Kernel::eval(x, r, MembraneParams{op.mu, op.lambda, op.thickness}, nullptr, nullptr, false);
      if (op.strain_limit > 0) {
        const StrainLimitParams sp{op.strain_limit, op.strain_threshold, kappa_[k], r.area * op.thickness};
        const double s = strain_limit(x, r, sp, nullptr, nullptr, false);
        if (!std::isfinite(s)) return false;
        acc += s;
      }
    }
    return true;
  }

  void assemble(const double* xl, double scale, double& acc, AssemblySink& sink) override {
    Vec9 g;
    const int n = stencils_.size();
    for (int first = 0; first < n; first += kBatch) {
      const int count = std::min(kBatch, n - first);
      for (int i = 0; i < count; ++i) {
        const int k = first + i, e = stencils_.element_at(k);
        const ObjectParams& op = objects_[set_.object_of(e)];
        const int* l = stencils_.local_at(3 * k);
        const Vec9 x = gather3(xl, l);
        const TriRest& r = rest_[e];
        Mat9& H = H_[i];
        // Membrane and strain limit are isotropic functions of the same F: one SVD and
        // one set of closed-form modes (isotropic.hpp) give the gradient and the Hessian
        // of both, each part projected as before (isotropic_pair_grad_hess).
        const Mat32 F = deformation_gradient(x, r);
        const Svd32 svd = svd32(F);
        IsoDerivs dm, ds{};
        const double em = Kernel::derivs(F, svd, r, MembraneParams{op.mu, op.lambda, op.thickness}, dm);
        double es = 0.0;
        if (op.strain_limit > 0) {
          const StrainLimitParams sp{op.strain_limit, op.strain_threshold, kappa_[k], r.area * op.thickness};
          es = strain_limit_add_derivs(F, svd, sp, ds);
        }
        double en = em + es;
        if (!std::isfinite(en)) {  // collapsed or past the strain limit: the line search steps back
          g.setZero();
          H.setZero();
        } else if (es > 0.0) {
          isotropic_pair_grad_hess(svd, dm, ds, r, &g, &H, true);
        } else {
          isotropic_grad_hess(svd, dm, 1.0, r, &g, &H, true);
        }
        acc += scale * en;
        g *= scale;
        H *= scale;
        sink.add_gradient(3, l, g.data());
      }
      sink.add_hessians(set_index_, first, count, 3, stencils_.local_at(3 * first), H_[0].data());
    }
  }

  bool feasible(const double* xl) const override {
    for (int k = 0; k < stencils_.size(); ++k) {
      const int e = stencils_.element_at(k);
      const ObjectParams& op = objects_[set_.object_of(e)];
      if (op.strain_limit > 0 &&
          !(max_singular_value(gather3(xl, stencils_.local_at(3 * k)), rest_[e]) < op.strain_limit))
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
      const double gap = op.strain_limit - max_singular_value(gather3(xl, stencils_.local_at(3 * k)), rest_[e]);
      adapt_strain_stiffness(gap, op.strain_limit, op.strain_threshold, kappa_[k], small_gap_[k]);
    }
  }

  std::vector<double>* stiffness() override { return &kappa_; }

  double max_strain(const double* xl) const override {
    double worst = 0.0;
    for (int k = 0; k < stencils_.size(); ++k)
      worst = std::max(worst, max_singular_value(gather3(xl, stencils_.local_at(3 * k)), rest_[stencils_.element_at(k)]));
    return worst;
  }

 private:
  static_assert(sizeof(Mat9) == 81 * sizeof(double), "Hessians are handed over as one array");
  const std::vector<ObjectParams>& objects_;
  const std::vector<TriRest>& rest_;
  std::vector<double> kappa_;   // strain-limit stiffness kappa_s per local triangle (adaptive)
  std::vector<int> small_gap_;  // consecutive iterations near the limit
  std::array<Mat9, kBatch> H_;
};

void build_triangles(const ObjectStencils& o, ElementSet& set) {
  std::vector<TriRest>& rest = set.rest<TriRest>();
  reserve_for_append(rest, o.triangles.size());
  reserve_for_append(set.vertices, 3 * o.triangles.size());
  for (size_t t = 0; t < o.triangles.size(); ++t) {
    const Tri& tri = o.triangles[t];
    set.vertices.insert(set.vertices.end(), tri.begin(), tri.end());
    set.push_object(o.object);
    rest.push_back(make_tri_rest(o.rest[tri[0]], o.rest[tri[1]], o.rest[tri[2]]));
  }
}

template <class Kernel>
std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<ShellMembraneTerm<Kernel>>(scene, set, local);
}

}  // namespace

extern const TermFactory kShellMembraneNeoHookean = {ObjectKind::Shell, "neo_hookean", "membrane_neo_hookean", 3,
                                                     &build_triangles, &make<NeoHookeanKernel>, "", 60};
extern const TermFactory kShellMembraneStvk = {ObjectKind::Shell, "stvk", "membrane_stvk", 3, &build_triangles,
                                               &make<StvkKernel>, "", 43};

}  // namespace weft
