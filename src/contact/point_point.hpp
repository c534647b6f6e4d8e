// Squared distance between two points and its derivatives. Coordinates (p0, p1).
#pragma once
#include "core/types.hpp"

namespace weft {

using Vec6 = VecN<6>;
using Mat6 = MatN<6>;

inline double point_point_distance_sq(const Vec3& p0, const Vec3& p1) { return (p0 - p1).squaredNorm(); }
Vec6 point_point_distance_sq_gradient(const Vec3& p0, const Vec3& p1);
Mat6 point_point_distance_sq_hessian(const Vec3& p0, const Vec3& p1);

}  // namespace weft
