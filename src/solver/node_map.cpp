#include "solver/node_map.hpp"

#include <stdexcept>

namespace weft {

NodeMap::NodeMap(int num_nodes, std::vector<int> ptr, std::vector<int> node, std::vector<Mat3> J)
    : num_nodes_(num_nodes), ptr_(std::move(ptr)), node_(std::move(node)), J_(std::move(J)) {
  if (ptr_.empty() || node_.size() != J_.size() || static_cast<size_t>(ptr_.back()) != node_.size())
    throw std::invalid_argument("NodeMap: ptr, node and J disagree");
}

int NodeMap::pull_back(int nv, const int* v, const double* ge, const double* He, int* nodes, double* gn,
                       double* Hn) const {
  if (identity()) {  // callers take the identity path themselves; kept for completeness
    for (int a = 0; a < nv; ++a) nodes[a] = v[a];
    if (gn)
      for (int i = 0; i < 3 * nv; ++i) gn[i] = ge[i];
    if (Hn)
      for (int i = 0; i < 9 * nv * nv; ++i) Hn[i] = He[i];
    return nv;
  }
  if (nv > kMaxStencilVertices) throw std::invalid_argument("NodeMap: stencil too large");
  // slot[k] of vertex a's k-th dependency: its position in `nodes`.
  int slot[kMaxStencilVertices * kMaxStencilNodes];
  int nn = 0;
  for (int a = 0; a < nv; ++a)
    for (int k = ptr_[v[a]]; k < ptr_[v[a] + 1]; ++k) {
      int s = 0;
      while (s < nn && nodes[s] != node_[k]) ++s;
      if (s == nn) {
        if (nn == kMaxStencilNodes) throw std::invalid_argument("NodeMap: stencil reaches too many nodes");
        nodes[nn++] = node_[k];
      }
      slot[a * kMaxStencilNodes + (k - ptr_[v[a]])] = s;
    }
  const int sv = 3 * nv, sn = 3 * nn;
  if (gn) {
    for (int i = 0; i < sn; ++i) gn[i] = 0.0;
    for (int a = 0; a < nv; ++a)
      for (int k = ptr_[v[a]]; k < ptr_[v[a] + 1]; ++k) {
        const int s = slot[a * kMaxStencilNodes + (k - ptr_[v[a]])];
        Eigen::Map<Vec3>(gn + 3 * s) += J_[k].transpose() * Eigen::Map<const Vec3>(ge + 3 * a);
      }
  }
  if (Hn) {
    for (int i = 0; i < sn * sn; ++i) Hn[i] = 0.0;
    using RowMat = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
    using Stride = Eigen::OuterStride<>;
    for (int a = 0; a < nv; ++a)
      for (int b = 0; b < nv; ++b) {
        const Eigen::Map<const RowMat, 0, Stride> Hab(He + 3 * a * sv + 3 * b, Stride(sv));
        for (int k = ptr_[v[a]]; k < ptr_[v[a] + 1]; ++k)
          for (int m = ptr_[v[b]]; m < ptr_[v[b] + 1]; ++m) {
            const int s = slot[a * kMaxStencilNodes + (k - ptr_[v[a]])];
            const int t = slot[b * kMaxStencilNodes + (m - ptr_[v[b]])];
            Eigen::Map<RowMat, 0, Stride>(Hn + 3 * s * sn + 3 * t, Stride(sn)) +=
                J_[k].transpose() * Hab * J_[m];
          }
      }
  }
  return nn;
}

void NodeMap::pull_back_gradient(const double* gv, double* gn) const {
  if (identity()) throw std::logic_error("NodeMap::pull_back_gradient on the identity map (use gv as is)");
  for (size_t l = 0; l + 1 < ptr_.size(); ++l)
    for (int k = ptr_[l]; k < ptr_[l + 1]; ++k)
      Eigen::Map<Vec3>(gn + 3 * node_[k]) += J_[k].transpose() * Eigen::Map<const Vec3>(gv + 3 * l);
}

}  // namespace weft
