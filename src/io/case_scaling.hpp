// A scaled-down (or up) copy of a case: every generator's resolution scaled so the object's
// vertex count changes by about `vertex_factor` (the size estimate's short trial runs,
// methods/estimate.hpp). Meshes from files, polylines and the rest of the case are kept.
#pragma once
#include "io/case_spec.hpp"

namespace weft {

// Surfaces scale their two resolutions by sqrt(f) (grid, disk, cylinder, funnel, bowl, the
// surface box), icospheres lose round(log4(1/f)) subdivisions, lattices (particle_block,
// the tet box and tet sphere) scale each count by cbrt(f), rods their segments by f and
// rod nets their rod counts by sqrt(f). Every count stays at its generator's minimum or
// above. The name gets a suffix so a trial is not mistaken for the case.
CaseSpec scaled_case(const CaseSpec& spec, double vertex_factor);

// Total vertex count of the case's objects (their meshes built one at a time and dropped).
long long count_case_vertices(const CaseSpec& spec);

}  // namespace weft
