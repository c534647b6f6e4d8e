#include "core/memory_usage.hpp"

#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace weft {
namespace {

// The "kB" figure after `key` in a /proc file of "Key:   value kB" lines, in bytes.
std::int64_t proc_kb(const char* file, const char* key) {
  std::ifstream in(file);
  std::string line;
  const std::size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':')
      return std::stoll(line.substr(n + 1)) * 1024;
  return 0;
}

}  // namespace

std::int64_t peak_rss_bytes() { return proc_kb("/proc/self/status", "VmHWM"); }
std::int64_t current_rss_bytes() { return proc_kb("/proc/self/status", "VmRSS"); }
std::int64_t node_memory_bytes() { return proc_kb("/proc/meminfo", "MemTotal"); }

void release_free_heap() { malloc_trim(0); }

bool reset_peak_rss() {
  malloc_trim(0);
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

}  // namespace weft
