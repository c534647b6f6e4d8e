# Every bench/ executable runs its measurement end to end on a tiny input and writes its
# report (the numbers are not checked: timings belong in bench/results, not in tests).
# bench-elements crashed for several sessions unnoticed (it read a stencil list that a
# one-rank run no longer fills); this catches such breakage in the test suite.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases
one() { $WEFT_MPIEXEC -n 1 "$WEFT_BIN/$1" "${@:2}"; }
bench() {
  local name=$1; shift
  local rc=0
  "$@" > "$name.log" 2> "$name.err" || rc=$?
  [ "$rc" -eq 0 ] || { tail -n 20 "$name.log" "$name.err"; fail "$name exited with $rc"; }
  echo "ok ($name)"
}
bench elements one bench-elements --case "$C/hang_two_corners.yaml" --res 16 --repeat 1 --steps 1 -o elements.md
grep -q "elements/s" elements.md || fail "bench-elements wrote no rates"
bench contact one bench-contact --case "$C/drape_default.yaml" --res 16 --frames 1 --json
grep -q '^RESULT {.*"newton_iters"' contact.log || fail "bench-contact printed no RESULT line"
bench newton_step one bench-newton_step --case "$C/drape_default.yaml" --res 16 --frames 1 --json
grep -q '^RESULT {.*"assembly_s"' newton_step.log || fail "bench-newton_step printed no RESULT line"
bench output one bench-output --case "$C/drape_default.yaml" --res 16 --frames 2 --repeat 1
grep -q "Output cost" output.log || fail "bench-output printed no report"
bench balance $WEFT_MPIEXEC -n 2 "$WEFT_BIN/bench-balance" --case "$C/drape_default.yaml" --frames 1 --repeat 1 \
  --set "objects.0.mesh.resolution=[16,16]"
grep -q "per rank" balance.log || fail "bench-balance printed no per-rank figures"
bench ccd_queries "$WEFT_BIN/bench-ccd_queries" "$WEFT_SRC/tests/data/ccd/sample-queries" -o ccd.md --repeat 1
grep -q "us/query" ccd.md || fail "bench-ccd_queries wrote no rates"
echo "every benchmark runs"
