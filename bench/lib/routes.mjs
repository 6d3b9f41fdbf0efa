/** @module Loads the shared GitHub-like route table used by every server and the router bench. */
import { readFileSync } from 'node:fs';
import net from 'node:net';

const TABLE_URL = new URL('../github-routes.json', import.meta.url);

/** @type {{ targets: { param: string, static: string, miss: string }, routes: { method: string, path: string }[] }} */
export const table = JSON.parse(readFileSync(TABLE_URL, 'utf8'));

/** Table routes in registration order (after GET / and POST /echo, which each server adds first). */
export const routes = table.routes;

/** The three lookup targets named by the table. */
export const targets = table.targets;

/** The param route every server must answer with JSON of its params. */
export const PARAM_ROUTE = '/repos/:owner/:repo/issues/:number';

/** Port from the PORT env; 0 lets the OS choose (the server prints the real one). */
export function port() {
  const raw = process.env.PORT ?? '3000';
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`bad PORT: ${raw}`);
  return n;
}

/** Loopback only: benchmarks never listen on other interfaces. */
export const HOST = '127.0.0.1';

/** A free loopback port, for a process that needs its port before it starts (varnishd's backend, redis-server). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().once('error', reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The readiness line run.mjs waits for. */
export function announce(server) {
  // Exit (rather than die) on SIGTERM, so a server run with BENCH_NODE_ARGS=--cpu-prof writes its profile.
  process.once('SIGTERM', () => process.exit(0));
  process.stdout.write(`listening ${server.address().port}\n`);
}
