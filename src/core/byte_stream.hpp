// Bytes for one MPI message of mixed contents (a rank's part of the scene, io/scene_parts):
// trivially copyable values and arrays of them appended in order and read back in the same
// order. Sender and receiver run the same binary, so no byte order or padding is translated.
#pragma once
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace weft {

class ByteWriter {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable<T>::value, "bytes of a trivially copyable value only");
    raw(&v, sizeof(T));
  }
  // An array: its length, then its entries.
  template <class T>
  void put_array(const T* data, std::size_t n) {
    static_assert(std::is_trivially_copyable<T>::value, "bytes of a trivially copyable value only");
    put<std::size_t>(n);
    raw(data, n * sizeof(T));
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    put_array(v.data(), v.size());
  }
  void put_string(const std::string& s) { put_array(s.data(), s.size()); }
  void raw(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    bytes_.insert(bytes_.end(), c, c + n);
  }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class ByteReader {
 public:
  ByteReader(const char* data, std::size_t size) : p_(data), end_(data + size) {}
  template <class T>
  T get() {
    T v;
    raw(&v, sizeof(T));
    return v;
  }
  template <class T>
  std::vector<T> get_vector() {
    const std::size_t n = get<std::size_t>();
    std::vector<T> v(n);
    raw(v.data(), n * sizeof(T));
    return v;
  }
  std::string get_string() {
    const std::size_t n = get<std::size_t>();
    return std::string(take(n), n);
  }
  void raw(void* out, std::size_t n) {
    if (n > 0) std::memcpy(out, take(n), n);
  }
  // The next n bytes, read in place.
  const char* take(std::size_t n) {
    const char* at = p_;
    skip(n);
    return at;
  }
  bool done() const { return p_ == end_; }

 private:
  void skip(std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) throw std::logic_error("ByteReader: message shorter than its contents");
    p_ += n;
  }
  const char* p_;
  const char* end_;
};

}  // namespace weft
