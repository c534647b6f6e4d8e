// Even shares: how the result file splits a whole array's rows over the ranks (each rank
// writes or reads a contiguous share, in rank order), and how a distributed array (each
// entry held by exactly one rank, anywhere) is brought to those shares without any rank
// holding the whole array (issue 20: output from each rank's part).
#pragma once
#include <mpi.h>

#include <utility>
#include <vector>

namespace weft {

// Rows [first, second) of `count` that rank `rank` of `ranks` takes: count * rank / ranks
// up to count * (rank + 1) / ranks.
std::pair<long long, long long> even_share(long long count, int rank, int ranks);

// The entries of a distributed array of `whole` entries that fall in this rank's even
// share: the holder of entry index[i] (ascending) sends values[i] to the share's rank (one
// all-to-all). Returns the share's values in order and sets *begin to its first entry;
// entries nobody holds are 0.
std::vector<double> gather_even_share(const std::vector<int>& index, const std::vector<double>& values,
                                      long long whole, MPI_Comm comm, long long* begin);

// Every rank's ints (doubles), concatenated in rank order, on every rank (collective).
std::vector<int> allgather_ints(const std::vector<int>& mine, MPI_Comm comm);
std::vector<double> allgather_doubles(const std::vector<double>& mine, MPI_Comm comm);

}  // namespace weft
