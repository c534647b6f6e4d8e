// Element sets (DESIGN.md "The engine"): the fixed-size stencils one energy term evaluates
// (triangles, hinges; later segments, tets ...), gathered over every object whose (kind,
// model) the term is registered for (energy/registry.hpp), with their rest data and the
// object whose material they use. Built once by the scene loader, whole, then cut down on
// each rank of a run to the stencils touching a vertex it owns (keep(): what its matrix rows,
// its LocalView and its terms need); LocalStencils is the part one rank evaluates.
#pragma once
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <stdexcept>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "core/byte_stream.hpp"
#include "core/reserve_for_append.hpp"

namespace weft {

struct TermFactory;

// A rest data type's operations on its std::vector<R> held type-erased (ElementSet::rest_).
// Registered once per R at program start (RestOpsOf<R>::registered, instantiated by the
// first ElementSet::rest<R>() in the program), so a rank that receives a set's part as bytes
// (ElementSet::unpack, io/scene_parts) rebuilds the vector without knowing R.
struct RestOps {
  const std::type_info* type;
  std::size_t entry_bytes;
  std::shared_ptr<void> (*make)();                      // an empty std::vector<R>
  void (*shrink)(void*);
  void (*keep)(std::shared_ptr<void>&, const std::vector<int>&);
  void (*append_bytes)(void*, const char*, std::size_t);  // append n entries' bytes
  const char* (*data)(const void*);                     // the entries' bytes
};
inline std::vector<const RestOps*>& rest_ops_registry() {
  static std::vector<const RestOps*> all;
  return all;
}
inline bool register_rest_ops(const RestOps* ops) {
  rest_ops_registry().push_back(ops);
  return true;
}
inline const RestOps* find_rest_ops(const std::string& type_name) {
  for (const RestOps* o : rest_ops_registry())
    if (type_name == o->type->name()) return o;
  return nullptr;
}
template <class R>
struct RestOpsOf {
  // (Rest data travels as bytes: plain values, doubles, ints and fixed-size Eigen ones.)
  static_assert(std::is_standard_layout<R>::value, "rest data travels as bytes");
  static const RestOps ops;
  static const bool registered;
};
template <class R>
const RestOps RestOpsOf<R>::ops = {
    &typeid(R),
    sizeof(R),
    []() -> std::shared_ptr<void> { return std::make_shared<std::vector<R>>(); },
    [](void* p) { static_cast<std::vector<R>*>(p)->shrink_to_fit(); },
    // (a new vector, not an edit in place: copies of the set share the old one)
    [](std::shared_ptr<void>& p, const std::vector<int>& which) {
      const auto& a = *static_cast<const std::vector<R>*>(p.get());
      auto b = std::make_shared<std::vector<R>>();
      b->reserve(which.size());
      for (int k : which) b->push_back(a[k]);
      p = std::move(b);
    },
    [](void* p, const char* bytes, std::size_t n) {
      auto& v = *static_cast<std::vector<R>*>(p);
      const std::size_t at = v.size();
      v.resize(at + n);
      if (n > 0) std::memcpy(static_cast<void*>(v.data() + at), bytes, n * sizeof(R));
    },
    [](const void* p) { return reinterpret_cast<const char*>(static_cast<const std::vector<R>*>(p)->data()); },
};
template <class R>
const bool RestOpsOf<R>::registered = register_rest_ops(&RestOpsOf<R>::ops);

struct ElementSet {
  const TermFactory* term = nullptr;  // the registration that built it and evaluates it
  int arity = 0;                      // vertices per stencil
  std::vector<int> vertices;          // arity solver ids per stencil
  // The scene object of each stencil (its material), in runs: a set is built object by
  // object, so stencils [object_start[i], object_start[i + 1]) (the last run up to size())
  // are of object object_id[i]. (Per stencil: 4 bytes a stencil, ~20 a cloth vertex.)
  std::vector<int> object_start, object_id;
  // Appends the object of the next stencil (the builders, once per stencil).
  void push_object(int o) {
    if (object_id.empty() || object_id.back() != o) object_start.push_back(count_), object_id.push_back(o);
    ++count_;
  }
  int object_of(int k) const { return run_object(object_start, object_id, k); }
  // Per kept stencil, its index in the whole set (checkpoint arrays are whole-set arrays);
  // empty while the set is whole.
  std::vector<int> global;

  int size() const { return count_; }
  int global_of(int k) const { return global.empty() ? k : global[k]; }
  int whole_size() const { return whole_size_ < 0 ? size() : whole_size_; }  // over every rank
  const int* stencil(int k) const { return vertices.data() + static_cast<size_t>(arity) * k; }

