// Neo-Hookean elasticity over a volume's tets (energy/volume_neo_hookean.hpp), with the
// tet-inversion feasibility test.
#include "energy/volume_neo_hookean.hpp"
#include "energy/volume_term.hpp"

namespace weft {
namespace {

struct NeoHookeanKernel {
  static double eval(const Vec12& x, const TetRest& r, const VolumeParams& p, Vec12* g, Mat12* H, bool project) {
    return volume_neo_hookean(x, r, p, g, H, project);
  }
};

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<VolumeTerm<NeoHookeanKernel>>(scene, set, local);
}

}  // namespace

extern const TermFactory kVolumeNeoHookean = {ObjectKind::Volume, "neo_hookean", "volume_neo_hookean", 4, &build_tets,
                                              &make, "", 107};

}  // namespace weft
