# Shared by the end-to-end and bad-input scripts. ctest sets WEFT_BIN, WEFT_SRC,
# WEFT_MPIEXEC and WEFT_DATA.
set -euo pipefail
: "${WEFT_BIN:?}" "${WEFT_SRC:?}" "${WEFT_MPIEXEC:?}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weft-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }

# run_weft NP ARGS...: the simulator under mpirun with NP ranks.
run_weft() {
  local np=$1; shift
  $WEFT_MPIEXEC -n "$np" "$WEFT_BIN/weft" "$@"
}

# expect_input_error NAME COMMAND...: exit code 2, one line naming NAME on stderr, no
# result file that claims to be complete.
expect_input_error() {
  local what=$1; shift
  set +e
  "$@" >out.txt 2>err.txt
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || { cat out.txt err.txt; fail "$what: exit code $rc, expected 2"; }
  grep -q . err.txt || fail "$what: no message on stderr"
  if grep -qE "Segmentation|backtrace|terminate called|MPI_ABORT|core dumped" err.txt; then cat err.txt; fail "$what: crashed"; fi
  echo "ok ($what): $(head -n 1 err.txt)"
}
