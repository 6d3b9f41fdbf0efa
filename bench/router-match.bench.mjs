#!/usr/bin/env node
/** @module Router alone: lookups per second over the GitHub table, roa (one dispatch through Router#handle) vs find-my-way vs an Express 4 layer scan. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import FindMyWay from 'find-my-way';
import pathToRegexp from 'path-to-regexp';
import { machine } from './lib/proc.mjs';
import { writeSection } from './lib/report.mjs';
import { routes, targets } from './lib/routes.mjs';
import { fmt, median, ratio, spread } from './lib/stats.mjs';

/**
 * roa adapter: the only place that knows roa's router API. roa has no lookup apart from dispatch, so
 * each lookup is one request through `router.handle` on a reused stub req/res: the matching route's
 * handler runs (a hit), or the router hands the request to `out` (a miss). That is the index, the
 * params and the dispatch a real request pays, minus node:http. Works on any build with a `Router`.
 * ROA_DIST=/path/to/dist/index.js benchmarks another build (e.g. main's) instead of ../dist.
 */
async function roaAdapter(options = {}) {
  const dist = process.env.ROA_DIST ? pathToFileURL(process.env.ROA_DIST).href : '../dist/index.js';
  const { Router } = await import(dist);
  const router = Router(options);
  // What dispatch reads and writes on a request; a route that answers never touches res here.
  const params = {};
  const req = { method: 'GET', url: '/', originalUrl: '/', baseUrl: '', params, next: undefined, route: undefined };
  const res = {};
  let hit = false;
  const answered = () => {
    hit = true;
  };
  const out = () => {
    hit = false;
  };
  return {
    add: (method, p) => router[method.toLowerCase()](p, answered),
    lookup(method, p) {
      req.method = method;
      req.url = p;
      req.originalUrl = p;
      // As on a fresh request: otherwise each lookup's `next` would keep the previous one alive.
      req.params = params;
      req.next = undefined;
      hit = false;
      router.handle(req, res, out);
      return hit;
    },
  };
}

/** find-my-way 9: `on` to register, `find` returns { handler, params } or null. */
function findMyWayAdapter() {
  const router = FindMyWay();
  return {
    add: (method, p, handler) => router.on(method, p, handler),
    lookup: (method, p) => router.find(method, p),
  };
}

/**
 * Express 4's matching, reduced to its cost model: one path-to-regexp@0.1.13 regexp per layer, tried in
 * registration order, path first and method second (as Layer.match then Route._handles_method do).
 */
function express4Adapter() {
  const layers = [];
  return {
    add(method, p, handler) {
      const keys = [];
      layers.push({ method, regexp: pathToRegexp(p, keys, { sensitive: false, strict: false, end: true }), keys, handler });
    },
    lookup(method, p) {
      for (const layer of layers) {
        const m = layer.regexp.exec(p);
        if (!m || layer.method !== method) continue;
        const params = {};
        for (let i = 1; i < m.length; i++) params[layer.keys[i - 1].name] = decodeURIComponent(m[i]);
        return { handler: layer.handler, params };
      }
      return undefined;
    },
  };
}

// roa matches case-insensitively by default (Express 4); find-my-way is case-sensitive by
// default, so `roa-cs` (caseSensitive: true) is the like-for-like contestant.
const CONTESTANTS = [
  { name: 'roa', make: () => roaAdapter() },
  { name: 'roa-cs', make: () => roaAdapter({ caseSensitive: true }) },
  { name: 'find-my-way', make: findMyWayAdapter },
  { name: 'express4-scan', make: express4Adapter },
];
const CASES = [
  { name: 'param', method: 'GET', path: targets.param, hit: true },
  { name: 'static', method: 'GET', path: targets.static, hit: true },
  { name: 'miss', method: 'GET', path: targets.miss, hit: false },
];

