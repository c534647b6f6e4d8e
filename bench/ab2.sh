#!/bin/bash
# usage: [EXTRA="--set time.dt=0.005"] [CASE=drape_default] ab2.sh METHOD SC N REPS BIN...   alternates the
# binaries, min CPU ms/step per binary (CASE, default hang_two_corners, at 128^2; EXTRA: further --set arguments;
# one result file per binary)
M=$1; SC=$2; N=$3; R=$4; shift 4
C=$(cd "$(dirname "$0")/.." && pwd)/cases/${CASE:-hang_two_corners}.yaml
# Runs in the current directory (writes t0, tN, ab0.h5, abN_<binary>.h5 there).
args="$C --set method=$M --set objects.0.mesh.resolution=[128,128] --set $M.self_collision=$SC --set output.fields=[] --set output.checkpoint_every=0 $EXTRA"
declare -A best0 bestN bestW
for r in $(seq $R); do for b in "$@"; do
  /usr/bin/time -f "%U %e" -o t0 $b $args --frames 0 -o ab0.h5 > /dev/null
  /usr/bin/time -f "%U %e" -o tN $b $args --frames $N -o abN_$(basename $b).h5 > /dev/null
  read u0 w0 < t0; read uN wN < tN
  echo "  $(basename $b) rep$r user0=$u0 userN=$uN wall0=$w0 wallN=$wN"
  bestW[$b]=$(awk -v a=${bestW[$b]:-999} -v b=$(awk -v x=$wN -v y=$w0 "BEGIN{print x-y}") 'BEGIN{print (b<a)?b:a}')
  best0[$b]=$(awk -v a=${best0[$b]:-99} -v b=$u0 'BEGIN{print (b<a)?b:a}')
  bestN[$b]=$(awk -v a=${bestN[$b]:-999} -v b=$uN 'BEGIN{print (b<a)?b:a}')
done; done
for b in "$@"; do awk -v n=$(basename $b) -v m=$M -v sc=$SC -v u0=${best0[$b]} -v uN=${bestN[$b]} -v N=$N -v W=${bestW[$b]} 'BEGIN{ms=1000*(uN-u0)/N; printf "%s %s sc=%s: min user0 %.2f, min user%d %.2f -> CPU %.1f ms/step, %.1f steps/s; wall %.1f ms/step\n", n, m, sc, u0, N, uN, ms, 1000/ms, 1000*W/N}'; done
