// The inertia of an incremental potential, 1/2 ||y - y_hat||_M^2 over the owned unknown
// nodes with a lumped (diagonal) mass: a local term of the Newton minimiser.
#pragma once
#include <vector>

#include "solver/newton_minimiser.hpp"

namespace weft {

class InertiaTerm final : public LocalTerm {
 public:
  // The owned local nodes [0, n_owned) but those in `skip` (ascending: fixed nodes), node l
  // of mass mass[l] (borrowed: e.g. the scene's masses of the owned block; issue 20, a list
  // of nodes and a copy of their masses were 12 bytes a vertex); y_hat: 3 per local node
  // (read at every call, set by the stepper's prediction).
  InertiaTerm(int n_owned, std::vector<int> skip, const double* mass, const std::vector<double>& y_hat)
      : n_(n_owned), skip_(std::move(skip)), mass_(mass), y_hat_(y_hat) {}

  bool add_energy(const double* xl, double& acc) const override {
    for_each_free([&](int l) {
      const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(y_hat_.data() + 3 * l);
      acc += 0.5 * mass_[l] * d.squaredNorm();
    });
    return true;
  }
  void assemble(const double* xl, double scale, double& acc, NodeSink& sink) override {
    for_each_free([&](int l) {
      const double m = scale * mass_[l];
      const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(y_hat_.data() + 3 * l);
      acc += 0.5 * m * d.squaredNorm();
      const Vec3 g = m * d;
      sink.add_node_gradient(l, g.data());
      const Mat3 M = m * Mat3::Identity();
      sink.add_node_block(l, M.data());
    });
  }

 private:
  // f(l) for the owned nodes l in ascending order, but the skipped ones.
  template <class F>
  void for_each_free(F&& f) const {
    size_t s = 0;
    for (int l = 0; l < n_; ++l) {
      if (s < skip_.size() && skip_[s] == l) {
        ++s;
        continue;
      }
      f(l);
    }
  }
  int n_;
  std::vector<int> skip_;
  const double* mass_;
  const std::vector<double>& y_hat_;
};

}  // namespace weft
