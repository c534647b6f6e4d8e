// A read-only array that either holds its elements or borrows a std::vector that outlives
// it. Why: the collision surface's triangles and their objects are the Scene's own arrays
// for C-IPC (issue 20: the whole scene's triangles were held twice on every rank, 32 bytes
// per cloth vertex), while PBD and the tests build surfaces from arrays of their own.
// Copying or moving a BorrowedArray keeps what it borrows borrowed and what it holds held.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

namespace weft {

template <class T>
class BorrowedArray {
 public:
  BorrowedArray() = default;
  // Holds a copy (or the moved vector): the implicit conversion keeps `surface.x = v` and
  // calls taking a vector working.
  BorrowedArray(std::vector<T> own) : own_(std::move(own)) {}  // NOLINT(google-explicit-constructor)
  BorrowedArray(std::initializer_list<T> init) : own_(init) {}  // NOLINT(google-explicit-constructor)
  // Borrows `owner`, which must outlive this array and its copies.
  static BorrowedArray borrow(const std::vector<T>& owner) {
    BorrowedArray a;
    a.borrowed_ = &owner;
    return a;
  }

  const std::vector<T>& vector() const { return borrowed_ ? *borrowed_ : own_; }
  const T& operator[](std::size_t i) const { return vector()[i]; }
  std::size_t size() const { return vector().size(); }
  bool empty() const { return vector().empty(); }
  const T* data() const { return vector().data(); }
  typename std::vector<T>::const_iterator begin() const { return vector().begin(); }
  typename std::vector<T>::const_iterator end() const { return vector().end(); }
  bool borrowed() const { return borrowed_ != nullptr; }
  // The held vector, moved out (empty when borrowing).
  std::vector<T> take_held() { return std::move(own_); }

  friend bool operator==(const BorrowedArray& a, const std::vector<T>& b) { return a.vector() == b; }

 private:
  std::vector<T> own_;
  const std::vector<T>* borrowed_ = nullptr;
};

}  // namespace weft
