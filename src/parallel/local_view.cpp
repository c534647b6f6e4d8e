#include "parallel/local_view.hpp"

#include <algorithm>

namespace weft {

LocalView make_local_view(const Scene& scene, MPI_Comm comm) {
  LocalView lv;
  lv.comm = comm;
  MPI_Comm_rank(comm, &lv.rank);
  MPI_Comm_size(comm, &lv.ranks);
  lv.vbegin = scene.vertex_range[lv.rank];
  lv.vend = scene.vertex_range[lv.rank + 1];
  auto owned = [&](int v) { return v >= lv.vbegin && v < lv.vend; };

  std::vector<int> ghost;
  for (size_t t = 0; t < scene.triangles.size(); ++t) {
    const Tri& tri = scene.triangles[t];
    if (!owned(tri[0])) continue;
    lv.triangles.push_back(static_cast<int>(t));
    for (int v : tri)
      if (!owned(v)) ghost.push_back(v);
  }
  for (size_t h = 0; h < scene.hinges.size(); ++h) {
    const auto& hv = scene.hinges[h];
    if (!owned(hv[0])) continue;
    lv.hinges.push_back(static_cast<int>(h));
    for (int v : hv)
      if (!owned(v)) ghost.push_back(v);
  }
  std::sort(ghost.begin(), ghost.end());
  ghost.erase(std::unique(ghost.begin(), ghost.end()), ghost.end());
  lv.ghosts = std::move(ghost);

  lv.local_of_global.assign(scene.num_vertices, -1);
  for (int v = lv.vbegin; v < lv.vend; ++v) lv.local_of_global[v] = v - lv.vbegin;
  for (size_t k = 0; k < lv.ghosts.size(); ++k) lv.local_of_global[lv.ghosts[k]] = lv.num_owned() + static_cast<int>(k);

  for (int t : lv.triangles) {
    const Tri& tri = scene.triangles[t];
    lv.triangle_local.push_back({lv.local_of_global[tri[0]], lv.local_of_global[tri[1]], lv.local_of_global[tri[2]]});
  }
  for (int h : lv.hinges) {
    const auto& hv = scene.hinges[h];
    lv.hinge_local.push_back({lv.local_of_global[hv[0]], lv.local_of_global[hv[1]],
                              lv.local_of_global[hv[2]], lv.local_of_global[hv[3]]});
  }
  return lv;
}

}  // namespace weft
