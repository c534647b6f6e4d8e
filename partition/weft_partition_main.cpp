// weft-partition MESH_OR_CASE -n K [-o PART.h5]
// The partition of a mesh (.obj/.msh: METIS on its vertex graph) or of a case (exactly the
// one `weft -n K` computes: build_scene's METIS over the weighted mesh graph (PT-Scotch
// beyond kParallelPartitionAbove dynamic vertices or with --partitioner ptscotch: its parts
// depend on the process count, so run it under mpirun -n K to see a run's), particles by
// recursive coordinate bisection, obstacles attached to the cloth beside them), with a
// quality report: part sizes, edge cut, ghost counts, load imbalance. Thin.
#include <hdf5.h>
#include <mpi.h>
#include <petscsys.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/case_loader.hpp"
#include "io/scene_loader.hpp"
#include "mesh/build_object_mesh.hpp"
#include "mesh/readers.hpp"
#include "mesh/validate.hpp"
#include "partition/metis_partition.hpp"
#include "partition/parallel_partition.hpp"

namespace {

const char* kUsage = "usage: weft-partition MESH_OR_CASE -n K [-o PART.h5] [--partitioner auto|metis|ptscotch]";
const char* kHelp =
    "  Partitions a mesh (.obj / .msh: METIS on its vertex graph) or a case (exactly the parts\n"
    "  `mpirun -n K weft CASE` uses) into K parts and prints their quality: part sizes, edge cut,\n"
    "  ghost vertices, load imbalance. Exit 0 = done, 2 = bad input.\n"
    "  -n K                    number of parts (ranks)\n"
    "  -o PART.h5              also write the part of every vertex (input order)\n"
    "  --partitioner P         auto (METIS, PT-Scotch beyond the size where one rank's graph\n"
    "                          stops fitting: README.md), metis or ptscotch\n"
    "  -h, --help              this text";

bool is_case(const std::string& path) {
  auto ends_with = [&](const char* s) {
    const std::string e(s);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  return ends_with(".yaml") || ends_with(".yml");
}

std::vector<std::vector<int>> elements_of(const std::string& path) {
  std::vector<std::vector<int>> elems;
  int base = 0;
  auto add_mesh = [&](const weft::TriMesh& m) {
    for (const auto& t : m.triangles) elems.push_back({t[0] + base, t[1] + base, t[2] + base});
    for (const auto& e : m.segments) elems.push_back({e[0] + base, e[1] + base});  // rods
    for (const auto& t : m.tets) elems.push_back({t[0] + base, t[1] + base, t[2] + base, t[3] + base});  // volumes
    base += static_cast<int>(m.vertices.size());
  };
  if (is_case(path)) {
    weft::CaseSpec spec = weft::load_case(path, {});
    const std::string dir = std::filesystem::path(path).parent_path().string();
    // The mesh graph only (particles have no edges here; the run places them by coordinate
    // bisection, see docs/DESIGN.md "Distributed model").
    for (const auto& o : spec.objects)
      add_mesh(weft::build_object_mesh(o.mesh, o.transform, dir, "", weft::mesh_use_of(o.kind)));
  } else {
    weft::TriMesh m = weft::read_mesh(path);
    weft::validate_mesh(m, path);
    add_mesh(m);
  }
  elems.push_back({});  // sentinel carrying the vertex count
  elems.back().push_back(base);
  return elems;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  PetscInitializeNoArguments();  // PT-Scotch runs through PETSc's MatPartitioning
  int code = 0;
  try {
    std::string input, output;
    int parts = 0;
    weft::Partitioner partitioner = weft::Partitioner::automatic;
    for (int i = 1; i < argc; ++i) {
      const std::string s = argv[i];
      if (s == "-h" || s == "--help") {
        int me = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        if (me == 0) std::printf("%s\n%s\n", kUsage, kHelp);
        PetscFinalize();
        MPI_Finalize();
        return 0;
      }
      if ((s == "-n" || s == "-o" || s == "--partitioner") && i + 1 >= argc)
        throw weft::InputError(s + " needs a value");
      if (s == "-n") {
        char* end = nullptr;
        parts = static_cast<int>(std::strtol(argv[++i], &end, 10));
        if (*end || parts < 1) throw weft::InputError(std::string("-n: expected a positive integer, got '") + argv[i] + "'");
      } else if (s == "-o") {
        output = argv[++i];
      } else if (s == "--partitioner") {
        const std::string v = argv[++i];
        if (v == "metis") partitioner = weft::Partitioner::metis;
        else if (v == "ptscotch") partitioner = weft::Partitioner::ptscotch;
        else if (v == "auto") partitioner = weft::Partitioner::automatic;
        else throw weft::InputError("--partitioner: unknown partitioner '" + v + "' (known: auto, metis, ptscotch)");
      } else if (s[0] == '-') {
        throw weft::InputError("unknown option '" + s + "'");
      } else {
        input = s;
      }
    }
    if (input.empty() || parts < 1) throw weft::InputError(kUsage);
    auto elems = elements_of(input);
    const int n = elems.back()[0];
    elems.pop_back();
    weft::VertexGraph g = weft::build_vertex_graph(n, elems);
    std::vector<int> part;
    std::string how = "METIS";
    double partition_s = -1;  // the partitioner alone (mesh input)
    if (is_case(input)) {
      // The run's own partition, not a second opinion: a scene of particles gets RCB there.
      weft::SceneOptions options;
      options.partitioner = partitioner;
      options.comm = MPI_COMM_WORLD;
      const weft::Scene scene = weft::build_scene(weft::load_case(input, {}), parts, options);
      how = scene.partitioner;
      part.resize(n);
      for (int i = 0; i < n; ++i) part[i] = scene.partition_of(scene.solver_of_input[i]);
      if (!scene.points.empty())
        how = scene.num_points() == static_cast<size_t>(n)
                  ? "recursive coordinate bisection (particles)"
                  : scene.partitioner + " (mesh vertices) + recursive coordinate bisection (" + std::to_string(scene.num_points()) +
                        " particles)";
    } else {
      const bool scotch = partitioner == weft::Partitioner::ptscotch ||
                          (partitioner == weft::Partitioner::automatic && n > weft::kParallelPartitionAbove);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      part = scotch ? weft::partition_graph_parallel(g, parts, nullptr, MPI_COMM_WORLD) : weft::partition_graph(g, parts);
      partition_s = MPI_Wtime() - t0;
      if (scotch) how = "PT-Scotch";
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) output.clear();  // every rank has the parts: rank 0 reports and writes
    weft::PartitionQuality q = weft::partition_quality(g, part, parts);
    if (rank == 0) std::printf("%s: %d vertices, %zu elements, %d parts by %s\n", input.c_str(), n, elems.size(), parts, how.c_str());
    if (rank == 0) {
      std::printf("part  vertices  ghosts\n");
      for (int p = 0; p < parts; ++p) std::printf("%4d  %8d  %6d\n", p, q.part_sizes[p], q.ghost_counts[p]);
      std::printf("edge cut %ld  imbalance %.3f (max/mean part size)\n", q.edge_cut, q.imbalance);
      if (partition_s >= 0) std::printf("partitioned in %.3f s\n", partition_s);
    }
    if (!output.empty()) {
      H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
      hid_t f = H5Fcreate(output.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      if (f < 0) throw weft::InputError(output + ": cannot create");
      hsize_t dims[1] = {hsize_t(n)};
      hid_t sp = H5Screate_simple(1, dims, nullptr);
      hid_t ds = H5Dcreate2(f, "partition", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, part.data());
      H5Dclose(ds);
      H5Sclose(sp);
      H5Fclose(f);
      std::printf("wrote %s (/partition: part of each vertex, input order)\n", output.c_str());
    }
  } catch (const weft::InputError& e) {
    std::fprintf(stderr, "weft-partition: error: %s\n", e.what());
    code = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft-partition: failed: %s\n", e.what());
    code = 1;
  }
  PetscFinalize();
  MPI_Finalize();
  return code;
}
