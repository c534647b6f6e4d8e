#include "io/xdmf.hpp"

#include <cstdio>
#include <sstream>

namespace weft {
namespace {

// Shortest text that reads back as the same double (times must match /frames/time).
std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const char* cell_name(XdmfCell c) {
  switch (c) {
    case XdmfCell::Polyvertex: return "Polyvertex";
    case XdmfCell::Polyline: return "Polyline";
    case XdmfCell::Triangle: return "Triangle";
    case XdmfCell::Tetrahedron: return "Tetrahedron";
    case XdmfCell::Mixed: return "Mixed";
  }
  return "Mixed";
}

// Xdmf3 reads a hyperslab of an HDF5 dataset from the controller text
// `file:/path|start:stride:count:dims` (each part one number per dimension).
std::string slab(const std::string& file, const std::string& path, const std::vector<long long>& start,
                 const std::vector<long long>& count, const std::vector<long long>& dims) {
  std::ostringstream os;
  auto list = [&](const std::vector<long long>& v) {
    for (size_t i = 0; i < v.size(); ++i) os << (i ? " " : "") << v[i];
  };
  os << file << ":" << path << "|";
  list(start);
  os << ":";
  list(std::vector<long long>(start.size(), 1));
  os << ":";
  list(count);
  os << ":";
  list(dims);
  return os.str();
}

}  // namespace

void xdmf_shape(long long P, long long S, long long T, long long K, XdmfBlock& b) {
  const int kinds = (P > 0) + (S > 0) + (T > 0) + (K > 0);
  b.num_cells = P + S + T + K;
  if (kinds <= 1) {
    // One primitive type: the plain topology (an object without primitives shows its
    // vertices as points, so nothing the file holds is invisible).
    b.cell = XdmfCell::Triangle, b.nodes_per_cell = 3;
    if (K > 0) b.cell = XdmfCell::Tetrahedron, b.nodes_per_cell = 4;
    if (S > 0) b.cell = XdmfCell::Polyline, b.nodes_per_cell = 2;
    if (P > 0) b.cell = XdmfCell::Polyvertex, b.nodes_per_cell = 1;
    b.vertices_as_points = kinds == 0;
    if (kinds == 0) b.cell = XdmfCell::Polyvertex, b.nodes_per_cell = 1, b.num_cells = b.num_vertices;
    b.topology_size = b.num_cells * b.nodes_per_cell;
  } else {
    // Mixed: each cell is its type code, then (for polyvertices and polylines) its node
    // count, then its nodes.
    b.cell = XdmfCell::Mixed, b.nodes_per_cell = 0, b.vertices_as_points = false;
    b.topology_size = 3 * P + 4 * S + 4 * T + 5 * K;
  }
}

std::vector<long long> xdmf_topology(const ObjectCells& c, long long first, XdmfBlock& b) {
  const long long P = c.points.size(), S = c.segments.size() / 2, T = c.triangles.size() / 3, K = c.tets.size() / 4;
  xdmf_shape(P, S, T, K, b);
  std::vector<long long> out;
  out.reserve(b.topology_size);
  if (b.cell != XdmfCell::Mixed) {
    const std::vector<long long>* ids = &c.triangles;
    if (K > 0) ids = &c.tets;
    if (S > 0) ids = &c.segments;
    if (P > 0) ids = &c.points;
    if (P + S + T + K == 0)
      for (long long v = 0; v < b.num_vertices; ++v) out.push_back(v);
    else
      for (long long v : *ids) out.push_back(v - first);
  } else {
    for (long long v : c.points) out.insert(out.end(), {1, 1, v - first});
    for (long long s = 0; s < S; ++s) out.insert(out.end(), {2, 2, c.segments[2 * s] - first, c.segments[2 * s + 1] - first});
    for (long long t = 0; t < T; ++t)
      out.insert(out.end(), {4, c.triangles[3 * t] - first, c.triangles[3 * t + 1] - first, c.triangles[3 * t + 2] - first});
    for (long long k = 0; k < K; ++k)
      out.insert(out.end(), {6, c.tets[4 * k] - first, c.tets[4 * k + 1] - first, c.tets[4 * k + 2] - first,
                             c.tets[4 * k + 3] - first});
  }
  return out;
}

std::string xdmf_text(const XdmfLayout& L) {
  const std::string& h5 = L.h5_name;
  const long long F = static_cast<long long>(L.times.size()), N = L.num_vertices;
  // The per-frame figures go on one block only (they are the run's, not an object's): the
  // first deformable one, so hiding obstacles keeps them. On every block they would make
  // the XML ~3x longer.
  size_t stats_block = 0;
  while (stats_block + 1 < L.blocks.size() && L.blocks[stats_block].kind == "obstacle") ++stats_block;
  std::ostringstream os;
  os << "<?xml version=\"1.0\" ?>\n"
     << "<!-- weft result " << h5 << ": one block per object, one time step per frame -->\n"
     << "<Xdmf Version=\"3.0\">\n <Domain>\n"
     << "  <Grid Name=\"" << L.title << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (long long f = 0; f < F; ++f) {
    os << "   <Grid Name=\"frame " << f << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
       << "    <Time Value=\"" << exact(L.times[f]) << "\"/>\n";
    for (const XdmfBlock& b : L.blocks) {
      const bool torn = L.frame_triangles && b.frame_topology;
      const long long n = torn ? N : b.num_vertices, first = torn ? 0 : b.first_vertex;
      os << "    <Grid Name=\"" << b.name << "\" GridType=\"Uniform\">\n";
      if (!b.kind.empty()) os << "     <Information Name=\"kind\" Value=\"" << b.kind << "\"/>\n";
      os << "     <Topology TopologyType=\"" << cell_name(b.cell) << "\" NumberOfElements=\"" << b.num_cells << "\"";
      if (b.cell == XdmfCell::Polyvertex || b.cell == XdmfCell::Polyline)
        os << " NodesPerElement=\"" << b.nodes_per_cell << "\"";
      if (torn)
        os << ">\n      <DataItem Dimensions=\"" << b.num_cells << " 3\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">"
           << slab(h5, "/frames/triangles", {f, b.first_triangle, 0}, {1, b.num_cells, 3}, {F, L.num_triangles, 3})
           << "</DataItem>\n     </Topology>\n";
      else
        os << ">\n      <DataItem Dimensions=\"" << b.topology_size << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">"
           << h5 << ":" << b.view_group << "/topology</DataItem>\n     </Topology>\n";
      os << "     <Geometry GeometryType=\"XYZ\">\n      <DataItem Dimensions=\"" << n
         << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
         << slab(h5, "/frames/positions", {f, first, 0}, {1, n, 3}, {F, N, 3})
         << "</DataItem>\n     </Geometry>\n";
      if (L.velocities)
        os << "     <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n      <DataItem Dimensions=\""
           << n << " 3\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">"
           << slab(h5, "/frames/velocities", {f, first, 0}, {1, n, 3}, {F, N, 3})
           << "</DataItem>\n     </Attribute>\n";
      if (L.strain_ratio && b.first_triangle >= 0 && b.num_cells > 0)
        os << "     <Attribute Name=\"strain_ratio\" AttributeType=\"Scalar\" Center=\"Cell\">\n      <DataItem Dimensions=\""
           << b.num_cells << "\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">"
           << slab(h5, "/frames/strain_ratio", {f, b.first_triangle}, {1, b.num_cells}, {F, L.num_triangles})
           << "</DataItem>\n     </Attribute>\n";
      os << "     <Attribute Name=\"object_id\" AttributeType=\"Scalar\" Center=\"Cell\">\n      <DataItem Dimensions=\""
         << b.num_cells << "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">" << h5 << ":" << b.view_group
         << "/object_id</DataItem>\n     </Attribute>\n";
      if (&b - L.blocks.data() == static_cast<std::ptrdiff_t>(stats_block))
        for (const std::string& s : L.stats)
          os << "     <Attribute Name=\"" << s << "\" AttributeType=\"Scalar\" Center=\"Grid\">\n      <DataItem Dimensions=\"1\""
             << " NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << slab(h5, "/frames/stats/" + s, {f}, {1}, {F})
             << "</DataItem>\n     </Attribute>\n";
      os << "    </Grid>\n";
    }
    os << "   </Grid>\n";
  }
  os << "  </Grid>\n </Domain>\n</Xdmf>\n";
  return os.str();
}

}  // namespace weft
