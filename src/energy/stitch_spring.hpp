// The stitch spring (issue 19 point 3; C-IPC sec. 6.7 sews garments from flat panels): a
// zero-rest-length spring E = k/2 |x_a - x_b|^2 between the two vertices of a stitch pair.
// Its gradient k (d, -d), d = x_a - x_b, and Hessian k [I -I; -I I] (PSD as it stands: the
// eigenvalues are 0 and 2k) need no projection. methods/stitching.hpp doubles k until the
// pair is within dhat, then welds the two into one vertex.
#pragma once
#include "core/types.hpp"

namespace weft {

// Energy at (xa, xb); g (6: a then b) and H (6x6, symmetric) when non-null.
inline double stitch_spring(const Vec3& xa, const Vec3& xb, double k, VecN<6>* g, MatN<6>* H) {
  const Vec3 d = xa - xb;
  if (g) g->head<3>() = k * d, g->tail<3>() = -k * d;
  if (H) {
    H->setZero();
    for (int i = 0; i < 3; ++i) {
      (*H)(i, i) = (*H)(i + 3, i + 3) = k;
      (*H)(i, i + 3) = (*H)(i + 3, i) = -k;
    }
  }
  return 0.5 * k * d.squaredNorm();
}

}  // namespace weft
