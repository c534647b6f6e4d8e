#include "energy/warp_direction.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace weft {

Vec3 warp_in_triangle(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec3& axis) {
  const Vec3 e1 = X1 - X0;
  const Vec3 n = e1.cross(X2 - X0).normalized();
  const Vec3 d = axis - axis.dot(n) * n;
  const double len = d.norm();
  if (!(len > 1e-6 * axis.norm())) return e1.normalized();
  return d / len;
}

Vec3 warp_from_uv(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec2& uv0, const Vec2& uv1,
                  const Vec2& uv2) {
  Mat2 T;  // texture edge matrix
  T << uv1 - uv0, uv2 - uv0;
  const double det = T.determinant();
  const double l2 = std::max({T.col(0).squaredNorm(), T.col(1).squaredNorm(), (uv2 - uv1).squaredNorm()});
  if (!std::isfinite(det) || !(std::abs(det) > 1e-12 * l2))
    throw InputError("degenerate texture triangle (uv area " + std::to_string(0.5 * det) + ")");
  Mat32 E;
  E << X1 - X0, X2 - X0;
  // X - X0 = J (uv - uv0) with J = E T^-1; the warp is J's first column, dX/du.
  const Vec3 du = E * T.inverse().col(0);
  return du.normalized();
}

Vec3 orthotropic_warp(const Vec3& X0, const Vec3& X1, const Vec3& X2, const AnisoLimitSpec& limit,
                      const std::array<Vec2, 3>* uv) {
  if (!limit.warp_given && uv) return warp_from_uv(X0, X1, X2, (*uv)[0], (*uv)[1], (*uv)[2]);
  return warp_in_triangle(X0, X1, X2, limit.warp_direction.squaredNorm() > 0 ? limit.warp_direction : Vec3::UnitX());
}

TriRest make_aligned_tri_rest(const Vec3& X0, const Vec3& X1, const Vec3& X2, const Vec3& warp) {
  TriRest r = make_tri_rest(X0, X1, X2);  // validates; area
  const Vec3 e1 = X1 - X0, e2 = X2 - X0;
  const Vec3 n = e1.cross(e2).normalized();
  const Vec3 d1 = warp, d2 = n.cross(warp);
  Mat2 Dm;
  Dm << e1.dot(d1), e2.dot(d1), e1.dot(d2), e2.dot(d2);
  r.Dm_inv = Dm.inverse();
  return r;
}

Vec2 warp_weft_stretch(const Vec9& x, const TriRest& aligned) {
  const Mat32 G = deformation_gradient(x, aligned);
  return Vec2(G.col(0).norm(), G.col(1).norm());
}

}  // namespace weft
