/** @module test/auth/redis-throttle — the failure throttle shared through a real Redis (what only Redis adds). */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { describe, it } from '../helpers/node-test.js';
import { createClient } from 'redis';
import { RedisFailureThrottle } from '../../src/auth/redis-throttle.js';
import { REDIS_CLIENT_KINDS } from '../../src/redis/redis-client.js';
import { redisServerAvailable, startPrivateRedis } from '../helpers/redis-server.js';
import { dropRedisPrefix, redisReachable, skipOrFail, skipReason, suiteNeeding, TEST_REDIS_URL } from '../helpers/services.js';

const REDIS_URL = TEST_REDIS_URL;

const redisSkip = skipReason(await redisReachable(), `Redis not reachable at ${REDIS_URL}`);

for (const client of REDIS_CLIENT_KINDS) describe(`RedisFailureThrottle (${client})`, () => {
  const { it, before, after } = suiteNeeding(redisSkip);
  const prefix = `roa-test:${randomBytes(6).toString('hex')}:throttle:`;
  // Two instances of the service, one Redis.
  let a!: RedisFailureThrottle;
  let b!: RedisFailureThrottle;
  let admin!: ReturnType<typeof createClient>;
  before(() => {
    a = new RedisFailureThrottle(REDIS_URL, { prefix, limit: 3, windowMs: 60_000, client });
    b = new RedisFailureThrottle(REDIS_URL, { prefix, limit: 3, windowMs: 60_000, client });
    admin = createClient({ url: REDIS_URL });
    admin.on('error', () => {});
  });

  after(async () => {
    await a.close();
    await b.close();
    await dropRedisPrefix(admin, prefix);
  });

  it('counts attempts at every instance against one limit, concurrent ones included', async () => {
    const waits = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).attempt('client:x', '192.0.2.1')));
    assert.equal(waits.filter((w) => w === 0).length, 3);
    const wait = await b.attempt('client:x', '192.0.2.1');
    assert.ok(wait > 55 && wait <= 60, `instance b refuses for the rest of the window, got ${wait}`);
    assert.equal(await a.attempt('client:y', '192.0.2.1'), 0, 'other credentials are not affected');
  });

  it('keeps each count only for its window: the key expires with it', async () => {
    const short = new RedisFailureThrottle(REDIS_URL, { prefix, limit: 2, windowMs: 1000, client });
    try {
      await short.attempt('user:w', '192.0.2.1');
      if (!admin.isOpen) await admin.connect();
      const ttl = await admin.pTTL(`${prefix}try:user:w|192.0.2.1`);
      assert.ok(ttl > 0 && ttl <= 1000, `expires with the window, pTTL ${ttl}`);
    } finally {
      await short.close();
    }
  });
});

for (const client of REDIS_CLIENT_KINDS) describe(`RedisFailureThrottle (${client}) without Redis`, () => {
  it("falls back to the instance's own count at once: still throttled, never an error", async () => {
    const t = new RedisFailureThrottle('redis://127.0.0.1:1', { limit: 2, windowMs: 60_000, commandTimeoutMs: 200, client });
    try {
      assert.equal(await t.attempt('client:z', '192.0.2.1'), 0);
      assert.equal(await t.attempt('client:z', '192.0.2.1'), 0);
      await t.succeeded('client:z', '192.0.2.1');
      assert.equal(await t.attempt('client:z', '192.0.2.1'), 0, 'the success gave its point back');
      assert.ok((await t.attempt('client:z', '192.0.2.1')) > 0);
    } finally {
      await t.close();
    }
  });
});

for (const client of REDIS_CLIENT_KINDS) describe(`RedisFailureThrottle (${client}) with a Redis that stops answering`, () => {
  it('lets the local count answer once the deadline passes: still throttled, never hanging', async () => {
    // Accepts connections and never answers anything.
    const silent = createServer((socket) => socket.on('error', () => {}));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const t = new RedisFailureThrottle(`redis://127.0.0.1:${(silent.address() as AddressInfo).port}`, { limit: 1, windowMs: 60_000, commandTimeoutMs: 200, client });
    try {
      assert.equal(await t.attempt('client:s', '192.0.2.1'), 0);
      assert.ok((await t.attempt('client:s', '192.0.2.1')) > 0);
    } finally {
      await t.close();
      silent.close();
    }
  });
});

