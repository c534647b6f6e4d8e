// Constraint colouring for Gauss-Seidel projection across MPI ranks (issue 18 point 3): no two
// constraints of one colour share a dynamic vertex (inverse mass w > 0), so one colour's
// constraints can be projected in parallel, in any order, on any rank, with a ghost update
// between colours, and the result is the same as the sequential sweep colour by colour.
//
// Rank-count independence: a constraint's colour depends only on the constraint graph
// (constraints adjacent when they share a dynamic vertex) and a priority that is a function
// of the constraint's GLOBAL index alone, never of vertex numbers, owners or rank count.
// The colour is that of greedy colouring in decreasing priority order: each constraint takes
// the smallest colour no higher-priority neighbour has. Jones-Plassmann with the same
// priorities produces exactly this colouring: in a round a constraint is coloured when it
// outranks all its uncoloured neighbours, so at that moment every higher-priority neighbour
// is coloured and no lower-priority one is, and it sees the same colours as greedy does.
// Distributed, each rank runs the rounds for the constraints it owns (e.g. those whose first
// vertex it owns) against a one-ring halo (the constraints sharing a dynamic vertex with one
// of its own, with their priorities), exchanging the halo's newly fixed colours after each
// round; the number of rounds is the longest chain of decreasing priorities in the graph
// (O(log n / log log n) expected for hashed priorities on bounded-degree graphs; for index
// order about the mesh's diameter: 23 vs 377 rounds for the edges of a 64 x 64 grid).
// jones_plassmann_colouring() runs those rounds with per-rank work on a snapshot of the
// previous round's colours, as the ranks would see them, for a given owner map.
//
// The global index must itself be rank-count independent: number constraints from the
// input mesh (before the partitioner renumbers vertices), e.g. in mesh edge / hinge order.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace weft {

// Constraint c touches vertices[offsets[c] .. offsets[c + 1]) (global vertex ids).
struct ConstraintStencils {
  std::vector<int> offsets{0};
  std::vector<int> vertices;
  int size() const { return static_cast<int>(offsets.size()) - 1; }
  void add(std::initializer_list<int> stencil) {
    for (int v : stencil) vertices.push_back(v);  // (insert() trips a GCC 12 -O3 false warning)
    offsets.push_back(static_cast<int>(vertices.size()));
  }
};

// Hash: splitmix64 of the global index (fewer rounds distributed; ties broken by index).
// Index: lower global index first (greedy in index order; fewest colours on structured
// meshes, but a distributed run needs as many rounds as the longest increasing path).
enum class ColourPriority { Hash, Index };

std::uint64_t constraint_priority_hash(std::int64_t global_index);

// dynamic[v] != 0 for a vertex that moves (w > 0); pinned vertices never conflict.
std::vector<int> colour_constraints(const ConstraintStencils& stencils,
                                    const std::vector<char>& dynamic, ColourPriority priority);

struct JonesPlassmannResult {
  std::vector<int> colour;
  int rounds = 0;
};

// The distributed algorithm's rounds, ranks emulated in-process: owner[c] in [0, num_ranks).
// Equal to colour_constraints() for every owner map (see above).
JonesPlassmannResult jones_plassmann_colouring(const ConstraintStencils& stencils,
                                               const std::vector<char>& dynamic,
                                               ColourPriority priority, const std::vector<int>& owner,
                                               int num_ranks);

// True when no two constraints of one colour share a dynamic vertex and every colour >= 0.
bool colouring_is_valid(const ConstraintStencils& stencils, const std::vector<char>& dynamic,
                        const std::vector<int>& colour);

int colour_count(const std::vector<int>& colour);

}  // namespace weft
