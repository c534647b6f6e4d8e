// Resident memory of this process and of the node, from Linux's /proc (library code: no
// command line). Used by the run's closing per-rank summary and by the size estimate.
#pragma once
#include <cstdint>

namespace weft {

// VmHWM (peak resident set) and VmRSS of this process in bytes; 0 where /proc is missing.
std::int64_t peak_rss_bytes();
std::int64_t current_rss_bytes();
// Give freed heap back to the system (malloc_trim) and reset VmHWM to the current resident
// set (/proc/self/clear_refs "5", Linux >= 4.0), so the next peak_rss_bytes() is the peak
// of what runs after this call. False when the kernel refused the reset.
bool reset_peak_rss();
// Give the heap's free pages back to the system (malloc_trim): after a setup phase whose
// temporaries (graphs, per-row lists) leave holes that the long-lived arrays do not fill,
// so the resident set is what the run holds, not what setup once held.
void release_free_heap();
// MemTotal of this node (/proc/meminfo) in bytes; 0 if unknown.
std::int64_t node_memory_bytes();

}  // namespace weft
