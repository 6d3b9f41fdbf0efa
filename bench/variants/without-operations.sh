#!/usr/bin/env bash
# A build of HEAD without issue 27's per-request operations work, for an A/B with --variant:
#   bench/variants/without-operations.sh <out-dir> [parts]
# parts (comma-separated, default health,request-id,metrics,compression; none: HEAD as it is):
#   health           the probes' answer in the access log's layer (service.ts's answerProbe option)
#   request-id       req.id and X-Request-Id (access-log.ts's assignRequestId)
#   metrics          the access log's start time and 'finish' listener (with silent logs: only the metrics)
#   compression      the compression middleware (Vary: Accept-Encoding and its head filter)
#   process-metrics  prom-client's default metrics (GC observer, event-loop delay monitor); not per request
# Makes a git worktree of HEAD (or of $REF, e.g. REF=<commit> to build several variants of one commit) in a temp dir, removes those lines (each edit must match, or the
# script fails), builds with tsc, copies dist/ and package.json into <out-dir> with a node_modules
# link to this checkout's, removes the worktree and prints <out-dir>/dist. Build both sides this way
# (parts `none` for the side with everything), run them as peers and compare them with each other:
#   node bench/run.mjs --scenario articles --requests "GET article" --servers roa,without-ops,with-ops \
#     --variant without-ops=roa:<out>/dist --variant with-ops=roa:<out2>/dist --rounds 16 --duration 3 --bracket
#   node bench/variants/compare-runs.mjs with-ops without-ops bench/results/articles-<stamp>.json
set -euo pipefail
out=${1:?usage: without-operations.sh <out-dir> [health,request-id,metrics,compression,process-metrics]}
parts=${2:-health,request-id,metrics,compression}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
tree=$(mktemp -d)/roa
git -C "$root" worktree add --detach --quiet "$tree" "${REF:-HEAD}"
trap 'git -C "$root" worktree remove --force "$tree"; rmdir "$(dirname "$tree")"' EXIT

# drop FILE LINE: removes the line equal to LINE (leading spaces ignored); fails when none is.
drop() {
  node -e '
    const fs = require("node:fs");
    const [file, line] = process.argv.slice(1);
    const lines = fs.readFileSync(file, "utf8").split("\n");
    const kept = lines.filter((l) => l.trim() !== line);
    if (kept.length === lines.length) { console.error(`without-operations: "${line}" not found in ${file}`); process.exit(1); }
    fs.writeFileSync(file, kept.join("\n"));
  ' "$tree/$1" "$2"
}
for part in ${parts//,/ }; do
  case $part in
    none) ;;
    health) drop src/service.ts 'answerProbe: (kind, req, res) => answerProbe(kind, req, res, readiness, probeOptions),' ;;
    request-id) drop src/middleware/access-log.ts 'assignRequestId(req, res);' ;;
    metrics)
      drop src/middleware/access-log.ts 'req.receivedAt = performance.now();'
      drop src/middleware/access-log.ts "res.on('finish', finished);" ;;
    compression) drop src/service.ts 'if (opts.compression !== false) app.use(compression(opts.compression));' ;;
    process-metrics) drop src/metrics/service-metrics.ts 'if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });' ;;
    *) echo "without-operations: unknown part $part" >&2; exit 2 ;;
  esac
done
git -C "$tree" diff --stat >&2

ln -s "$root/node_modules" "$tree/node_modules"
# No declarations: through the node_modules link they would name paths outside the worktree (TS2742).
(cd "$tree" && npx tsc -p tsconfig.build.json --declaration false)
mkdir -p "$out"
rm -rf "$out/dist"
cp -r "$tree/dist" "$out/dist"
cp "$root/package.json" "$out/package.json"
# What was built: the commit and the parts removed.
echo "$(git -C "$tree" rev-parse HEAD) without $parts" > "$out/BUILT"
ln -sfn "$root/node_modules" "$out/node_modules"
echo "$(cd "$out" && pwd)/dist"
