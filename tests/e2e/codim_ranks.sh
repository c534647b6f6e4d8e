# tests/data/codim/mixed.yaml (a cloth, two rods, particles, a sphere obstacle) at 1, 2
# and 3 ranks: every frame's positions equal the 1-rank run's within 1e-7 m (direct
# solver, Newton tolerance 1e-6 m/s), weft-verify passes every frame, and /mesh holds the
# rods' segments and the particles; /mesh and /view are the same bytes at every rank count.
# Then particle_rest.yaml (particles and a plane), particle_column.yaml and
# local/particle_parts.yaml alike.
source "$(dirname "$0")/../lib/common.bash"
C=$WEFT_DATA/codim/mixed.yaml
for np in 1 2 3; do
  run_weft "$np" "$C" -o "mixed$np.h5" > "log$np.txt" || { cat "log$np.txt"; fail "mixed np=$np"; }
  "$WEFT_BIN/weft-verify" "mixed$np.h5" || fail "weft-verify mixed np=$np"
  grep -q "before Newton converged" "log$np.txt" && fail "np=$np: a step did not converge"
  if [ "$np" -gt 1 ]; then
    h5diff -d 1e-7 mixed1.h5 "mixed$np.h5" /frames/positions /frames/positions > diff.txt \
      || { head diff.txt; fail "np=$np positions differ from 1 rank"; }
    # /mesh (but the partition) and /view are written in even shares by every rank, the
    # per-triangle rows from each rank's local triangles: the same bytes at every rank
    # count, and OUT.xdmf the same text.
    for ds in rest_positions object_id triangles triangle_offset strain_limit warp_direction strain_limit_warp \
              strain_limit_weft segments segment_offset points point_offset tets; do
      h5diff -d 0 mixed1.h5 "mixed$np.h5" /mesh/$ds /mesh/$ds > diff.txt || { head diff.txt; fail "np=$np /mesh/$ds differs"; }
    done
    h5diff -r mixed1.h5 "mixed$np.h5" /view /view > diff.txt || { head diff.txt; fail "np=$np /view differs"; }
    cmp <(sed "s/mixed1.h5/F.h5/g" mixed1.xdmf) <(sed "s/mixed$np.h5/F.h5/g" "mixed$np.xdmf") \
      || fail "np=$np OUT.xdmf differs from 1 rank's"
  fi
  echo "ok (np=$np)"
done
# 30 + 48 segments, 5 x 2 x 5 particles, with their offsets 2 r.
check "segments" "$(h5_values mixed1.h5 /mesh/segments | wc -l) == 2 * 78"
check "points" "$(h5_values mixed1.h5 /mesh/points | wc -l) == 50"
check "rope offset" "$(h5_values mixed1.h5 /mesh/segment_offset | head -1) == 0.004"
check "grain offset" "$(h5_values mixed1.h5 /mesh/point_offset | head -1) == 0.008"
# same_at_ranks CASE TAG: CASE at 1, 2 and 3 ranks runs without a PETSc error message, passes
# weft-verify, positions within 1e-7 m of the 1-rank run's (TAG1.h5 .. TAG3.h5).
same_at_ranks() {
  local np
  for np in 1 2 3; do
    run_weft "$np" "$1" -o "$2$np.h5" > "$2log$np.txt" 2>&1 || { cat "$2log$np.txt"; fail "$2 np=$np"; }
    # (a successful run prints no solver error: the block solver's name is read before the
    # first solve set it up)
    ! grep -q "PETSC ERROR" "$2log$np.txt" || { cat "$2log$np.txt"; fail "$2 np=$np printed a PETSc error"; }
    "$WEFT_BIN/weft-verify" "$2$np.h5" > /dev/null || fail "weft-verify $2 np=$np"
    [ "$np" -eq 1 ] || h5diff -d 1e-7 "${2}1.h5" "$2$np.h5" /frames/positions /frames/positions > diff.txt \
      || { head diff.txt; fail "$2 np=$np positions differ from 1 rank"; }
  done
}
# Particles alone beside an obstacle: coordinate bisection, the plane with its nearest grains.
same_at_ranks "$WEFT_DATA/codim/particle_rest.yaml" grains
check "grains on 3 ranks" "$(h5_values grains3.h5 /mesh/partition | sort -u | wc -l) == 3"
# A column whose floor goes with its bottom slab: one rank holds every surface edge and
# leads every triangle, the others none (the edge-length median's sum must still be joined by
# every rank, and that rank's local triangles outlive its scene's whole triangle array).
same_at_ranks "$WEFT_DATA/codim/particle_column.yaml" column
# Particles each rank builds its own part of (io/particle_parts.hpp): obstacles before,
# between and after two blocks, pinned and moving grains, jitter, a rotated block.
same_at_ranks "$WEFT_DATA/local/particle_parts.yaml" parts
for np in 2 3; do
  for ds in rest_positions object_id triangles points point_offset; do
    h5diff -d 0 parts1.h5 "parts$np.h5" /mesh/$ds /mesh/$ds > diff.txt || { head diff.txt; fail "parts np=$np /mesh/$ds differs"; }
  done
  h5diff -r parts1.h5 "parts$np.h5" /view /view > diff.txt || { head diff.txt; fail "parts np=$np /view differs"; }
done
echo "mixed codimensions agree at 1, 2, 3 ranks"
