#include "io/scene_parts.hpp"

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/byte_stream.hpp"
#include "core/error.hpp"
#include "energy/registry.hpp"
#include "io/scene_loader.hpp"
#include "parallel/local_view.hpp"
#include "partition/parallel_partition.hpp"

namespace weft {
namespace {

constexpr int kTagSize = 7101, kTagData = 7102;
constexpr std::size_t kChunkBytes = std::size_t(1) << 30;  // (MPI counts are ints)

// Waits for a request without spinning: a rank waiting for rank 0's build leaves the core
// to it (Open MPI's blocking calls poll at full speed).
void idle_wait(MPI_Request* req) {
  int done = 0;
  MPI_Test(req, &done, MPI_STATUS_IGNORE);
  while (!done) {
    const timespec pause{0, 1000000};  // 1 ms
    nanosleep(&pause, nullptr);
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
  }
}

void bcast_idle(void* data, int count, MPI_Datatype type, MPI_Comm comm) {
  MPI_Request req;
  MPI_Ibcast(data, count, type, 0, comm, &req);
  idle_wait(&req);
}

// Bytes of any length from rank 0 to every rank, in chunks.
void bcast_bytes(std::vector<char>& bytes, MPI_Comm comm) {
  std::uint64_t size = bytes.size();
  bcast_idle(&size, 1, MPI_UINT64_T, comm);
  bytes.resize(size);
  for (std::size_t at = 0; at < size; at += kChunkBytes)
    bcast_idle(bytes.data() + at, static_cast<int>(std::min<std::size_t>(kChunkBytes, size - at)), MPI_BYTE, comm);
}

void send_bytes(const std::vector<char>& bytes, int to, MPI_Comm comm) {
  const std::uint64_t size = bytes.size();
  MPI_Send(&size, 1, MPI_UINT64_T, to, kTagSize, comm);
  for (std::size_t at = 0; at < size; at += kChunkBytes)
    MPI_Send(bytes.data() + at, static_cast<int>(std::min<std::size_t>(kChunkBytes, size - at)), MPI_BYTE, to,
             kTagData, comm);
}

std::vector<char> receive_bytes(MPI_Comm comm) {
  std::uint64_t size = 0;
  MPI_Request req;
  MPI_Irecv(&size, 1, MPI_UINT64_T, 0, kTagSize, comm, &req);
  idle_wait(&req);
  std::vector<char> bytes(size);
  for (std::size_t at = 0; at < size; at += kChunkBytes) {
    MPI_Irecv(bytes.data() + at, static_cast<int>(std::min<std::size_t>(kChunkBytes, size - at)), MPI_BYTE, 0,
              kTagData, comm, &req);
    idle_wait(&req);
  }
  return bytes;
}

void announce(PartsSender::Code code, int length, MPI_Comm comm) {
  int head[2] = {code, length};
  bcast_idle(head, 2, MPI_INT, comm);
}

void put_vec3(ByteWriter& w, const Vec3& p) {
  const double d[3] = {p[0], p[1], p[2]};
  w.raw(d, sizeof d);
}
Vec3 get_vec3(ByteReader& r) {
  double d[3];
  r.raw(d, sizeof d);
  return Vec3(d[0], d[1], d[2]);
}

}  // namespace

void PartsSender::start_partition() { announce(kPartition, 0, comm_); }

void PartsSender::send_slice(int rank, const VertexGraphRows& g, const std::vector<int>& weights) {
  ByteWriter w;
  w.put<int>(g.first);
  w.put<int>(g.num_global);
  w.put_vector(g.rows.xadj);
  w.put_vector(g.rows.adjncy);
  w.put_vector(weights);
  send_bytes(w.bytes(), rank, comm_);
}

void PartsSender::fail(Code code, const std::string& message) {
  announce(code, static_cast<int>(message.size()), comm_);
  std::string m = message;
  if (!m.empty()) bcast_idle(m.data(), static_cast<int>(m.size()), MPI_CHAR, comm_);
}

void PartsSender::send_parts(const Scene& s) {
  int ranks = 1;
  MPI_Comm_size(comm_, &ranks);
  announce(kParts, 0, comm_);
  // What every rank holds alike.
  {
    ByteWriter w;
    w.put<int>(s.num_vertices);
    w.put_vector(s.vertex_range);
    w.put_string(s.partitioner);
    const Scene::VertexSummary sum = s.vertex_summary();
    w.put<double>(sum.dynamic_mass_sum);
    w.put<double>(sum.dynamic_count);
    put_vec3(w, sum.lo);
    put_vec3(w, sum.hi);
    w.put<std::size_t>(s.triangles.size());
    for (const ObjectParams& op : s.objects) w.put<int>(op.spare_first), w.put<int>(op.spare_count);
    s.input_of_solver.pack(w);
    s.solver_of_input.pack(w);
    s.vertex_object.pack(w);
    s.vertex_motion.pack(w);
    s.triangle_object.pack(w);
    w.put<char>(!s.triangle_warp.empty());
    s.segment_object.pack(w);
    s.point_object.pack(w);
    s.tet_object.pack(w);
    w.put_vector(s.stitches);
    w.put_vector(s.stitches_input);
    w.put_vector(s.stitch_stiffness0);
    const std::vector<const TermFactory*>& registry = term_registry();
    w.put<int>(static_cast<int>(s.element_sets.size()));
    for (const ElementSet& set : s.element_sets) {
      w.put<int>(static_cast<int>(std::find(registry.begin(), registry.end(), set.term) - registry.begin()));
      w.put<int>(set.arity);
    }
    bcast_bytes(w.bytes(), comm_);
  }
  // Each rank's part, one message at a time (rank 0 holds one besides the whole scene).
  for (int r = 1; r < ranks; ++r) {
    const int lo = s.vertex_range[r], hi = s.vertex_range[r + 1];
    const ContactSupport support = contact_support(s, lo, hi);
    std::vector<std::vector<int>> touching;
    for (const ElementSet& set : s.element_sets) touching.push_back(stencils_touching(set, lo, hi));
    // (Reserved at its exact size: grown by doubling, the message beside the whole scene
    // would reach up to twice a part on rank 0.)
    std::size_t bytes = 64 + (support.vertices.size() + hi - lo) * (sizeof(int) + 4 * sizeof(double)) +
                        support.triangles.size() * (sizeof(int) + sizeof(Tri)) +
                        support.segments.size() * (sizeof(int) + sizeof(Edge)) + support.points.size() * 2 * sizeof(int) +
                        support.tets.size() * 5 * sizeof(int) + 4 * sizeof(std::uint64_t);
    if (!s.triangle_warp.empty()) bytes += support.triangles.size() * 3 * sizeof(double);
    for (size_t k = 0; k < touching.size(); ++k)
      bytes += s.element_sets[k].packed_bytes(touching[k]);
    ByteWriter w;
    w.bytes().reserve(bytes);
    w.put_vector(support.vertices);
    for (int v = lo; v < hi; ++v) put_vec3(w, s.rest[v]);
    for (int v : support.vertices) put_vec3(w, s.rest[v]);
    for (int v = lo; v < hi; ++v) w.put<double>(s.mass[v]);
    for (int v : support.vertices) w.put<double>(s.mass[v]);
    w.put_vector(support.triangles);
    for (int t : support.triangles) w.put<Tri>(s.triangles[t]);
    if (!s.triangle_warp.empty())
      for (int t : support.triangles) put_vec3(w, s.triangle_warp[t]);
    // The segments, points and tets with a vertex in the block, with their indices.
    w.put_vector(support.segments);
    for (int k : support.segments) w.put<Edge>(s.segments[k]);
    w.put_vector(support.points);
    for (int k : support.points) w.put<int>(s.points[k]);
    w.put_vector(support.tets);
    for (int k : support.tets) w.put<std::array<int, 4>>(s.tets[k]);
    for (size_t k = 0; k < touching.size(); ++k) s.element_sets[k].pack(touching[k], w);
    send_bytes(w.bytes(), r, comm_);
  }
}

Scene receive_scene_part(const CaseSpec& spec, MPI_Comm comm) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  for (;;) {
    int head[2] = {0, 0};
    bcast_idle(head, 2, MPI_INT, comm);
    if (head[0] == PartsSender::kParts) break;
    if (head[0] == PartsSender::kPartition) {
      const std::vector<char> bytes = receive_bytes(comm);
      ByteReader r(bytes.data(), bytes.size());
      VertexGraphRows g;
      g.first = r.get<int>();
      g.num_global = r.get<int>();
      g.rows.xadj = r.get_vector<int>();
      g.rows.adjncy = r.get_vector<int>();
      const std::vector<int> weights = r.get_vector<int>();
      // (Rank 0 keeps the answer. Should the partition refuse, rank 0 meets the same
      // refusal and announces it: the error thrown is then rank 0's, as for any other.)
      try {
        partition_graph_parallel(g, ranks, &weights, comm);
      } catch (const std::exception&) {
      }
      continue;
    }
    std::string message(static_cast<std::size_t>(head[1]), '\0');
    if (head[1] > 0) bcast_idle(message.data(), head[1], MPI_CHAR, comm);
    if (head[0] == PartsSender::kInputError) throw InputError(message);
    throw RuntimeFailure(message);
  }

