#!/usr/bin/env node
/** @module End-to-end HTTP benchmark harness: runs a scenario's servers interleaved under wrk and reports medians. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { measure } from './lib/measure.mjs';
import { cpuTicks, machine } from './lib/proc.mjs';
import { SATURATED_PCT, renderRuns, renderScenario, writeSection } from './lib/report.mjs';
import { killServers } from './lib/server.mjs';
import { killH2load } from './lib/h2load.mjs';
import { killWrk, writeScript } from './lib/wrk.mjs';

/**
 * @typedef {{ headers?: Record<string, string> | (() => Record<string, string>), script?: (phase: 'warmup' | 'window', seconds: number, o: { threads: number, rate?: number }) => string | Promise<string> }} Prepared
 * @typedef {(ctx: { port: number, server: string, request: RequestDef }) => Promise<Prepared | void>} Prepare
 * @typedef {{ name: string, cmd: string, args?: string[], env?: Record<string, string>, cwd?: string, prepare?: Prepare, forRequest?: (request: RequestDef) => Partial<ServerDef> | void }} ServerDef
 * @typedef {{ status?: number, body?: string, json?: unknown, headers?: Record<string, string> }} Expect
 * @typedef {{ name: string, method: string, path: string, body?: string, headers?: Record<string, string>, expect?: Expect, prepare?: Prepare, protocol?: 'http' | 'https' | 'h2', servers?: string[] }} RequestDef
 *   `servers`: only these servers of the scenario serve this request (e.g. a page only roa implements); default all.
 * @typedef {{ name: string, description?: string, subject: string, peers?: string[], baseline?: string, servers: ServerDef[], requests: RequestDef[], ca?: Buffer }} Scenario
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(HERE);
const RESULTS_DIR = path.join(HERE, 'results');

const USAGE = `usage: node bench/run.mjs [options]
  --scenario NAME      scenario module in bench/scenarios/ (default routing)
  --rounds N           interleaved rounds (default 2, at least 2 recommended)
  --duration S         measured seconds per run (integer, default 5)
  --warmup S           warm-up seconds per run, not counted (integer, default 1)
  --connections N      wrk connections (default 50)
  --threads N          wrk threads (default 1; h2load's too)
  --h2-clients N       h2load connections for HTTP/2 requests (default 16)
  --h2-streams N       h2load concurrent streams per connection (default 10)
  --servers a,b        only these servers (default: all in the scenario)
  --requests x,y       only requests whose name contains one of these
  --subject NAME       server the ratios are taken against (default: the scenario's)
  --server-cpu C       CPU for the server (default 0)
  --wrk-cpu C          CPU for wrk (default 1)
  --no-pin             do not use taskset
  --retry N            re-run a not-saturated run up to N times, keeping the last (default 1);
                       retries switch off after 3 retried runs in a row stay starved (machine busy)
  --wait-quiet S       before each run wait up to S s for the two CPUs to be < 25% busy (default 0: off)
  --write              also replace this scenario's section in bench/RESULTS.md
  --from a.json,b.json re-render (and merge) saved runs instead of measuring
  --bracket            run the baseline (or the subject) before every other server and after the last,
                       and pair each run with the two baseline runs around it: seconds apart, so a
                       machine whose speed drifts over minutes still gives tight paired ratios
  --variant N=S:DIR    also run server S of the scenario as N, loading roa from another build's dist
                       directory DIR (repeatable; an A/B of two builds, interleaved like peers;
                       not with --write)
  --fast-paths S[=V]   also run server S of the scenario with ROA_FAST_PATHS=V, named S-nofast (V 0)
                       or S-no-<trick> (V -<trick>[,-<trick>]); without =V, four copies: all fast
                       paths off and each trick off alone (repeatable; interleaved like peers)`;

const { values: opt } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'routing' },
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    threads: { type: 'string', default: '1' },
    'h2-clients': { type: 'string', default: '16' },
    'h2-streams': { type: 'string', default: '10' },
    servers: { type: 'string' },
    requests: { type: 'string' },
    subject: { type: 'string' },
    'server-cpu': { type: 'string', default: '0' },
    'wrk-cpu': { type: 'string', default: '1' },
    'no-pin': { type: 'boolean', default: false },
    retry: { type: 'string', default: '1' },
    'wait-quiet': { type: 'string', default: '0' },
    write: { type: 'boolean', default: false },
    from: { type: 'string' },
    variant: { type: 'string', multiple: true, default: [] },
    'fast-paths': { type: 'string', multiple: true, default: [] },
    bracket: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opt.help) {
  console.log(USAGE);
  process.exit(0);
}

function posInt(name, min = 1) {
  const n = Number(opt[name]);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer >= ${min} (wrk takes whole seconds)\n\n${USAGE}`);
    process.exit(2);
  }
  return n;
}
const list = (s) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : undefined);

/**
 * --variant NAME=SERVER:DIR: a copy of the scenario's node server SERVER named NAME whose roa comes from
 * DIR (another build's dist directory, through ROA_DIST; see lib/roa-dist.mjs). Appended to the peers.
 * @param {Scenario} scenario
 */
