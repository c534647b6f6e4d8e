// Discrete rod stretching (C-IPC eq. 3, Psi_rod): per segment e = x1 - x0 of rest length L,
//   Psi = 1/2 k L (|e|/L - 1)^2,   k = E pi r^2  (axial stiffness EA, N),
// the continuum 1/2 EA eps^2 integrated over the segment's rest length.
// Vertex order: x0, x1. The Hessian is [H3 -H3; -H3 H3] with
//   H3 = (k/L) e^ e^T + k (|e|/L - 1)/|e| (I - e^ e^T),
// whose transverse part is negative under compression: projection clamps that one
// coefficient at zero (closed form, exact nearest PSD).
#pragma once
#include "core/types.hpp"

namespace weft {

using Vec6 = VecN<6>;
using Mat6 = MatN<6>;

struct RodStretchRest {
  double length;     // L, rest length
  double stiffness;  // k = E A
};

double rod_stretch(const Vec6& x, const RodStretchRest& r, Vec6* g, Mat6* H, bool project);

// Stretch ratio |e| / L of a segment: the quantity a segment strain limit bounds.
double segment_stretch(const Vec6& x, const RodStretchRest& r);

// H = [H3 -H3; -H3 H3] for H3 = a e^ e^T + b (I - e^ e^T): the shape every segment
// potential of |e| alone has.
void segment_hessian(const Vec3& ehat, double a, double b, Mat6& H);

}  // namespace weft