  Scene s;
  s.spec = spec;
  for (size_t o = 0; o < spec.objects.size(); ++o) {
    int obstacle_motion = -1;
    std::vector<int> pin_motion;
    add_object(spec, o, s, &obstacle_motion, &pin_motion);
  }
  std::vector<std::pair<int, int>> set_terms;  // registry index, arity
  Scene::VertexSummary sum;
  std::size_t num_triangles = 0;
  bool warp = false;
  {
    std::vector<char> bytes;
    bcast_bytes(bytes, comm);
    ByteReader r(bytes.data(), bytes.size());
    s.num_vertices = r.get<int>();
    s.vertex_range = r.get_vector<int>();
    s.partitioner = r.get_string();
    sum.dynamic_mass_sum = r.get<double>();
    sum.dynamic_count = r.get<double>();
    sum.lo = get_vec3(r);
    sum.hi = get_vec3(r);
    num_triangles = r.get<std::size_t>();
    for (ObjectParams& op : s.objects) op.spare_first = r.get<int>(), op.spare_count = r.get<int>();
    s.input_of_solver.unpack(r);
    s.solver_of_input.unpack(r);
    s.vertex_object.unpack(r);
    s.vertex_motion.unpack(r);
    s.triangle_object.unpack(r);
    warp = r.get<char>() != 0;
    s.segment_object.unpack(r);
    s.point_object.unpack(r);
    s.tet_object.unpack(r);
    s.stitches = r.get_vector<std::array<int, 2>>();
    s.stitches_input = r.get_vector<std::array<int, 2>>();
    s.stitch_stiffness0 = r.get_vector<double>();
    const int sets = r.get<int>();
    for (int k = 0; k < sets; ++k) {
      const int term = r.get<int>();
      set_terms.emplace_back(term, r.get<int>());
    }
  }
  {
    const std::vector<char> bytes = receive_bytes(comm);
    ByteReader r(bytes.data(), bytes.size());
    const int lo = s.vertex_range[rank], hi = s.vertex_range[rank + 1];
    const std::vector<int> support = r.get_vector<int>();
    // As Scene::keep_vertex_part makes them: the block committed, then the support's pages.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.rest = PagedArray<Vec3>(static_cast<size_t>(s.num_vertices), Vec3::Constant(nan));
    s.rest.commit_range(lo, hi);
    for (int v = lo; v < hi; ++v) s.rest.ref(v) = get_vec3(r);
    for (int v : support) s.rest.ref(v) = get_vec3(r);
    s.mass = PagedArray<double>(static_cast<size_t>(s.num_vertices), nan);
    s.mass.commit_range(lo, hi);
    for (int v = lo; v < hi; ++v) s.mass.ref(v) = r.get<double>();
    for (int v : support) s.mass.ref(v) = r.get<double>();
    s.kept_triangles = r.get_vector<int>();
    s.triangles = PagedArray<Tri>(num_triangles, Tri{-1, -1, -1});
    for (int t : s.kept_triangles) s.triangles.ref(t) = r.get<Tri>();
    s.triangle_part = true;
    if (warp) {
      s.triangle_warp = PagedArray<Vec3>(num_triangles, Vec3::Zero());
      for (int t : s.kept_triangles) s.triangle_warp.ref(t) = get_vec3(r);
    }
    s.segment_ids = IdRuns(r.get_vector<int>());
    s.segments.resize(s.segment_ids.size());
    for (Edge& e : s.segments) e = r.get<Edge>();
    s.point_ids = IdRuns(r.get_vector<int>());
    s.points.resize(s.point_ids.size());
    for (int& v : s.points) v = r.get<int>();
    s.tet_ids = IdRuns(r.get_vector<int>());
    s.tets.resize(s.tet_ids.size());
    for (auto& t : s.tets) t = r.get<std::array<int, 4>>();
    s.primitive_part = true;
    const std::vector<const TermFactory*>& registry = term_registry();
    for (const auto& [term, arity] : set_terms) {
      ElementSet set;
      set.term = registry.at(static_cast<size_t>(term));
      set.arity = arity;
      set.unpack(r);
      s.element_sets.push_back(std::move(set));
    }
    if (!r.done()) throw std::logic_error("receive_scene_part: the part's message has bytes left over");
  }
  s.sets_rank = rank;
  s.adopt_vertex_part(sum);
  return s;
}

}  // namespace weft
