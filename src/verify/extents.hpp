// weft-verify --extents: where each object ended up. Per-object axis-aligned bounding
// boxes of the last frame and, for a pile on a board (C-IPC section 6.5), the pile height
// = max y over shell vertices - max y over obstacle vertices (the top of the board when
// the only obstacle is the board under the pile).
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "verify/result_file.hpp"

namespace weft::verify {

struct ObjectExtent {
  int id = 0;
  std::string name;  // "object<id>" when the file has no names
  std::string kind;  // shell | obstacle | unknown (file without kinds)
  long vertices = 0;
  Vec3 min = Vec3::Zero(), max = Vec3::Zero();
};

struct Extents {
  long frame = -1;   // the last frame
  double time = 0;
  std::vector<ObjectExtent> objects;
  // NaN when there is no shell or no obstacle (or the file does not say which is which).
  double shells_top = std::numeric_limits<double>::quiet_NaN();
  double obstacles_top = std::numeric_limits<double>::quiet_NaN();
  double pile_height = std::numeric_limits<double>::quiet_NaN();
};

// Extents of the last frame. Throws InputError when the file has no frame or no
// /mesh/object_id.
Extents compute_extents(const ResultFile& file);

// Parseable lines:
//   EXTENT <id> <name> <kind> vertices <n> min <x> <y> <z> max <x> <y> <z>
//   PILE height <h> shells_top <y> board_top <y> frame <f> time <t>
std::string extents_text(const Extents& e);
// {"frame": f, "time": t, "objects": [{"id", "name", "kind", "vertices", "min", "max"}],
//  "pile_height": h, "shells_top": y, "board_top": y}   (NaN as null)
std::string extents_json(const Extents& e);

}  // namespace weft::verify
