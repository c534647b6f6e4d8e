#include "contact/distance_type.hpp"

#include <array>

#include "contact/edge_edge.hpp"
#include "contact/point_edge.hpp"
#include "contact/point_point.hpp"
#include "contact/point_triangle.hpp"

namespace weft {

namespace {

// Scatter the gradient of a kernel over K local points into N points at slots idx.
template <int N, int K>
VecN<3 * N> scatter(const VecN<3 * K>& g, const std::array<int, K>& idx) {
  VecN<3 * N> out = VecN<3 * N>::Zero();
  for (int i = 0; i < K; ++i) out.template segment<3>(3 * idx[i]) += g.template segment<3>(3 * i);
  return out;
}

template <int N, int K>
MatN<3 * N> scatter(const MatN<3 * K>& H, const std::array<int, K>& idx) {
  MatN<3 * N> out = MatN<3 * N>::Zero();
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < K; ++j)
      out.template block<3, 3>(3 * idx[i], 3 * idx[j]) += H.template block<3, 3>(3 * i, 3 * j);
  return out;
}

}  // namespace

const char* to_string(PointEdgeType t) {
  switch (t) {
    case PointEdgeType::P_E0: return "P_E0";
    case PointEdgeType::P_E1: return "P_E1";
    case PointEdgeType::P_E: return "P_E";
  }
  return "?";
}

const char* to_string(PointTriangleType t) {
  switch (t) {
    case PointTriangleType::P_A: return "P_A";
    case PointTriangleType::P_B: return "P_B";
    case PointTriangleType::P_C: return "P_C";
    case PointTriangleType::P_EAB: return "P_EAB";
    case PointTriangleType::P_EBC: return "P_EBC";
    case PointTriangleType::P_ECA: return "P_ECA";
    case PointTriangleType::P_T: return "P_T";
  }
  return "?";
}

const char* to_string(EdgeEdgeType t) {
  switch (t) {
    case EdgeEdgeType::EA0_EB0: return "EA0_EB0";
    case EdgeEdgeType::EA0_EB1: return "EA0_EB1";
    case EdgeEdgeType::EA1_EB0: return "EA1_EB0";
    case EdgeEdgeType::EA1_EB1: return "EA1_EB1";
    case EdgeEdgeType::EA_EB0: return "EA_EB0";
    case EdgeEdgeType::EA_EB1: return "EA_EB1";
    case EdgeEdgeType::EA0_EB: return "EA0_EB";
    case EdgeEdgeType::EA1_EB: return "EA1_EB";
    case EdgeEdgeType::EA_EB: return "EA_EB";
  }
  return "?";
}

// ---------------------------------------------------------------- point-edge

Vec9 point_edge_distance_sq_gradient(const Vec3& p, const Vec3& e0, const Vec3& e1, PointEdgeType type) {
  switch (type) {
    case PointEdgeType::P_E0: return scatter<3, 2>(point_point_distance_sq_gradient(p, e0), {0, 1});
    case PointEdgeType::P_E1: return scatter<3, 2>(point_point_distance_sq_gradient(p, e1), {0, 2});
    case PointEdgeType::P_E: return point_line_distance_sq_gradient(p, e0, e1);
  }
  return Vec9::Zero();
}

Mat9 point_edge_distance_sq_hessian(const Vec3& p, const Vec3& e0, const Vec3& e1, PointEdgeType type) {
  switch (type) {
    case PointEdgeType::P_E0: return scatter<3, 2>(point_point_distance_sq_hessian(p, e0), {0, 1});
    case PointEdgeType::P_E1: return scatter<3, 2>(point_point_distance_sq_hessian(p, e1), {0, 2});
    case PointEdgeType::P_E: return point_line_distance_sq_hessian(p, e0, e1);
  }
  return Mat9::Zero();
}

// ---------------------------------------------------------------- point-triangle

Vec12 point_triangle_distance_sq_gradient(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                                          PointTriangleType type) {
  switch (type) {
    case PointTriangleType::P_A: return scatter<4, 2>(point_point_distance_sq_gradient(p, a), {0, 1});
    case PointTriangleType::P_B: return scatter<4, 2>(point_point_distance_sq_gradient(p, b), {0, 2});
    case PointTriangleType::P_C: return scatter<4, 2>(point_point_distance_sq_gradient(p, c), {0, 3});
    case PointTriangleType::P_EAB: return scatter<4, 3>(point_line_distance_sq_gradient(p, a, b), {0, 1, 2});
    case PointTriangleType::P_EBC: return scatter<4, 3>(point_line_distance_sq_gradient(p, b, c), {0, 2, 3});
    case PointTriangleType::P_ECA: return scatter<4, 3>(point_line_distance_sq_gradient(p, c, a), {0, 3, 1});
    case PointTriangleType::P_T: return point_plane_distance_sq_gradient(p, a, b, c);
  }
  return Vec12::Zero();
}

