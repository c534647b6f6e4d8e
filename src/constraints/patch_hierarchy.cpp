#include "constraints/patch_hierarchy.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace weft {

namespace {

// The cone must stay this far (radians) inside 90 degrees, and the boundary's segments this
// far apart (relative to the patch's size): margins against rounding, so a patch called flat
// is flat with room to spare.
constexpr double kConeMargin = 1e-2;
constexpr double kContourTol = 1e-9;

int find_root(std::vector<int>& p, int i) {
  while (p[i] != i) i = p[i] = p[p[i]];
  return i;
}

}  // namespace

void PatchHierarchy::build(const std::vector<Tri>& tris, const std::vector<Edge>& edges,
                           VertexSpan<Vec3> rest) {
  tris_ = tris, edges_ = edges;
  nodes_.clear(), boundary_.clear();
  if (tris.empty()) {
    tri_order_.clear(), edge_order_.clear();
    return;
  }
  std::vector<Vec3> centroid(tris.size());
  for (size_t t = 0; t < tris.size(); ++t)
    centroid[t] = (rest[tris[t][0]] + rest[tris[t][1]] + rest[tris[t][2]]) / 3.0;
  tri_order_.resize(tris.size());
  std::iota(tri_order_.begin(), tri_order_.end(), 0);
  nodes_.reserve(2 * tris.size() / kLeafTriangles + 2);
  build_node(0, static_cast<int>(tris.size()), centroid);
  // Each edge belongs to the leaf of its first triangle in tri_order_; leaves are in order,
  // so every node's edges are a contiguous range.
  std::map<std::pair<int, int>, int> index;
  for (size_t e = 0; e < edges.size(); ++e)
    index[{std::min(edges[e][0], edges[e][1]), std::max(edges[e][0], edges[e][1])}] = static_cast<int>(e);
  std::vector<char> placed(edges.size(), 0);
  edge_order_.clear();
  for (Node& N : nodes_) N.eb = N.ee = -1;
  // Leaves in tri order: walk the tree depth first (build_node numbers nodes in preorder, so
  // the leaves in node order are the leaves in tri order).
  for (Node& N : nodes_) {
    if (N.left >= 0) continue;
    N.eb = static_cast<int>(edge_order_.size());
    for (int j = N.tb; j < N.te; ++j) {
      const Tri& T = tris[tri_order_[j]];
      for (int a = 0; a < 3; ++a) {
        const int u = T[a], v = T[(a + 1) % 3];
        auto it = index.find({std::min(u, v), std::max(u, v)});
        if (it == index.end() || placed[it->second]) continue;
        placed[it->second] = 1;
        edge_order_.push_back(it->second);
      }
    }
    N.ee = static_cast<int>(edge_order_.size());
  }
  for (size_t n = nodes_.size(); n-- > 0;) {
    Node& N = nodes_[n];
    if (N.left >= 0) N.eb = nodes_[N.left].eb, N.ee = nodes_[N.right].ee;
  }
  leaf_touch_.assign(edge_order_.size(), 0);
  for (const Node& N : nodes_) {
    if (N.left >= 0) continue;
    for (int i = N.eb; i < N.ee; ++i) {
      const Edge& E = edges[edge_order_[i]];
      for (int j = N.tb; j < N.te; ++j) {
        const Tri& T = tris[tri_order_[j]];
        if (T[0] == E[0] || T[1] == E[0] || T[2] == E[0] || T[0] == E[1] || T[1] == E[1] || T[2] == E[1])
          leaf_touch_[i] |= 1u << (j - N.tb);
      }
    }
  }
  tri_pos_.assign(tris.size(), -1);
  for (size_t j = 0; j < tri_order_.size(); ++j) tri_pos_[tri_order_[j]] = static_cast<int>(j);
  edge_pos_.assign(edges.size(), -1);
  for (size_t i = 0; i < edge_order_.size(); ++i) edge_pos_[edge_order_[i]] = static_cast<int>(i);
  for (size_t n = 0; n < nodes_.size(); ++n) classify(static_cast<int>(n));
  // Adjacency for the partial refits.
  int nv = 0;
  for (const Tri& T : tris) nv = std::max({nv, T[0] + 1, T[1] + 1, T[2] + 1});
  for (const Edge& E : edges) nv = std::max({nv, E[0] + 1, E[1] + 1});
  auto csr = [nv](size_t count, auto&& ends, std::vector<int>& start, std::vector<int>& list) {
    start.assign(nv + 1, 0);
    for (size_t i = 0; i < count; ++i)
      for (int v : ends(i)) ++start[v + 1];
    for (int v = 0; v < nv; ++v) start[v + 1] += start[v];
    list.resize(start[nv]);
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (size_t i = 0; i < count; ++i)
      for (int v : ends(i)) list[fill[v]++] = static_cast<int>(i);
  };
  csr(tris.size(), [&](size_t i) { return std::array<int, 3>(tris[i]); }, vtri_start_, vtri_);
  csr(edges.size(), [&](size_t i) { return std::array<int, 2>(edges[i]); }, vedge_start_, vedge_);
  leaf_of_tri_.assign(tris.size(), -1);
  for (size_t n = 0; n < nodes_.size(); ++n)
    if (nodes_[n].left < 0)
      for (int j = nodes_[n].tb; j < nodes_[n].te; ++j) leaf_of_tri_[tri_order_[j]] = static_cast<int>(n);
}

