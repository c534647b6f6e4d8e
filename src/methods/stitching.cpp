#include "methods/stitching.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "energy/stitch_spring.hpp"

namespace weft {
namespace {
// The doubling stops here (relative to the starting stiffness): 2^40 k0 pulls any pair the
// strain limits let through; beyond it only the conditioning would change.
constexpr double kMaxGrowth = 1.0995116277760000e12;
}  // namespace

Stitching::Stitching(const Scene& scene, const LocalView& lv, int set_slot)
    : scene_(scene), lv_(lv), slot_(set_slot), dhat_(scene.spec.dhat) {
  const int S = static_cast<int>(scene.stitches.size());
  k_ = scene.stitch_stiffness0;
  welded_.assign(S, 0);
  for (int i = 0; i < S; ++i) {
    const auto& p = scene.stitches[i];
    if (p[0] < lv.vbegin || p[0] >= lv.vend) continue;
    if (p[1] < lv.vbegin || p[1] >= lv.vend) throw std::logic_error("stitch pair split over ranks");
    owned_.push_back(i);
    local_.push_back(p[0] - lv.vbegin);
    local_.push_back(p[1] - lv.vbegin);
  }
  rebuild_ties();
}

bool Stitching::add_energy(const double* xl, double& acc) const {
  for (size_t i = 0; i < owned_.size(); ++i) {
    if (welded_[owned_[i]]) continue;  // one vertex: nothing to pull
    const int la = local_[2 * i], lb = local_[2 * i + 1];
    acc += stitch_spring(Eigen::Map<const Vec3>(xl + 3 * la), Eigen::Map<const Vec3>(xl + 3 * lb), k_[owned_[i]],
                         nullptr, nullptr);
  }
  return true;
}

void Stitching::assemble(const double* xl, double scale, double& acc, NodeSink& sink) {
  VecN<6> g;
  MatN<6> H;
  for (size_t i = 0; i < owned_.size(); ++i) {
    if (welded_[owned_[i]]) continue;
    const int* l = &local_[2 * i];
    acc += scale * stitch_spring(Eigen::Map<const Vec3>(xl + 3 * l[0]), Eigen::Map<const Vec3>(xl + 3 * l[1]),
                                 k_[owned_[i]], &g, &H);
    g *= scale;
    H *= scale;
    sink.add_gradient(2, l, g.data());
    sink.add_hessians(slot_, static_cast<int>(i), 1, 2, l, H.data());
  }
}

int Stitching::end_step(double* x, double* v) {
  std::vector<int> now(welded_.size(), 0);
  int count = 0;
  for (size_t i = 0; i < owned_.size(); ++i) {
    const int s = owned_[i];
    if (welded_[s]) continue;
    const int la = local_[2 * i], lb = local_[2 * i + 1];
    Eigen::Map<Vec3> xa(x + 3 * la), xb(x + 3 * lb), va(v + 3 * la), vb(v + 3 * lb);
    if ((xa - xb).norm() < dhat_) {
      // Weld: one vertex at the mass-weighted mean, with the pair's momentum.
      const double ma = scene_.mass[scene_.stitches[s][0]], mb = scene_.mass[scene_.stitches[s][1]];
      const double wa = ma / (ma + mb), wb = mb / (ma + mb);
      const Vec3 xm = wa * xa + wb * xb, vm = wa * va + wb * vb;
      xa = xm, xb = xm, va = vm, vb = vm;
      now[s] = 1;
      ++count;
    } else {
      k_[s] = std::min(2.0 * k_[s], kMaxGrowth * scene_.stitch_stiffness0[s]);
    }
  }
  if (!now.empty())
    MPI_Allreduce(MPI_IN_PLACE, now.data(), static_cast<int>(now.size()), MPI_INT, MPI_MAX, lv_.comm);
  int any = 0;
  for (size_t s = 0; s < now.size(); ++s)
    if (now[s]) welded_[s] = 1, any = 1;
  if (any) rebuild_ties();
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT, MPI_SUM, lv_.comm);
  return count;
}

double Stitching::max_gap(const double* x) const {
  double gap = 0.0;
  for (size_t i = 0; i < owned_.size(); ++i) {
    if (welded_[owned_[i]]) continue;
    gap = std::max(gap, (Eigen::Map<const Vec3>(x + 3 * local_[2 * i]) - Eigen::Map<const Vec3>(x + 3 * local_[2 * i + 1])).norm());
  }
  MPI_Allreduce(MPI_IN_PLACE, &gap, 1, MPI_DOUBLE, MPI_MAX, lv_.comm);
  return gap;
}

int Stitching::welded_count() const { return static_cast<int>(std::count(welded_.begin(), welded_.end(), 1)); }

std::vector<int> Stitching::owned_copies() const {
  std::vector<int> out;
  for (int s : owned_)
    if (welded_[s]) out.push_back(scene_.stitches[s][1]);
  return out;
}

void Stitching::rebuild_ties() {
  ties_.clear();
  welded_partner_.assign(static_cast<size_t>(scene_.num_vertices), -1);
  for (size_t s = 0; s < welded_.size(); ++s) {
    if (!welded_[s]) continue;
    const int a = scene_.stitches[s][0], b = scene_.stitches[s][1];
    welded_partner_.ref(static_cast<size_t>(b)) = a;
    const int la = lv_.local_of(a), lb = lv_.local_of(b);
    if (lb >= 0) {
      if (la < 0) throw std::logic_error("stitch copy without its partner on a rank");
      ties_.push_back({lb, la});
    }
  }
}

std::vector<double> Stitching::stiffness_all() const {
  // Each pair's stiffness is kept by its owner: a sum of zero-filled arrays puts every value
  // in its slot exactly.
  std::vector<double> all(k_.size(), 0.0);
  for (int s : owned_) all[s] = k_[s];
  if (!all.empty())
    MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, lv_.comm);
  return all;
}

std::vector<double> Stitching::welded_all() const { return std::vector<double>(welded_.begin(), welded_.end()); }

void Stitching::load(const std::vector<double>& stiffness, const std::vector<double>& welded) {
  k_ = stiffness;
  for (size_t s = 0; s < welded_.size(); ++s) welded_[s] = welded[s] != 0.0;
  rebuild_ties();
}

}  // namespace weft
