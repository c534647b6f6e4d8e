# Issue 20, point 1: the contact layer's per-vertex arrays (the halo's positions and steps,
# the line search's trial positions, the broad phase's stored boxes, the CCD bounds' anchors
# and the per-vertex marks, all by solver id) hold a rank's share, not the whole surface.
# They are paged (core/paged_array.hpp): a rank commits the pages its owned block and its
# halo write. tests/data/local/long_strip.yaml at 1, 2 and 3 ranks with --rank-summary: the
# bytes they hold (contact_vertex_arrays_kB) stay under 0.7x the 1-rank run's on every rank
# at 2 ranks (measured 0.60) and under 0.6x at 3 (measured 0.44-0.48); whole-length arrays
# on every rank, as before, are 1.0x. Positions equal the 1-rank run's within 1e-7 m.
# The same for the collision surface's edges (surface_edges_kB) and the scene's vertex data
# and triangles (scene_vertex_kB, scene_triangles_kB), below.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_DATA/local/long_strip.yaml
value() { awk -v r="$3" -v k="$1" '$1 == "RANK" && $2 == r { for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$2"; }
for np in 1 2 3; do
  run_weft "$np" "$C" -o "s$np.h5" --rank-summary > "log$np.txt" || { cat "log$np.txt"; fail "np=$np"; }
  grep -q "before Newton converged" "log$np.txt" && fail "np=$np: a step did not converge"
done
for np in 2 3; do
  h5diff -d 1e-7 s1.h5 s$np.h5 /frames/positions /frames/positions > diff.txt || { head diff.txt; fail "$np ranks differ from 1"; }
done
# share KEY WHAT: KEY on every rank at 2 and 3 ranks under 0.7x / 0.6x of the 1-rank run's.
share() {
  local k=$1 what=$2 one v r
  one=$(value "$k" log1.txt 0)
  [ -n "$one" ] || { cat log1.txt; fail "no $k in the rank summary"; }
  check "1 rank: $what $one kB" "$one > 0"
  for r in 0 1; do
    v=$(value "$k" log2.txt $r)
    check "rank $r of 2: $what $v kB of the 1-rank run's $one kB" "$v > 0 && $v < 0.7 * $one"
  done
  for r in 0 1 2; do
    v=$(value "$k" log3.txt $r)
    check "rank $r of 3: $what $v kB of the 1-rank run's $one kB" "$v > 0 && $v < 0.6 * $one"
  done
}
share contact_vertex_arrays_kB "contact vertex arrays"
# The collision surface's edge table (surface_edges_kB): a rank holds its own edges and
# those the halo sent it (EdgeShare), not every edge (measured 0.56-0.58 at 2 ranks,
# 0.39-0.42 at 3).
share surface_edges_kB "surface edges"
# The scene's rest positions and masses (scene_vertex_kB) and its triangles
# (scene_triangles_kB): after the setup a rank keeps its owned and ghost vertices' and its
# local triangles (Scene::keep_part), not the whole scene's.
share scene_vertex_kB "scene vertex data"
share scene_triangles_kB "scene triangles"
echo "contact vertex arrays, surface edges and the scene's vertex data and triangles follow each rank's share"