// Median split of the triangles' rest centroids along the widest axis (ties by index).
int PatchHierarchy::build_node(int tb, int te, const std::vector<Vec3>& centroid) {
  const int n = static_cast<int>(nodes_.size());
  nodes_.push_back({});
  nodes_[n].tb = tb, nodes_[n].te = te;
  if (te - tb <= kLeafTriangles) return n;
  Vec3 lo = centroid[tri_order_[tb]], hi = lo;
  for (int j = tb; j < te; ++j) lo = lo.cwiseMin(centroid[tri_order_[j]]), hi = hi.cwiseMax(centroid[tri_order_[j]]);
  int axis = 0;
  (hi - lo).maxCoeff(&axis);
  const int mid = tb + (te - tb) / 2;
  std::nth_element(tri_order_.begin() + tb, tri_order_.begin() + mid, tri_order_.begin() + te, [&](int a, int b) {
    return centroid[a][axis] < centroid[b][axis] || (centroid[a][axis] == centroid[b][axis] && a < b);
  });
  const int l = build_node(tb, mid, centroid);
  const int r = build_node(mid, te, centroid);
  nodes_[n].left = l, nodes_[n].right = r;
  return n;
}

// Whether node n's triangles form a consistently oriented topological disk: connected (over
// shared edges), every edge in one or two of them (two: traversed in opposite directions),
// every vertex's triangles one fan, and V - E + F = 1. Its boundary edges are kept.
void PatchHierarchy::classify(int n) {
  Node& N = nodes_[n];
  N.disk = false;
  N.bb = N.be = static_cast<int>(boundary_.size());
  const int F = N.te - N.tb;
  // Directed edges (u, v) of the node's triangles, with the local triangle index.
  struct Half {
    int u, v, t;
  };
  std::vector<Half> half;
  half.reserve(3 * F);
  for (int j = 0; j < F; ++j) {
    const Tri& T = tris_[tri_order_[N.tb + j]];
    for (int a = 0; a < 3; ++a) half.push_back({T[a], T[(a + 1) % 3], j});
  }
  auto key = [](const Half& h) { return std::make_pair(std::min(h.u, h.v), std::max(h.u, h.v)); };
  std::sort(half.begin(), half.end(), [&](const Half& a, const Half& b) {
    return key(a) < key(b) || (key(a) == key(b) && a.t < b.t);
  });
  std::vector<int> parent(F);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<Edge> bnd;
  long E = 0;
  for (size_t i = 0; i < half.size();) {
    size_t k = i + 1;
    while (k < half.size() && key(half[k]) == key(half[i])) ++k;
    const size_t m = k - i;
    ++E;
    if (m > 2) return;  // non-manifold edge
    if (m == 2) {
      if (half[i].u == half[i + 1].u) return;  // same direction twice: orientation flips
      parent[find_root(parent, half[i].t)] = find_root(parent, half[i + 1].t);
    } else {
      bnd.push_back({half[i].u, half[i].v});
    }
    i = k;
  }
  for (int j = 0; j < F; ++j)
    if (find_root(parent, j) != find_root(parent, 0)) return;  // not connected
  // Vertices, and each vertex's boundary degree (0 inside, 2 on a single boundary loop).
  std::vector<int> verts;
  verts.reserve(3 * F);
  for (int j = 0; j < F; ++j)
    for (int v : tris_[tri_order_[N.tb + j]]) verts.push_back(v);
  std::sort(verts.begin(), verts.end());
  verts.erase(std::unique(verts.begin(), verts.end()), verts.end());
  const long V = static_cast<long>(verts.size());
  if (V - E + F != 1) return;
  std::vector<int> bdeg(verts.size(), 0);
  auto vid = [&](int v) { return static_cast<int>(std::lower_bound(verts.begin(), verts.end(), v) - verts.begin()); };
  for (const Edge& b : bnd) ++bdeg[vid(b[0])], ++bdeg[vid(b[1])];
  for (int d : bdeg)
    if (d != 0 && d != 2) return;  // a pinch point
  // One fan per vertex: around a manifold vertex with boundary degree 0 or 2, the triangles
  // form one fan iff (its triangles) - (its interior edges) = 1 (boundary degree 2: an
  // open fan) or 0 (closed fan).
  std::vector<int> tri_count(verts.size(), 0), inner_count(verts.size(), 0);
  for (int j = 0; j < F; ++j)
    for (int v : tris_[tri_order_[N.tb + j]]) ++tri_count[vid(v)];
  for (size_t i = 0; i < half.size();) {
    size_t k = i + 1;
    while (k < half.size() && key(half[k]) == key(half[i])) ++k;
    if (k - i == 2) ++inner_count[vid(half[i].u)], ++inner_count[vid(half[i].v)];
    i = k;
  }
  for (size_t i = 0; i < verts.size(); ++i)
    if (tri_count[i] - inner_count[i] != (bdeg[i] == 2 ? 1 : 0)) return;
  N.disk = true;
  boundary_.insert(boundary_.end(), bnd.begin(), bnd.end());
  N.be = static_cast<int>(boundary_.size());
}

