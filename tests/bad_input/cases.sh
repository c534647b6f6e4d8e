# Bad input ends with a one-line message and exit code 2, never a crash and never a
# result file that looks complete.
source "$(dirname "$0")/../lib/common.bash"
B=$WEFT_SRC/tests/data/bad_cases
C=$WEFT_SRC/cases/hang_two_corners.yaml
W="$WEFT_BIN/weft"
for f in "$B"/*.yaml "$WEFT_SRC"/tests/data/bad_starts/*.yaml; do
  expect_input_error "$(basename "$f")" $WEFT_MPIEXEC -n 2 "$W" "$f" -o bad.h5
  want=$(sed -n '1s/^# expect: //p' "$f")
  grep -qF -- "$want" err.txt || fail "$(basename "$f"): message lacks '$want'"
  [ ! -e bad.h5 ] || fail "$(basename "$f"): a result file was written"
done
# The initial-configuration check is split over the ranks (each examines the pairs of the
# primitives it owns): the message, counts and example pair included, is the same at 1, 2
# and 3 ranks.
for f in self_intersecting rod_through_cloth particles_overlap; do
  for np in 1 2 3; do
    expect_input_error "$f at $np ranks" $WEFT_MPIEXEC -n "$np" "$W" "$WEFT_SRC/tests/data/bad_starts/$f.yaml" -o bad.h5
    grep "^weft: " err.txt > "start$np.txt"  # without mpirun's own lines
  done
  cmp -s start1.txt start2.txt && cmp -s start1.txt start3.txt ||
    fail "$f: the initial check's message depends on the rank count: $(cat start1.txt start2.txt start3.txt)"
done
# More ranks than vertices: the partition is computed on rank 0 alone, and its refusal
# must reach the other ranks (they wait for the parts) as the same one-line error.
cat > one_segment.yaml << 'CASE'
name: one_segment
time: {dt: 0.01, frames: 1}
objects:
  - {name: r, kind: rod, mesh: {generator: line, length: 0.1, segments: 1}, material: {density: 1000, youngs: 1.0e6, radius: 1.0e-3}}
CASE
expect_input_error "more ranks than vertices" $WEFT_MPIEXEC -n 3 "$W" one_segment.yaml -o bad.h5
grep -q "^weft: error: one_segment.yaml: cannot split 2 vertices over 3 ranks" err.txt || fail "more ranks than vertices: $(cat err.txt)"
[ ! -e bad.h5 ] || fail "more ranks than vertices: a result file was written"
# More ranks than particles: each rank builds its own part, and a rank left without a
# vertex (it would wait forever in the first step) is refused on every rank alike.
expect_input_error "more ranks than particles" $WEFT_MPIEXEC -n 3 "$W" "$WEFT_DATA/local/two_grains.yaml" -o bad.h5
grep -q "^weft: error: .*two_grains.yaml: the partition leaves rank 0 of 3 without a vertex" err.txt \
  || fail "more ranks than particles: $(cat err.txt)"
[ ! -e bad.h5 ] || fail "more ranks than particles: a result file was written"
expect_input_error "unknown --set key" "$W" "$C" --set time.dtt=0.1 -o bad.h5
expect_input_error "negative dt via --set" "$W" "$C" --set time.dt=-0.1 -o bad.h5
expect_input_error "missing case file" "$W" no_such_case.yaml
expect_input_error "unknown option" "$W" "$C" --bogus
expect_input_error "bad --frames" "$W" "$C" --frames -3
# A truncated restart file.
$WEFT_MPIEXEC -n 1 "$W" "$C" --frames 3 -o good.h5 > /dev/null
head -c 4000 good.h5 > truncated.h5
expect_input_error "truncated restart" $WEFT_MPIEXEC -n 2 "$W" "$C" --frames 5 --restart truncated.h5 -o resumed.h5
expect_input_error "restart file missing" "$W" "$C" --restart nothing.h5
# weft-verify on unreadable input
expect_input_error "verify truncated" "$WEFT_BIN/weft-verify" truncated.h5
expect_input_error "partition missing mesh" "$WEFT_BIN/weft-partition" no_mesh.obj -n 2
echo "all bad inputs refused"
