#include "constraints/colouring.hpp"

#include <algorithm>
#include <numeric>

namespace weft {

namespace {

// Constraints at each dynamic vertex (CSR), the adjacency that defines conflicts.
struct VertexConstraints {
  std::vector<int> offsets, constraints;
  VertexConstraints(const ConstraintStencils& s, const std::vector<char>& dynamic) {
    offsets.assign(dynamic.size() + 1, 0);
    for (int v : s.vertices)
      if (dynamic[v]) ++offsets[v + 1];
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    constraints.resize(offsets.back());
    std::vector<int> fill(offsets.begin(), offsets.end() - 1);
    for (int c = 0; c < s.size(); ++c)
      for (int k = s.offsets[c]; k < s.offsets[c + 1]; ++k) {
        const int v = s.vertices[k];
        // A vertex listed twice in one stencil is recorded once.
        if (dynamic[v] && (fill[v] == offsets[v] || constraints[fill[v] - 1] != c))
          constraints[fill[v]++] = c;
      }
    // Remove the gaps left by duplicates.
    std::vector<int> packed;
    packed.reserve(constraints.size());
    std::vector<int> new_offsets(offsets.size(), 0);
    for (size_t v = 0; v + 1 < offsets.size(); ++v) {
      for (int k = offsets[v]; k < fill[v]; ++k) packed.push_back(constraints[k]);
      new_offsets[v + 1] = static_cast<int>(packed.size());
    }
    offsets.swap(new_offsets);
    constraints.swap(packed);
  }
  template <class F>
  void for_each_neighbour(const ConstraintStencils& s, int c, F&& f) const {
    for (int k = s.offsets[c]; k < s.offsets[c + 1]; ++k) {
      const int v = s.vertices[k];
      for (int j = offsets[v]; j < offsets[v + 1]; ++j)
        if (constraints[j] != c) f(constraints[j]);
    }
  }
};

// true when a outranks b.
struct Outranks {
  ColourPriority priority;
  const std::vector<std::uint64_t>& hash;
  bool operator()(int a, int b) const {
    if (priority == ColourPriority::Index || hash[a] == hash[b]) return a < b;
    return hash[a] > hash[b];
  }
};

std::vector<std::uint64_t> hashes(int n, ColourPriority priority) {
  std::vector<std::uint64_t> h;
  if (priority == ColourPriority::Hash) {
    h.resize(n);
    for (int c = 0; c < n; ++c) h[c] = constraint_priority_hash(c);
  }
  return h;
}

// Smallest colour not marked with stamp in used (grown as needed).
int smallest_free(std::vector<int>& used, int stamp) {
  int k = 0;
  while (k < static_cast<int>(used.size()) && used[k] == stamp) ++k;
  return k;
}

void mark(std::vector<int>& used, int colour, int stamp) {
  if (colour >= static_cast<int>(used.size())) used.resize(colour + 1, -1);
  used[colour] = stamp;
}

}  // namespace

std::uint64_t constraint_priority_hash(std::int64_t global_index) {
  // splitmix64 finaliser: a fixed bijection, the same on every rank and run.
  std::uint64_t z = static_cast<std::uint64_t>(global_index) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<int> colour_constraints(const ConstraintStencils& stencils,
                                    const std::vector<char>& dynamic, ColourPriority priority) {
  const int n = stencils.size();
  const VertexConstraints vc(stencils, dynamic);
  const std::vector<std::uint64_t> h = hashes(n, priority);
  const Outranks outranks{priority, h};
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), outranks);
  std::vector<int> colour(n, -1), used;
  for (int c : order) {
    // Neighbours coloured so far are exactly the higher-priority ones.
    vc.for_each_neighbour(stencils, c, [&](int d) {
      if (colour[d] >= 0) mark(used, colour[d], c);
    });
    colour[c] = smallest_free(used, c);
  }
  return colour;
}

JonesPlassmannResult jones_plassmann_colouring(const ConstraintStencils& stencils,
                                               const std::vector<char>& dynamic,
                                               ColourPriority priority, const std::vector<int>& owner,
                                               int num_ranks) {
  const int n = stencils.size();
  const VertexConstraints vc(stencils, dynamic);
  const std::vector<std::uint64_t> h = hashes(n, priority);
  const Outranks outranks{priority, h};
  std::vector<std::vector<int>> owned(num_ranks);
  for (int c = 0; c < n; ++c) owned[owner[c]].push_back(c);

  JonesPlassmannResult r;
  r.colour.assign(n, -1);
  std::vector<int> used;
  int remaining = n;
  while (remaining > 0) {
    // Every rank decides from the colours exchanged after the previous round.
    const std::vector<int> seen = r.colour;
    for (int rank = 0; rank < num_ranks; ++rank) {
      for (int c : owned[rank]) {
        if (seen[c] >= 0) continue;
        bool local_max = true;
        vc.for_each_neighbour(stencils, c, [&](int d) {
          if (seen[d] < 0 && outranks(d, c)) local_max = false;
        });
        if (!local_max) continue;
        vc.for_each_neighbour(stencils, c, [&](int d) {
          if (seen[d] >= 0) mark(used, seen[d], c);
        });
        r.colour[c] = smallest_free(used, c);
        --remaining;
      }
    }
    ++r.rounds;
  }
  return r;
}

bool colouring_is_valid(const ConstraintStencils& stencils, const std::vector<char>& dynamic,
                        const std::vector<int>& colour) {
  if (static_cast<int>(colour.size()) != stencils.size()) return false;
  const VertexConstraints vc(stencils, dynamic);
  for (int c = 0; c < stencils.size(); ++c) {
    if (colour[c] < 0) return false;
    bool ok = true;
    vc.for_each_neighbour(stencils, c, [&](int d) { ok = ok && colour[d] != colour[c]; });
    if (!ok) return false;
  }
  return true;
}

int colour_count(const std::vector<int>& colour) {
  return colour.empty() ? 0 : *std::max_element(colour.begin(), colour.end()) + 1;
}

}  // namespace weft
