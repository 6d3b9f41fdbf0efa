/** @module One measured run: fresh server, sanity check, warm-up, wrk window with /proc CPU accounting, stop. */
import { isDeepStrictEqual } from 'node:util';
import { clockTicks, cpuTicks, processTicks, treeTicks } from './proc.mjs';
import { startServer } from './server.mjs';
import { runH2load } from './h2load.mjs';
import { probe } from './probe.mjs';
import { runWrk, writeScript } from './wrk.mjs';

/**
 * Checks one response against the request's expectation, over the request's protocol (plain HTTP, HTTPS or
 * HTTP/2, verified against the run's CA); returns `{ bad }`, an error message, or `{ tls }`, what was negotiated.
 */
async function check(port, req, cfg) {
  const res = await probe(port, req, { protocol: req.protocol, ca: cfg.ca });
  const { text } = res;
  const e = req.expect ?? {};
  if (res.status !== (e.status ?? 200)) return { bad: `status ${res.status}, expected ${e.status ?? 200}: ${text.slice(0, 100)}` };
  if (req.protocol === 'h2' && res.tls?.alpn !== 'h2') return { bad: `ALPN ${res.tls?.alpn}, expected h2` };
  // A list accepts any of its values (e.g. a build from before a header changed, run with --variant).
  for (const [name, value] of Object.entries(e.headers ?? {})) {
    if (![value].flat().includes(res.header(name))) return { bad: `${name}: ${res.header(name)}, expected ${[value].flat().join(' or ')}` };
  }
  if (e.body !== undefined && text !== e.body) return { bad: `body ${JSON.stringify(text.slice(0, 100))}, expected ${JSON.stringify(e.body)}` };
  if (e.json !== undefined) {
    let got;
    try {
      got = JSON.parse(text);
    } catch {
      return { bad: `not JSON: ${text.slice(0, 100)}` };
    }
    if (!isDeepStrictEqual(got, e.json)) return { bad: `JSON ${text.slice(0, 100)} differs from expected` };
  }
  return { tls: res.tls };
}

/**
 * The load client of one window: wrk for plain HTTP and HTTPS (HTTP/1.1 keep-alive), h2load for HTTP/2
 * (`--h2-clients` connections × `--h2-streams` concurrent streams each).
 */
function loadWindow(req, cfg, o) {
  if (req.protocol === 'h2') return runH2load({ url: o.url, duration: o.duration, clients: cfg.h2Clients, streams: cfg.h2Streams, threads: cfg.threads, cpu: o.cpu });
  return runWrk({ url: o.url, script: o.script, duration: o.duration, connections: cfg.connections, threads: cfg.threads, cpu: o.cpu });
}

/** The `tls-negotiated {json}` line a TLS bench server prints on exit (lib/tls-server.mjs), parsed. */
function negotiatedTally(stderr) {
  const m = /^tls-negotiated (\{.*\})$/m.exec(stderr);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]);
  } catch {
    return undefined;
  }
}

/** The server definition for one request: a `forRequest(request)` hook may pick its script and add environment. */
export function serverFor(server, req) {
  if (!server.forRequest) return server;
  const over = server.forRequest(req) ?? {};
  return { ...server, ...over, env: { ...server.env, ...over.env } };
}

/**
 * The request as this run sends it. A `prepare({ port, server, request })` hook of the server (else of the
 * request), optional, runs once per fresh server before the sanity check: it may warm a cache and check it
 * hits, fetch a token (→ `headers`, which replace the request's), change the sanity check's `expect`, or supply `script(phase, seconds, { threads, rate })` giving a wrk script per
 * window (e.g. a feed of signed requests, each nonce used once; `rate`: the warm-up's req/s, for the window). A hook that throws fails the run.
 */
async function prepared(req, srv, server, cfg) {
  const hook = server.prepare ?? req.prepare;
  const run = hook ? (await hook({ port: srv.port, server: server.name, request: req })) ?? {} : {};
  // A hook may also change what the sanity check expects (a server variant asking for another representation).
  const live = run.headers || run.expect ? { ...req, ...(run.headers ? { headers: run.headers } : {}), ...(run.expect ? { expect: run.expect } : {}) } : req;
  let fixed;
  const script = async (phase, seconds, rate) => {
    if (run.script) return run.script(phase, seconds, { threads: cfg.threads, rate });
    if (!run.headers) return cfg.scripts.get(req.name);
    fixed ??= writeScript({ ...live, headers: typeof live.headers === 'function' ? live.headers() : live.headers }, 'run');
    return fixed;
  };
  return { live, script };
}

