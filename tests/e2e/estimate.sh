# weft --estimate: trial runs of scaled-down copies predict memory per rank and time per
# step; a run predicted not to fit the node's memory is refused (exit 2, one line with the
# figures, no result file); one that fits runs, and the prediction is within 1.5x of the
# run's own peak (VmHWM, the closing RANK lines).
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases/hang_two_corners.yaml
R=(--set "objects[0].mesh.resolution=[64, 64]")

expect_input_error "too big for 40 MB" run_weft 1 "$C" "${R[@]}" --estimate --node-memory 40M -o refused.h5
grep -q "refusing to start, not enough memory: estimate for 'hang_two_corners' at 4096 vertices on 1 rank" err.txt ||
  { cat err.txt; fail "refusal line"; }
grep -q "MB per rank" err.txt || fail "refusal line lacks the memory per rank"
grep -q "s per step" err.txt || fail "refusal line lacks the time per step"
[ -e refused.h5 ] && fail "a refused run wrote refused.h5"
expect_input_error "--node-memory without --estimate" run_weft 1 "$C" --node-memory 1G
expect_input_error "bad --node-memory" run_weft 1 "$C" --estimate --node-memory lots

run_weft 1 "$C" "${R[@]}" --estimate --node-memory 64G --frames 2 -o fits.h5 --rank-summary > out.txt
cat out.txt | grep -E "^weft: estimate|^RANK"
pred=$(sed -n 's/^weft: estimate.*peak memory \([0-9.]*\) MB per rank.*/\1/p' out.txt)
peak=$(awk '$1 == "RANK" { for (i = 3; i < NF; i += 2) if ($i == "peak_rss_MB") print $(i + 1) }' out.txt)
[ -n "$pred" ] && [ -n "$peak" ] || fail "no estimate or no RANK line"
[ "$(h5_values fits.h5 /frames/time | wc -l)" = 3 ] || fail "the run after the estimate did not write 3 frames"
check "estimate $pred MB vs measured VmHWM $peak MB within 1.5x" "$pred <= 1.5 * $peak && $peak <= 1.5 * $pred"

# --estimate-only: the line, exit 0, no run.
run_weft 2 "$C" --set "objects[0].mesh.resolution=[24, 24]" --estimate-only -o none.h5 > out2.txt
grep -q "^weft: estimate for 'hang_two_corners' at 576 vertices on 2 ranks (2 on this node)" out2.txt || { cat out2.txt; fail "estimate-only line"; }
[ -e none.h5 ] && fail "--estimate-only wrote none.h5"
echo "ok: --estimate-only"
