// Material directions of orthotropic shells (C-IPC sec. 4.2): the warp direction of each
// rest triangle, and the triangle's rest data in the (warp, weft) frame, so the 3x2
// "deformation gradient" of that rest data is G = F D = [F d_warp, F d_weft] and
// G^T G = D^T C D: the aligned Green strain of eq. 8 is (G^T G - I) / 2.
#pragma once
#include "core/types.hpp"
#include "energy/tri_rest.hpp"
#include "io/case_spec.hpp"

namespace weft {

// `axis` projected into the plane of the rest triangle, normalised. When the axis is (nearly)
// normal to the triangle (projected length < 1e-6 |axis|) or zero, the direction of the
// triangle's first edge X1 - X0 is used instead.
Vec3 warp_in_triangle(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec3& axis);

// The warp direction of a triangle from its texture coordinates, u running along the warp:
// dX/du of the affine map (u, v) -> X over the triangle, normalised. Throws InputError
// when the texture triangle is degenerate (twice its area <= 1e-12 * longest uv edge^2).
Vec3 warp_from_uv(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec2& uv0, const Vec2& uv1,
                  const Vec2& uv2);

// The warp direction of an orthotropic shell's rest triangle. Precedence: the case's
// strain_limit.warp_direction when given (projected, warp_in_triangle); else the triangle's
// texture coordinates when the mesh has them (uv non-null; u = warp, warp_from_uv); else +x
// projected.
Vec3 orthotropic_warp(const Vec3& X0, const Vec3& X1, const Vec3& X2, const AnisoLimitSpec& limit,
                      const std::array<Vec2, 3>* uv);

// Rest data in the frame (d_warp, d_weft = n x d_warp) of the rest plane; `warp` a unit
// vector in that plane (warp_in_triangle). Throws InputError for a degenerate triangle.
TriRest make_aligned_tri_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec3& warp);

// Stretch ratios along warp and weft, (|F d_warp|, |F d_weft|): the column norms of the
// deformation gradient of warp-aligned rest data (make_aligned_tri_rest).
Vec2 warp_weft_stretch(const Vec9& x, const TriRest& aligned);

}  // namespace weft
