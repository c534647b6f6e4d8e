# Every foundation case runs under MPI and its output passes weft-verify; hang_two_corners
# at 1, 2 and 3 ranks (strain limit 1.01 must hold in every frame) and at the 1.001 limit.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases
for np in 1 2 3; do
  run_weft "$np" "$C/hang_two_corners.yaml" --frames 10 -o "hang$np.h5" > log.txt || { cat log.txt; fail "hang np=$np"; }
  "$WEFT_BIN/weft-verify" "hang$np.h5" || fail "weft-verify hang np=$np"
done
run_weft 2 "$C/hang_two_corners.yaml" --frames 10 --set objects.0.strain_limit.max=1.001 -o hang1001.h5 > log.txt \
  || { cat log.txt; fail "hang 1.001"; }
"$WEFT_BIN/weft-verify" hang1001.h5 || fail "weft-verify hang 1.001"
run_weft 2 "$C/pull_weighted.yaml" --frames 10 -o pull.h5 > log.txt || { cat log.txt; fail "pull_weighted"; }
"$WEFT_BIN/weft-verify" pull.h5 || fail "weft-verify pull_weighted"
run_weft 2 "$C/drape_default.yaml" --frames 5 -o drape.h5 > log.txt || { cat log.txt; fail "drape_default"; }
grep -q "frame 5/5" log.txt || { cat log.txt; fail "no progress line"; }
grep -q "drape.h5" log.txt || fail "summary does not name the output"
[ -f drape.xdmf ] || fail "no XDMF beside the result"
"$WEFT_BIN/weft-verify" drape.h5 || fail "weft-verify drape_default"
echo "all cases verified"
