#include <gtest/gtest.h>

#include "mesh/transform.hpp"
#include "mesh_test_util.hpp"

using namespace weft;

TEST(Transform, ScaleThenRotateThenTranslate) {
  TriMesh m;
  m.vertices = {Vec3(1, 0, 0), Vec3(0, 0, 1)};
  apply_transform(m, 2.0, 90.0, Vec3(0, 0, 5), Vec3(1, 1, 1));  // axis normalised
  EXPECT_TRUE(m.vertices[0].isApprox(Vec3(1, 3, 1), 1e-14)) << m.vertices[0].transpose();
  EXPECT_TRUE(m.vertices[1].isApprox(Vec3(1, 1, 3), 1e-14)) << m.vertices[1].transpose();
  // rotate: [90, 1, 0, 0] takes a grid's +y normal to +z.
  EXPECT_TRUE((rotation_matrix(90, Vec3(1, 0, 0)) * Vec3(0, 1, 0)).isApprox(Vec3(0, 0, 1), 1e-14));
}

TEST(Transform, Errors) {
  TriMesh m;
  m.vertices = {Vec3(1, 0, 0)};
  EXPECT_INPUT_ERROR(apply_transform(m, -1.0, 0, Vec3(0, 1, 0), Vec3::Zero()), "scale");
  EXPECT_INPUT_ERROR(apply_transform(m, 1.0, 30, Vec3(0, 0, 0), Vec3::Zero()), "axis");
  EXPECT_NO_THROW(apply_transform(m, 1.0, 0, Vec3(0, 0, 0), Vec3::Zero()));
}
