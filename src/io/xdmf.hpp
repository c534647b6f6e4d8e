// OUT.xdmf: the ParaView view of a result file (README "Output").
//
// Layout, chosen for what Debian 12's ParaView 5.11 reads with its default reader
// (Xdmf3ReaderS, also the GUI's first choice): a temporal collection whose every step is a
// spatial collection with one uniform grid per object, named as in the case, so each object
// is a block of its own. Every piece of heavy data stays in OUT.h5 and is referenced, never
// copied: an object's coordinates in a frame are the rows [first, first + n) of frame f of
// /frames/positions, named by the Xdmf3 controller form `file:/path|start:stride:count:dims`
// (the XDMF2 ItemType="HyperSlab" form reads as 0 points in the Xdmf3 readers). Connectivity
// is per object with object-local vertex ids in /view/object<k>/topology, written once,
// beside a cell array object_id (the object's index in the case, in every cell): the
// default reader merges the objects' blocks into unnamed pieces, and this is what a user
// thresholds or colours by to pick an object.
// Per-frame figures (/frames/stats/*) are grid-centred attributes of the first deformable
// object: ParaView's field data, which "Plot Global Variables Over Time" draws.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace weft {

// XDMF topology types weft writes (codes of the Mixed topology: XDMF's own numbering).
enum class XdmfCell : int { Polyvertex = 1, Polyline = 2, Triangle = 4, Tetrahedron = 6, Mixed = 0 };

struct XdmfBlock {
  std::string name;                 // the object's name in the case
  std::string kind;                 // its kind (shell, obstacle, ...): an <Information> for tools
  long long first_vertex = 0;       // rows of /frames/positions (input order)
  long long num_vertices = 0;
  XdmfCell cell = XdmfCell::Triangle;
  long long num_cells = 0;
  long long topology_size = 0;      // entries of /view/object<k>/topology
  int nodes_per_cell = 3;           // for single-type topologies
  std::string view_group;           // e.g. /view/object0: holds topology and object_id
  long long first_triangle = -1;    // rows of /frames/strain_ratio when the block is triangles only
  // Tearing: the block's triangles are rows [first_triangle, + num_cells) of frame f of
  // /frames/triangles (global input ids), over the whole frame's N points (the torn
  // object's spares join it as the cloth tears; other objects' points are unreferenced).
  bool frame_topology = false;
  // An object without primitives shows its vertices as points (xdmf_shape).
  bool vertices_as_points = false;
};

struct XdmfLayout {
  std::string h5_name;              // file name of OUT.h5, relative to OUT.xdmf
  std::string title;                // the case's name
  long long num_vertices = 0;       // N of /frames/positions (F, N, 3)
  long long num_triangles = 0;      // T of /frames/strain_ratio (F, T)
  std::vector<double> times;        // /frames/time, one per frame
  std::vector<XdmfBlock> blocks;
  bool velocities = false;          // /frames/velocities present
  bool strain_ratio = false;        // /frames/strain_ratio present
  bool frame_triangles = false;     // /frames/triangles (F, T, 3) present (tearing)
  std::vector<std::string> stats;   // names under /frames/stats
};

// Object-local connectivity of one object in the form its XdmfBlock names (topology at
// view_group + "/topology", an int32 object_id per cell at view_group + "/object_id"). Inputs are
// global input-order vertex ids of the object's primitives (each may be empty); the result
// is the flat array stored at /view/object<k>/topology.
struct ObjectCells {
  std::vector<long long> points;        // P
  std::vector<long long> segments;      // 2 S
  std::vector<long long> triangles;     // 3 T
  std::vector<long long> tets;          // 4 K
};
std::vector<long long> xdmf_topology(const ObjectCells& cells, long long first_vertex, XdmfBlock& block);

// The block's cell type, nodes per cell, cell count and topology size for an object of
// P points, S segments, T triangles and K tets (block.num_vertices set): what
// xdmf_topology sets, from the counts alone (ranks that write only part of the topology).
void xdmf_shape(long long P, long long S, long long T, long long K, XdmfBlock& block);

// The whole OUT.xdmf text.
std::string xdmf_text(const XdmfLayout& layout);

}  // namespace weft