function withVariants(scenario, specs) {
  if (!specs.length) return scenario;
  if (opt.write) throw new Error('--variant runs are comparisons of builds: they are not written to bench/RESULTS.md');
  const variants = specs.map((spec) => {
    const m = /^([\w.-]+)=([\w.-]+):(.+)$/.exec(spec);
    if (!m) throw new Error(`--variant ${spec}: expected NAME=SERVER:DIST_DIR`);
    const [, name, base, dir] = m;
    const server = scenario.servers.find((s) => s.name === base);
    if (!server) throw new Error(`--variant ${spec}: no server "${base}" in scenario ${scenario.name}`);
    if (server.cmd !== process.execPath) throw new Error(`--variant ${spec}: "${base}" is not a node server of this repository`);
    if (scenario.servers.some((s) => s.name === name)) throw new Error(`--variant ${spec}: a server is already named "${name}"`);
    const dist = path.resolve(dir, 'index.js');
    if (!existsSync(dist)) throw new Error(`--variant ${spec}: ${dist} not found (build that tree first)`);
    return { ...server, name, env: { ...server.env, ROA_DIST: dist } };
  });
  return {
    ...scenario,
    servers: [...scenario.servers, ...variants],
    peers: [...(scenario.peers ?? []), ...variants.map((v) => v.name)],
  };
}

/** The tricks of src/http/fast-paths, each turned off alone by `--fast-paths SERVER`. */
const FAST_PATH_NAMES = ['incomingMessage', 'outHeaders', 'turnFlush'];

/**
 * --fast-paths SERVER[=VALUE]: copies of the scenario's node server SERVER run with ROA_FAST_PATHS
 * set (src/http/fast-paths): VALUE 0 is all tricks off, -turnFlush one off; without a value, all off
 * and each off alone. The same build, so unlike --variant they may be written to RESULTS.md.
 * @param {Scenario} scenario
 */
