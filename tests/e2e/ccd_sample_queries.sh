#!/usr/bin/env bash
# weft-ccd over the vendored CCD benchmark sample (tests/data/ccd/sample-queries): ACCD must
# report zero false negatives (DESIGN.md "CCD query files"); --per-query prints one line per
# query; bad input ends with one line on stderr and exit code 2.
set -euo pipefail
: "${WEFT_BIN:?WEFT_BIN must point at the build bin/}" "${WEFT_DATA:?WEFT_DATA must point at tests/data}"
ccd="$WEFT_BIN/weft-ccd"
samples="$WEFT_DATA/ccd/sample-queries"

fail() { echo "FAIL: $*" >&2; exit 1; }

json=$("$ccd" "$samples" --json)
echo "$json"
total=$(printf '%s\n' "$json" | grep '"total"') || fail "no total in the JSON output"
field() { printf '%s\n' "$total" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"; }
queries=$(field queries); positives=$(field positives); fn=$(field false_negatives); fp=$(field false_positives)
[ "$queries" = 7279 ] || fail "expected 7279 queries, got '$queries'"
[ "$positives" = 435 ] || fail "expected 435 positives, got '$positives'"
[ "$fn" = 0 ] || fail "ACCD missed $fn collisions (false negatives)"
echo "ACCD: $queries queries, $positives positives, $fn false negatives, $fp false positives"

lines=$("$ccd" "$samples" --per-query | wc -l)
[ "$lines" = 7279 ] || fail "--per-query printed $lines lines, expected 7279"
bad=$("$ccd" "$samples" --per-query | grep -cvE '^(0 1|1 [0-9.e+-]+)$' || true)
[ "$bad" = 0 ] || fail "--per-query printed $bad malformed lines"

set +e
err=$("$ccd" "$samples/no-such-scene" 2>&1 >/dev/null); rc=$?
set -e
[ "$rc" = 2 ] || fail "missing input: exit code $rc, expected 2"
[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "missing input: expected one line on stderr, got: $err"
echo "PASS"
