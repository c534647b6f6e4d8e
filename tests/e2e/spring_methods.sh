# mass_spring and pd on the cases every method runs (issue 18): hang_two_corners and
# drape_default with --set method=..., a few frames at 2 ranks. mass_spring keeps the
# C-IPC barrier, so weft-verify must pass on both; pd has no contact guarantee, so its
# drape is only checked to run (and its hang, a single cloth far from folding, to verify).
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases
for m in mass_spring pd; do
  run_weft 2 "$C/hang_two_corners.yaml" --frames 4 --set method=$m -o "hang_$m.h5" > "log.txt" \
    || { cat log.txt; fail "hang_two_corners method=$m"; }
  "$WEFT_BIN/weft-verify" "hang_$m.h5" || fail "weft-verify hang_two_corners method=$m"
  grep -q "method $m" log.txt || { cat log.txt; fail "progress header does not name method $m"; }
  # The cloth swung down: the last frame's max strain is a stretch above 1.
  s=$(h5_max "hang_$m.h5" /frames/stats/max_strain)
  awk -v s="$s" 'BEGIN { exit !(s > 1.0) }' || fail "hang method=$m: max_strain $s"
  # Drape: 24 x 24 so the test stays short; 30 frames put the cloth on the ball.
  run_weft 2 "$C/drape_default.yaml" --frames 30 --set method=$m --set objects.0.mesh.resolution=[24,24] \
    -o "drape_$m.h5" > log.txt || { cat log.txt; fail "drape_default method=$m"; }
done
"$WEFT_BIN/weft-verify" drape_mass_spring.h5 || fail "weft-verify drape_default method=mass_spring"
h5_max drape_mass_spring.h5 /frames/stats/contact_pairs | awk '{ exit !($1 > 0) }' || fail "drape mass_spring: no contact"
echo "mass_spring and pd ran; mass_spring verified"
