# PBD / XPBD cloth self-collision (issue 18; 001 sec. 4.3, eqs. 12-13): two cloths dropped
# onto the ground and onto each other (tests/data/pbd/two_cloths.yaml). With
# self_collision on, weft-verify's intersection check passes every frame and the pairs
# acted (self_contacts > 0); positions are bitwise identical at 1, 2 and 3 ranks for
# Gauss-Seidel and Jacobi (also Chebyshev-accelerated), pbd and xpbd. The control: with
# self_collision off the upper cloth falls through the lower one and weft-verify reports
# intersections. Then two coarse strips crossing edge on edge (tests/data/pbd/crossed_strips.yaml):
# the edge-edge pairs hold the upper one on the lower at every rank count; without
# self-collision it falls through.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_DATA/pbd/two_cloths.yaml
for m in pbd xpbd; do
  for solver in gauss_seidel jacobi jacobi+chebyshev; do
    args="$C --set method=$m --set $m.self_collision=true --set $m.thickness=2.0e-3 --set $m.solver=${solver%+*}"
    [ "$solver" = jacobi+chebyshev ] && args="$args --set $m.chebyshev=true"
    run_weft 1 $args -o one.h5 > /dev/null || fail "$m $solver np=1"
    "$WEFT_BIN/weft-verify" one.h5 > verify.txt || { cat verify.txt; fail "$m $solver: weft-verify"; }
    grep -q "PASS intersection" verify.txt || fail "$m $solver: no intersection check"
    c=$(h5_max one.h5 /frames/stats/self_contacts)
    awk -v c="$c" 'BEGIN { exit !(c > 50) }' || fail "$m $solver: only $c self-collision constraints acted"
    for np in 2 3; do
      run_weft $np $args -o n$np.h5 > /dev/null || fail "$m $solver np=$np"
      h5diff one.h5 n$np.h5 /frames/positions > /dev/null || fail "$m $solver: $np ranks differ from 1"
      h5diff one.h5 n$np.h5 /frames/velocities > /dev/null || fail "$m $solver: velocities at $np ranks"
    done
    echo "ok: $m $solver: intersection-free, up to $c self-collision constraints acting, identical at 1, 2, 3 ranks"
  done
done
run_weft 1 "$C" --set pbd.self_collision=false -o off.h5 > /dev/null || fail "self_collision off"
if "$WEFT_BIN/weft-verify" off.h5 > verify.txt; then fail "control: the cloths did not pass through each other"; fi
grep -q "FAIL intersection" verify.txt || { cat verify.txt; fail "control: expected intersections"; }
echo "control: without self-collision $(grep 'FAIL intersection' verify.txt)"

S=$WEFT_DATA/pbd/crossed_strips.yaml
for m in pbd xpbd; do
  args="$S --set method=$m --set $m.self_collision=true --set $m.thickness=2.0e-3"
  run_weft 1 $args -o s1.h5 > /dev/null || fail "strips $m np=1"
  "$WEFT_BIN/weft-verify" s1.h5 > verify.txt || { cat verify.txt; fail "strips $m: weft-verify"; }
  check "strips $m: the upper strip rests on the lower" "$(extent s1.h5 upper maxy) > $(extent s1.h5 lower miny)"
  for np in 2 3; do
    run_weft $np $args -o s$np.h5 > /dev/null || fail "strips $m np=$np"
    h5diff s1.h5 s$np.h5 /frames/positions > /dev/null || fail "strips $m: $np ranks differ from 1"
  done
  echo "ok: strips $m: edge on edge, intersection-free, identical at 1, 2, 3 ranks"
done
run_weft 1 "$S" --set pbd.self_collision=false -o s_off.h5 > /dev/null || fail "strips: self_collision off"
check "strips control: the upper strip falls through" "$(extent s_off.h5 upper maxy) < $(extent s_off.h5 lower miny)"

# Cloth-cloth friction (tests/data/pbd/sliding_cloth.yaml): a small cloth launched at 1 m/s
# over a fixed one. With contact.friction 0.5 it comes to rest (its box moves < 0.1 mm over
# the last 10 frames, after sliding between 5 and 25 cm; Coulomb alone: ~10 cm); with 0 it
# keeps sliding (~10 cm per 10 frames). pbd and xpbd; the friction run identical at 1, 2, 3
# ranks; weft-verify passes. One 50-frame run per setting, read at frames 40 and 50.

# minx_at FILE FRAME OBJECT: the smallest x of the named object's vertices at that frame.
minx_at() {
  local id N
  id=$("$WEFT_BIN/weft-verify" "$1" --extents | awk -v o="$3" '$1 == "EXTENT" && $3 == o { print $2 }')
  [ -n "$id" ] || fail "$1: no object $3"
  N=$(h5dump -H -d /frames/positions "$1" | sed -n 's/.*SIMPLE { ( [0-9]*, \([0-9]*\), 3 ).*/\1/p')
  paste <(h5_values "$1" /mesh/object_id) \
    <(h5dump -m %.17g -d /frames/positions -s "$2,0,0" -c "1,$N,3" -y -w 0 "$1" | sed -n '/DATA {/,/}/p' | sed '1d;$d' |
      tr ',' '\n' | tr -d ' ' | grep . | awk 'NR % 3 == 1') |
    awk -v o="$id" '$1 == o && (!n++ || $2 + 0 < m) { m = $2 + 0 } END { if (!n) exit 1; printf "%.9g\n", m }'
}
F=$WEFT_DATA/pbd/sliding_cloth.yaml
for m in pbd xpbd; do
  for mu in 0.5 0; do
    run_weft 1 "$F" --set method=$m --set contact.friction=$mu --frames 50 -o f$mu.h5 > /dev/null ||
      fail "sliding $m mu=$mu"
    "$WEFT_BIN/weft-verify" f$mu.h5 > verify.txt || { cat verify.txt; fail "sliding $m mu=$mu: weft-verify"; }
    a=$(minx_at f$mu.h5 40 upper) b=$(minx_at f$mu.h5 50 upper)
    check "sliding $m mu=$mu: frame 50 read as weft-verify's last-frame extent" "$b == $(extent f$mu.h5 upper minx)"
    echo "sliding $m, friction $mu: upper minx -0.45 at the start, $a at frame 40, $b at frame 50"
    if [ "$mu" = 0 ]; then
      check "sliding $m without friction: keeps sliding" "$b - $a > 0.09"
    else
      check "sliding $m with friction 0.5: at rest" "($b - $a) < 1e-4 && ($b - $a) > -1e-4"
      check "sliding $m with friction 0.5: stopped after 5-25 cm" "$b + 0.45 > 0.05 && $b + 0.45 < 0.25"
    fi
  done
  for np in 2 3; do
    run_weft $np "$F" --set method=$m --frames 50 -o fr$np.h5 > /dev/null || fail "sliding $m np=$np"
    h5diff f0.5.h5 fr$np.h5 /frames/positions > /dev/null || fail "sliding $m: $np ranks differ from 1"
  done
  echo "ok: sliding $m: friction identical at 1, 2, 3 ranks"
done
