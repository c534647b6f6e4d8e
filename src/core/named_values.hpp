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

// One named array of doubles (a checkpoint array): every rank holds the whole array, in an
// order that does not depend on the rank count.
struct NamedArray {
  std::string name;
  std::vector<double> values;
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
