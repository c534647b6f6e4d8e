# PT-Scotch partitions (issue 20 point 2: weft's partitioner beyond
# kParallelPartitionAbove dynamic vertices, forced here with -weft_partitioner ptscotch on a
# small case): drape_default at 2 and 3 ranks split by PT-Scotch follows the 1-rank
# trajectory (as with METIS, tests/e2e/contact_cases.sh) and passes weft-verify;
# weft-partition reports the partitioner; an unknown partitioner is a one-line error, exit 2.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases
TIGHT="--set solver.newton_tol=1e-5 --set solver.linear.pc=cholesky"
run_weft 1 "$C/drape_default.yaml" --frames 4 $TIGHT -o d1.h5 > log1.txt || { cat log1.txt; fail "np=1"; }
for np in 2 3; do
  run_weft "$np" "$C/drape_default.yaml" --frames 4 $TIGHT -o "d$np.h5" -weft_partitioner ptscotch > "log$np.txt" \
    || { cat "log$np.txt"; fail "ptscotch np=$np"; }
  "$WEFT_BIN/weft-verify" "d$np.h5" > verify.txt || { cat verify.txt; fail "weft-verify ptscotch np=$np"; }
  h5diff -d 1e-6 d1.h5 "d$np.h5" /frames/positions /frames/positions > diff.txt \
    || { head -20 diff.txt; fail "ptscotch np=$np differs from np=1 by more than 1e-6"; }
  # Both ranks own vertices of the cloth (not a split that only moved the obstacle).
  h5_values "d$np.h5" /mesh/partition | sort -u | wc -l | grep -qx "$np" || fail "ptscotch np=$np: not $np parts"
  echo "ok: drape_default split by PT-Scotch at $np ranks matches 1 rank"
done
"$WEFT_BIN/weft-partition" "$C/drape_default.yaml" -n 3 --partitioner ptscotch > part.txt || { cat part.txt; fail "weft-partition"; }
grep -q "3 parts by PT-Scotch" part.txt || { cat part.txt; fail "weft-partition does not name PT-Scotch"; }
"$WEFT_BIN/weft-partition" "$C/drape_default.yaml" -n 3 > part.txt || fail "weft-partition (METIS)"
grep -q "3 parts by METIS" part.txt || { cat part.txt; fail "weft-partition does not name METIS"; }
expect_input_error "-weft_partitioner" run_weft 1 "$C/drape_default.yaml" --frames 1 -o bad.h5 -weft_partitioner kway
grep -q "weft_partitioner" err.txt || fail "the error does not name the option"
[ ! -e bad.h5 ] || fail "a result file was left by a refused run"
