// Helpers for tests of registered energy terms: a dense assembly sink and a one-object
// scene whose sets are built by the registry's builders, without the scene loader.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/scene.hpp"
#include "energy/registry.hpp"

namespace weft::test {

// Gradient into a dense vector, Hessian blocks into a dense matrix, both over the local
// vertex ids; vertex `kinematic` has global id -1 (dropped, as in the stepper).
class DenseSink final : public AssemblySink {
 public:
  DenseSink(int n, const int* global_id, double* g) : AssemblySink(g, global_id), gid_(global_id), H(3 * n, 3 * n) {
    H.setZero();
  }
  void add_hessians(int set, int first, int count, int nv, const int* local, const double* He) override {
    sets[set] += count;
    EXPECT_EQ(first, expected_first[set]);
    expected_first[set] += count;
    for (int i = 0; i < count; ++i) {
      const int* l = local + nv * i;
      const double* h = He + 9 * nv * nv * i;
      for (int a = 0; a < nv; ++a)
        for (int b = 0; b < nv; ++b)
          if (gid_[l[a]] >= 0 && gid_[l[b]] >= 0)
            for (int r = 0; r < 3; ++r)
              for (int c = 0; c < 3; ++c) H(3 * l[a] + r, 3 * l[b] + c) += h[(3 * b + c) * 3 * nv + 3 * a + r];
    }
  }
  const int* gid_;
  Eigen::MatrixXd H;
  std::map<int, int> sets, expected_first;
};

// Builds one set per registered term of (os.spec.kind, os.spec.material.model) into
// `scene` (empty sets dropped, as the scene loader does), every stencil local with local
// ids = ids, and the terms over them.
struct TermScene {
  Scene scene;
  std::vector<LocalStencils> local;
  std::vector<std::unique_ptr<EnergyTerm>> terms;

  void build(const ObjectStencils& os, int num_vertices, const std::string& method = "cipc") {
    scene.num_vertices = num_vertices;
    for (const TermFactory* f : terms_for(os.spec.kind, os.spec.material.model, method)) {
      ElementSet set;
      set.term = f;
      set.arity = f->arity;
      f->build(os, set);
      if (set.size() > 0) scene.element_sets.push_back(std::move(set));
    }
    local.resize(scene.element_sets.size());
    for (size_t s = 0; s < scene.element_sets.size(); ++s) {
      const ElementSet& set = scene.element_sets[s];
      for (int k = 0; k < set.size(); ++k) {
        local[s].element.push_back(k);
        local[s].local.insert(local[s].local.end(), set.stencil(k), set.stencil(k) + set.arity);
      }
    }
    for (size_t s = 0; s < scene.element_sets.size(); ++s)
      terms.push_back(scene.element_sets[s].term->make(scene, static_cast<int>(s), local[s]));
  }
};

}  // namespace weft::test
