#include "verify/cli.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ostream>

#include "core/error.hpp"
#include "verify/extents.hpp"

namespace weft::verify {
namespace {

double parse_tol(const std::string& opt, const std::string& value) {
  if (value.empty()) throw InputError("option " + opt + ": expected a non-negative number, got nothing");
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (errno != 0 || end == value.c_str() || *end != '\0' || !std::isfinite(v) || v < 0)
    throw InputError("option " + opt + ": expected a non-negative number, got '" + value + "'");
  return v;
}

}  // namespace

std::string usage() {
  return "usage: weft-verify OUT.h5 [--json] [--extents] [--tol-distance T] [--tol-strain T]\n"
         "  Checks every frame of a weft result file: complete, finite, strain, intersection,\n"
         "  distance, inversion. Exit 0 = all pass, 1 = a check failed, 2 = unreadable input.\n"
         "  --json             print one JSON object instead of one line per check\n"
         "  --extents          also print the last frame's bounding box per object (EXTENT lines)\n"
         "                     and the pile height = top of the shells - top of the obstacles\n"
         "                     (PILE line; \"extents\" in --json)\n"
         "  --tol-distance T   absolute slack on distance >= offset (default 1e-8)\n"
         "  --tol-strain T     absolute slack on singular value <= strain limit (default 1e-6)\n";
}

CliArgs parse_args(int argc, const char* const* argv) {
  CliArgs a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto take_value = [&]() {
      if (has_value) return value;
      if (i + 1 >= argc) throw InputError("option " + arg + ": expected a value");
      return std::string(argv[++i]);
    };
    if (arg == "--json" && !has_value) {
      a.json = true;
    } else if (arg == "--extents" && !has_value) {
      a.extents = true;
    } else if ((arg == "-h" || arg == "--help") && !has_value) {
      a.help = true;
    } else if (arg == "--tol-distance") {
      a.opt.tol_distance = parse_tol(arg, take_value());
    } else if (arg == "--tol-strain") {
      a.opt.tol_strain = parse_tol(arg, take_value());
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      throw InputError("unknown option '" + std::string(argv[i]) + "' (expected --json, --extents, --tol-distance, --tol-strain)");
    } else {
      if (!a.file.empty()) throw InputError("expected one result file, got '" + a.file + "' and '" + arg + "'");
      a.file = arg;
    }
  }
  if (a.file.empty() && !a.help) throw InputError("missing result file argument (usage: weft-verify OUT.h5 [--json])");
  return a;
}

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  try {
    const CliArgs a = parse_args(argc, argv);
    if (a.help) {
      if (rank == 0) out << usage();
      return 0;
    }
    const Report r = verify_file(a.file, a.opt, comm);
    std::string text = a.json ? to_json(r) : to_text(r);
    if (a.extents) {
      const Extents e = compute_extents(ResultFile(a.file));
      if (a.json) {
        // to_json ends with "]}\n": the extents join the same object.
        text.erase(text.find_last_of('}'));
        text += ", \"extents\": " + extents_json(e) + "}\n";
      } else {
        text += extents_text(e);
      }
    }
    if (rank == 0) out << text << std::flush;
    return r.exit_code();
  } catch (const InputError& e) {
    if (rank == 0) err << "weft-verify: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    if (rank == 0) err << "weft-verify: " << e.what() << std::endl;
    return 1;
  }
}

}  // namespace weft::verify
