// Orientation predicates with exact signs (weft-verify's own; independent of src/ccd).
//
// Each predicate first evaluates the determinant in double precision and accepts its
// sign when |det| exceeds Shewchuk's forward error bound for that evaluation order
// ("Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates",
// 1997, bounds ccwerrboundA / o3derrboundA). Otherwise it recomputes the determinant
// exactly with floating-point expansions (two-sum / two-product with fma, zero
// elimination) and returns the sign of the exact value. Inputs must be finite and not so
// tiny that products underflow (|coordinate differences| > 1e-150), which holds for any
// simulation output; under those conditions the returned signs are exact.
#pragma once
#include "core/types.hpp"

namespace weft::verify {

// Sign of det[a-c; b-c] for 2D points given as (x, y): +1 when a, b, c turn counter-clockwise.
int orient2d(double ax, double ay, double bx, double by, double cx, double cy);

// Sign of det[a-d; b-d; c-d] (rows): 0 iff the four points are coplanar.
int orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

// Filter stage only: the exact sign when the double evaluation decides it, else 2.
int orient3d_filtered(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

// The exact-arithmetic paths, exposed for tests (always use expansions).
int orient2d_exact(double ax, double ay, double bx, double by, double cx, double cy);
int orient3d_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

}  // namespace weft::verify
