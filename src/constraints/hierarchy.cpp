#include "constraints/hierarchy.hpp"

#include <algorithm>
#include <set>

namespace weft {

std::vector<HierarchyLevel> build_hierarchy(const std::vector<Edge>& edges0, VertexSpan<Vec3> X,
                                            const std::vector<int>& key, int levels) {
  const int n = static_cast<int>(X.size());
  std::vector<HierarchyLevel> out;
  // The current level: its particles and adjacency (neighbour lists sorted by key).
  std::vector<int> particles;
  std::vector<std::vector<int>> adj(n);
  std::vector<char> in_level(n, 0);
  for (const Edge& e : edges0) {
    adj[e[0]].push_back(e[1]), adj[e[1]].push_back(e[0]);
    in_level[e[0]] = in_level[e[1]] = 1;
  }
  auto by_key = [&](int a, int b) { return key[a] < key[b]; };
  std::vector<int> vertex_of_key(n);
  for (int v = 0; v < n; ++v) vertex_of_key[key[v]] = v;
  for (int v = 0; v < n; ++v)
    if (in_level[v]) particles.push_back(v);
  std::sort(particles.begin(), particles.end(), by_key);
  for (auto& l : adj) {
    std::sort(l.begin(), l.end(), by_key);
    l.erase(std::unique(l.begin(), l.end()), l.end());
  }
  for (int lev = 1; lev < levels; ++lev) {
    // Greedy maximal independent set in key order: the coarse particles.
    std::vector<char> coarse(n, 0);
    for (int p : particles) {
      bool free = true;
      for (int q : adj[p]) free = free && !coarse[q];
      if (free) coarse[p] = 1;
    }
    HierarchyLevel L;
    for (int p : particles)
      if (coarse[p]) L.particles.push_back(p);
    if (L.particles.size() < 2 || L.particles.size() == particles.size()) break;
    // Parents of every fine particle: coarse neighbours, then coarse particles two edges
    // away (nearest at rest, then key) until there are two.
    std::set<std::pair<int, int>> joined;  // coarse pairs to constrain, as (key, key)
    auto join = [&](int a, int b) {
      if (a == b) return;
      if (key[a] > key[b]) std::swap(a, b);
      joined.insert({key[a], key[b]});
    };
    for (int p : particles) {
      if (coarse[p]) continue;
      std::vector<int> par;
      for (int q : adj[p])
        if (coarse[q]) par.push_back(q);
      if (par.size() < 2) {
        std::vector<std::pair<double, int>> far;
        for (int q : adj[p])
          for (int r : adj[q])
            if (coarse[r] && std::find(par.begin(), par.end(), r) == par.end()) far.push_back({(X[r] - X[p]).norm(), r});
        std::sort(far.begin(), far.end(), [&](const auto& a, const auto& b) {
          return a.first < b.first || (a.first == b.first && key[a.second] < key[b.second]);
        });
        for (const auto& [d, r] : far)
          if (par.size() < 2 && std::find(par.begin(), par.end(), r) == par.end()) par.push_back(r);
      }
      if (par.empty()) continue;  // an isolated fine particle keeps its own position
      double wsum = 0.0;
      std::vector<double> w;
      for (int q : par) w.push_back(1.0 / std::max((X[q] - X[p]).norm(), 1e-12)), wsum += w.back();
      L.children.push_back(p);
      for (size_t k = 0; k < par.size(); ++k) L.parents.push_back(par[k]), L.weights.push_back(w[k] / wsum);
      L.parent_start.push_back(static_cast<int>(L.parents.size()));
      for (size_t a = 0; a < par.size(); ++a)
        for (size_t b = a + 1; b < par.size(); ++b) join(par[a], par[b]);
      // Coarse neighbours of a fine particle are joined to its parents too (two edges apart).
      for (int q : adj[p])
        if (coarse[q])
          for (int r : par) join(q, r);
    }
    for (int p : L.particles)
      for (int q : adj[p])
        if (coarse[q]) join(p, q);
    // The next level's graph: the joined pairs, ordered by key.
    std::vector<std::vector<int>> next(n);
    for (const auto& [ka, kb] : joined) {
      const int a = vertex_of_key[ka], b = vertex_of_key[kb];
      L.edges.push_back({a, b});
      L.rest.push_back((X[a] - X[b]).norm());
      next[a].push_back(b), next[b].push_back(a);
    }
    for (auto& l : next) std::sort(l.begin(), l.end(), by_key);
    adj = std::move(next);
    particles = L.particles;
    out.push_back(std::move(L));
  }
  return out;
}

}  // namespace weft
