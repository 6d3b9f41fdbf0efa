#!/usr/bin/env node
/**
 * @module The SQLite store's replay-protection nonces alone: CPU per nonce in the keyed table (the default),
 * and with the nonce log (`nonceLog`, `roa serve --sqlite-nonce-log`) while they fit in memory and once the
 * store is past its memory limit (`nonceMemoryLimit`, `--nonce-memory`), where they go to the key-ordered
 * table. Nonces arrive in batches as the service's group commit sees them (one transaction per
 * event-loop turn; ~45 a turn under the auth scenario's 50 connections).
 *
 *   taskset -c 0 node bench/nonce-memory.bench.mjs [--batch 45] [--batches 3000] [--limit 20000] [--rounds 3]
 *
 * Each round measures every case in a fresh store file (a store filled past a small limit for the last),
 * alternating the order; the figure is process CPU time (user + system) ÷ nonces.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { roa } from './lib/roa-dist.mjs';
import { median } from './lib/stats.mjs';

const { values: opt } = parseArgs({
  options: {
    batch: { type: 'string', default: '45' },
    batches: { type: 'string', default: '3000' },
    limit: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
  },
});
const BATCH = Number(opt.batch);
const BATCHES = Number(opt.batches);
const LIMIT = Number(opt.limit);
const ROUNDS = Number(opt.rounds);
const WINDOW_MS = 10 * 60_000;

const { SqliteStore } = await roa('storage/sqlite/sqlite-store.js');

/**
 * Keys shaped like the hmac scheme's (`hmac:<user>:<nonce>`, a random 22-character nonce), made before timing.
 * Random, as real nonces are: keys with a counter in front would land next to each other in the key-ordered
 * table and flatter it.
 */
const keysFor = (n) => Array.from({ length: n }, () => `hmac:bench-editor:${randomBytes(16).toString('base64url')}`);

/** Consumes `keys` in batches, each batch awaited like a turn's group commit; answers CPU µs per nonce. */
async function consumeAll(store, keys) {
  const until = Date.now() + WINDOW_MS;
  const before = process.cpuUsage();
  for (let i = 0; i < keys.length; i += BATCH) {
    const fresh = await Promise.all(keys.slice(i, i + BATCH).map((k) => store.consumeNonce(k, until)));
    if (fresh.some((f) => f !== true)) throw new Error('a fresh nonce was refused');
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / keys.length;
}

/** One case in a store file of its own: `fill` nonces first (not timed), then the timed ones. */
async function measure(options, fill) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roa-nonce-bench-'));
  const store = new SqliteStore(path.join(dir, 'roa.db'), options);
  try {
    if (fill > 0) await consumeAll(store, keysFor(fill));
    return await consumeAll(store, keysFor(BATCH * BATCHES));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const cases = [
  // The default: every nonce an upsert into the key-ordered table.
  { name: 'keyed table', run: () => measure({}, 0) },
  // The log, far under the limit: every decision in memory.
  { name: 'log, in memory', run: () => measure({ nonceLog: true, nonceMemoryLimit: LIMIT + BATCH * BATCHES }, 0) },
  // The log, filled past the limit first: every timed nonce goes to the key-ordered table.
  { name: 'log, past the memory limit', run: () => measure({ nonceLog: true, nonceMemoryLimit: LIMIT }, LIMIT + BATCH) },
];
const results = new Map(cases.map((c) => [c.name, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const c of r % 2 === 0 ? cases : [...cases].reverse()) {
    const us = await c.run();
    results.get(c.name).push(us);
    console.log(`[round ${r + 1}] ${c.name}: ${us.toFixed(2)} µs CPU per nonce`);
  }
}
console.log(`\nbatches of ${BATCH}, ${BATCHES} batches per case, limit ${LIMIT}, ${ROUNDS} rounds (medians):`);
for (const [name, runs] of results) console.log(`- ${name}: ${median(runs).toFixed(2)} µs CPU per nonce`);
const [table, mem, disk] = [...results.values()].map(median);
console.log(`- keyed table ÷ log in memory: ${(table / mem).toFixed(1)}×`);
console.log(`- log past the limit ÷ log in memory: ${(disk / mem).toFixed(1)}×`);
