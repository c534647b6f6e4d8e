// The stepper interface (methods/stepper.hpp): the factory, the named statistics and the
// named checkpoint arrays (a save / load round trip that continues bit for bit).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>

#include "core/error.hpp"
#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"
#include "methods/stepper.hpp"
#include "parallel/local_view.hpp"

namespace weft {
namespace {

const std::string kCase = std::string(WEFT_TEST_DIR) + "/../cases/hang_two_corners.yaml";

struct World {
  Scene scene;
  LocalView lv;
  explicit World(std::vector<std::string> overrides) {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    overrides.push_back("objects.0.mesh.resolution=[8,8]");
    scene = build_scene(load_case(kCase, overrides), ranks);
    lv = make_local_view(scene, MPI_COMM_WORLD);
  }
};

std::vector<double> local_values(Vec v) {
  Vec local;
  VecGhostGetLocalForm(v, &local);
  PetscInt n = 0;
  VecGetLocalSize(local, &n);
  const PetscScalar* a;
  VecGetArrayRead(local, &a);
  std::vector<double> out(a, a + n);
  VecRestoreArrayRead(local, &a);
  VecGhostRestoreLocalForm(v, &local);
  return out;
}

void set_local_values(Vec v, const std::vector<double>& values) {
  Vec local;
  VecGhostGetLocalForm(v, &local);
  PetscScalar* a;
  VecGetArray(local, &a);
  std::copy(values.begin(), values.end(), a);
  VecRestoreArray(local, &a);
  VecGhostRestoreLocalForm(v, &local);
}

TEST(StepperFactory, KnowsCipc) {
  const std::vector<std::string> m = stepper_methods();
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0], "cipc");
  World w({});
  EXPECT_NE(make_stepper(w.scene, w.lv), nullptr);
}

TEST(StepperFactory, UnknownMethodListsKnownOnes) {
  // A method the case format knows but this build has no stepper for (if any is left).
  std::string missing;
  const std::vector<std::string> have = stepper_methods();
  for (const char* m : {"pbd", "xpbd", "mass_spring", "pd"})
    if (missing.empty() && std::find(have.begin(), have.end(), m) == have.end()) missing = m;
  if (missing.empty()) GTEST_SKIP() << "every method of the case format has a stepper";
  World w({"method=" + missing});
  try {
    make_stepper(w.scene, w.lv);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(kCase), std::string::npos) << msg;
    EXPECT_NE(msg.find("method"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'" + missing + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("known: cipc"), std::string::npos) << msg;
  }
}

TEST(CipcStepper, NamedStatistics) {
  World w({});
  auto stepper = make_stepper(w.scene, w.lv);
  const NamedValues s0 = stepper->start_stats();
  ASSERT_EQ(s0.size(), 2u);
  EXPECT_EQ(s0[0].first, "newton_iters");
  EXPECT_EQ(s0[1].first, "max_strain");
  const StepReport r = stepper->step(0.0);
  const std::vector<std::string> names = {"newton_iters", "ksp_iters", "max_strain", "min_alpha", "residual",
                                          "converged", "energy", "assembly_s", "solve_s", "line_search_s",
                                          "contact_s", "ccd_queries", "min_distance", "contact_pairs", "kappa",
                                          "kinematic_lag", "al_vertices", "al_updates", "al_kappa"};
  ASSERT_EQ(r.stats.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(r.stats[i].first, names[i]);
  EXPECT_EQ(*find_value(r.stats, "newton_iters"), r.iterations);
  EXPECT_GT(r.iterations, 0);
  EXPECT_EQ(*find_value(r.stats, "converged"), r.converged ? 1.0 : 0.0);
  EXPECT_EQ(*find_value(r.stats, "max_strain"), r.max_strain);
  EXPECT_EQ(r.max_strain, stepper->max_strain());
  EXPECT_GT(*find_value(r.stats, "kappa"), 0.0);  // contact is on: its stiffness is reported
}

TEST(CipcStepper, CheckpointArraysRoundTrip) {
  World w({});
  auto a = make_stepper(w.scene, w.lv);
  for (int s = 0; s < 3; ++s) a->step(s * w.scene.spec.dt);
  const NamedArrays saved = a->save();
  // The strain-limited membrane's adaptive stiffness (one per triangle, global order) and
  // the contact stiffness.
  const NamedArray* k = find_array(saved, "stiffness.membrane_neo_hookean");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->length(), static_cast<long>(w.scene.triangles.size()));
  const NamedArray* kc = find_array(saved, "contact_kappa");
  ASSERT_NE(kc, nullptr);
  ASSERT_EQ(kc->values.size(), 1u);

  // A fresh stepper given x, v and the arrays continues exactly as the original.
  auto b = make_stepper(w.scene, w.lv);
  set_local_values(b->positions(), local_values(a->positions()));
  set_local_values(b->velocities(), local_values(a->velocities()));
  b->load(saved);
  const NamedArrays again = b->save();
  ASSERT_EQ(again.size(), saved.size());
  for (size_t i = 0; i < saved.size(); ++i) {
    EXPECT_EQ(again[i].name, saved[i].name);
    EXPECT_EQ(again[i].values, saved[i].values);
  }
  for (int s = 3; s < 5; ++s) {
    a->step(s * w.scene.spec.dt);
    b->step(s * w.scene.spec.dt);
  }
  EXPECT_EQ(local_values(a->positions()), local_values(b->positions()));
  EXPECT_EQ(local_values(a->velocities()), local_values(b->velocities()));

  // Loading really sets the values: a perturbed set comes back as loaded.
  NamedArrays changed = saved;
  for (NamedArray& x : changed)
    for (double& v : x.values) v *= 2.0;
  b->load(changed);
  const NamedArrays back = b->save();
  for (size_t i = 0; i < changed.size(); ++i) EXPECT_EQ(back[i].values, changed[i].values);

  // A missing or mis-sized array is an input error naming it.
  NamedArrays missing = saved;
  missing.erase(std::remove_if(missing.begin(), missing.end(), [](const NamedArray& x) { return x.name == "contact_kappa"; }),
                missing.end());
  try {
    b->load(missing);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("contact_kappa"), std::string::npos);
  }
  NamedArrays short_k = saved;
  for (NamedArray& x : short_k)
    if (x.name == "stiffness.membrane_neo_hookean") x.values.pop_back();
  EXPECT_THROW(b->load(short_k), InputError);

  // The per-triangle stiffness is saved distributed (each rank its own stencils, at their
  // whole-set indices); read back from a file it is whole, and loads the same.
  ASSERT_TRUE(k->distributed());
  EXPECT_EQ(k->whole, static_cast<long>(w.scene.triangles.size()));
  if (w.lv.ranks == 1) {
    NamedArrays whole = saved;
    for (NamedArray& x : whole)
      if (x.name == k->name) x = NamedArray(x.name, x.values);
    b->load(whole);
    const NamedArrays from_whole = b->save();
    for (size_t i = 0; i < saved.size(); ++i) EXPECT_EQ(from_whole[i].values, saved[i].values);
    for (NamedArray& x : whole)
      if (x.name == k->name) x.values.pop_back();
    EXPECT_THROW(b->load(whole), InputError);
  }
}

}  // namespace
}  // namespace weft
