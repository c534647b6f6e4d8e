// Named figures and arrays passed between a time stepper and the run loop, the result file
// and the checkpoint (methods/stepper.hpp), which know them only by name.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace weft {

// (name, value) in the order a stepper reports them; names are stable contracts
// (/frames/stats/<name> in the result file).
using NamedValues = std::vector<std::pair<std::string, double>>;

// One named array of doubles (a checkpoint array), in an order that does not depend on the
// rank count. Either every rank holds the whole array (whole < 0), or it is distributed:
// this rank holds entries index[i] (ascending) of an array of `whole` entries, each entry on
// exactly one rank (per-stencil arrays: issue 20, no rank holds the whole scene).
struct NamedArray {
  NamedArray() = default;
  NamedArray(std::string n, std::vector<double> v) : name(std::move(n)), values(std::move(v)) {}
  NamedArray(std::string n, std::vector<double> v, std::vector<int> i, long w)
      : name(std::move(n)), values(std::move(v)), index(std::move(i)), whole(w) {}

  std::string name;
  std::vector<double> values;
  std::vector<int> index;  // distributed: the entries this rank holds
  long whole = -1;         // distributed: the array's length over every rank
  bool distributed() const { return whole >= 0; }
  long length() const { return distributed() ? whole : static_cast<long>(values.size()); }
};
using NamedArrays = std::vector<NamedArray>;

// The entry named `name`, or null.
inline const double* find_value(const NamedValues& v, const std::string& name) {
  for (const auto& [n, x] : v)
    if (n == name) return &x;
  return nullptr;
}
inline const NamedArray* find_array(const NamedArrays& a, const std::string& name) {
  for (const NamedArray& x : a)
    if (x.name == name) return &x;
  return nullptr;
}

}  // namespace weft
