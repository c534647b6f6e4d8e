# Results open in real ParaView (Debian's pvpython under xvfb-run) the way users open them:
# the default reader, every frame at the file's times, one piece per object with exactly
# the coordinates of /frames/positions, block names, the fields users colour by, and no
# warning or error line; then every primitive kind (tests/unit/io/xdmf_test.cpp's sample),
# and weft-render. Skipped (77) where ParaView is not installed.
command -v pvpython > /dev/null && command -v xvfb-run > /dev/null || { echo "no pvpython/xvfb-run: skipped"; exit 77; }
# One X server for the whole script (pvpython and weft-render find it in DISPLAY): starting
# one per pvpython run raced with the previous server's shutdown under load ("bad X server
# connection").
# A random first server number: suites running side by side do not race for :99.
# -noreset: by default an X server resets when its last client leaves, and a pvpython that
# connects while the server is still resetting (one run right after another, under load)
# aborted with "bad X server connection" (CI, between the primitives check and weft-render).
[ -n "${DISPLAY:-}" ] || exec xvfb-run -a -n $((100 + RANDOM % 800)) -s "-screen 0 1280x1024x24 -noreset" bash "$0" "$@"
source "$(dirname "$0")/../lib/common.bash"
CHECK=$WEFT_SRC/tests/e2e/paraview_check.py

# pv_check ARGS...: the checker under pvpython; any warning or error line from ParaView fails.
pv_check() {
  pvpython "$CHECK" "$@" > pv.txt 2>&1 || { cat pv.txt; fail "paraview_check $*"; }
  if grep -vE "^ok: |^$|XDG_RUNTIME_DIR" pv.txt | grep -qiE "warn|err|skipping|cannot|fail"; then
    cat pv.txt; fail "ParaView printed warnings or errors for $*"
  fi
  cat pv.txt
}

C=$WEFT_SRC/cases/drape_default.yaml
S=(--frames 3 --set "objects.0.mesh.resolution=[24, 24]")
for np in 1 3; do
  run_weft "$np" "$C" "${S[@]}" -o "out$np/drape.h5" > run.txt
  grep -q "open in ParaView: paraview $WORK/out$np/drape.xdmf" run.txt || { cat run.txt; fail "summary does not name the .xdmf"; }
  echo "np=$np:"
  pv_check result "$WORK/out$np/drape.h5" cloth,ball,ground
done

# Rods and particles beside a cloth and an obstacle (tests/data/codim/mixed.yaml): polylines
# and points per object, with the right cell counts.
run_weft 2 "$WEFT_DATA/codim/mixed.yaml" --frames 2 -o codim/mixed.h5 > run.txt || { cat run.txt; fail "mixed run"; }
pv_check codim "$WORK/codim/mixed.h5" cloth:242:triangle,rope:30:line,spring:48:line,grains:50:vertex,ball:320:triangle

# Volumes (tests/data/volume/jelly_cloth.yaml): each volume shows its tets (and only them).
run_weft 2 "$WEFT_DATA/volume/jelly_cloth.yaml" --frames 2 -o vol/jelly.h5 > run.txt || { cat run.txt; fail "jelly run"; }
pv_check codim "$WORK/vol/jelly.h5" cloth:242:triangle,jelly:90:tet,ball:35:tet,ground:320:triangle

WEFT_XDMF_SAMPLE=$WORK/sample "$WEFT_BIN/unit-io" --gtest_filter=XdmfSample.* > /dev/null || fail "writing the primitives sample"
pv_check sample "$WORK/sample/primitives.h5"

# weft-render: PNGs of chosen frames at the chosen size; bad input is a one-line error.
"$WEFT_BIN/weft-render" out1/drape.h5 -o png --frames 1:4:2 --size 320x240 > render.txt || { cat render.txt; fail "weft-render"; }
[ "$(ls png/drape_*.png | wc -l)" -eq 2 ] && [ -s png/drape_0001.png ] && [ -s png/drape_0003.png ] || { ls png; fail "weft-render wrote $(ls png | tr '\n' ' ')"; }
# PNG width and height: big-endian words at bytes 16 and 20 of the IHDR chunk.
wh=$(od -An -tu1 -j16 -N8 png/drape_0003.png | awk '{ printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }')
[ "$wh" = "320x240" ] || fail "weft-render: PNG is $wh, asked for 320x240"
echo "ok: weft-render frames 1 and 3 at 320x240"
if command -v ffmpeg > /dev/null; then
  [ -s png/drape.mp4 ] || fail "weft-render: ffmpeg is installed but no png/drape.mp4"
  echo "ok: weft-render movie png/drape.mp4"
fi
expect_input_error "weft-render missing file" "$WEFT_BIN/weft-render" nothing.h5
expect_input_error "weft-render bad --frames" "$WEFT_BIN/weft-render" out1/drape.h5 --frames a:b
expect_input_error "weft-render bad --size" "$WEFT_BIN/weft-render" out1/drape.h5 --size 12
