# Every executable's --help: exit 0, its usage line first, then one line per option, and
# every option its usage line names is described on a line of its own (a newcomer reads
# --help before the README).
source "$(dirname "$0")/../lib/common.bash"
for exe in weft weft-verify weft-ccd weft-partition weft-render; do
  set +e
  "$WEFT_BIN/$exe" --help > help.txt 2> err.txt
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || fail "$exe --help: exit code $rc ($(cat err.txt))"
  head -n 1 help.txt | grep -q "^usage: $exe " || fail "$exe --help: first line is not its usage: $(head -n 1 help.txt)"
  # The options of the usage line (its first two lines when it wraps): --long and -x names.
  opts=$(sed -n '1,/^  [^ ]/p' help.txt | grep -oE '(^|[[ |])--?[a-z][a-z-]*' | sed -E 's/^[[ |]//' | sort -u)
  [ -n "$opts" ] || fail "$exe --help: no options in the usage line"
  for o in $opts; do
    # described: a line starting (after indentation) with the option, or with "-x, " before it
    grep -qE "^ +(-[a-z], )?$o([ ,=]|$)" help.txt || fail "$exe --help: option $o is not described"
  done
  n=$(echo "$opts" | wc -w)
  echo "ok ($exe --help): $n options described"
done