function safeTicks(pid) {
  try {
    return processTicks(pid);
  } catch {
    return 0;
  }
}

/** One measured run: fresh server, sanity check, warm-up, measured window with CPU accounting, stop. */
export async function measure(scenarioServer, req, round, cfg) {
  const server = serverFor(scenarioServer, req);
  const base = { request: req.name, server: server.name, round };
  let srv;
  try {
    srv = await startServer(server, { cpu: cfg.pinned ? cfg.serverCpu : undefined });
  } catch (e) {
    return { ...base, error: String(e.message ?? e), startFailed: true };
  }
  let result;
  try {
    result = await measureStarted(srv, server, req, cfg, base);
  } finally {
    await srv.stop();
  }
  // A TLS server says on exit what every connection of the run negotiated (the load client's included).
  const tally = negotiatedTally(srv.stderr());
  if (result.tls && tally) result.tls.server = tally;
  return result;
}

async function measureStarted(srv, server, req, cfg, base) {
  try {
    let live;
    let script;
    try {
      ({ live, script } = await prepared(req, srv, server, cfg));
    } catch (e) {
      return { ...base, error: `prepare: ${e.message ?? e}` };
    }
    const { bad, tls } = await check(srv.port, live, cfg);
    if (bad) return { ...base, error: `sanity check: ${bad}` };
    const url = `${req.protocol && req.protocol !== 'http' ? 'https' : 'http'}://127.0.0.1:${srv.port}${req.path}`;
    const wrkCpu = cfg.pinned ? cfg.wrkCpu : undefined;
    const warm = cfg.warmup > 0 ? await loadWindow(req, cfg, { url, script: await script('warmup', cfg.warmup), duration: cfg.warmup, cpu: wrkCpu }) : undefined;
    // The warm-up's rate sizes per-window feeds: a feed far larger than the window needs only fills memory.
    const windowScript = await script('window', cfg.duration, warm?.rps);

    const t0 = process.hrtime.bigint();
    // The server's whole process tree: a script that starts varnishd is charged for varnishd's CPU too.
    const ticks0 = treeTicks(srv.pid);
    // Shared processes the server leans on (e.g. redis-server) are not its children: accounted apart.
    const outside = server.outsidePids?.() ?? [];
    const outside0 = outside.reduce((a, p) => a + safeTicks(p), 0);
    const cpu0 = cpuTicks(cfg.serverCpu);
    const w = await loadWindow(req, cfg, { url, script: windowScript, duration: cfg.duration, cpu: wrkCpu });
    const ticks1 = treeTicks(srv.pid);
    const outside1 = outside.reduce((a, p) => a + safeTicks(p), 0);
    const cpu1 = cpuTicks(cfg.serverCpu);
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;

    const tck = clockTicks();
    const serverS = (ticks1 - ticks0) / tck;
    const busy = cpu1.busy - cpu0.busy;
    const total = cpu1.total - cpu0.total;
    return {
      ...base,
      rps: w.rps,
      requests: w.requests,
      p50Ms: w.latencyMs.p50,
      p99Ms: w.latencyMs.p99,
      ...(Number.isFinite(w.latencyMs.mean) ? { meanMs: w.latencyMs.mean } : {}),
      // What the sanity check's client, the load client (h2load says) and the server (every connection) negotiated.
      ...(tls ? { tls: { check: tls, ...(w.tls ? { client: w.tls } : {}) } } : {}),
      non2xx: w.non2xx,
      socketErrors: w.socketErrors,
      cpuUsPerReq: w.requests ? (serverS * 1e6) / w.requests : NaN,
      cpuPct: (serverS / wallS) * 100,
      ...(outside.length && w.requests ? { outsideUsPerReq: ((outside1 - outside0) / tck) * 1e6 / w.requests, outsideName: server.outsideName } : {}),
      // Only meaningful when pinned: the server's ticks all land on serverCpu then.
      otherPct: cfg.pinned && total > 0 ? (Math.max(0, busy - (ticks1 - ticks0)) / total) * 100 : NaN,
      // Idle because a thread waited on the disk (e.g. SQLite WAL checkpoints), not on the client.
      iowaitPct: cfg.pinned && total > 0 ? ((cpu1.iowait - cpu0.iowait) / total) * 100 : NaN,
    };
  } catch (e) {
    return { ...base, error: String(e.message ?? e) };
  }
}
