// Unknowns as nodes (issue 17 point 3): the solver's unknowns are nodes of 3 DOFs; the
// energy terms see vertices. Every kind that exists now is deformable, each vertex its own
// node (the identity map, which the assembly takes without any copy or per-block test).
// A rigid body will be 2 nodes (translation q, rotation vector theta) whose vertices move
// as x = R(theta) X + q; linearised at the current theta, dx = sum_n J_n dy_n, and a
// vertex-level gradient g and Hessian H pull back to the nodes as J^T g and J^T H J
// (Gauss-Newton part; the curvature term g . d2x/dy2 belongs to the rigid term itself).
#pragma once
#include <vector>

#include "core/types.hpp"

namespace weft {

class NodeMap {
 public:
  // Most nodes one stencil of up to kMaxStencilVertices vertices can reach.
  static constexpr int kMaxStencilVertices = 4;
  static constexpr int kMaxStencilNodes = 8;

  // The identity on local vertices: vertex l is node l.
  NodeMap() = default;
  bool identity() const { return ptr_.empty(); }

  // A general (linearised) map over num_vertices local vertices and num_nodes local nodes:
  // vertex l depends on nodes node[ptr[l] .. ptr[l + 1]) through the 3x3 blocks J[same range]
  // (dx_l = sum_k J[k] dy_node[k]).
  NodeMap(int num_nodes, std::vector<int> ptr, std::vector<int> node, std::vector<Mat3> J);
  int num_nodes() const { return num_nodes_; }

  // One stencil of nv vertices (local ids `vertices`) with gradient ge (3 nv) and symmetric
  // Hessian He (3 nv x 3 nv): the distinct nodes it reaches (`nodes`, in order of first
  // appearance, at most kMaxStencilNodes) and J^T ge (3 per node), J^T He J (3 nn x 3 nn,
  // row-major). Returns nn. Either output may be null.
  int pull_back(int nv, const int* vertices, const double* ge, const double* He, int* nodes, double* gn,
                double* Hn) const;
  // The whole local vertex gradient gv (3 per vertex) pulled back, added into gn (3 per node).
  void pull_back_gradient(const double* gv, double* gn) const;

 private:
  int num_nodes_ = 0;
  std::vector<int> ptr_, node_;
  std::vector<Mat3> J_;
};

}  // namespace weft
