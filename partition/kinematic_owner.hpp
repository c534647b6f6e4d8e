// Owners for the vertices the graph partition cannot place: kinematic vertices none of
// whose graph neighbours is dynamic (obstacles, wholly pinned patches).
//
// METIS balances the dynamic vertices (weight 1) and gives kinematic ones weight 0, so an
// obstacle, a connected component of its own, lands on whichever part METIS likes: in a
// scene of two drapes on one rank each, both spheres and the ground went to rank 1. That
// costs twice: the contact pairs of an obstacle point or edge are owned by the obstacle
// vertex's owner (so rank 1 computed the barrier of the other rank's drape and shipped its
// Hessian blocks across), and every halo exchange moved the whole sphere. Each such vertex
// instead joins the part of its nearest dynamic vertex at the start, so its pairs and its
// halo traffic stay with the rank that owns the cloth beside it.
#pragma once
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "partition/metis_partition.hpp"

namespace weft {

// The kinematic vertices among g's rows none of whose graph neighbours is dynamic
// (ascending global ids; g's rows start at vertex `first`, kinematic is indexed by global id).
std::vector<int> loose_kinematic_vertices(const VertexGraph& g, int first, const std::vector<char>& kinematic);

// part: a part id per vertex (from partition_graph), changed in place for every vertex v
// of `loose` (kinematic, no dynamic neighbour): it takes the part of the dynamic vertex
// nearest to x[v] (Euclidean; ties to the lower vertex id). Deterministic, so every rank
// computes the same answer. Left as it is when there is no dynamic vertex, or when the
// move would leave a part empty (fewer dynamic vertices than parts).
void attach_kinematic_to_nearest(const std::vector<int>& loose, const std::vector<Vec3>& x,
                                 const std::vector<char>& kinematic, std::vector<int>& part);

// For each query point, the nearest of the points x[v], v in `candidates` (ascending; not
// empty), and its squared distance: exactly the vertex attach_kinematic_to_nearest picks
// (ties to the lower v). A rank holding some of the candidates answers for its own, and the
// ranks' answers combine by (distance, id) (io/particle_parts).
std::vector<std::pair<double, int>> nearest_points(const std::vector<Vec3>& queries, const std::vector<Vec3>& x,
                                                   const std::vector<int>& candidates);

// The same, with the loose vertices found in the whole graph g.
void attach_kinematic_to_nearest(const VertexGraph& g, const std::vector<Vec3>& x, const std::vector<char>& kinematic,
                                 std::vector<int>& part);

}  // namespace weft
