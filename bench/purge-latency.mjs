#!/usr/bin/env node
/**
 * @module Write latency with purging (issue 5): p50/p99 of PUT /articles/{slug} with purging off, one cache node
 * (the embedded gateway) and two (embedded gateway + a second gateway, or + varnishd). Server (and its caches)
 * pinned to one CPU, a closed-loop Node client (bench/lib/latency-client.mjs) with fixed concurrency on the other.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { clockTicks, cpuTicks, machine, treeTicks } from './lib/proc.mjs';
import { startServer } from './lib/server.mjs';
import { writeSection } from './lib/report.mjs';
import { fmt, median, spread } from './lib/stats.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROA = path.join(HERE, 'servers/articles-roa.mjs');
const CLIENT = path.join(HERE, 'lib/latency-client.mjs');

/** What each configuration runs; every cache node is purged after each write (read-your-writes). */
const CONFIGS = [
  { name: 'off', nodes: 0, about: 'service only, no cache, no purger', env: {} },
  { name: 'gateway', nodes: 1, about: 'embedded gateway (roa serve)', env: { BENCH_GATEWAY: '1' } },
  { name: 'gateway+gateway', nodes: 2, about: 'embedded gateway + a second gateway in the same process', env: { BENCH_GATEWAY: '1', BENCH_GATEWAY2: '1' } },
  { name: 'gateway+varnish', nodes: 2, about: 'embedded gateway + varnishd (roa.vcl), pinned with the service', env: { BENCH_GATEWAY: '1', BENCH_VARNISH: '1' } },
];

const USAGE = `usage: node bench/purge-latency.mjs [options]
  --rounds N        interleaved rounds (default 2)
  --duration S      measured seconds per run (default 5)
  --warmup S        warm-up seconds per run (default 1)
  --concurrency N   client workers, one slug each (default 10)
  --configs a,b     only these (${CONFIGS.map((c) => c.name).join(', ')})
  --server-cpu C    CPU for the server and its caches (default 0)
  --client-cpu C    CPU for the client (default 1)
  --wait-quiet S    wait up to S s before each run for both CPUs to be < 25% busy (default 0)
  --write           replace the purge-latency section of bench/RESULTS.md`;

const { values: opt } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '10' },
    configs: { type: 'string' },
    'server-cpu': { type: 'string', default: '0' },
    'client-cpu': { type: 'string', default: '1' },
    'wait-quiet': { type: 'string', default: '0' },
    write: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opt.help) {
  console.log(USAGE);
  process.exit(0);
}
const cfg = {
  rounds: Number(opt.rounds),
  duration: Number(opt.duration),
  warmup: Number(opt.warmup),
  concurrency: Number(opt.concurrency),
  serverCpu: opt['server-cpu'],
  clientCpu: opt['client-cpu'],
  waitQuiet: Number(opt['wait-quiet']),
};
const only = opt.configs?.split(',').map((s) => s.trim());
const configs = CONFIGS.filter((c) => !only || only.includes(c.name));
if (!configs.length) throw new Error(`no such config: ${opt.configs}`);

async function waitQuiet() {
  const until = Date.now() + cfg.waitQuiet * 1000;
  for (;;) {
    const a = [cfg.serverCpu, cfg.clientCpu].map(cpuTicks);
    await sleep(700);
    const b = [cfg.serverCpu, cfg.clientCpu].map(cpuTicks);
    const share = b.reduce((n, x, i) => n + x.busy - a[i].busy, 0) / Math.max(1, b.reduce((n, x, i) => n + x.total - a[i].total, 0));
    if (share < 0.25 || Date.now() > until) return share;
  }
}

/** Runs the client pinned to the client CPU; charges the server tree's CPU over the client's measured window. */
function runClient(port, serverPid) {
  return new Promise((resolve, reject) => {
    const args = [CLIENT, '--port', String(port), '--concurrency', String(cfg.concurrency), '--duration', String(cfg.duration), '--warmup', String(cfg.warmup)];
    const child = spawn('taskset', ['-c', cfg.clientCpu, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), (cfg.duration + cfg.warmup + 20) * 1000);
    let out = '';
    let err = '';
    let t0;
    let c0;
    child.stdout.on('data', (d) => {
      out += d;
      if (t0 === undefined && /^window /m.test(out)) {
        t0 = treeTicks(serverPid);
        c0 = cpuTicks(cfg.serverCpu);
      }
    });
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      clearTimeout(killer);
      const t1 = treeTicks(serverPid);
      const c1 = cpuTicks(cfg.serverCpu);
      const line = out.trim().split('\n').at(-1);
      if (code !== 0 || t0 === undefined || !line?.startsWith('{')) return reject(new Error(`client exited ${code}: ${err || out}`));
      const r = JSON.parse(line);
      const serverS = (t1 - t0) / clockTicks();
      const total = c1.total - c0.total;
      resolve({
        ...r,
        cpuUsPerReq: r.requests ? (serverS * 1e6) / r.requests : NaN,
        cpuPct: (serverS / r.wallS) * 100,
        otherPct: total > 0 ? (Math.max(0, c1.busy - c0.busy - (t1 - t0)) / total) * 100 : NaN,
      });
    });
  });
}

