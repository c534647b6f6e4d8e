# Contact cases under MPI: every frame passes weft-verify (no intersection, offsets and
# strain limits hold), and drape_default's trajectory at 2 and 3 ranks matches the 1-rank
# one (direct solver, tight Newton tolerance) while the cloth lands on the sphere.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases
TIGHT="--set solver.newton_tol=1e-5 --set solver.linear.pc=cholesky"
for np in 1 2 3; do
  run_weft "$np" "$C/drape_default.yaml" --frames 6 $TIGHT -o "drape$np.h5" > "log$np.txt" \
    || { cat "log$np.txt"; fail "drape_default np=$np"; }
  "$WEFT_BIN/weft-verify" "drape$np.h5" || fail "weft-verify drape_default np=$np"
done
for np in 2 3; do
  h5diff -d 1e-6 drape1.h5 "drape$np.h5" /frames/positions /frames/positions > diff.txt \
    || { head -20 diff.txt; fail "drape_default np=$np differs from np=1 by more than 1e-6"; }
done
# Contact actually happened: pairs within dhat in the last frame.
h5dump -d /frames/stats/contact_pairs -y drape1.h5 | grep -q "e+0[4-9]\|[0-9]\{5\}" || fail "no contact in drape_default"
run_weft 2 "$C/pinned_poke.yaml" --frames 6 -o poke.h5 > log.txt || { cat log.txt; fail "pinned_poke"; }
"$WEFT_BIN/weft-verify" poke.h5 || fail "weft-verify pinned_poke"
# Every contact case must at least start (a valid, intersection-free initial state).
run_weft 2 "$C/rotating_sphere.yaml" --frames 2 -o spin.h5 > log.txt || { cat log.txt; fail "rotating_sphere"; }
"$WEFT_BIN/weft-verify" spin.h5 || fail "weft-verify rotating_sphere"
echo "contact cases verified"
