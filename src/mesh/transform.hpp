// Rigid-plus-scale placement of a mesh (DESIGN.md: scale, then rotate, then translate).
#pragma once
#include "core/types.hpp"
#include "mesh/tri_mesh.hpp"

namespace weft {

// x <- R(rotate_deg about axis) (scale * x) + translate. The axis is normalised; a zero
// axis is allowed only with rotate_deg == 0. scale must be finite and > 0 (a negative scale
// would turn the mesh inside out). Throws InputError otherwise.
void apply_transform(TriMesh& mesh, double scale, double rotate_deg, const Vec3& axis, const Vec3& translate);

// The 3x3 rotation matrix used above.
Mat3 rotation_matrix(double rotate_deg, const Vec3& axis);

}  // namespace weft
