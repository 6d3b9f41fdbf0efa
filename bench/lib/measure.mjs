/** @module One measured run: fresh server, sanity check, warm-up, wrk window with /proc CPU accounting, stop. */
import { isDeepStrictEqual } from 'node:util';
import { clockTicks, cpuTicks, processTicks } from './proc.mjs';
import { startServer } from './server.mjs';
import { runWrk } from './wrk.mjs';

/** Checks one response against the request's expectation; returns an error message or undefined. */
async function check(port, req) {
  const res = await fetch(`http://127.0.0.1:${port}${req.path}`, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  const e = req.expect ?? {};
  if (res.status !== (e.status ?? 200)) return `status ${res.status}, expected ${e.status ?? 200}: ${text.slice(0, 100)}`;
  if (e.body !== undefined && text !== e.body) return `body ${JSON.stringify(text.slice(0, 100))}, expected ${JSON.stringify(e.body)}`;
  if (e.json !== undefined) {
    let got;
    try {
      got = JSON.parse(text);
    } catch {
      return `not JSON: ${text.slice(0, 100)}`;
    }
    if (!isDeepStrictEqual(got, e.json)) return `JSON ${text.slice(0, 100)} differs from expected`;
  }
  return undefined;
}

/** One measured run: fresh server, sanity check, warm-up, measured window with CPU accounting, stop. */
export async function measure(server, req, round, cfg) {
  const base = { request: req.name, server: server.name, round };
  let srv;
  try {
    srv = await startServer(server, { cpu: cfg.pinned ? cfg.serverCpu : undefined });
  } catch (e) {
    return { ...base, error: String(e.message ?? e), startFailed: true };
  }
  try {
    const bad = await check(srv.port, req);
    if (bad) return { ...base, error: `sanity check: ${bad}` };
    const url = `http://127.0.0.1:${srv.port}${req.path}`;
    const wrk = { url, script: cfg.scripts.get(req.name), connections: cfg.connections, threads: cfg.threads };
    const wrkCpu = cfg.pinned ? cfg.wrkCpu : undefined;
    if (cfg.warmup > 0) await runWrk({ ...wrk, duration: cfg.warmup, cpu: wrkCpu });

    const t0 = process.hrtime.bigint();
    const ticks0 = processTicks(srv.pid);
    const cpu0 = cpuTicks(cfg.serverCpu);
    const w = await runWrk({ ...wrk, duration: cfg.duration, cpu: wrkCpu });
    const ticks1 = processTicks(srv.pid);
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
      non2xx: w.non2xx,
      socketErrors: w.socketErrors,
      cpuUsPerReq: w.requests ? (serverS * 1e6) / w.requests : NaN,
      cpuPct: (serverS / wallS) * 100,
      // Only meaningful when pinned: the server's ticks all land on serverCpu then.
      otherPct: cfg.pinned && total > 0 ? (Math.max(0, busy - (ticks1 - ticks0)) / total) * 100 : NaN,
    };
  } catch (e) {
    return { ...base, error: String(e.message ?? e) };
  } finally {
    await srv.stop();
  }
}