describe('loading roa', () => {
  it('loads node-redis only for a Redis URL with the node-redis client (its String subclass slows string code process-wide)', () => {
    const probe = [
      "import { createRequire } from 'node:module';",
      "await import('./src/index.ts');",
      "await import('./src/service.ts');",
      "const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('@redis/client'));",
      "const before = loaded();",
      "const { RedisFailureThrottle } = await import('./src/auth/redis-throttle.ts');",
      "const { createRedisNonceStore } = await import('./src/auth/redis-nonce-store.ts');",
      "const url = 'redis://127.0.0.1:1';",
      "const resp = [new RedisFailureThrottle(url, { client: 'resp', commandTimeoutMs: 100 }), createRedisNonceStore(url, { client: 'resp' })];",
      "for (const r of resp) await r.close();",
      "const withResp = loaded();",
      "const t = new RedisFailureThrottle(url, { commandTimeoutMs: 100 });",
      "await t.close();",
      "console.log(JSON.stringify({ before, withResp, withNodeRedis: loaded() }));",
      "process.exit(0);",
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], { encoding: 'utf8', timeout: 60_000 });
    assert.deepEqual(JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}'), { before: false, withResp: false, withNodeRedis: true }, run.stderr);
  });
});

for (const client of REDIS_CLIENT_KINDS) describe(`RedisFailureThrottle (${client}) on a Unix socket`, () => {
  it('counts in a redis-server reached by a unix:// URL, as roa serve --redis documents', async (t) => {
    if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) return skipOrFail(t, 'redis-server not installed');
    const dir = mkdtempSync(join(tmpdir(), 'roa-redis-unix-'));
    const socket = join(dir, 'redis.sock');
    const server = spawn('redis-server', ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    const throttles: RedisFailureThrottle[] = [];
    try {
      // Ready once the socket file exists; polled with a wide deadline.
      for (const end = Date.now() + 30_000; !existsSync(socket); ) {
        if (Date.now() > end) assert.fail('redis-server did not create its socket');
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const url of [`unix://${socket}?db=3`, `redis+unix://${socket}?db=3`]) throttles.push(new RedisFailureThrottle(url, { limit: 2, windowMs: 60_000, commandTimeoutMs: 5000, client }));
      const [a, b] = throttles;
      assert.equal(await a!.attempt('user:u', '192.0.2.9'), 0);
      assert.equal(await b!.attempt('user:u', '192.0.2.9'), 0);
      // The third attempt is refused by the count the two instances share: it lives in Redis.
      assert.ok((await a!.attempt('user:u', '192.0.2.9')) > 0);
      const keys = spawnSync('redis-cli', ['-s', socket, '-n', '3', '--scan', '--pattern', 'roa:throttle:*'], { encoding: 'utf8' });
      assert.match(keys.stdout, /roa:throttle:/);
    } finally {
      for (const th of throttles) await th.close();
      server.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const client of REDIS_CLIENT_KINDS) describe(`RedisFailureThrottle (${client}) across a Redis restart`, () => {
  it('counts locally while Redis is down (still before each check, concurrent attempts included), then in Redis again once it is back', async (t) => {
    if (!redisServerAvailable()) return skipOrFail(t, 'redis-server not installed');
    const redis = await startPrivateRedis();
    const lines: string[] = [];
    const logger = { warn: (_o: object, msg: string) => lines.push(`warn ${msg}`), info: (_o: object, msg: string) => lines.push(`info ${msg}`) };
    const th = new RedisFailureThrottle(redis.url, { limit: 3, windowMs: 60_000, commandTimeoutMs: 500, client, logger });
    const admin = createClient({ url: redis.url });
    admin.on('error', () => {});
    /** The count Redis holds for a subject at 192.0.2.5, null when it holds none. */
    const inRedis = async (subject: string): Promise<string | null> => {
      if (!admin.isOpen) await admin.connect();
      return admin.get(`roa:throttle:try:${subject}|192.0.2.5`);
    };
    try {
      assert.equal(await th.attempt('user:before', '192.0.2.5'), 0);
      assert.equal(await inRedis('user:before'), '1', 'counted in Redis while it is up');
      await admin.close();

      await redis.stop();
      const started = Date.now();
      const waits = await Promise.all(Array.from({ length: 10 }, () => th.attempt('user:down', '192.0.2.5')));
      assert.equal(waits.filter((w) => w === 0).length, 3, `the local count lets exactly the limit through: ${waits.join(',')}`);
      assert.ok(waits.every((w) => w === 0 || w > 50), String(waits));
      await th.succeeded('user:ok', '192.0.2.5');
      assert.equal(await th.attempt('user:ok', '192.0.2.5'), 0, 'a right password is not refused because Redis is away');
      assert.ok(Date.now() - started < 30_000, 'nothing waited for Redis without bound');
      assert.ok(lines.some((l) => l === 'warn Redis unreachable'), `the outage is logged at warn: ${lines.join('; ')}`);

      await redis.start();
      // The client reconnects by itself (back-off up to 2 s); polled with a wide deadline.
      let back = false;
      for (let i = 0, end = Date.now() + 30_000; !back && Date.now() < end; i++) {
        await th.attempt(`user:after-${i}`, '192.0.2.5');
        back = (await inRedis(`user:after-${i}`)) === '1';
        if (!back) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(back, 'attempts are counted in Redis again after it restarted');
    } finally {
      await th.close();
      if (admin.isOpen) await admin.close();
      await redis.stop();
    }
  });
});
