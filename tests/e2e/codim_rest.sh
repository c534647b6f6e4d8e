# Rods and particles at rest (issue 17 "Shown by"):
#  - tests/data/codim/cantilever.yaml: a clamped rod under gravity; its tip deflection
#    matches the Euler-Bernoulli cantilever q Lf^4 / (8 E I) within 3%;
#  - tests/data/codim/particle_rest.yaml: particles dropped on an obstacle plane rest with
#    their centres r above it (the pair offset), within dhat.
# weft-verify passes both.
source "$(dirname "$0")/../lib/common.bash"
D=$WEFT_DATA/codim

run_weft 1 "$D/particle_rest.yaml" -o grains.h5 > grains.log || { cat grains.log; fail "particle run"; }
"$WEFT_BIN/weft-verify" grains.h5 || fail "weft-verify particles"
lo=$(extent grains.h5 grains miny)
hi=$(extent grains.h5 grains maxy)
echo "particle centres between $lo and $hi m (r = 0.005, dhat = 0.001)"
check "particles rest at least r above the plane" "$lo >= 0.005 - 1e-8"
check "particles rest within dhat of r" "$hi <= 0.006"

# -weft_newton_monitor: one line per Newton iteration (printed once, on 2 ranks too), one
# line per line search (every iteration but a step's converged last one).
run_weft 2 "$D/particle_rest.yaml" --frames 3 -o mon.h5 -weft_newton_monitor > mon.log || { cat mon.log; fail "monitor run"; }
its=$(awk '/^frame /{ for (i = 1; i < NF; ++i) if ($i == "newton") n += $(i + 1) } END { print n + 0 }' mon.log)
lines=$(grep -c '^  newton ' mon.log || true)
searches=$(grep -c '^      alpha ' mon.log || true)
echo "monitor: $lines iteration lines, $searches line searches, $its Newton iterations in the progress lines"
check "one monitor line per Newton iteration" "$lines == $its && $its > 3"
check "one alpha line per iteration that stepped" "$searches == $its - 3"

run_weft 1 "$D/cantilever.yaml" -o beam.h5 > beam.log || { cat beam.log; fail "cantilever run"; }
"$WEFT_BIN/weft-verify" beam.h5 || fail "weft-verify cantilever"
tip=$(extent beam.h5 beam miny)
# q = rho pi r^2 g, I = pi r^4 / 4, Lf = L - h/2 (the clamp at segment 0's midpoint, where
# vertex 1's bending cell starts; see the case file).
want=$(awk 'BEGIN { pi = atan2(0, -1); r = 1e-3; q = 7800 * pi * r * r * 9.81; I = pi * r ^ 4 / 4;
                    L = 0.2 - 0.5 * 0.2 / 100; printf "%.10g\n", q * L ^ 4 / (8 * 2.0e11 * I) }')
echo "cantilever tip deflection $tip m, Euler-Bernoulli $want m"
check "cantilever tip within 3% of q L^4 / (8 E I)" "(-($tip) - $want) ^ 2 <= (0.03 * $want) ^ 2"
echo "rods and particles at rest"
