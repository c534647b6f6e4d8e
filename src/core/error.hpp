// Two kinds of failure with two exit codes (DESIGN.md, "Executables"):
// InputError = the user's input is wrong (exit 2); RuntimeFailure = the run failed (exit 1).
#pragma once
#include <stdexcept>
#include <string>

namespace weft {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RuntimeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace weft
