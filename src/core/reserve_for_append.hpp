// Room in a vector for a known number of appends. Why: the scene build appends object by
// object, and a push_back's last doubling holds the old and the new buffer at once (at 4M
// cloth vertices that doubling of the element sets was the build's peak, issue 20).
#pragma once
#include <algorithm>
#include <cstddef>

namespace weft {

// Room for `more` appends to v: exactly what is needed the first time (one large object: no
// growth slack and no doubling), at least doubling after (many small objects: amortised).
template <class V>
void reserve_for_append(V& v, std::size_t more) {
  const std::size_t need = v.size() + more;
  if (need > v.capacity()) v.reserve(std::max(need, v.capacity() == 0 ? need : 2 * v.capacity()));
}

}  // namespace weft
