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

# h5_values FILE DATASET: the dataset's values, one per line (h5dump, no Python needed).
h5_values() {
  h5dump -d "$2" -y -w 0 "$1" | sed -n '/DATA {/,/}/p' | sed '1d;$d' | tr ',' '\n' | tr -d ' ' | grep .
}

# h5_max FILE DATASET: the largest finite value of a 1-D dataset (frame 0 has NaN stats).
h5_max() {
  h5_values "$1" "$2" | grep -vi nan | awk 'NR == 1 || $1 + 0 > m { m = $1 + 0 } END { printf "%.17g\n", m }'
}

# extent FILE OBJECT FIELD: one number of an object's last-frame box from weft-verify
# --extents; FIELD is minx miny minz maxx maxy maxz.
extent() {
  "$WEFT_BIN/weft-verify" "$1" --extents | awk -v o="$2" -v f="$3" '
    $1 == "EXTENT" && $3 == o {
      i = (f == "minx") ? 8 : (f == "miny") ? 9 : (f == "minz") ? 10 : (f == "maxx") ? 12 : (f == "maxy") ? 13 : 14
      print $i; found = 1 }
    END { if (!found) exit 1 }'
}

# check NAME EXPR: fail unless the awk expression (numbers only) is true.
check() {
  local what=$1 expr=$2
  awk "BEGIN { exit !($expr) }" || fail "$what ($expr)"
  echo "ok ($what): $expr"
}