async function measure(config, round) {
  const base = { config: config.name, round };
  let srv;
  try {
    srv = await startServer({ name: config.name, cmd: process.execPath, args: [ROA], env: { ...config.env, BENCH_FRONT: 'service' } }, { cpu: cfg.serverCpu });
  } catch (e) {
    return { ...base, error: String(e.message ?? e) };
  }
  try {
    return { ...base, ...(await runClient(srv.port, srv.pid)) };
  } catch (e) {
    return { ...base, error: String(e.message ?? e) };
  } finally {
    await srv.stop();
  }
}

function render(meta, runs) {
  const L = ['## Purge write latency (`bench/purge-latency.mjs`)', ''];
  L.push('```sh', meta.command, '```', '');
  L.push(
    `- When: ${meta.started} (${meta.git}); ${meta.rounds} interleaved rounds × ${meta.duration} s after ${meta.warmup} s warm-up; ` +
      `closed loop, ${meta.concurrency} workers (node:http keep-alive), each PUTting its own slug with content alternating ` +
      'between two versions, Basic as the editor (verification cached); a fresh server per run',
    `- Pinning: service and its cache nodes on CPU ${meta.serverCpu}, client on CPU ${meta.clientCpu}`,
    `- Machine: ${meta.machine.cpu}, ${meta.machine.kernel}, node ${meta.machine.node}; load ${meta.loadBefore} before, ${meta.loadAfter} after`,
    '- Purger defaults as `roa serve` runs it: the embedded gateway is invalidated in process; each other node gets one ' +
      'batch of PURGEs per event-loop turn (each URL once, every tag in one xkey request) and each write waits for its ' +
      "batch's answer (bounded by purgeTimeoutMs 2000); the tags are purged again 1 s later (purgeDelayMs 1000). Nothing " +
      'reads through the caches here, so purges find no entry: this is the cost of the round trips.',
    '',
    '| purging | nodes | PUT/s | p50 ms | p90 ms | p99 ms | CPU µs/PUT | server CPU | other CPU0 | runs | notes |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  );
  const offP50 = median(runs.filter((r) => r.config === 'off' && !r.error).map((r) => r.p50Ms));
  for (const c of CONFIGS.filter((x) => meta.configs.includes(x.name))) {
    const rs = runs.filter((r) => r.config === c.name);
    const ok = rs.filter((r) => !r.error);
    const m = (k) => median(ok.map((r) => r[k]));
    const notes = [];
    const unsat = ok.filter((r) => r.cpuPct < 90).length;
    if (unsat) notes.push(`${unsat}/${ok.length} server < 90% busy`);
    const bad = ok.reduce((a, r) => a + r.requests - r.ok, 0);
    if (bad) notes.push(`${bad} non-2xx`);
    const sp = spread(ok.map((r) => r.rps));
    if (Number.isFinite(sp) && sp > 0.1) notes.push(`PUT/s spread ${(sp * 100).toFixed(0)}%`);
    if (rs.length > ok.length) notes.push(`failed: ${rs.find((r) => r.error).error.split('\n')[0].slice(0, 80)}`);
    L.push(
      `| ${c.name} — ${c.about} | ${c.nodes} | ${fmt(m('rps'))} | ${fmt(m('p50Ms'), 2)} | ${fmt(m('p90Ms'), 2)} | ${fmt(m('p99Ms'), 2)} | ` +
        `${fmt(m('cpuUsPerReq'), 1)} | ${fmt(m('cpuPct'))}% | ${fmt(m('otherPct'))}% | ${ok.length} | ${notes.join('; ')} |`,
    );
  }
  if (Number.isFinite(offP50)) L.push('', `p50 relative to purging off: ${configs.map((c) => `${c.name} ${(median(runs.filter((r) => r.config === c.name && !r.error).map((r) => r.p50Ms)) / offP50).toFixed(2)}×`).join(', ')}.`);
  L.push('');
  return L.join('\n');
}

async function main() {
  const { execFileSync } = await import('node:child_process');
  let git = 'no git';
  try {
    git = execFileSync('git', ['-C', path.dirname(HERE), 'describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: the report says so
  }
  const meta = {
    command: `node bench/purge-latency.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    started: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    git,
    machine: machine(),
    loadBefore: machine().load,
    configs: configs.map((c) => c.name),
    ...cfg,
  };
  const runs = [];
  for (let round = 1; round <= cfg.rounds; round++) {
    const k = (round - 1) % configs.length;
    for (const c of [...configs.slice(k), ...configs.slice(0, k)]) {
      if (cfg.waitQuiet) await waitQuiet();
      const r = await measure(c, round);
      runs.push(r);
      console.log(
        `[r${round}] ${c.name.padEnd(16)} ` +
          (r.error ? `error: ${r.error.split('\n')[0]}` : `${fmt(r.rps)} PUT/s  p50 ${fmt(r.p50Ms, 2)}  p99 ${fmt(r.p99Ms, 2)} ms  ${fmt(r.cpuUsPerReq, 1)} µs/PUT  cpu ${fmt(r.cpuPct)}%  ${JSON.stringify(r.statuses)}`),
      );
    }
  }
  meta.loadAfter = machine().load;
  const md = render(meta, runs);
  console.log(`\n${md}`);
  const dir = path.join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `purge-latency-${meta.started.replace(/:/g, '-')}.json`), JSON.stringify({ meta, runs }, null, 1));
  if (opt.write) {
    writeSection(path.join(HERE, 'RESULTS.md'), 'purge-latency', md);
    console.log('bench/RESULTS.md updated');
  }
}

main().catch((e) => {
  console.error(e.message ?? e);
  process.exit(1);
});
