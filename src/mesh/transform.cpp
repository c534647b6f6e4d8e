#include "mesh/transform.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <sstream>

#include "core/error.hpp"

namespace weft {

Mat3 rotation_matrix(double rotate_deg, const Vec3& axis) {
  if (!std::isfinite(rotate_deg) || !axis.allFinite())
    throw InputError("transform: rotation angle and axis must be finite");
  if (rotate_deg == 0.0) return Mat3::Identity();
  const double n = axis.norm();
  if (!(n > 0)) throw InputError("transform: rotation axis must be non-zero");
  return Eigen::AngleAxisd(rotate_deg * (3.14159265358979323846 / 180.0), axis / n).toRotationMatrix();
}

void apply_transform(TriMesh& mesh, double scale, double rotate_deg, const Vec3& axis, const Vec3& translate) {
  if (!(std::isfinite(scale) && scale > 0)) {
    std::ostringstream os;
    os << "transform: scale must be a finite number > 0, got " << scale;
    throw InputError(os.str());
  }
  if (!translate.allFinite()) throw InputError("transform: translate must be finite");
  const Mat3 R = rotation_matrix(rotate_deg, axis);
  for (Vec3& v : mesh.vertices) v = R * (scale * v) + translate;
}

}  // namespace weft
