// Registrations name the case `method:` values they serve as one
// comma-separated list
// ("cipc,mass_spring"): is `item` one of its entries?
#pragma once
#include <cstring>
#include <string>

namespace weft {

inline bool in_comma_list(const char *list, const std::string &item) {
  const size_t n = std::strlen(list);
  for (size_t b = 0; b <= n;) {
    const char *comma = std::strchr(list + b, ',');
    const size_t e = comma ? static_cast<size_t>(comma - list) : n;
    if (e - b == item.size() &&
        item.compare(0, item.size(), list + b, e - b) == 0)
      return true;
    b = e + 1;
  }
  return false;
}

} // namespace weft