// Boxes, normals and cones at x: of everything, or (only) of the primitives with a marked
// vertex and the nodes holding them (active_), the rest being as the previous call left them.
void PatchHierarchy::refit(const double* x, const std::vector<char>* only) {
  auto P = [&](int v) { return Vec3(x[3 * v], x[3 * v + 1], x[3 * v + 2]); };
  const size_t nt = tris_.size(), nn = nodes_.size();
  if (!only) {
    tlo_.resize(nt), thi_.resize(nt), normal_.resize(nt), elo_.resize(edge_order_.size()), ehi_.resize(edge_order_.size());
    lo_.resize(nn), hi_.resize(nn), axis_.resize(nn), nsum_.resize(nn), half_.resize(nn);
  }
  active_.assign(nn, only ? 0 : 1);
  auto refit_tri = [&](int j) {  // the triangle at position j of tri_order_
    const Tri& T = tris_[tri_order_[j]];
    const Vec3 a = P(T[0]), b = P(T[1]), c = P(T[2]);
    tlo_[j] = a.cwiseMin(b).cwiseMin(c), thi_[j] = a.cwiseMax(b).cwiseMax(c);
    normal_[j] = (b - a).cross(c - a);
  };
  auto refit_edge = [&](int i) {  // the edge at position i of edge_order_
    const Edge& E = edges_[edge_order_[i]];
    const Vec3 a = P(E[0]), b = P(E[1]);
    elo_[i] = a.cwiseMin(b), ehi_[i] = a.cwiseMax(b);
  };
  if (!only) {
    for (size_t j = 0; j < nt; ++j) refit_tri(static_cast<int>(j));
    for (size_t i = 0; i < edge_order_.size(); ++i) refit_edge(static_cast<int>(i));
  } else {
    // The primitives with a marked vertex (a primitive with two is refitted twice, to the
    // same values), and the leaves holding those triangles (a leaf's edges' vertices are its
    // triangles' vertices).
    const int nv = static_cast<int>(std::min(only->size(), vtri_start_.size() - 1));
    for (int v = 0; v < nv; ++v) {
      if (!(*only)[v]) continue;
      for (int i = vtri_start_[v]; i < vtri_start_[v + 1]; ++i)
        refit_tri(tri_pos_[vtri_[i]]), active_[leaf_of_tri_[vtri_[i]]] = 1;
      for (int i = vedge_start_[v]; i < vedge_start_[v + 1]; ++i)
        if (edge_pos_[vedge_[i]] >= 0) refit_edge(edge_pos_[vedge_[i]]);
    }
  }
  auto angle = [](const Vec3& u, const Vec3& w) { return std::acos(std::clamp(u.dot(w), -1.0, 1.0)); };
  // Children before parents: nodes are numbered in preorder, so backwards.
  for (size_t k = nn; k-- > 0;) {
    const Node& N = nodes_[k];
    if (only) {
      // A leaf is active when one of its triangles has a marked vertex (set above); a parent
      // when a child is.
      if (N.left >= 0) active_[k] = active_[N.left] || active_[N.right];
      if (!active_[k]) continue;
    }
    if (N.left < 0) {
      lo_[k] = tlo_[N.tb], hi_[k] = thi_[N.tb];
      Vec3 s = Vec3::Zero();
      Vec3 unit[kLeafTriangles];  // the triangles' unit normals (for the cone below)
      bool ok = true;
      for (int j = N.tb; j < N.te; ++j) {
        lo_[k] = lo_[k].cwiseMin(tlo_[j]), hi_[k] = hi_[k].cwiseMax(thi_[j]);
        const double len = normal_[j].norm();
        if (!(len > 0)) ok = false;
        else unit[j - N.tb] = normal_[j] / len, s += unit[j - N.tb];
      }
      nsum_[k] = s;
      const double sl = s.norm();
      half_[k] = M_PI;
      if (ok && sl > 0) {
        axis_[k] = s / sl;
        // The largest angle is the one of the smallest cosine (acos decreases): one acos
        // per leaf, the same value as the largest of the triangles' angles.
        double cmin = 1.0;
        for (int j = N.tb; j < N.te; ++j) cmin = std::min(cmin, std::clamp(axis_[k].dot(unit[j - N.tb]), -1.0, 1.0));
        half_[k] = std::acos(cmin);
      }
    } else {
      const int l = N.left, r = N.right;
      lo_[k] = lo_[l].cwiseMin(lo_[r]), hi_[k] = hi_[l].cwiseMax(hi_[r]);
      nsum_[k] = nsum_[l] + nsum_[r];
      const double sl = nsum_[k].norm();
      half_[k] = M_PI;
      if (half_[l] < M_PI && half_[r] < M_PI && sl > 0) {
        axis_[k] = nsum_[k] / sl;
        // The merged cone holds both children's cones (conservative).
        half_[k] = std::max(angle(axis_[k], axis_[l]) + half_[l], angle(axis_[k], axis_[r]) + half_[r]);
      }
    }
  }
}

