# A tet column at rest (issue 19 "Shown by"): tests/data/volume/tet_column.yaml, a column
# of height H = 0.4 m pinned at its base with Poisson ratio 0, shortens under gravity by
# rho g H^2 / (2 E) within 3%, for the fixed-corotated and the neo-Hookean model;
# weft-verify passes (no tet inverted in any frame).
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_DATA/volume/tet_column.yaml
want=$(awk 'BEGIN { printf "%.10g\n", 1000 * 9.81 * 0.4 ^ 2 / (2 * 1.0e5) }')
for model in fixed_corotated neo_hookean; do
  run_weft 1 "$C" -o "col_$model.h5" --set "objects[0].material.model=$model" > "$model.log" \
    || { cat "$model.log"; fail "column run ($model)"; }
  grep -q "before Newton converged" "$model.log" && fail "$model: a step did not converge"
  "$WEFT_BIN/weft-verify" "col_$model.h5" > verify.txt || { cat verify.txt; fail "weft-verify ($model)"; }
  grep -q "PASS inversion  worst volume ratio" verify.txt || { cat verify.txt; fail "$model: no tets checked"; }
  top=$(extent "col_$model.h5" column maxy)
  short=$(awk -v t="$top" 'BEGIN { printf "%.10g\n", 0.2 - t }')
  echo "$model: top at $top m, shortening $short m, rho g H^2 / (2 E) = $want m"
  check "$model shortening within 3%" "($short - $want) ^ 2 <= (0.03 * $want) ^ 2"
done
echo "tet column at rest"
