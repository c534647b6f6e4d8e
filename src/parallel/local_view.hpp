// What one rank sees of the replicated Scene: the vertices it owns (a contiguous block
// of solver ids = its PETSc ownership range), the ghost vertices its elements reach,
// and the elements it evaluates (each element lives on the owner of its first vertex,
// so every element is evaluated exactly once globally).
#pragma once
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "core/borrowed_array.hpp"
#include "core/scene.hpp"

namespace weft {

struct LocalView {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  int vbegin = 0, vend = 0;             // owned solver ids
  std::vector<int> ghosts;              // global solver ids of ghost vertices, ascending

  std::vector<int> triangles;           // scene triangle ids whose first vertex is owned here (output)
  BorrowedArray<Tri> triangle_local;   // their vertices as local indices (one rank: the scene's triangles)
  std::vector<LocalStencils> sets;      // per scene element set, the stencils evaluated here

  int num_owned() const { return vend - vbegin; }
  int num_local() const { return num_owned() + static_cast<int>(ghosts.size()); }
  int global_of_local(int l) const { return l < num_owned() ? vbegin + l : ghosts[l - num_owned()]; }
  // Local index of a global vertex, -1 where neither owned nor ghost (owned: arithmetic;
  // ghosts: a binary search, not a global-length table).
  int local_of(int v) const {
    if (v >= vbegin && v < vend) return v - vbegin;
    const auto it = std::lower_bound(ghosts.begin(), ghosts.end(), v);
    return it != ghosts.end() && *it == v ? num_owned() + static_cast<int>(it - ghosts.begin()) : -1;
  }
};

// What a rank's part of the scene keeps beyond its block (Scene::keep_vertex_part,
// keep_triangle_part, keep_primitive_part): the contact layer's setup builds its share of the collision surface
// from these (its own edges, whose rest lengths it reads, and its own triangles).
struct ContactSupport {
  // The ghosts, and every vertex of a triangle or segment with an owned vertex, ascending.
  std::vector<int> vertices;
  // Every triangle with an owned vertex, ascending.
  std::vector<int> triangles;
  // Every segment, point and tet with an owned vertex, by case-order index, ascending.
  std::vector<int> segments, points, tets;
};
// With `support`, also fills it, in the same pass over the triangles.
LocalView make_local_view(const Scene& scene, MPI_Comm comm, ContactSupport* support = nullptr);
// The support of the block [vbegin, vend) of a scene holding that block's stencils (whole
// sets, or cut to its rank): what make_local_view gives the rank owning the block. Rank 0
// computes it for each rank it sends a part to (io/scene_parts).
ContactSupport contact_support(const Scene& scene, int vbegin, int vend);

}  // namespace weft
