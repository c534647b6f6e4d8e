# bench/scaling.py: a tiny strong study at 1 and 2 ranks gives a table row per rank count
# with speedup, efficiency, peak memory, halo and per-stage imbalance from weft's RANK/RUN
# lines and PETSc's -log_view CSV; a weak study expands {r}; --launcher slurm / pbs write
# job scripts with the right rank and node counts; --collect rebuilds the tables from logs.
source "$(dirname "$0")/../lib/common.bash"
command -v python3 > /dev/null || { echo "no python3: skipped"; exit 77; }
H=$WEFT_SRC/bench/scaling.py
C=$WEFT_SRC/cases/hang_two_corners.yaml
S=(--set "objects[0].mesh.resolution=[12, 12]")
python3 "$H" "$C" --ranks 1,2 --steps 2 "${S[@]}" --weft "$WEFT_BIN/weft" --mpirun "$WEFT_MPIEXEC" --out strong > out.txt ||
  { cat out.txt strong/*.log; fail "strong study"; }
md=strong/scaling.md
row1=$(grep '^| 1 | 144 | 144 |' "$md" | head -1)
row2=$(grep '^| 2 | 144 | 72 |' "$md" | head -1)
[ -n "$row1" ] && [ -n "$row2" ] || { cat "$md"; fail "no rows for 1 and 2 ranks"; }
# Columns: ranks vertices v/rank s/step speedup efficiency peakmax peakmean halo ghosts build MB/s
eff1=$(echo "$row1" | awk -F'|' '{ print $7 + 0 }')
peak2=$(echo "$row2" | awk -F'|' '{ print $8 + 0 }')
halo2=$(echo "$row2" | awk -F'|' '{ print $10 + 0 }')
ghost2=$(echo "$row2" | awk -F'|' '{ print $11 + 0 }')
check "efficiency at 1 rank is 1" "$eff1 == 1"
check "peak memory per rank reported" "$peak2 > 10 && $peak2 < 10000"
check "2 ranks exchange halo and ghost vertices" "$halo2 > 0 && $ghost2 > 0"
grep -q 'solve_s' "$md" || fail "no per-stage table"
grep -q 'KSPSolve' "$md" || fail "no PETSc -log_view events"
grep -q '"efficiency"' strong/scaling.json || fail "no JSON"
[ -e strong/run_r1.h5 ] && fail "result files not cleaned up"

cp "$md" first.md
rm strong/scaling.md strong/scaling.json
python3 "$H" --collect strong > collect.txt || fail "--collect"
cmp first.md strong/scaling.md || fail "--collect gives other tables than the run"

python3 "$H" "$C" --mode weak --ranks 1,2 --steps 1 --weft "$WEFT_BIN/weft" --mpirun "$WEFT_MPIEXEC" \
  --weak-set "objects[0].mesh.resolution=[8, {8*r}]" --out weak > out.txt || { cat out.txt weak/*.log; fail "weak study"; }
grep -q '^| 2 | 128 | 64 |' weak/scaling.md || { cat weak/scaling.md; fail "weak study: 2 ranks should have 8 x 16 vertices"; }

python3 "$H" "$C" --ranks 64,256 --launcher slurm --ranks-per-node 128 --out jobs > out.txt || fail "slurm scripts"
grep -q -- '--nodes=2' jobs/run_r256.sbatch && grep -q -- '--ntasks=256' jobs/run_r256.sbatch || { cat jobs/run_r256.sbatch; fail "slurm nodes/tasks"; }
grep -q -- '--nodes=1' jobs/run_r64.sbatch && grep -q "srun -n 64 .*weft .*-log_view" jobs/run_r64.sbatch || { cat jobs/run_r64.sbatch; fail "slurm command"; }
python3 "$H" "$C" --ranks 256 --launcher pbs --ranks-per-node 128 --out pbs > out.txt || fail "pbs scripts"
grep -q 'select=2:ncpus=128:mpiprocs=128' pbs/run_r256.pbs || { cat pbs/run_r256.pbs; fail "pbs select"; }
echo "ok: strong, weak, collect, slurm and pbs"
