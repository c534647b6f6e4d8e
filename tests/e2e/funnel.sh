# cases/funnel.yaml, its first 6 frames (0.24 s) at 1 and 2 ranks (direct solver:
# MUMPS): the panels drop onto the funnel (mouth at y = 0.2, radius 0.2) and sag
# into it, and the scripted sphere (down at 1 m/s from t = 0.12 s) reaches them and pushes
# from frame 6 on. weft-verify passes every frame; the AL held the sphere in some step and
# after every step within dhat / 10 of its script (bottom at 0.32 - 0.04 - 0.12 = 0.16
# after frame 6); every panel, which started at y >= 0.21, has its lowest point below the
# sphere's bottom, inside the funnel, and is still around it. (Frame 7, where the sphere
# squeezes the panels into the neck, takes ~470 Newton iterations: too slow for a test.)
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases/funnel.yaml
FRAMES=6
TOL=1.0e-4
for np in 1 2; do
  out=funnel$np.h5
  t0=$(date +%s)
  run_weft "$np" "$C" --frames $FRAMES --set solver.linear.pc=cholesky -o "$out" > "log$np.txt" || { cat "log$np.txt"; fail "funnel np=$np"; }
  t1=$(date +%s)
  "$WEFT_BIN/weft-verify" "$out" || fail "weft-verify funnel np=$np"
  its=$(h5_values "$out" /frames/stats/newton_iters | awk '{ s += $1 } END { print s }')
  lag=$(h5_max "$out" /frames/stats/kinematic_lag)
  al=$(h5_max "$out" /frames/stats/al_vertices)
  echo "np=$np: $FRAMES frames in $((t1 - t0)) s, Newton iterations $its, max al_vertices $al, max kinematic_lag $lag"
  for p in panel0 panel1 panel2; do
    y=$(extent "$out" $p miny)
    check "np=$np: $p pushed into the funnel, below the sphere" "$y < 0.16"
    r=$(extent "$out" $p maxx)
    check "np=$np: $p still around the funnel" "$r < 0.4"
  done
  check "np=$np: the AL held the sphere in some step" "$al >= 1"
  check "np=$np: sphere within dhat/10 of its script after every step" "$lag <= $TOL * (1 + 1e-9)"
  ys=$(extent "$out" pusher miny)
  check "np=$np: sphere bottom at its scripted 0.16" "($ys - 0.16) ^ 2 <= $TOL ^ 2"
done
echo "funnel verified"
