// RAII view of a ghosted PETSc Vec's local form: owned entries, then ghost entries. Shared
// by the Newton minimiser and the steppers, which all read and write positions this way.
#pragma once
#include <petscvec.h>

#include <string>

#include "core/error.hpp"

namespace weft {

class LocalArray {
 public:
  explicit LocalArray(Vec v) : v_(v) {
    if (VecGhostGetLocalForm(v_, &local_) || VecGetArray(local_, &a_))
      throw RuntimeFailure("PETSc error in VecGhostGetLocalForm / VecGetArray");
  }
  ~LocalArray() {
    VecRestoreArray(local_, &a_);
    VecGhostRestoreLocalForm(v_, &local_);
  }
  LocalArray(const LocalArray&) = delete;
  LocalArray& operator=(const LocalArray&) = delete;
  double* data() { return a_; }
  Vec local() const { return local_; }

 private:
  Vec v_, local_ = nullptr;
  double* a_ = nullptr;
};

}  // namespace weft