function withFastPaths(scenario, specs) {
  if (!specs.length) return scenario;
  const copies = specs.flatMap((spec) => {
    const m = /^([\w.-]+)(?:=(.*))?$/.exec(spec);
    if (!m) throw new Error(`--fast-paths ${spec}: expected SERVER or SERVER=VALUE`);
    const [, base, value] = m;
    const server = scenario.servers.find((s) => s.name === base);
    if (!server) throw new Error(`--fast-paths ${spec}: no server "${base}" in scenario ${scenario.name}`);
    // Only roa's own servers (servers/roa.mjs, servers/articles-roa.mjs, and express.mjs run on roa/express) read ROA_FAST_PATHS.
    const onRoa = (server.args ?? []).some((a) => /(^|[/-])roa\.mjs$/.test(a)) || server.env?.BENCH_EXPRESS === 'roa';
    if (server.cmd !== process.execPath || !onRoa) {
      throw new Error(`--fast-paths ${spec}: "${base}" is not one of roa's servers (bench/servers/*roa.mjs)`);
    }
    const values = value === undefined ? ['0', ...FAST_PATH_NAMES.map((n) => `-${n}`)] : [value];
    return values.map((v) => {
      const names = v === '0' ? [] : v.split(',').map((x) => x.trim().replace(/^-/, ''));
      if (v !== '0' && !v.split(',').every((x) => /^-\w+$/.test(x.trim()) && FAST_PATH_NAMES.includes(x.trim().slice(1)))) {
        throw new Error(`--fast-paths ${spec}: the value is 0 or a list like -turnFlush,-outHeaders of ${FAST_PATH_NAMES.join(', ')}`);
      }
      const name = v === '0' ? `${base}-nofast` : `${base}-no-${names.join('-')}`;
      if (scenario.servers.some((s) => s.name === name)) throw new Error(`--fast-paths ${spec}: a server is already named "${name}"`);
      return { ...server, name, env: { ...server.env, ROA_FAST_PATHS: v } };
    });
  });
  const names = copies.map((c) => c.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new Error(`--fast-paths: "${twice}" asked for twice`);
  return {
    ...scenario,
    servers: [...scenario.servers, ...copies],
    peers: [...(scenario.peers ?? []), ...names],
  };
}

/** Busy share of both benchmark CPUs over `ms`. */
async function busyShare(cpus, ms) {
  const a = cpus.map(cpuTicks);
  await sleep(ms);
  const b = cpus.map(cpuTicks);
  const busy = b.reduce((n, x, i) => n + x.busy - a[i].busy, 0);
  const total = b.reduce((n, x, i) => n + x.total - a[i].total, 0);
  return total > 0 ? busy / total : 0;
}

/** Waits (at most `seconds`) for other processes to leave the benchmark CPUs mostly idle. */
async function waitQuiet(cfg) {
  const until = Date.now() + cfg.waitQuiet * 1000;
  let share = await busyShare([cfg.serverCpu, cfg.wrkCpu], 500);
  while (share > 0.25 && Date.now() < until) share = await busyShare([cfg.serverCpu, cfg.wrkCpu], 1000);
  return share;
}

function tool(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) return undefined;
  return `${r.stdout}${r.stderr}`.split('\n')[0].trim();
}

