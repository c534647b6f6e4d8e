#include "verify/extents.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace weft::verify {
namespace {

std::string num(double v) {
  if (!std::isfinite(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string json_num(double v) { return std::isfinite(v) ? num(v) : "null"; }

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\', o += char(ch);
    else if (ch < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      o += buf;
    } else {
      o += char(ch);
    }
  }
  return o + "\"";
}

std::string json_vec(const Vec3& v) { return "[" + json_num(v.x()) + ", " + json_num(v.y()) + ", " + json_num(v.z()) + "]"; }

}  // namespace

Extents compute_extents(const ResultFile& file) {
  const ResultMesh& m = file.mesh();
  if (file.num_frames() < 1) throw InputError(file.path() + ": --extents: the file has no frame");
  if (m.object_id.size() != m.num_vertices())
    throw InputError(file.path() + ": --extents: dataset /mesh/object_id: missing");
  Extents e;
  e.frame = file.num_frames() - 1;
  e.time = file.time(e.frame);
  std::vector<Vec3> x;
  file.read_frame(e.frame, x);
  int n_obj = 0;
  for (int id : m.object_id) n_obj = std::max(n_obj, id + 1);
  n_obj = std::max<int>(n_obj, static_cast<int>(m.object_names.size()));
  e.objects.resize(n_obj);
  for (int o = 0; o < n_obj; ++o) {
    ObjectExtent& ob = e.objects[o];
    ob.id = o;
    ob.name = o < static_cast<int>(m.object_names.size()) ? m.object_names[o] : "object" + std::to_string(o);
    ob.kind = o < static_cast<int>(m.object_kinds.size()) ? m.object_kinds[o] : "unknown";
    ob.min = Vec3::Constant(std::numeric_limits<double>::infinity());
    ob.max = -ob.min;
  }
  for (size_t v = 0; v < x.size(); ++v) {
    ObjectExtent& ob = e.objects[m.object_id[v]];
    ++ob.vertices;
    ob.min = ob.min.cwiseMin(x[v]);
    ob.max = ob.max.cwiseMax(x[v]);
  }
  double shells = -std::numeric_limits<double>::infinity(), obstacles = shells;
  for (ObjectExtent& ob : e.objects) {
    if (ob.vertices == 0) {
      ob.min = ob.max = Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    if (ob.kind == "shell") shells = std::max(shells, ob.max.y());
    if (ob.kind == "obstacle") obstacles = std::max(obstacles, ob.max.y());
  }
  if (std::isfinite(shells)) e.shells_top = shells;
  if (std::isfinite(obstacles)) e.obstacles_top = obstacles;
  if (std::isfinite(shells) && std::isfinite(obstacles)) e.pile_height = shells - obstacles;
  return e;
}

std::string extents_text(const Extents& e) {
  std::string o;
  for (const ObjectExtent& ob : e.objects)
    o += "EXTENT " + std::to_string(ob.id) + " " + ob.name + " " + ob.kind + " vertices " +
         std::to_string(ob.vertices) + " min " + num(ob.min.x()) + " " + num(ob.min.y()) + " " + num(ob.min.z()) +
         " max " + num(ob.max.x()) + " " + num(ob.max.y()) + " " + num(ob.max.z()) + "\n";
  o += "PILE height " + num(e.pile_height) + " shells_top " + num(e.shells_top) + " board_top " +
       num(e.obstacles_top) + " frame " + std::to_string(e.frame) + " time " + num(e.time) + "\n";
  return o;
}

std::string extents_json(const Extents& e) {
  std::string o = "{\"frame\": " + std::to_string(e.frame) + ", \"time\": " + json_num(e.time) + ", \"objects\": [";
  for (size_t i = 0; i < e.objects.size(); ++i) {
    const ObjectExtent& ob = e.objects[i];
    o += (i ? ", " : "") + std::string("{\"id\": ") + std::to_string(ob.id) + ", \"name\": " + json_str(ob.name) +
         ", \"kind\": " + json_str(ob.kind) + ", \"vertices\": " + std::to_string(ob.vertices) +
         ", \"min\": " + json_vec(ob.min) + ", \"max\": " + json_vec(ob.max) + "}";
  }
  o += "], \"pile_height\": " + json_num(e.pile_height) + ", \"shells_top\": " + json_num(e.shells_top) +
       ", \"board_top\": " + json_num(e.obstacles_top) + "}";
  return o;
}

}  // namespace weft::verify
