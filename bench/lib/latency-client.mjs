#!/usr/bin/env node
/**
 * @module Closed-loop write client for purge-latency.mjs: `concurrency` workers, each PUTting its own slug with
 * content alternating between two versions (every write changes the article, so every write purges), over
 * keep-alive node:http. Prints `window <ms>` when the measured window starts, then one JSON line of results.
 * Bounded: warm-up + duration seconds, plus at most 10 s for requests in flight.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { BEHIND_TLS, basicHeader } from './fixture.mjs';

const { values: o } = parseArgs({
  options: {
    port: { type: 'string' },
    concurrency: { type: 'string', default: '10' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
  },
});
const port = Number(o.port);
const concurrency = Number(o.concurrency);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const AUTH = basicHeader();
const bodies = [0, 1].map((v) => Buffer.from(`<article><title>Purge bench ${v}</title><price currency="eur">${v ? '19.99' : '9.99'}</price></article>`));

function put(slug, body) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: 'PUT',
        path: `/articles/${slug}`,
        headers: { ...BEHIND_TLS, Authorization: AUTH, 'Content-Type': 'application/xml', 'Content-Length': body.length },
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    req.end(body);
  });
}

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

async function phase(seconds, record) {
  const end = Date.now() + seconds * 1000;
  const lat = [];
  const statuses = {};
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; Date.now() < end; i++) {
        const r = await put(`purge-bench-${w}`, bodies[i % 2]);
        if (record) {
          lat.push(r.ms);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        }
      }
    }),
  );
  return { lat, statuses };
}

await phase(Number(o.warmup), false);
const t0 = Date.now();
process.stdout.write(`window ${t0}\n`);
const { lat, statuses } = await phase(Number(o.duration), true);
const wallS = (Date.now() - t0) / 1000;
lat.sort((a, b) => a - b);
const ok = Object.entries(statuses).reduce((a, [s, n]) => a + (s >= 200 && s < 300 ? n : 0), 0);
process.stdout.write(
  `${JSON.stringify({ requests: lat.length, ok, statuses, wallS, rps: lat.length / wallS, p50Ms: pct(lat, 50), p90Ms: pct(lat, 90), p99Ms: pct(lat, 99), maxMs: lat.at(-1) })}\n`,
);
agent.destroy();
