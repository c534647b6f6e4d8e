// Projection of a small symmetric matrix onto the cone of positive semi-definite
// matrices: eigen-decompose and clamp negative eigenvalues to zero (IPC, Li et al. 2020,
// "project the local Hessian to PSD"). Fixed size, no allocation.
#pragma once
#include <Eigen/Eigenvalues>

#include "core/types.hpp"

namespace weft {

template <int N>
MatN<N> project_to_psd(const MatN<N>& A) {
  Eigen::SelfAdjointEigenSolver<MatN<N>> es(A);
  VecN<N> lambda = es.eigenvalues();
  if (lambda.minCoeff() >= 0.0) return A;
  for (int i = 0; i < N; ++i) lambda[i] = lambda[i] > 0.0 ? lambda[i] : 0.0;
  return es.eigenvectors() * lambda.asDiagonal() * es.eigenvectors().transpose();
}

}  // namespace weft