Mat12 point_triangle_distance_sq_hessian(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                                         PointTriangleType type) {
  switch (type) {
    case PointTriangleType::P_A: return scatter<4, 2>(point_point_distance_sq_hessian(p, a), {0, 1});
    case PointTriangleType::P_B: return scatter<4, 2>(point_point_distance_sq_hessian(p, b), {0, 2});
    case PointTriangleType::P_C: return scatter<4, 2>(point_point_distance_sq_hessian(p, c), {0, 3});
    case PointTriangleType::P_EAB: return scatter<4, 3>(point_line_distance_sq_hessian(p, a, b), {0, 1, 2});
    case PointTriangleType::P_EBC: return scatter<4, 3>(point_line_distance_sq_hessian(p, b, c), {0, 2, 3});
    case PointTriangleType::P_ECA: return scatter<4, 3>(point_line_distance_sq_hessian(p, c, a), {0, 3, 1});
    case PointTriangleType::P_T: return point_plane_distance_sq_hessian(p, a, b, c);
  }
  return Mat12::Zero();
}

// ---------------------------------------------------------------- edge-edge

Vec12 edge_edge_distance_sq_gradient(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                     EdgeEdgeType type) {
  switch (type) {
    case EdgeEdgeType::EA0_EB0: return scatter<4, 2>(point_point_distance_sq_gradient(ea0, eb0), {0, 2});
    case EdgeEdgeType::EA0_EB1: return scatter<4, 2>(point_point_distance_sq_gradient(ea0, eb1), {0, 3});
    case EdgeEdgeType::EA1_EB0: return scatter<4, 2>(point_point_distance_sq_gradient(ea1, eb0), {1, 2});
    case EdgeEdgeType::EA1_EB1: return scatter<4, 2>(point_point_distance_sq_gradient(ea1, eb1), {1, 3});
    case EdgeEdgeType::EA_EB0: return scatter<4, 3>(point_line_distance_sq_gradient(eb0, ea0, ea1), {2, 0, 1});
    case EdgeEdgeType::EA_EB1: return scatter<4, 3>(point_line_distance_sq_gradient(eb1, ea0, ea1), {3, 0, 1});
    case EdgeEdgeType::EA0_EB: return scatter<4, 3>(point_line_distance_sq_gradient(ea0, eb0, eb1), {0, 2, 3});
    case EdgeEdgeType::EA1_EB: return scatter<4, 3>(point_line_distance_sq_gradient(ea1, eb0, eb1), {1, 2, 3});
    case EdgeEdgeType::EA_EB: return line_line_distance_sq_gradient(ea0, ea1, eb0, eb1);
  }
  return Vec12::Zero();
}

Mat12 edge_edge_distance_sq_hessian(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0, const Vec3& eb1,
                                    EdgeEdgeType type) {
  switch (type) {
    case EdgeEdgeType::EA0_EB0: return scatter<4, 2>(point_point_distance_sq_hessian(ea0, eb0), {0, 2});
    case EdgeEdgeType::EA0_EB1: return scatter<4, 2>(point_point_distance_sq_hessian(ea0, eb1), {0, 3});
    case EdgeEdgeType::EA1_EB0: return scatter<4, 2>(point_point_distance_sq_hessian(ea1, eb0), {1, 2});
    case EdgeEdgeType::EA1_EB1: return scatter<4, 2>(point_point_distance_sq_hessian(ea1, eb1), {1, 3});
    case EdgeEdgeType::EA_EB0: return scatter<4, 3>(point_line_distance_sq_hessian(eb0, ea0, ea1), {2, 0, 1});
    case EdgeEdgeType::EA_EB1: return scatter<4, 3>(point_line_distance_sq_hessian(eb1, ea0, ea1), {3, 0, 1});
    case EdgeEdgeType::EA0_EB: return scatter<4, 3>(point_line_distance_sq_hessian(ea0, eb0, eb1), {0, 2, 3});
    case EdgeEdgeType::EA1_EB: return scatter<4, 3>(point_line_distance_sq_hessian(ea1, eb0, eb1), {1, 2, 3});
    case EdgeEdgeType::EA_EB: return line_line_distance_sq_hessian(ea0, ea1, eb0, eb1);
  }
  return Mat12::Zero();
}

}  // namespace weft
