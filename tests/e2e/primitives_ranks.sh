# Issue 20, point 1: a rank keeps the rod segments, particles and tets with a vertex in its
# block (Scene::keep_primitive_part, or received as such from rank 0: io/scene_parts), not
# the scene's whole lists. tests/data/local/primitive_strips.yaml (a rod, a row of particles
# and a tet beam, long along x) at 1, 2 and 3 ranks with --rank-summary: the bytes they hold
# with their indices and objects (scene_primitives_kB) stay under 0.7x the 1-rank run's on
# every rank at 2 ranks and under 0.6x at 3; whole lists on every rank are 1.0x. /mesh's
# segments, points and tets and /view, written by each rank from the elements it leads, are
# the same bytes at every rank count, and the positions after two steps agree.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_DATA/local/primitive_strips.yaml
value() { awk -v r="$3" -v k="$1" '$1 == "RANK" && $2 == r { for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$2"; }
for np in 1 2 3; do
  run_weft "$np" "$C" -o "p$np.h5" --rank-summary > "log$np.txt" || { cat "log$np.txt"; fail "np=$np"; }
  "$WEFT_BIN/weft-verify" "p$np.h5" > /dev/null || fail "weft-verify np=$np"
  if [ "$np" -gt 1 ]; then
    h5diff -d 1e-9 p1.h5 "p$np.h5" /frames/positions /frames/positions > diff.txt \
      || { head diff.txt; fail "np=$np positions differ from 1 rank"; }
    for ds in object_id segments segment_offset points point_offset tets; do
      h5diff -d 0 p1.h5 "p$np.h5" /mesh/$ds /mesh/$ds > diff.txt || { head diff.txt; fail "np=$np /mesh/$ds differs"; }
    done
    h5diff -r p1.h5 "p$np.h5" /view /view > diff.txt || { head diff.txt; fail "np=$np /view differs"; }
  fi
done
check "segments" "$(h5_values p1.h5 /mesh/segments | wc -l) == 2 * 600"
check "points" "$(h5_values p1.h5 /mesh/points | wc -l) == 100"
one=$(value scene_primitives_kB log1.txt 0)
[ -n "$one" ] || { cat log1.txt; fail "no scene_primitives_kB in the rank summary"; }
check "1 rank: scene primitives $one kB" "$one > 0"
for r in 0 1; do
  v=$(value scene_primitives_kB log2.txt $r)
  check "rank $r of 2: scene primitives $v kB of the 1-rank run's $one kB" "$v > 0 && $v < 0.7 * $one"
done
for r in 0 1 2; do
  v=$(value scene_primitives_kB log3.txt $r)
  check "rank $r of 3: scene primitives $v kB of the 1-rank run's $one kB" "$v > 0 && $v < 0.6 * $one"
done
echo "the scene's segments, particles and tets follow each rank's share"
