# output.every k writes frame 0 and every k-th step (F = frames / k + 1 frames, /frames/time
# = their step times, every per-frame dataset F long, OUT.xdmf F time steps), output.fields
# picks the optional per-frame fields, weft-verify reads the file, and a run cut short at a
# step that is not a multiple of k and resumed gives the same file bit for bit.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases/hang_two_corners.yaml
SMALL=(--set "objects[0].mesh.resolution=[12, 12]" --set output.checkpoint_every=4)
N=144

# frames F of a dataset (its first dimension)
nframes() { h5dump -H -d "$2" "$1" | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\).*/\1/p'; }
# one frame's rows of /frames/positions, full precision
frame_rows() { h5dump -d /frames/positions -s "$2,0,0" -c "1,$N,3" -y -w 0 -m %.17g "$1" | sed -n '/DATA {/,/}/p'; }

for np in 1 2; do
  run_weft "$np" "$C" --frames 6 "${SMALL[@]}" -o all.h5 > /dev/null
  run_weft "$np" "$C" --frames 6 "${SMALL[@]}" --set output.every=2 --set "output.fields=[velocities]" -o e2.h5 > out.txt
  grep -q "^done: 6 steps.* 4 frames in e2.h5" out.txt || { cat out.txt; fail "np=$np: summary line"; }
  for ds in /frames/time /frames/positions /frames/velocities /frames/stats/newton_iters /frames/stats/wall_s; do
    [ "$(nframes e2.h5 "$ds")" = 4 ] || fail "np=$np: $ds has $(nframes e2.h5 "$ds") frames, expected 6 / 2 + 1 = 4"
  done
  h5dump -H -d /frames/strain_ratio e2.h5 > /dev/null 2>&1 && fail "np=$np: strain_ratio written though output.fields omits it"
  # Times are step times s dt of steps 0, 2, 4, 6, and the positions those of the every-step run.
  mapfile -t T < <(h5_values e2.h5 /frames/time)
  mapfile -t TA < <(h5_values all.h5 /frames/time)
  for k in 0 1 2 3; do
    [ "${T[$k]}" = "${TA[$((2 * k))]}" ] || fail "np=$np: /frames/time[$k] = ${T[$k]}, expected ${TA[$((2 * k))]}"
    [ "$(frame_rows e2.h5 $k)" = "$(frame_rows all.h5 $((2 * k)))" ] || fail "np=$np: frame $k is not step $((2 * k))"
  done
  check "np=$np /frames/time[3] = 6 dt" "${T[3]} > 0.2399999 && ${T[3]} < 0.2400001"
  [ "$(grep -c '<Time Value=' e2.xdmf)" = 4 ] || fail "np=$np: e2.xdmf has $(grep -c '<Time Value=' e2.xdmf) time steps"
  mapfile -t TX < <(sed -n 's/.*<Time Value="\([^"]*\)".*/\1/p' e2.xdmf)
  for k in 0 1 2 3; do
    awk -v a="${TX[$k]}" -v b="${T[$k]}" 'BEGIN { d = a - b; exit !(d < 1e-12 && d > -1e-12) }' ||
      fail "np=$np: e2.xdmf time step $k is ${TX[$k]}, /frames/time says ${T[$k]}"
  done
  grep -q strain_ratio e2.xdmf && fail "np=$np: e2.xdmf references strain_ratio"
  grep -q '/frames/velocities' e2.xdmf || fail "np=$np: e2.xdmf lacks velocities"
  "$WEFT_BIN/weft-verify" e2.h5 > verify.txt || { cat verify.txt; fail "np=$np: weft-verify e2.h5"; }

  # Cut at step 5 (checkpoints at 4 and at the last step 5; frames 0, 2, 4 written), resumed
  # to 6: identical to the uninterrupted run.
  run_weft "$np" "$C" --frames 5 "${SMALL[@]}" --set output.every=2 --set "output.fields=[velocities]" -o cut.h5 > /dev/null
  [ "$(nframes cut.h5 /frames/time)" = 3 ] || fail "np=$np: 5 steps every 2: $(nframes cut.h5 /frames/time) frames, expected 3"
  run_weft "$np" "$C" --frames 6 "${SMALL[@]}" --set output.every=2 --set "output.fields=[velocities]" --restart cut.h5 > /dev/null
  for ds in /frames/positions /frames/time /frames/velocities /checkpoint/x /checkpoint/v /frames/stats/newton_iters; do
    h5diff -d 0 e2.h5 cut.h5 "$ds" "$ds" > diff.txt || { head diff.txt; fail "np=$np: resumed $ds differs"; }
  done
  [ "$(grep -c '<Time Value=' cut.xdmf)" = 4 ] || fail "np=$np: resumed cut.xdmf has $(grep -c '<Time Value=' cut.xdmf) time steps"
  echo "np=$np: every 2 -> 4 frames at steps 0 2 4 6, fields [velocities], restart bit for bit"
done

# No optional field at all: positions only, still viewable and verifiable.
run_weft 1 "$C" --frames 3 "${SMALL[@]}" --set output.every=3 --set "output.fields=[]" -o bare.h5 > /dev/null
[ "$(nframes bare.h5 /frames/positions)" = 2 ] || fail "fields []: expected 2 frames"
h5dump -H -d /frames/velocities bare.h5 > /dev/null 2>&1 && fail "fields []: velocities written"
grep -q '/frames/velocities\|strain_ratio' bare.xdmf && fail "fields []: bare.xdmf references an absent field"
"$WEFT_BIN/weft-verify" bare.h5 > /dev/null || fail "weft-verify bare.h5"
echo "fields []: positions only, 2 frames"
