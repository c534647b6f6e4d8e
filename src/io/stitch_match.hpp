// Stitch vertex pairs from the case's `stitches` boxes (issue 19 point 3): the vertices of
// object a inside box a and of object b inside box b, each list in order along its own box's
// longest axis (ties by vertex id), matched k-th to k-th.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "io/case_spec.hpp"
#include "mesh/tri_mesh.hpp"

namespace weft {

// The vertices of `m` inside [lo, hi] in order along the box's longest axis (the first
// such axis when several are equally long), ties by id.
std::vector<int> vertices_along_box(const std::vector<Vec3>& vertices, const Vec3& lo, const Vec3& hi);

// Every stitch pair as (input id in a, input id in b): meshes[o] is object o's mesh (world
// coordinates), base[o] its first input vertex id. Throws InputError naming `path` and the
// key (`stitches[i]`) when a box selects no vertex, the two boxes select different counts, a
// vertex would be stitched to itself or to a vertex it shares an element with, or a vertex
// is in two pairs.
// `which`, when given, receives each pair's index into `stitches`.
std::vector<std::array<int, 2>> match_stitches(const std::string& path, const std::vector<StitchSpec>& stitches,
                                               const std::vector<TriMesh>& meshes, const std::vector<int>& base,
                                               std::vector<int>* which = nullptr);

}  // namespace weft
