// Fixed-corotated elasticity over a volume's tets (energy/volume_fixed_corotated.hpp), with
// the tet-inversion feasibility test; build_tets (shared by the volume models) lives here.
#include "core/error.hpp"
#include "core/reserve_for_append.hpp"
#include "energy/volume_fixed_corotated.hpp"
#include "energy/volume_term.hpp"
#include "io/case_spec.hpp"

namespace weft {

void build_tets(const ObjectStencils& o, ElementSet& set) {
  std::vector<VolumeRest>& rest = set.rest<VolumeRest>();
  const MaterialSpec& mat = o.spec.material;
  const VolumeParams p = volume_params(mat.youngs, mat.poisson);
  // (room first: a push_back's last doubling of the rest data was a volume build's peak)
  reserve_for_append(rest, o.tets.size());
  reserve_for_append(set.vertices, 4 * o.tets.size());
  for (const auto& t : o.tets) {
    set.vertices.insert(set.vertices.end(), t.begin(), t.end());
    set.push_object(o.object);
    try {
      rest.push_back({make_tet_rest(o.rest[t[0]], o.rest[t[1]], o.rest[t[2]], o.rest[t[3]]), p});
    } catch (const InputError& e) {
      throw InputError("object '" + o.spec.name + "' tet " + std::to_string(&t - o.tets.data()) + ": " + e.what());
    }
  }
}

namespace {

struct FixedCorotatedKernel {
  static double eval(const Vec12& x, const TetRest& r, const VolumeParams& p, Vec12* g, Mat12* H, bool project) {
    return volume_fixed_corotated(x, r, p, g, H, project);
  }
};

std::unique_ptr<EnergyTerm> make(const Scene& scene, int set, const LocalStencils& local) {
  return std::make_unique<VolumeTerm<FixedCorotatedKernel>>(scene, set, local);
}

}  // namespace

extern const TermFactory kVolumeFixedCorotated = {ObjectKind::Volume, "fixed_corotated", "volume_fixed_corotated", 4,
                                                  &build_tets, &make, "", 102};

}  // namespace weft