const USAGE = `usage: node bench/router-match.bench.mjs [--rounds 7] [--sample-ms 200] [--cpu 0] [--write]
  --rounds N      timed samples per router and case, interleaved (default 7)
  --sample-ms MS  target length of one sample; iterations are calibrated to it (default 200)
  --cpu C         re-run pinned to CPU C with taskset
  --write         also replace the router-match section of bench/RESULTS.md`;

const { values: opt } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    'sample-ms': { type: 'string', default: '200' },
    cpu: { type: 'string' },
    write: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opt.help) {
  console.log(USAGE);
  process.exit(0);
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(opt.rounds);
const SAMPLE_MS = Number(opt['sample-ms']);
if (!(ROUNDS >= 1 && SAMPLE_MS >= 10)) {
  console.error(USAGE);
  process.exit(2);
}

if (opt.cpu !== undefined && !process.env.ROA_BENCH_PINNED) {
  const r = spawnSync('taskset', ['-c', opt.cpu, process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ROA_BENCH_PINNED: opt.cpu },
  });
  process.exit(r.status ?? 1);
}

/** Registers GET / and POST /echo, then the table in order, as every server does. */
function build(adapter) {
  const handler = () => {};
  adapter.add('GET', '/', handler);
  adapter.add('POST', '/echo', handler);
  for (const { method, path: p } of routes) adapter.add(method, p, handler);
  return adapter;
}

/** Fails loudly if a router gets a target wrong: a fast wrong answer is not a result. */
function verify(name, adapter) {
  for (const c of CASES) {
    const found = adapter.lookup(c.method, c.path);
    if (Boolean(found) !== c.hit) throw new Error(`${name}: ${c.name} ${c.path} ${c.hit ? 'not found' : 'matched'}`);
  }
}

/**
 * A timing loop of its own per router and case (a separate compiled function), so one router's call
 * site never turns megamorphic because of another's and each loop's inline caches stay monomorphic.
 */
function makeLoop(adapter, c) {
  const loop = new Function('lookup', 'method', 'path', 'n', `
    let hits = 0;
    for (let i = 0; i < n; i++) if (lookup(method, path)) hits++;
    return hits;`);
  const { lookup } = adapter;
  return (n) => loop(lookup, c.method, c.path, n);
}

let sink = 0;

/** Times `n` lookups; returns wall and CPU (user+system) nanoseconds. */
function sample(loop, n) {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  sink += loop(n);
  const wallNs = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(cpu0);
  return { wallNs, cpuNs: (cpu.user + cpu.system) * 1000 };
}

/** Iterations so one sample lasts about SAMPLE_MS (doubling from 1,000, which also warms the JIT). */
function calibrate(loop) {
  let n = 1000;
  for (;;) {
    const { wallNs } = sample(loop, n);
    if (wallNs > 20e6 || n >= 1e8) return Math.max(1000, Math.round((n * SAMPLE_MS * 1e6) / wallNs));
    n *= 2;
  }
}

const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : '—');

