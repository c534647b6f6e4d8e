# PBD and XPBD (issue 18): Gauss-Seidel and Jacobi positions bitwise identical at 1, 2 and 3
# ranks (a constraint across a partition border is projected from the same inputs by each
# rank it touches), with obstacles and pins, and with Chebyshev acceleration; hang_two_corners and drape_default run with
# --set method=pbd and method=xpbd.
source "$(dirname "$0")/../lib/common.bash"
H=$WEFT_SRC/cases/hang_two_corners.yaml
D=$WEFT_SRC/cases/drape_default.yaml
for m in pbd xpbd; do
  for solver in gauss_seidel jacobi; do
    for case in "$H --set objects.0.mesh.resolution=[16,16] --frames 6" \
                "$D --set objects.0.mesh.resolution=[24,24] --frames 12"; do
      name=$(basename ${case%% *} .yaml)
      args="$case --set method=$m --set $m.solver=$solver --set $m.damping=0"
      run_weft 1 $args -o one.h5 > /dev/null
      for np in 2 3; do
        run_weft $np $args -o n$np.h5 > /dev/null
        h5diff one.h5 n$np.h5 /frames/positions > /dev/null || fail "$name $m $solver: $np ranks differ from 1"
        h5diff one.h5 n$np.h5 /frames/velocities > /dev/null || fail "$name $m $solver: velocities at $np ranks"
      done
      echo "ok: $name $m $solver identical at 1, 2, 3 ranks"
    done
  done
done
# Chebyshev-accelerated Jacobi (rho estimated: max-norm reductions, the same at every rank
# count; and given): identical at 1, 2, 3 ranks, through the drape's first contacts.
for m in pbd xpbd; do
  for rho in true 0.9; do
    args="$D --set objects.0.mesh.resolution=[24,24] --frames 12 --set method=$m --set $m.solver=jacobi --set $m.chebyshev=$rho"
    run_weft 1 $args -o one.h5 > /dev/null
    for np in 2 3; do
      run_weft $np $args -o n$np.h5 > /dev/null
      h5diff one.h5 n$np.h5 /frames/positions > /dev/null || fail "$m chebyshev=$rho: $np ranks differ from 1"
      h5diff one.h5 n$np.h5 /frames/stats/chebyshev_rho > /dev/null || fail "$m chebyshev=$rho: rho at $np ranks"
    done
    echo "ok: drape $m jacobi chebyshev=$rho (rho $(h5_max one.h5 /frames/stats/chebyshev_rho)) identical at 1, 2, 3 ranks"
  done
done
# Hierarchical levels (003 sec. 4.3): identical at 1, 2, 3 ranks too.
for m in pbd xpbd; do
  for solver in gauss_seidel jacobi; do
    args="$D --set objects.0.mesh.resolution=[24,24] --frames 10 --set method=$m --set $m.solver=$solver --set $m.levels=3"
    run_weft 1 $args -o one.h5 > /dev/null
    for np in 2 3; do
      run_weft $np $args -o n$np.h5 > /dev/null
      h5diff one.h5 n$np.h5 /frames/positions > /dev/null || fail "$m $solver levels=3: $np ranks differ from 1"
    done
    echo "ok: drape $m $solver with 3 hierarchical levels identical at 1, 2, 3 ranks"
  done
done
# A restart carries the estimated rho (checkpoint array chebyshev.rho): a run cut after
# the estimate and resumed gives the uninterrupted run's frames bit for bit, with levels
# and self-collision on as well.
A="$D --set objects.0.mesh.resolution=[24,24] --set method=pbd --set pbd.solver=jacobi --set pbd.chebyshev=true"
A="$A --set pbd.levels=2 --set pbd.self_collision=true --set output.checkpoint_every=4"
for np in 1 2; do
  run_weft $np $A --frames 14 -o rfull.h5 > /dev/null
  run_weft $np $A --frames 9 -o rcut.h5 > /dev/null
  run_weft $np $A --frames 14 --restart rcut.h5 > /dev/null
  h5diff -d 0 rfull.h5 rcut.h5 /frames/positions /frames/positions > /dev/null || fail "pbd restart np=$np differs"
done
echo "ok: pbd jacobi + chebyshev + levels + self-collision restarts bit for bit at 1 and 2 ranks"
# Contacts were made in the drape (the constraint set is part of what must match), and
# BDF2 + substeps run and match as well.
c=$(h5_max one.h5 /frames/stats/contacts)
awk -v c="$c" 'BEGIN { exit !(c > 0) }' || fail "drape made no obstacle contact"
args="$D --set objects.0.mesh.resolution=[24,24] --frames 8 --set method=xpbd --set xpbd.integrator=bdf2 --set xpbd.substeps=2"
run_weft 1 $args -o one.h5 > /dev/null
run_weft 2 $args -o two.h5 > /dev/null
h5diff one.h5 two.h5 /frames/positions > /dev/null || fail "bdf2 + substeps: 2 ranks differ"
# The full-size scenes run with every position-based method for a few frames.
for m in pbd xpbd; do
  for case in "$H" "$D"; do
    run_weft 2 "$case" --set method=$m --frames 4 -o full.h5 > out.txt || { cat out.txt; fail "$case $m"; }
    grep -q "done: 4 steps" out.txt || fail "$(basename $case) $m did not finish"
  done
done
# The balloon (pressure constraint, one MPI_Allreduce per sweep): the same at 1 and 3 ranks
# to the reduction's rounding (measured < 1e-14 m over 30 frames), and weft-verify passes.
B="$WEFT_SRC/cases/balloon.yaml"
run_weft 1 "$B" --frames 12 -o b1.h5 > /dev/null || fail "balloon np=1"
run_weft 3 "$B" --frames 12 -o b3.h5 > /dev/null || fail "balloon np=3"
h5diff -d 1e-10 b1.h5 b3.h5 /frames/positions > /dev/null || fail "balloon: 3 ranks differ by more than 1e-10 m"
"$WEFT_BIN/weft-verify" b3.h5 > /dev/null || fail "weft-verify balloon"
echo "pbd/xpbd: all rank counts agree"
