# tests/data/volume/jelly_cloth.yaml (a tet box and a tet ball on a cloth pinned at two
# corners, over a sphere) at 1, 2 and 3 ranks: every frame's positions equal the 1-rank
# run's within 1e-7 m (direct solver, Newton tolerance 1e-6 m/s), weft-verify passes every
# frame (tets included), /mesh/tets is identical, and OUT.xdmf shows the tets.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_DATA/volume/jelly_cloth.yaml
for np in 1 2 3; do
  run_weft "$np" "$C" -o "jelly$np.h5" > "log$np.txt" || { cat "log$np.txt"; fail "jelly np=$np"; }
  "$WEFT_BIN/weft-verify" "jelly$np.h5" > "verify$np.txt" || { cat "verify$np.txt"; fail "weft-verify np=$np"; }
  grep -q "PASS inversion  worst volume ratio" "verify$np.txt" || { cat "verify$np.txt"; fail "np=$np: no tets checked"; }
  grep -q "before Newton converged" "log$np.txt" && fail "np=$np: a step did not converge"
  if [ "$np" -gt 1 ]; then
    h5diff -d 1e-7 jelly1.h5 "jelly$np.h5" /frames/positions /frames/positions > diff.txt \
      || { head diff.txt; fail "np=$np positions differ from 1 rank"; }
    h5diff -d 0 jelly1.h5 "jelly$np.h5" /mesh/tets /mesh/tets > diff.txt || { head diff.txt; fail "np=$np /mesh/tets differs"; }
  fi
  echo "ok (np=$np)"
done
# The box: 3 x 2 x 3 cells of 5 tets; the ball: resolution 4 (N = 1, L = 1): 5 (1 + 6) tets.
check "tets" "$(h5_values jelly1.h5 /mesh/tets | wc -l) == 4 * (90 + 35)"
check "ranks used" "$(h5_values jelly3.h5 /mesh/partition | sort -u | wc -l) == 3"
grep -q 'TopologyType="Tetrahedron" NumberOfElements="90"' jelly1.xdmf || fail "OUT.xdmf lacks the box's 90 tets"
echo "volumes on a cloth agree at 1, 2, 3 ranks"
