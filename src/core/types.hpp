// Fixed-size Eigen aliases used by every kernel: element data never allocates.
#pragma once
#include <Eigen/Core>
#include <array>
#include <cstdint>

namespace weft {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Mat2 = Eigen::Matrix2d;
using Mat3 = Eigen::Matrix3d;
using Mat32 = Eigen::Matrix<double, 3, 2>;
template <int N> using VecN = Eigen::Matrix<double, N, 1>;
template <int N> using MatN = Eigen::Matrix<double, N, N>;
using Vec9 = VecN<9>;
using Vec12 = VecN<12>;
using Mat9 = MatN<9>;
using Mat12 = MatN<12>;

using Tri = std::array<int, 3>;
using Edge = std::array<int, 2>;

}  // namespace weft
