# Issue 20: memory per rank falls with ranks, and the one-rank setup stays lean.
# hang_two_corners at 256^2 (65,536 vertices) built, checked and written (--frames 0) at 1
# and 3 ranks with --rank-summary, which reports VmRSS / VmHWM after each setup phase.
# Bytes are counted above the process's own start (rss_start_MB: MPI, PETSc, HDF5 libraries).
#  1. At 3 ranks every rank's peak is below 0.47x the 1-rank peak (measured 0.414-0.442;
#     0.425-0.450 while the Scene's per-vertex object, motion and id maps, the collision
#     surface's vertex objects and list and the contact flags were plain whole-length
#     arrays; 0.45-0.47 while the output wrote through a natural-order copy and scatters and
#     the collision surface and contact setup built whole-length transients). The
#     per-row part (Newton matrix, its pattern, the solver Vecs, LocalView's stencils, the
#     Scene's element sets) splits over the ranks; the Scene's vertex arrays and triangles,
#     the collision surface and rank 0's partitioner graph are still whole on every rank.
#     While every rank held the whole element sets a rank measured 0.50-0.55; a rank with a
#     global-size matrix or global Vecs would be at >= 0.9.
#  2. At 1 rank the scene build (meshes, element sets, renumbering) peaks below 900 bytes
#     per vertex: measured 610 (it was 1376 while a vertex graph and a vector per element
#     were built for a partition of one part).
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_SRC/cases/hang_two_corners.yaml
value() { awk -v r="$3" -v k="$1" '$1 == "RANK" && $2 == r { for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$2"; }
for np in 1 3; do
  run_weft "$np" "$C" --frames 0 --set "objects.0.mesh.resolution=[256,256]" -o "m$np.h5" --rank-summary \
    > "log$np.txt" 2>&1 || { cat "log$np.txt"; fail "np=$np"; }
done
h5diff -d 0 m1.h5 m3.h5 /frames/positions /frames/positions > diff.txt || { head diff.txt; fail "frame 0 differs"; }
N=65536
P1=$(value peak_rss_MB log1.txt 0)
S1=$(value rss_start_MB log1.txt 0)
B1=$(value hwm_build_MB log1.txt 0)
[ -n "$P1" ] && [ -n "$S1" ] && [ -n "$B1" ] || { cat log1.txt; fail "no rank summary"; }
check "1 rank: scene build peak $(awk "BEGIN { printf \"%.0f\", ($B1 - $S1) * 1048576 / $N }") bytes per vertex" \
  "($B1 - $S1) * 1048576 / $N < 900"
for r in 0 1 2; do
  P=$(value peak_rss_MB log3.txt $r)
  S=$(value rss_start_MB log3.txt $r)
  check "rank $r of 3: peak $P MB (start $S) against 1 rank's $P1 MB (start $S1)" "($P - $S) < 0.47 * ($P1 - $S1)"
done
echo "memory per rank falls with ranks"
