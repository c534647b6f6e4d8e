// The inertia of an incremental potential, 1/2 ||y - y_hat||_M^2 over the owned unknown
// nodes with a lumped (diagonal) mass: a local term of the Newton minimiser.
#pragma once
#include <vector>

#include "solver/newton_minimiser.hpp"

namespace weft {

class InertiaTerm final : public LocalTerm {
 public:
  // nodes: owned local node indices (ascending), mass: one per node; y_hat: 3 per local node
  // (read at every call, set by the stepper's prediction).
  InertiaTerm(std::vector<int> nodes, std::vector<double> mass, const std::vector<double>& y_hat)
      : nodes_(std::move(nodes)), mass_(std::move(mass)), y_hat_(y_hat) {}

  bool add_energy(const double* xl, double& acc) const override {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const int l = nodes_[i];
      const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(y_hat_.data() + 3 * l);
      acc += 0.5 * mass_[i] * d.squaredNorm();
    }
    return true;
  }
  void assemble(const double* xl, double scale, double& acc, NodeSink& sink) override {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const int l = nodes_[i];
      const double m = scale * mass_[i];
      const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(y_hat_.data() + 3 * l);
      acc += 0.5 * m * d.squaredNorm();
      const Vec3 g = m * d;
      sink.add_node_gradient(l, g.data());
      const Mat3 M = m * Mat3::Identity();
      sink.add_node_block(l, M.data());
    }
  }

 private:
  std::vector<int> nodes_;
  std::vector<double> mass_;
  const std::vector<double>& y_hat_;
};

}  // namespace weft
