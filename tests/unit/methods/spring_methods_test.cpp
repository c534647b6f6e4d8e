// Implicit mass-spring and Projective Dynamics (issue 18): the factory knows both, PD's
// incremental energy never increases within a step (each local/global iteration is block
// coordinate descent), and PD converges to the mass_spring Newton solution of the same
// springs: one step from the same state, the error shrinking as PD's iterations grow.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "io/case_loader.hpp"
#include "energy/registry.hpp"
#include "io/scene_loader.hpp"
#include "methods/projective_dynamics.hpp"
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
    overrides.push_back("objects.0.mesh.resolution=[10,10]");
    overrides.push_back("contact.enabled=false");
    scene = build_scene(load_case(kCase, overrides), ranks);
    lv = make_local_view(scene, MPI_COMM_WORLD);
  }
};

std::vector<double> owned(Vec v) {
  PetscInt n = 0;
  VecGetLocalSize(v, &n);
  const PetscScalar* a;
  VecGetArrayRead(v, &a);
  std::vector<double> out(a, a + n);
  VecRestoreArrayRead(v, &a);
  return out;
}

void set_ghosted(Vec v, const std::vector<double>& owned_values) {
  PetscScalar* a;
  VecGetArray(v, &a);
  std::copy(owned_values.begin(), owned_values.end(), a);
  VecRestoreArray(v, &a);
  VecGhostUpdateBegin(v, INSERT_VALUES, SCATTER_FORWARD);
  VecGhostUpdateEnd(v, INSERT_VALUES, SCATTER_FORWARD);
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return d;
}

TEST(SpringMethods, FactoryKnowsThem) {
  const std::vector<std::string> m = stepper_methods();
  EXPECT_NE(std::find(m.begin(), m.end(), "mass_spring"), m.end());
  EXPECT_NE(std::find(m.begin(), m.end(), "pd"), m.end());
  for (const char* method : {"mass_spring", "pd"}) {
    World w({std::string("method=") + method});
    auto s = make_stepper(w.scene, w.lv);
    EXPECT_NE(s->describe().find(method), std::string::npos) << s->describe();
    // Only spring sets: no membrane, no hinge bending.
    for (const ElementSet& set : w.scene.element_sets) EXPECT_EQ(std::string(set.term->name).rfind("spring", 0), 0u);
    const StepReport r = s->step(0.0);
    EXPECT_GT(r.iterations, 0);
    EXPECT_GT(r.max_strain, 1.0);  // hanging by two corners stretches the springs
    for (const char* name : {"energy", "residual", "assembly_s", "solve_s", "max_strain", "converged"})
      EXPECT_NE(find_value(r.stats, name), nullptr) << method << " " << name;
  }
}

TEST(ProjectiveDynamics, EnergyDecreasesMonotonicallyWithinAStep) {
  World w({"method=pd", "pd.iterations=60", "pd.tolerance=1e-14"});
  ProjectiveDynamicsStepper pd(w.scene, w.lv);
  pd.record_energies = true;
  for (int s = 0; s < 4; ++s) {
    pd.step(s * w.scene.spec.dt);
    ASSERT_EQ(pd.energies.size(), 61u);
    const double scale = std::abs(pd.energies.front());
    for (size_t k = 1; k < pd.energies.size(); ++k)
      EXPECT_LE(pd.energies[k], pd.energies[k - 1] + 1e-13 * scale) << "step " << s << " iteration " << k;
    EXPECT_LT(pd.energies.back(), pd.energies.front());  // and it did something
  }
}

TEST(ProjectiveDynamics, ConvergesToTheMassSpringNewtonSolution) {
  // Newton to a tight tolerance with a direct solver: the reference minimiser.
  World wn({"method=mass_spring", "solver.newton_tol=1e-9", "solver.linear.pc=cholesky"});
  auto newton = make_stepper(wn.scene, wn.lv);
  const double h = wn.scene.spec.dt;
  for (int s = 0; s < 3; ++s) newton->step(s * h);
  const std::vector<double> x0 = owned(newton->positions()), v0 = owned(newton->velocities());
  newton->step(3 * h);
  const std::vector<double> ref = owned(newton->positions());
  const double moved = max_diff(ref, x0);
  ASSERT_GT(moved, 1e-3);

  double prev = 1e300;
  for (int its : {5, 20, 80, 320, 1280}) {
    World wp({"method=pd", "pd.iterations=" + std::to_string(its), "pd.tolerance=1e-300"});
    ProjectiveDynamicsStepper pd(wp.scene, wp.lv);
    set_ghosted(pd.positions(), x0);
    set_ghosted(pd.velocities(), v0);
    const StepReport r = pd.step(3 * h);
    EXPECT_EQ(r.iterations, its);
    const double err = max_diff(owned(pd.positions()), ref);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::printf("pd %4d iterations: max |x_pd - x_newton| = %.3e m (step moved %.3e m)\n", its, err, moved);
    EXPECT_LT(err, prev);
    prev = err;
  }
  EXPECT_LT(prev, 1e-6);
}

}  // namespace
}  // namespace weft
