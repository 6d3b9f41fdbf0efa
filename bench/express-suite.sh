#!/usr/bin/env bash
# Runs the test/*.js files of an Express 4.x checkout (devDependencies installed) against
# roa/express, one file at a time with the checkout's own mocha; test/utils.js is left out (it
# tests Express's internals). Build roa first (npx tsc -p tsconfig.build.json).
#
#   bench/express-suite.sh PATH-TO-EXPRESS-CHECKOUT [test-file.js ...]
#
# Prints `file: P passed, F failed` per file and `N passed, N failed` in total.
# EXPRESS_SUITE_FAILURES=path writes every failing test as `file › title: message` there.
# EXPRESS_SUITE_TIMEOUT=seconds bounds each file (default 300).
set -u
checkout=$(cd "${1:?usage: $0 PATH-TO-EXPRESS-CHECKOUT [test-file.js ...]}" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
hook="$here/express-suite-hook.cjs"
mocha="$checkout/node_modules/.bin/mocha"
[ -x "$mocha" ] || { echo "no mocha in $checkout/node_modules: run npm install there" >&2; exit 2; }
[ -f "$here/../dist/express/index.js" ] || { echo "roa is not built: npx tsc -p tsconfig.build.json" >&2; exit 2; }

if [ $# -gt 0 ]; then files=("$@"); else
  files=()
  for f in "$checkout"/test/*.js; do
    [ "$(basename "$f")" = utils.js ] || files+=("$(basename "$f")")
  done
fi

failures=${EXPRESS_SUITE_FAILURES:-}
[ -n "$failures" ] && : > "$failures"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total_pass=0
total_fail=0
cd "$checkout"
for name in "${files[@]}"; do
  name=$(basename "$name")
  out="$tmp/$name.json"
  EXPRESS_CHECKOUT="$checkout" timeout "${EXPRESS_SUITE_TIMEOUT:-300}" "$mocha" --require test/support/env --require "$hook" \
    --check-leaks --exit --reporter json "test/$name" > "$out" 2> "$tmp/$name.err"
  # The JSON report is the last thing mocha prints; tests may log before it.
  read -r pass fail < <(node -e '
    const fs = require("fs");
    const text = fs.readFileSync(process.argv[1], "utf8");
    const start = text.lastIndexOf("\n{\n  \"stats\"") + 1 || text.indexOf("{");
    let report;
    try { report = JSON.parse(text.slice(start)); } catch { console.log("0 1"); process.exit(0); }
    const list = process.argv[2];
    if (list) for (const f of report.failures)
      fs.appendFileSync(list, `${process.argv[3]} › ${f.fullTitle}: ${String((f.err && f.err.message) || "").split("\n")[0].slice(0, 200)}\n`);
    console.log(report.stats.passes, report.stats.failures);
  ' "$out" "$failures" "$name")
  if [ "$pass" = 0 ] && [ "$fail" = 1 ] && ! grep -q '"stats"' "$out"; then
    echo "$name: did not run ($(tail -n 3 "$tmp/$name.err" | tr '\n' ' ' | cut -c1-200))"
    [ -n "$failures" ] && echo "$name › (whole file): did not run" >> "$failures"
  else
    echo "$name: $pass passed, $fail failed"
  fi
  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
done
echo "$total_pass passed, $total_fail failed"