async function main() {
  const live = [];
  const skipped = [];
  for (const c of CONTESTANTS) {
    try {
      const adapter = build(await c.make());
      verify(c.name, adapter);
      live.push({ name: c.name, adapter });
    } catch (e) {
      skipped.push(`${c.name}: ${String(e.message ?? e).split('\n')[0]}`);
    }
  }
  for (const s of skipped) console.log(`skipped ${s}`);

  const loops = new Map();
  const iterations = new Map();
  for (const r of live) {
    for (const c of CASES) {
      const loop = makeLoop(r.adapter, c);
      loops.set(`${r.name}/${c.name}`, loop);
      iterations.set(`${r.name}/${c.name}`, calibrate(loop));
    }
  }

  const samples = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate who goes first so slow drifts in machine load are shared out.
    const order = live.map((_, i) => live[(i + round) % live.length]);
    for (const c of CASES) {
      for (const r of order) {
        const n = iterations.get(`${r.name}/${c.name}`);
        const { wallNs, cpuNs } = sample(loops.get(`${r.name}/${c.name}`), n);
        samples.push({ router: r.name, case: c.name, n, opsWall: (n / wallNs) * 1e9, opsCpu: (n / cpuNs) * 1e9 });
      }
    }
    if (process.stderr.isTTY) process.stderr.write(`round ${round + 1}/${ROUNDS}\r`);
  }

  const rows = [];
  for (const c of CASES) {
    for (const r of live) {
      const s = samples.filter((x) => x.router === r.name && x.case === c.name);
      rows.push({
        case: c.name,
        router: r.name,
        opsWall: median(s.map((x) => x.opsWall)),
        opsCpu: median(s.map((x) => x.opsCpu)),
        spread: spread(s.map((x) => x.opsWall)),
        spreadCpu: spread(s.map((x) => x.opsCpu)),
      });
    }
  }

  const m = machine();
  const L = ['## Router match (`bench/router-match.bench.mjs`)', ''];
  L.push('```sh', `node bench/router-match.bench.mjs ${process.argv.slice(2).join(' ')}`.trim(), '```', '');
  L.push(
    `- When: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}; ${ROUNDS} interleaved rounds of ~${SAMPLE_MS} ms per ` +
      `router and case; ${routes.length + 2} routes registered; pinned: ${process.env.ROA_BENCH_PINNED ? `CPU ${process.env.ROA_BENCH_PINNED}` : 'no'}`,
    `- Machine: ${m.cpu}, node ${m.node}; load average ${m.load}`,
    '- express4-scan: Express 4 cost model (path-to-regexp 0.1.13 regexp per layer, tried in order), the baseline.',
    '- roa, roa-cs: one request per lookup through `Router#handle` on stub req/res (index, params, dispatch to the route handler).',
    '',
  );
  if (skipped.length) L.push(...skipped.map((s) => `- Not run: ${s}`), '');
  L.push('| case | router | lookups/s (wall) | ns/lookup | lookups/s (CPU) | CPU ns/lookup | spread wall / CPU |');
  L.push('|---|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    L.push(
      `| ${r.case} | ${r.router} | ${fmt(r.opsWall)} | ${fmt(1e9 / r.opsWall, 1)} | ${fmt(r.opsCpu)} | ` +
        `${fmt(1e9 / r.opsCpu, 1)} | ${pct(r.spread)} / ${pct(r.spreadCpu)} |`,
    );
  }
  L.push('', 'Ratios: roa lookups/s ÷ peer lookups/s (> 1: roa faster), wall and CPU.', '');
  const peers = live.map((r) => r.name).filter((n) => n !== 'roa');
  L.push(`| case | ${peers.map((p) => `roa/${p} wall | roa/${p} CPU`).join(' | ')} |`);
  L.push(`|---|${peers.map(() => '---:|---:').join('|')}|`);
  for (const c of CASES) {
    const get = (n) => rows.find((r) => r.case === c.name && r.router === n) ?? {};
    const roa = get('roa');
    L.push(`| ${c.name} | ${peers.map((p) => `${ratio(roa.opsWall, get(p).opsWall)} | ${ratio(roa.opsCpu, get(p).opsCpu)}`).join(' | ')} |`);
  }
  const report = `${L.join('\n')}\n`;
  console.log(`\n${report}`);
  mkdirSync(path.join(HERE, 'results'), { recursive: true });
  writeFileSync(path.join(HERE, 'results', 'router-latest.md'), report);
  writeFileSync(path.join(HERE, 'results', 'router-latest.json'), JSON.stringify({ rows, samples }, null, 1));
  if (opt.write) {
    writeSection(path.join(HERE, 'RESULTS.md'), 'router-match', report);
    console.log('bench/RESULTS.md updated');
  }
  if (sink < 0) console.log(sink);
}

main().catch((e) => {
  console.error(e.message ?? e);
  process.exit(1);
});
