#include "partition/parallel_partition.hpp"

#include <petscmat.h>
#include <ptscotch.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace weft {

namespace {

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw RuntimeFailure(std::string("PETSc error in ") + what);
}

}  // namespace

Partitioner partitioner_from_options() {
  char value[64] = "";
  PetscBool set = PETSC_FALSE;
  check(PetscOptionsGetString(nullptr, nullptr, "-weft_partitioner", value, sizeof value, &set),
        "PetscOptionsGetString");
  if (!set || std::strcmp(value, "auto") == 0) return Partitioner::automatic;
  if (std::strcmp(value, "metis") == 0) return Partitioner::metis;
  if (std::strcmp(value, "ptscotch") == 0) return Partitioner::ptscotch;
  throw InputError(std::string("-weft_partitioner: unknown partitioner '") + value +
                   "' (known: auto, metis, ptscotch)");
}

const char* partitioner_name(Partitioner p) {
  return p == Partitioner::metis ? "METIS" : p == Partitioner::ptscotch ? "PT-Scotch" : "auto";
}

std::vector<int> partition_graph_parallel(const VertexGraph& g, int parts, const std::vector<int>* weights,
                                          MPI_Comm comm) {
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const int n = g.num_vertices();
  const int lo = partition_slice_first(n, rank, size), hi = partition_slice_first(n, rank + 1, size);
  VertexGraphRows rows;
  rows.first = lo;
  rows.num_global = n;
  rows.rows.xadj.resize(hi - lo + 1);
  for (int i = lo; i <= hi; ++i) rows.rows.xadj[i - lo] = g.xadj[i] - g.xadj[lo];
  rows.rows.adjncy.assign(g.adjncy.begin() + g.xadj[lo], g.adjncy.begin() + g.xadj[hi]);
  std::vector<int> row_weights;
  if (weights && static_cast<int>(weights->size()) == n) row_weights.assign(weights->begin() + lo, weights->begin() + hi);
  return partition_graph_parallel(rows, parts, row_weights.empty() ? nullptr : &row_weights, comm);
}

std::vector<int> partition_graph_parallel(const VertexGraphRows& g, int parts, const std::vector<int>* row_weights,
                                          MPI_Comm comm) {
  const int n = g.num_global;
  std::vector<int> part(n, 0);
  if (parts <= 1 || n == 0) return part;
  if (parts > n)
    throw InputError("cannot split " + std::to_string(n) + " vertices over " + std::to_string(parts) + " ranks");
  // Debian's Scotch 7 is threaded, and its threads make the parts differ from call to call
  // (measured: 2 of 3 repeated calls on an 80 x 60 grid). One thread per process, read
  // when Scotch first starts: a restart must rebuild the very same partition.
  setenv("SCOTCH_PTHREAD_NUMBER", "1", 1);
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const PetscInt nloc = g.rows.num_vertices();
  if (g.first != partition_slice_first(n, rank, size) || nloc != partition_slice_first(n, rank + 1, size) - g.first)
    throw RuntimeFailure("partition_graph_parallel: rank " + std::to_string(rank) + " holds rows [" +
                         std::to_string(g.first) + ", " + std::to_string(g.first + nloc) + "), not its slice");
  // MatCreateMPIAdj takes ownership of PetscMalloc'd arrays (freed with the matrix).
  PetscInt *ia = nullptr, *ja = nullptr;
  const PetscInt nnz = g.rows.xadj[nloc];
  check(PetscMalloc1(nloc + 1, &ia), "PetscMalloc1");
  check(PetscMalloc1(std::max<PetscInt>(nnz, 1), &ja), "PetscMalloc1");
  for (PetscInt i = 0; i <= nloc; ++i) ia[i] = g.rows.xadj[i];
  for (PetscInt k = 0; k < nnz; ++k) ja[k] = g.rows.adjncy[k];
  Mat adj;
  check(MatCreateMPIAdj(comm, nloc, n, ia, ja, nullptr, &adj), "MatCreateMPIAdj");
  MatPartitioning mp;
  check(MatPartitioningCreate(comm, &mp), "MatPartitioningCreate");
  check(MatPartitioningSetAdjacency(mp, adj), "MatPartitioningSetAdjacency");
  check(MatPartitioningSetType(mp, MATPARTITIONINGPTSCOTCH), "MatPartitioningSetType");
  check(MatPartitioningSetNParts(mp, parts), "MatPartitioningSetNParts");
  // The weights' sum and whether any is positive are the whole graph's: every rank scales
  // alike.
  const bool have = row_weights && static_cast<PetscInt>(row_weights->size()) == nloc;
  double sums[2] = {0, 0};  // total, any positive
  if (have)
    for (int w : *row_weights) sums[0] += w, sums[1] = std::max(sums[1], w > 0 ? 1.0 : 0.0);
  double total = 0, any = 0;
  MPI_Allreduce(&sums[0], &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&sums[1], &any, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (any > 0) {
    // PT-Scotch wants positive weights whose sum fits its 32-bit integers: a kinematic
    // vertex (weight 0) gets 1 on a scale where a dynamic one gets 100x its weight, or, on
    // graphs whose weights sum past 2^29 / 100, its weight divided down to fit.
    const double scale = total * 100.0 < double(1 << 29) ? 100.0 : double(1 << 29) / total;
    PetscInt* vw = nullptr;
    check(PetscMalloc1(std::max<PetscInt>(nloc, 1), &vw), "PetscMalloc1");
    for (PetscInt i = 0; i < nloc; ++i) {
      const int w = have ? (*row_weights)[i] : 0;
      vw[i] = w > 0 ? std::max<PetscInt>(1, static_cast<PetscInt>(w * scale)) : 1;
    }
    check(MatPartitioningSetVertexWeights(mp, vw), "MatPartitioningSetVertexWeights");  // takes vw
  }
  IS is, all;
  // Scotch's generator advances with every use: reset, so each call starts from the same
  // seed (a second scene build in one process, --estimate's trials, gets the same parts).
  SCOTCH_randomSeed(1);
  SCOTCH_randomReset();
  check(MatPartitioningApply(mp, &is), "MatPartitioningApply");
  check(ISAllGather(is, &all), "ISAllGather");
  const PetscInt* p = nullptr;
  check(ISGetIndices(all, &p), "ISGetIndices");
  for (int i = 0; i < n; ++i) part[i] = static_cast<int>(p[i]);
  check(ISRestoreIndices(all, &p), "ISRestoreIndices");
  ISDestroy(&all);
  ISDestroy(&is);
  MatPartitioningDestroy(&mp);
  MatDestroy(&adj);
  std::vector<int> sizes(parts, 0);
  for (int q : part) ++sizes[q];
  for (int q = 0; q < parts; ++q)
    if (sizes[q] == 0) throw RuntimeFailure("PT-Scotch left part " + std::to_string(q) + " empty");
  return part;
}

}  // namespace weft
