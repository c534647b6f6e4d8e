# A run cut short and resumed with --restart gives the same frames, bit for bit, as an
# uninterrupted run on the same rank count; also when resuming into another file.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases/hang_two_corners.yaml
for np in 1 2; do
  run_weft "$np" "$C" --frames 12 --set output.checkpoint_every=4 -o full.h5 > /dev/null
  run_weft "$np" "$C" --frames 7 --set output.checkpoint_every=4 -o cut.h5 > /dev/null
  run_weft "$np" "$C" --frames 12 --set output.checkpoint_every=4 --restart cut.h5 > /dev/null
  run_weft "$np" "$C" --frames 7 --set output.checkpoint_every=4 -o cut2.h5 > /dev/null
  run_weft "$np" "$C" --frames 12 --set output.checkpoint_every=4 --restart cut2.h5 -o resumed.h5 > /dev/null
  for f in cut.h5 resumed.h5; do
    for ds in /frames/positions /frames/time /frames/velocities /frames/strain_ratio /checkpoint/x /checkpoint/v /frames/stats/newton_iters; do
      h5diff -d 0 full.h5 "$f" "$ds" "$ds" > diff.txt || { head diff.txt; fail "np=$np $f $ds differs"; }
    done
    "$WEFT_BIN/weft-verify" "$f" > /dev/null || fail "weft-verify $f"
  done
  echo "np=$np: resumed runs identical to the uninterrupted one"
done
# The substructured direct solve (sequential factorisations + a redundant dense interface
# solve, no dynamic scheduling) restarts bit for bit on several ranks too.
S=(--set solver.linear.pc=cholesky -weft_substructure)
for np in 2 3; do
  run_weft "$np" "$C" --frames 8 --set output.checkpoint_every=4 "${S[@]}" -o sfull.h5 > /dev/null
  run_weft "$np" "$C" --frames 5 --set output.checkpoint_every=4 "${S[@]}" -o scut.h5 > /dev/null
  run_weft "$np" "$C" --frames 8 --set output.checkpoint_every=4 "${S[@]}" --restart scut.h5 > /dev/null
  for ds in /frames/positions /checkpoint/x /checkpoint/v /frames/stats/newton_iters; do
    h5diff -d 0 sfull.h5 scut.h5 "$ds" "$ds" > diff.txt || { head diff.txt; fail "substructured np=$np $ds differs"; }
  done
  echo "np=$np, substructured Cholesky: resumed run identical to the uninterrupted one"
done
