#include "parallel/even_share.hpp"

#include <numeric>

#include <stdexcept>

namespace weft {

std::pair<long long, long long> even_share(long long count, int rank, int ranks) {
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

std::vector<double> gather_even_share(const std::vector<int>& index, const std::vector<double>& values,
                                      long long whole, MPI_Comm comm, long long* begin) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (index.size() != values.size()) throw std::invalid_argument("gather_even_share: index and values differ in size");
  const auto [lo, hi] = even_share(whole, rank, ranks);
  *begin = lo;
  std::vector<int> send_counts(ranks, 0), recv_counts(ranks), sdispl(ranks + 1, 0), rdispl(ranks + 1, 0);
  int dest = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    const int g = index[i];
    if (g < 0 || g >= whole || (i > 0 && g <= index[i - 1]))
      throw std::invalid_argument("gather_even_share: indices must ascend within [0, whole)");
    while (g >= even_share(whole, dest, ranks).second) ++dest;  // (ascending: so do the ranks)
    ++send_counts[dest];
  }
  if (ranks == 1) {  // every entry is this rank's: no copies of the index and values to exchange
    std::vector<double> share(static_cast<size_t>(hi - lo), 0.0);
    for (size_t i = 0; i < index.size(); ++i) share[index[i] - lo] = values[i];
    return share;
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm);
  for (int r = 0; r < ranks; ++r) sdispl[r + 1] = sdispl[r] + send_counts[r], rdispl[r + 1] = rdispl[r] + recv_counts[r];
  std::vector<int> idx(rdispl[ranks]);
  std::vector<double> val(rdispl[ranks]);
  MPI_Alltoallv(index.data(), send_counts.data(), sdispl.data(), MPI_INT, idx.data(), recv_counts.data(),
                rdispl.data(), MPI_INT, comm);
  MPI_Alltoallv(values.data(), send_counts.data(), sdispl.data(), MPI_DOUBLE, val.data(), recv_counts.data(),
                rdispl.data(), MPI_DOUBLE, comm);
  std::vector<double> share(static_cast<size_t>(hi - lo), 0.0);
  for (size_t i = 0; i < idx.size(); ++i) share[idx[i] - lo] = val[i];
  return share;
}

namespace {

template <class T>
std::vector<T> allgather(const std::vector<T>& mine, MPI_Datatype type, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), offsets(size + 1, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
  std::vector<T> all(offsets[size]);
  MPI_Allgatherv(mine.data(), count, type, all.data(), counts.data(), offsets.data(), type, comm);
  return all;
}

}  // namespace

std::vector<int> allgather_ints(const std::vector<int>& mine, MPI_Comm comm) { return allgather(mine, MPI_INT, comm); }

std::vector<double> allgather_doubles(const std::vector<double>& mine, MPI_Comm comm) {
  return allgather(mine, MPI_DOUBLE, comm);
}

}  // namespace weft
