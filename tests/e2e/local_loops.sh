# Issue 20, point 1: every per-iteration contact pass is O(owned + ghosts + halo), never
# O(global). tests/data/local/wide_cloth.yaml (a 6 m strip landing on the ground) at 1 and
# 3 ranks with --rank-summary: per rank, broad_primitives_max (the most primitives one
# broad-phase build boxed) and position_entries_max (the most position entries one halo
# exchange, line-search trial or kinematic advance touched). At 1 rank they are the whole
# surface and every vertex (so the check below can fail); at 3 ranks each rank's must
# stay under 0.6 x those, which a pass over the whole surface on any rank breaks. The
# 3-rank positions equal the 1-rank run's within 1e-7 m.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_DATA/local/wide_cloth.yaml
# value NAME FILE RANK: NAME's value on the RANK line of a rank summary
value() { awk -v r="$3" -v k="$1" '$1 == "RANK" && $2 == r { for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$2"; }
run_value() { awk -v k="$1" '$1 == "RUN" { for (i = 4; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$2"; }
for np in 1 3; do
  run_weft "$np" "$C" -o "w$np.h5" --rank-summary > "log$np.txt" || { cat "log$np.txt"; fail "np=$np"; }
  grep -q "before Newton converged" "log$np.txt" && fail "np=$np: a step did not converge"
done
h5diff -d 1e-7 w1.h5 w3.h5 /frames/positions /frames/positions > diff.txt || { head diff.txt; fail "3 ranks differ from 1"; }
N=$(run_value vertices log1.txt)
P=$(value surface_primitives log1.txt 0)
[ -n "$N" ] && [ -n "$P" ] || { cat log1.txt; fail "no rank summary"; }
check "1 rank boxes the whole surface" "$(value broad_primitives_max log1.txt 0) == $P"
check "1 rank touches every vertex" "$(value position_entries_max log1.txt 0) >= $N"
for r in 0 1 2; do
  B=$(value broad_primitives_max log3.txt $r)
  E=$(value position_entries_max log3.txt $r)
  H=$(value halo_vertices log3.txt $r)
  check "rank $r of 3: broad phase boxes $B of $P primitives" "$B > 0 && $B < 0.6 * $P"
  check "rank $r of 3: passes touch $E of $N vertices" "$E > 0 && $E < 0.6 * $N"
  check "rank $r of 3: receives a halo" "$H > 0"
done
echo "per-iteration contact passes follow each rank's share"
