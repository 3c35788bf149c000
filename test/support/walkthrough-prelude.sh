# Sourced before the docs' shell blocks by test/readme-walkthrough.e2e-spec.ts (bash).
# curl as the docs call it, checked: the status comes through -w '%{stderr}…', so the output
# still streams to whatever pipe the command is in; the body is kept to look for GraphQL errors.
# Every failing command is written to $WALK_FAILURES and the script goes on, so one run names
# every failing block. WALK_EXPECT (set by "# expect: NNN") is the status a call must answer;
# WALK_STREAM reads an event stream for five seconds (it would go on until Ctrl-C).
set -o errtrace -o pipefail

walk_fail() { printf '%s\t%s\n' "$WALK_BLOCK" "$1" >> "$WALK_FAILURES"; }
walk_err() {
  local code=$1 command=$2
  # A refused curl call has written its own line already.
  case "$command" in curl\ * | WALK_EXPECT=* | 'return 1') return 0 ;; esac
  walk_fail "exit $code of: $command"
}
trap 'walk_err $? "$BASH_COMMAND"' ERR

curl() {
  local dir status code problem='' expected=${WALK_EXPECT:-}
  local limit=(--max-time 10)
  [ -z "${WALK_STREAM:-}" ] || limit=(--max-time 5)
  dir=$(mktemp -d)
  { command curl -sS "${limit[@]}" "$@" -w '%{stderr}\nWALK_STATUS %{http_code}\n' 2> "$dir/err" && echo 0 > "$dir/code" || echo $? > "$dir/code"; } | tee "$dir/out"
  code=$(cat "$dir/code")
  status=$(sed -n 's/^WALK_STATUS //p' "$dir/err" | tail -n 1)
  { grep -v '^WALK_STATUS ' "$dir/err" || true; } | { sed '/^$/d' || true; } >&2
  if [ -n "${WALK_STREAM:-}" ] && [ "$code" = 28 ]; then code=0; fi
  if [ -n "$expected" ]; then
    [ "$status" = "$expected" ] || problem="HTTP $status, expected $expected"
  elif [ "$code" != 0 ]; then
    problem="curl exit $code (HTTP $status)"
  elif [ "$status" -ge 400 ]; then
    problem="HTTP $status"
  elif [[ " $* " == *"/graphql "* || " $* " == *"/graphql/stream "* ]] && grep -q '"errors":' "$dir/out"; then
    problem="GraphQL errors"
  fi
  if [ -n "$problem" ]; then
    printf '%s\t%s: curl %s\n\t%s\n' "$WALK_BLOCK" "$problem" "$*" "$(head -c 400 "$dir/out" | tr '\n' ' ')" >> "$WALK_FAILURES"
    rm -rf "$dir"
    return 1
  fi
  rm -rf "$dir"
}