function gitDescribe() {
  try {
    return execFileSync('git', ['-C', ROOT, 'describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'no git';
  }
}

function output(meta, runs) {
  const report = renderScenario(meta, runs);
  console.log(`\n${report}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, 'latest.md'), `${report}\n${renderRuns(runs)}`);
  if (opt.write) {
    writeSection(path.join(HERE, 'RESULTS.md'), `scenario:${meta.scenario}`, report);
    console.log('bench/RESULTS.md updated');
  }
  console.log(`wrote ${path.relative(process.cwd(), path.join(RESULTS_DIR, 'latest.md'))}`);
}

/** --from: merge saved runs (same scenario) and re-render without measuring. */
function rerender(files) {
  const saved = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
  const meta = { ...saved[0].meta };
  const runs = [];
  // Runs of different files are never neighbours: each file's sequence gets its own range.
  saved.forEach((s, i) => runs.push(...s.runs.map((r) => ({ ...r, round: `${i + 1}.${r.round}`, seq: Number.isFinite(r.seq) ? i * 1e6 + r.seq : undefined }))));
  meta.rounds = saved.reduce((a, s) => a + s.meta.rounds, 0);
  const how = files.length > 1 ? 'merged' : 're-rendered';
  meta.command = `${saved.map((s) => s.meta.command).join('\n')}\n# ${how}: node bench/run.mjs --from ${files.join(',')}`;
  meta.loadAfter = saved.at(-1).meta.loadAfter;
  output(meta, runs);
}

async function main() {
  if (opt.from) return rerender(list(opt.from));

  /** @type {Scenario} */
  const scenario = withFastPaths(withVariants((await import(`./scenarios/${opt.scenario}.mjs`)).default, opt.variant), opt['fast-paths']);
  const cfg = {
    rounds: posInt('rounds'),
    duration: posInt('duration'),
    warmup: posInt('warmup', 0),
    connections: posInt('connections'),
    threads: posInt('threads'),
    h2Clients: posInt('h2-clients'),
    h2Streams: posInt('h2-streams'),
    // The TLS scenario's throwaway CA: the sanity checks verify the servers' certificate against it.
    ca: scenario.ca,
    retry: posInt('retry', 0),
    waitQuiet: posInt('wait-quiet', 0),
    serverCpu: opt['server-cpu'],
    wrkCpu: opt['wrk-cpu'],
    pinned: !opt['no-pin'],
    scripts: new Map(),
  };
  const onlyServers = list(opt.servers);
  const onlyRequests = list(opt.requests)?.map((s) => s.toLowerCase());
  const servers = scenario.servers.filter((s) => !onlyServers || onlyServers.includes(s.name));
  const requests = scenario.requests.filter(
    (r) => !onlyRequests || onlyRequests.some((q) => r.name.toLowerCase().includes(q)),
  );
  if (!servers.length || !requests.length) throw new Error('nothing to run: check --servers / --requests');
  const wrkVersion = tool('wrk', ['--version']);
  if (!wrkVersion?.startsWith('wrk')) throw new Error('wrk not found: apt-get install -y wrk');
  if (cfg.pinned && !tool('taskset', ['-V'])) throw new Error('taskset not found (util-linux); or pass --no-pin');
  const h2 = requests.some((r) => r.protocol === 'h2');
  const h2loadVersion = h2 ? tool('h2load', ['--version']) : undefined;
  if (h2 && !h2loadVersion?.startsWith('h2load')) throw new Error('h2load not found: apt-get install -y nghttp2-client');
  for (const r of requests) cfg.scripts.set(r.name, writeScript(r));

  const subject = opt.subject ?? scenario.subject;
  const meta = {
    scenario: scenario.name,
    description: scenario.description ?? '',
    command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    started: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    git: gitDescribe(),
    machine: machine(),
    wrk: wrkVersion.split(' ').slice(0, 2).join(' '),
    ...(h2 ? { h2load: { version: h2loadVersion.replace(/^h2load\s+/, ''), clients: cfg.h2Clients, streams: cfg.h2Streams } } : {}),
    loadBefore: machine().load,
    subject,
    peers: scenario.peers,
    baseline: scenario.baseline,
    retry: cfg.retry,
    servers: servers.map((s) => s.name),
    requests: requests.map((r) => r.name),
    requestDefs: Object.fromEntries(requests.map((r) => [r.name, { method: r.method, path: r.path, ...(r.protocol ? { protocol: r.protocol } : {}) }])),
    ...Object.fromEntries(['rounds', 'duration', 'warmup', 'connections', 'threads', 'serverCpu', 'wrkCpu', 'pinned'].map((k) => [k, cfg[k]])),
  };

  // --bracket: the server every ratio is taken against runs around each of the others.
  const bracket = opt.bracket ? servers.find((s) => s.name === (scenario.baseline ?? subject)) : undefined;
  if (opt.bracket && !bracket) throw new Error(`--bracket: the baseline ${scenario.baseline ?? subject} is not among the servers run`);
  if (bracket) meta.bracket = bracket.name;
  const others = servers.filter((s) => s !== bracket);
  const runsPerRound = bracket ? 2 * others.length + 1 : servers.length;

  const perRun = cfg.warmup + cfg.duration + 1;
  const total = requests.length * cfg.rounds * runsPerRound * perRun;
  console.log(
    `scenario ${scenario.name}: ${requests.length} requests × ${cfg.rounds} rounds × ${servers.length} servers` +
      `${bracket ? ` (${runsPerRound} runs a round, bracketed by ${bracket.name})` : ''} ` +
      `≈ ${Math.ceil(total / 60)} min (load ${meta.loadBefore})`,
  );

  const runs = [];
  const broken = new Map();
  let starvedRetries = 0;
  let seq = 0;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const saved = path.join(RESULTS_DIR, `${scenario.name}-${meta.started.replace(/:/g, '-')}.json`);
  // Saved after every run, so an interrupted session still leaves something to merge with --from.
  const save = () => writeFileSync(saved, JSON.stringify({ meta, runs }, null, 1));
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      killWrk();
      killH2load();
      killServers();
      meta.loadAfter = machine().load;
      meta.rounds = Math.max(0, ...runs.map((r) => r.round));
      save();
      console.error(`\ninterrupted: ${runs.length} runs saved in ${path.relative(process.cwd(), saved)}`);
      process.exit(130);
    });
  }
  for (const req of requests) {
    for (let round = 1; round <= cfg.rounds; round++) {
      // Rotate the start of each round so slow drifts in machine load do not always hit the same server.
      // `others` is every server when there is no bracket.
      const k = (round - 1) % others.length;
      const rotated = [...others.slice(k), ...others.slice(0, k)];
      const order = bracket ? [bracket, ...rotated.flatMap((s) => [s, bracket])] : rotated;
      for (const server of order) {
        if (req.servers && !req.servers.includes(server.name)) continue;
        if (broken.has(server.name)) {
          runs.push({ request: req.name, server: server.name, round, error: broken.get(server.name) });
          continue;
        }
        if (cfg.waitQuiet) {
          const share = await waitQuiet(cfg);
          if (share > 0.25) console.log(`  CPUs still ${(share * 100).toFixed(0)}% busy after ${cfg.waitQuiet} s; running anyway`);
        }
        let r = await measure(server, req, round, cfg);
        // A run starved by other processes says little about req/s; measure it again, keep the evidence.
        for (let i = 0; i < cfg.retry && starvedRetries < 3 && !r.error && r.cpuPct < SATURATED_PCT; i++) {
          console.log(`[${req.name} r${round}] ${server.name.padEnd(8)} not saturated (${r.cpuPct.toFixed(0)}%), retrying`);
          runs.push({ ...r, discarded: true });
          r = await measure(server, req, round, cfg);
          starvedRetries = r.cpuPct < SATURATED_PCT ? starvedRetries + 1 : 0;
          if (starvedRetries === 3) console.log('  3 retried runs in a row stayed starved: machine busy, retries off');
        }
        // The order of runs, for pairing a run with the bracket's runs around it.
        runs.push({ ...r, seq: seq++ });
        save();
        if (r.startFailed) broken.set(server.name, r.error);
        const line = r.error
          ? `error: ${r.error.split('\n').slice(0, 3).join(' | ')}`
          : `${Math.round(r.rps)} req/s  ${Number.isFinite(r.p99Ms) ? `p99 ${r.p99Ms.toFixed(2)}` : `mean ${r.meanMs?.toFixed(2)}`} ms  ${r.cpuUsPerReq.toFixed(1)} µs/req  ` +
            `cpu ${r.cpuPct.toFixed(0)}%  other ${Number.isFinite(r.otherPct) ? r.otherPct.toFixed(0) : '-'}%` +
            (r.non2xx ? `  non-2xx ${r.non2xx}` : '');
        console.log(`[${req.name} r${round}] ${server.name.padEnd(8)} ${line}`);
        await sleep(200);
      }
    }
  }
  meta.loadAfter = machine().load;

  save();
  writeFileSync(path.join(RESULTS_DIR, 'latest.json'), JSON.stringify({ meta, runs }, null, 1));
  output(meta, runs);
}

main().catch((e) => {
  console.error(e.message ?? e);
  process.exit(1);
});