// Node n is flat at x: a disk whose normal cone is narrower than 90 degrees (with margin)
// and whose boundary, projected along the cone's axis, is a simple closed curve.
bool PatchHierarchy::flat(int n, const double* x) const {
  const Node& N = nodes_[n];
  if (!N.disk || !(half_[n] < 0.5 * M_PI - kConeMargin)) return false;
  const Vec3& a = axis_[n];
  // An orthonormal basis (u, w) of the plane normal to a.
  const Vec3 any = std::abs(a[0]) < 0.6 ? Vec3::UnitX() : Vec3::UnitY();
  const Vec3 u = a.cross(any).normalized(), w = a.cross(u);
  const int nb = N.be - N.bb;
  std::vector<std::array<double, 4>> seg(nb);  // projected ends
  std::vector<std::array<double, 4>> box(nb);
  for (int i = 0; i < nb; ++i) {
    const Edge& b = boundary_[N.bb + i];
    const Vec3 p(x[3 * b[0]], x[3 * b[0] + 1], x[3 * b[0] + 2]), q(x[3 * b[1]], x[3 * b[1] + 1], x[3 * b[1] + 2]);
    seg[i] = {p.dot(u), p.dot(w), q.dot(u), q.dot(w)};
  }
  const double size = (hi_[n] - lo_[n]).maxCoeff();
  const double tol = kContourTol * size, tol2 = tol * size;  // lengths, and areas (orient)
  for (int i = 0; i < nb; ++i) {
    const auto& s = seg[i];
    box[i] = {std::min(s[0], s[2]) - tol, std::max(s[0], s[2]) + tol, std::min(s[1], s[3]) - tol,
              std::max(s[1], s[3]) + tol};
  }
  auto orient = [](double ax, double ay, double bx, double by, double cx, double cy) {
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  };
  // p on the segment (a, b), given it lies on its line (within tol).
  auto within = [&](double px, double py, double ax, double ay, double bx, double by) {
    const double dx = bx - ax, dy = by - ay, L = std::sqrt(dx * dx + dy * dy);
    const double s = (px - ax) * dx + (py - ay) * dy;
    return s >= -tol * L && s <= L * L + tol * L;
  };
  for (int i = 0; i < nb; ++i)
    for (int j = i + 1; j < nb; ++j) {
      if (box[i][0] > box[j][1] || box[j][0] > box[i][1] || box[i][2] > box[j][3] || box[j][2] > box[i][3]) continue;
      const Edge &ei = boundary_[N.bb + i], &ej = boundary_[N.bb + j];
      const auto &p = seg[i], &q = seg[j];
      const bool share = ei[0] == ej[0] || ei[0] == ej[1] || ei[1] == ej[0] || ei[1] == ej[1];
      if (share) {
        // Consecutive segments: they must not fold back onto each other.
        const int vi = (ei[0] == ej[0] || ei[0] == ej[1]) ? 0 : 1;  // the shared end in i
        const int vj = (ej[0] == ei[vi]) ? 0 : 1;
        const double vx = p[2 * vi], vy = p[2 * vi + 1];
        const double ax = p[2 * (1 - vi)], ay = p[2 * (1 - vi) + 1], bx = q[2 * (1 - vj)], by = q[2 * (1 - vj) + 1];
        const double o = orient(vx, vy, ax, ay, bx, by);
        if (std::abs(o) <= tol2 && (ax - vx) * (bx - vx) + (ay - vy) * (by - vy) > 0) return false;
        continue;
      }
      double d[4] = {orient(q[0], q[1], q[2], q[3], p[0], p[1]), orient(q[0], q[1], q[2], q[3], p[2], p[3]),
                     orient(p[0], p[1], p[2], p[3], q[0], q[1]), orient(p[0], p[1], p[2], p[3], q[2], q[3])};
      for (double& v : d)
        if (std::abs(v) <= tol2) v = 0.0;
      if ((d[0] > 0 && d[1] > 0) || (d[0] < 0 && d[1] < 0) || (d[2] > 0 && d[3] > 0) || (d[2] < 0 && d[3] < 0))
        continue;
      if (d[0] != 0 && d[1] != 0 && d[2] != 0 && d[3] != 0) return false;  // a proper crossing
      // Touching (an end on the other segment's line): a contact if it lies on the segment.
      if ((d[0] == 0 && within(p[0], p[1], q[0], q[1], q[2], q[3])) ||
          (d[1] == 0 && within(p[2], p[3], q[0], q[1], q[2], q[3])) ||
          (d[2] == 0 && within(q[0], q[1], p[0], p[1], p[2], p[3])) ||
          (d[3] == 0 && within(q[2], q[3], p[0], p[1], p[2], p[3])))
        return false;
    }
  return true;
}

}  // namespace weft
