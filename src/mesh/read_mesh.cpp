// read_mesh: dispatch on the file extension.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/error.hpp"
#include "mesh/readers.hpp"
#include "mesh/text_scan.hpp"

namespace weft {

namespace detail {

void require_readable_file(const std::string& path) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) throw InputError(path + ": mesh file not found");
  if (std::filesystem::is_directory(st)) throw InputError(path + ": is a directory, not a mesh file");
}

}  // namespace detail

namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

bool mesh_format_supported(const std::string& path) {
  std::string ext = lower_extension(path);
  return ext == ".obj" || ext == ".msh";
}

TriMesh read_mesh(const std::string& path, MeshUse use) {
  std::string ext = lower_extension(path);
  if (ext == ".obj") {
    if (use == MeshUse::volume)
      throw InputError(path + ": an OBJ file holds no tetrahedra; give a volume as a Gmsh .msh file");
    return read_obj(path, use);
  }
  if (ext == ".msh") {
    if (use == MeshUse::rods || use == MeshUse::particles)
      throw InputError(path + ": .msh files are read as surfaces or volumes only; give " +
                       (use == MeshUse::rods ? "rods as an OBJ file with 'l' lines" : "particles as an OBJ file with 'v' lines"));
    return read_msh(path, use);
  }
  throw InputError(path + ": unsupported mesh format '" + ext + "' (expected .obj or .msh)");
}

}  // namespace weft
