// Augmented-Lagrangian kinematic boundary conditions (IPC, Li et al. 2020, section 4.3;
// rigid IPC section 4.4) as a local term of the Newton minimiser: for the obstacle vertices
// a CCD-limited move left behind this step,
//   E_A = kappa_A/2 m ||x - x_target||^2 - sqrt(m) lambda^T (x - x_target),
// and the minimiser may stop only once their step is below settle_step (they must come to
// rest well inside the AL tolerance before a multiplier update).
#pragma once
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "solver/newton_minimiser.hpp"

namespace weft {

class KinematicAl final : public LocalTerm {
 public:
  // mass: the spring's m.
  KinematicAl(double mass, MPI_Comm comm) : mass_(mass), comm_(comm) {}

  bool add_energy(const double* xl, double& acc) const override {
    const double sqm = std::sqrt(mass_);
    for (size_t i = 0; i < owned.size(); ++i) {
      const int l = owned[i];
      const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(target.data() + 3 * i);
      acc += 0.5 * kappa * mass_ * d.squaredNorm() - sqm * Eigen::Map<const Vec3>(&lambda[3 * i]).dot(d);
    }
    return true;
  }
  void assemble(const double* xl, double scale, double& acc, NodeSink& sink) override {
    const double sqm = scale * std::sqrt(mass_), k_al = scale * kappa * mass_;
    for (size_t i = 0; i < owned.size(); ++i) {
      const int l = owned[i];
      const Vec3 d = Eigen::Map<const Vec3>(xl + 3 * l) - Eigen::Map<const Vec3>(target.data() + 3 * i);
      const Vec3 lam = Eigen::Map<const Vec3>(&lambda[3 * i]);
      acc += 0.5 * k_al * d.squaredNorm() - sqm * lam.dot(d);
      const Vec3 g = k_al * d - sqm * lam;
      sink.add_node_gradient(l, g.data());
      const Mat3 K = k_al * Mat3::Identity();
      sink.add_node_block(l, K.data());
    }
  }
  bool settled(const double* pl) const override {
    if (count == 0) return true;
    double pinf = 0.0;
    for (int l : owned) pinf = std::max(pinf, Eigen::Map<const Vec3>(pl + 3 * l).lpNorm<Eigen::Infinity>());
    MPI_Allreduce(MPI_IN_PLACE, &pinf, 1, MPI_DOUBLE, MPI_MAX, comm_);
    return pinf < settle_step;
  }

  // The step's AL state (the stepper's outer loop updates it).
  std::vector<int> owned;       // owned local indices of AL vertices
  std::vector<double> target;   // 3 per owned entry: its scripted place at t + h
  std::vector<double> lambda;   // 3 per owned entry
  double kappa = 0.0;           // kappa_A
  int count = 0;                // global number of AL vertices (0: the term is off)
  double settle_step = 0.0;     // largest |p|_inf at which Newton may stop

 private:
  double mass_;
  MPI_Comm comm_;
};

}  // namespace weft
