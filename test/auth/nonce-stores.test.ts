/** @module test/auth/nonce-stores */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo } from 'node:net';
import { describe, it } from '../helpers/node-test.js';
import { createClient } from 'redis';
import { MemoryNonceStore } from '../../src/auth/memory-nonce-store.js';
import { NonceStoreUnavailableError } from '../../src/auth/nonce-store.js';
import { createRedisNonceStore } from '../../src/auth/redis-nonce-store.js';
import { REDIS_CLIENT_KINDS } from '../../src/redis/redis-client.js';
import { StoreNonceStore } from '../../src/auth/store-nonce-store.js';
import { HmacScheme } from '../../src/auth/hmac.js';
import { generateHmacSecret, sealHmacSecret, SecretBox } from '../../src/auth/secret-box.js';
import { signRequest } from '../../src/client/index.js';
import type { HttpError } from '../../src/errors/http-error.js';
import type { Request } from '../../src/http/request.js';
import { dropRedisPrefix, redisReachable, skipReason, suiteNeeding, TEST_REDIS_URL } from '../helpers/services.js';
import { MemoryAuthStore } from './memory-store.js';

const REDIS_URL = TEST_REDIS_URL;


describe('MemoryNonceStore', () => {
  it('accepts a nonce once, again after it expired', async () => {
    let now = 0;
    const m = new MemoryNonceStore({ now: () => now });
    assert.equal(await m.consume('a', 1000), true);
    assert.equal(await m.consume('a', 1000), false);
    now = 1001;
    assert.equal(await m.consume('a', 1000), true);
  });
  it('prunes expired entries when full, and refuses rather than evicting live ones', async () => {
    let now = 0;
    const m = new MemoryNonceStore({ maxEntries: 2, now: () => now });
    await m.consume('a', 10);
    await m.consume('b', 1000);
    now = 20;
    assert.equal(await m.consume('c', 1000), true);
    assert.equal(m.size, 2);
    await assert.rejects(m.consume('d', 1000), NonceStoreUnavailableError);
  });
});

describe('StoreNonceStore', () => {
  it('passes an absolute expiry to Store.consumeNonce', async () => {
    const store = new MemoryAuthStore();
    const n = new StoreNonceStore(store, () => 5000);
    assert.equal(await n.consume('k', 1000), true);
    assert.equal(store.nonces.get('k'), 6000);
  });
});

const redisSkip = skipReason(await redisReachable(), `Redis not reachable at ${REDIS_URL}`);

for (const client of REDIS_CLIENT_KINDS) describe(`RedisNonceStore (${client})`, () => {
  const { it, after } = suiteNeeding(redisSkip);
  const prefix = `roa-test:${randomBytes(6).toString('hex')}:`;
  const store = createRedisNonceStore(REDIS_URL, { prefix, client });
  const admin = createClient({ url: REDIS_URL });
  admin.on('error', () => {});

  after(async () => {
    await store.close();
    await dropRedisPrefix(admin, prefix);
  });

  it('accepts a nonce once under its key prefix, with a TTL', async () => {
    assert.equal(await store.consume('n1', 60_000), true);
    assert.equal(await store.consume('n1', 60_000), false);
    if (!admin.isOpen) await admin.connect();
    const ttl = await admin.pTTL(prefix + 'n1');
    assert.ok(ttl > 0 && ttl <= 60_000, String(ttl));
  });
  it('writes keys with non-ASCII characters byte-exact (user names may have them)', async () => {
    assert.equal(await store.consume('hmac:zoë:n-ü', 60_000), true);
    assert.equal(await store.consume('hmac:zoë:n-ü', 60_000), false);
    if (!admin.isOpen) await admin.connect();
    assert.equal(await admin.exists(prefix + 'hmac:zoë:n-ü'), 1);
  });
  it('lets exactly one of concurrent consumers win', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => store.consume('race', 60_000)));
    assert.equal(results.filter(Boolean).length, 1);
  });
  it('refuses a request replayed against a second instance sharing Redis', async () => {
    const box = new SecretBox(randomBytes(32));
    const secret = generateHmacSecret();
    const users = new MemoryAuthStore();
    await users.createUser({ name: 'ann', role: 'reader', passwordHash: 'x', hmacSecret: sealHmacSecret(box, 'ann', secret) });
    const [one, two] = [1, 2].map(() => new HmacScheme({ store: users, box, nonces: store, production: true }));
    const headers = signRequest({ method: 'GET', target: '/articles', user: 'ann', secret });
    const req = () => ({ method: 'GET', url: '/articles', originalUrl: '/articles', headers: { authentication: headers.Authentication, date: headers.Date }, locals: {} }) as unknown as Request;
    assert.equal((await one!.authenticate(req())).name, 'ann');
    await assert.rejects(two!.authenticate(req()), (e: HttpError) => e.status === 401);
  });
  it('answers concurrent consumers of several nonces each by its own SET NX', async () => {
    const results = await Promise.all([store.consume('b:a', 60_000), store.consume('b:b', 60_000), store.consume('b:a', 60_000), store.consume('b:c', 60_000), store.consume('b:b', 60_000)]);
    assert.deepEqual(results, [true, true, false, true, false]);
  });
  it('lets one of two instances win each nonce when both ask at once', async () => {
    const other = createRedisNonceStore(REDIS_URL, { prefix, client });
    try {
      for (let i = 0; i < 20; i++) {
        const results = await Promise.all([store.consume(`two:${i}`, 60_000), other.consume(`two:${i}`, 60_000), store.consume(`two:${i}`, 60_000)]);
        assert.equal(results.filter(Boolean).length, 1, `round ${i}: ${results}`);
      }
    } finally {
      await other.close();
    }
  });
  it('fails closed, within its command deadline, when a connected Redis stops answering', async () => {
    // A proxy to the real Redis that lets the connection handshake through but swallows SETs.
    const { hostname: host, port } = new URL(REDIS_URL);
    const proxy = createServer((client) => {
      const upstream = connect(Number(port || 6379), host);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
      upstream.pipe(client);
      client.on('data', (chunk: Buffer) => {
        if (!chunk.includes('$3\r\nSET\r\n')) upstream.write(chunk);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const stalled = createRedisNonceStore(`redis://127.0.0.1:${(proxy.address() as AddressInfo).port}`, { prefix, connectTimeoutMs: 500, commandTimeoutMs: 300, client });
    try {
      const t0 = Date.now();
      await assert.rejects(stalled.consume('stalled', 60_000), NonceStoreUnavailableError);
      const took = Date.now() - t0;
      assert.ok(took >= 250 && took < 30_000, `failed after ${took} ms`);
    } finally {
      await stalled.close().catch(() => {});
      proxy.close();
    }
  });
  it('expires nonces', async () => {
    assert.equal(await store.consume('short', 50), true);
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(await store.consume('short', 50), true);
  });
});

for (const client of REDIS_CLIENT_KINDS) describe(`RedisNonceStore (${client}) without Redis`, () => {
  it('rejects quickly (fail closed) when Redis is unreachable', async () => {
    const down = createRedisNonceStore('redis://127.0.0.1:1', { connectTimeoutMs: 200, commandTimeoutMs: 300, client });
    const t0 = Date.now();
    await assert.rejects(down.consume('x', 1000), NonceStoreUnavailableError);
    assert.ok(Date.now() - t0 < 30_000);
    await down.close().catch(() => {});
  });
});
