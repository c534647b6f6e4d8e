// Edge strain limiting (paper 002 sec. 12.2): an edge's strain sigma = |x1 - x0| / L is
// clipped into [sigma_min, sigma_max] and the edge projected onto the clipped length:
//   C = |x1 - x0| - clip(sigma, sigma_min, sigma_max) L,
// zero (with zero gradient) inside the interval, the distance constraint to the violated
// bound outside it. One projection with k = 1 puts the length exactly on the bound.
// (002 writes x_j^new = x_j - m_i/(m_i+m_j) (...) v_ij; the sign must be + as in its PBD
// formula above it, which is what dx_i = -s w_i grad_i C gives.)
#pragma once
#include "constraints/projection.hpp"

namespace weft {

// Requires 0 <= sigma_min <= 1 <= sigma_max (the caller validates the case keys).
double edge_strain_limit_constraint(const Stencil3<2>& x, double rest_length, double sigma_min,
                                    double sigma_max, Stencil3<2>* grad);

}  // namespace weft