  // Rest data, one R per stencil; R is the term's own type (TriRest, HingeRest ...), so a
  // new term brings its rest data in its own file.
  template <class R>
  std::vector<R>& rest() {
    static_cast<void>(RestOpsOf<R>::registered);  // (instantiates R's registration)
    if (!rest_) rest_ops_ = &RestOpsOf<R>::ops, rest_ = rest_ops_->make();
    return *static_cast<std::vector<R>*>(checked(typeid(R)));
  }
  // Drop the growth slack of every array (the builders append stencil by stencil, which
  // leaves up to 2x capacity for the run): called once the set is complete.
  void shrink_to_fit() {
    vertices.shrink_to_fit();
    object_start.shrink_to_fit();
    object_id.shrink_to_fit();
    if (rest_) rest_ops_->shrink(rest_.get());
  }
  // Keep only the stencils listed (ascending indices into this set as it is now): the
  // vertices, objects and rest data of the others are freed.
  void keep(const std::vector<int>& which) {
    auto pick = [&](auto& a, int width) {
      if (a.empty()) return;
      std::remove_reference_t<decltype(a)> b;
      b.reserve(which.size() * static_cast<size_t>(width));
      for (int k : which)
        for (int i = 0; i < width; ++i) b.push_back(a[static_cast<size_t>(width) * k + i]);
      a.swap(b);
    };
    if (whole_size_ < 0) whole_size_ = size();
    std::vector<int> g(which.size());
    for (size_t i = 0; i < which.size(); ++i) g[i] = global_of(which[i]);
    pick(vertices, arity);
    {
      std::vector<int> start, id;
      start.swap(object_start), id.swap(object_id);
      count_ = 0;
      for (int k : which) push_object(run_object(start, id, k));  // (object_of before the cut)
    }
    if (rest_) rest_ops_->keep(rest_, which);
    global.swap(g);
  }
  // The stencils listed (ascending indices into this set as it is now) as bytes, and a set
  // made from such bytes: the part of a set one rank sends another (io/scene_parts) with
  // its vertices, objects, whole-set indices and rest data. term and arity are the
  // receiver's (it knows the registration).
  void pack(const std::vector<int>& which, ByteWriter& w) const {
    w.put<int>(whole_size());
    w.put<std::size_t>(which.size());
    for (int k : which) w.raw(stencil(k), sizeof(int) * static_cast<std::size_t>(arity));
    for (int k : which) w.put<int>(object_of(k));
    for (int k : which) w.put<int>(global_of(k));
    w.put_string(rest_ ? rest_ops_->type->name() : "");
    if (rest_) {
      const char* d = rest_ops_->data(rest_.get());
      for (int k : which) w.raw(d + rest_ops_->entry_bytes * static_cast<std::size_t>(k), rest_ops_->entry_bytes);
    }
  }
  // The bytes pack() writes for these stencils.
  std::size_t packed_bytes(const std::vector<int>& which) const {
    const std::size_t type = rest_ ? std::string(rest_ops_->type->name()).size() : 0;
    return sizeof(int) + 2 * sizeof(std::size_t) + type +
           which.size() * (sizeof(int) * (static_cast<std::size_t>(arity) + 2) + (rest_ ? rest_ops_->entry_bytes : 0));
  }
  void unpack(ByteReader& r) {
    whole_size_ = r.get<int>();
    const std::size_t n = r.get<std::size_t>();
    vertices.resize(n * static_cast<std::size_t>(arity));
    r.raw(vertices.data(), vertices.size() * sizeof(int));
    object_start.clear(), object_id.clear(), count_ = 0;
    for (std::size_t k = 0; k < n; ++k) push_object(r.get<int>());
    global.resize(n);
    r.raw(global.data(), n * sizeof(int));
    const std::string type = r.get_string();
    rest_.reset(), rest_ops_ = nullptr;
    if (!type.empty()) {
      rest_ops_ = find_rest_ops(type);
      if (!rest_ops_) throw std::logic_error("ElementSet::unpack: rest data of an unregistered type " + type);
      rest_ = rest_ops_->make();
      rest_ops_->append_bytes(rest_.get(), r.take(n * rest_ops_->entry_bytes), n);
    }
  }
  // Whether the rest data is of type R (a method that reads a set's rest data itself, as
  // pd reads the springs', checks this first).
  template <class R>
  bool holds() const {
    return rest_ && *rest_ops_->type == typeid(R);
  }
  template <class R>
  const std::vector<R>& rest() const {
    return *static_cast<const std::vector<R>*>(checked(typeid(R)));
  }

 private:
  void* checked(const std::type_info& t) const {
    if (!rest_ || *rest_ops_->type != t) throw std::logic_error("ElementSet: rest data of another type");
    return rest_.get();
  }
  // The object of stencil k in runs (start, id), as object_start / object_id hold them.
  static int run_object(const std::vector<int>& start, const std::vector<int>& id, int k) {
    if (id.size() == 1) return id[0];
    return id[std::upper_bound(start.begin(), start.end(), k) - start.begin() - 1];
  }
  int count_ = 0;        // stencils
  int whole_size_ = -1;  // -1: this set is whole
  std::shared_ptr<void> rest_;  // std::vector<R>, immutable once built (shared by copies)
  const RestOps* rest_ops_ = nullptr;
};

// The stencils of one set evaluated on this rank: those whose first vertex it owns.
struct LocalStencils {
  std::vector<int> element;  // indices into the set, ascending
  std::vector<int> local;    // arity local vertex indices per element
  // Or, when the rank evaluates every stencil of the set and its local ids are the solver
  // ids (one rank: the owned block starts at 0, no ghosts), the set itself: element k is k
  // and its local ids are the set's own vertex array, borrowed instead of copied (issue 20:
  // the copies were ~110 bytes a cloth vertex at one rank). `element` and `local` are
  // then empty. The set must outlive these stencils.
  const ElementSet* whole = nullptr;
  int size() const { return whole ? whole->size() : static_cast<int>(element.size()); }
  int element_at(int k) const { return whole ? k : element[k]; }
  // The local ids from entry i on (i = arity k: stencil k's).
  const int* local_at(size_t i) const { return (whole ? whole->vertices.data() : local.data()) + i; }
};

}  // namespace weft
