/**
 * @module test/gateway/gateway-store
 * createGateway's seams: the store it is given, the clock it computes ages with, and its fast-paths switch.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createGateway, MemoryCacheStore, type CacheStore, type StoredResponse, type Variants } from '../../src/gateway/index.js';
import { DETECTED_FAST_PATHS } from '../../src/http/fast-paths.js';
import { flushPerTurn } from '../../src/http/turn-flush.js';
import { send, startGateway, startOrigin, type Origin } from './gateway-helpers.js';

/** A store that records every call and delegates to a MemoryCacheStore. */
class RecordingStore implements CacheStore {
  readonly inner = new MemoryCacheStore(1024 * 1024);
  readonly calls: string[] = [];
  get(key: string): Variants | undefined {
    this.calls.push(`get ${key}`);
    return this.inner.get(key);
  }
  put(res: StoredResponse): void {
    this.calls.push(`put ${res.key}`);
    this.inner.put(res);
  }
  remove(res: StoredResponse): void {
    this.calls.push(`remove ${res.key}`);
    this.inner.remove(res);
  }
  delete(key: string): number {
    this.calls.push(`delete ${key}`);
    return this.inner.delete(key);
  }
  deleteTag(tag: string): number {
    this.calls.push(`deleteTag ${tag}`);
    return this.inner.deleteTag(tag);
  }
  get bytes(): number {
    return this.inner.bytes;
  }
  get count(): number {
    return this.inner.count;
  }
}

describe('createGateway seams', () => {
  let origin: Origin;
  before(async () => {
    origin = await startOrigin((req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=10', 'Content-Type': 'text/plain' });
      res.end(`body ${req.url}`);
    });
  });
  after(() => origin.close());

  it('stores in and answers hits from the store it is given', async () => {
    const store = new RecordingStore();
    const gw = await startGateway(origin.url, { store });
    try {
      assert.equal((await send(gw.base, '/a')).headers['x-cache'], 'MISS');
      assert.deepEqual(store.calls, ['get /a', 'put /a']);
      assert.equal(store.count, 1);
      const hit = await send(gw.base, '/a');
      assert.equal(hit.headers['x-cache'], 'HIT');
      assert.equal(hit.body, 'body /a');
      assert.deepEqual(store.calls.slice(2), ['get /a']);
      assert.deepEqual(gw.gateway.stats(), { hits: 1, misses: 1, stale: 0, stored: 1, purges: 0, bytes: store.inner.bytes, entries: 1 });
      assert.equal((await send(gw.base, '/a', { method: 'PURGE' })).status, 200);
      assert.equal(store.calls.at(-1), 'delete /a');
      assert.equal(store.count, 0);
    } finally {
      await gw.close();
    }
  });

  it('gives two gateways with their own stores separate caches', async () => {
    const one = await startGateway(origin.url, { store: new MemoryCacheStore(1024 * 1024) });
    const two = await startGateway(origin.url, { store: new MemoryCacheStore(1024 * 1024) });
    try {
      await send(one.base, '/b');
      assert.equal((await send(one.base, '/b')).headers['x-cache'], 'HIT');
      assert.equal((await send(two.base, '/b')).headers['x-cache'], 'MISS');
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('computes Age and freshness with the clock it is given (RFC 9111 §4.2.3)', async () => {
    // Ahead of the wall clock (the origin's Date header is real time), never behind it.
    let aheadMs = 0;
    const gw = await startGateway(origin.url, { now: () => Date.now() + aheadMs });
    try {
      await send(gw.base, '/c');
      aheadMs += 4_000;
      const hit = await send(gw.base, '/c');
      assert.equal(hit.headers['x-cache'], 'HIT');
      const age = Number(hit.headers.age);
      assert.ok(age >= 4 && age < 6, `Age ${age} counts the 4 s the clock moved`);
      aheadMs += 6_500;
      const stale = await send(gw.base, '/c');
      assert.equal(stale.headers['x-cache'], 'MISS', 'past max-age=10 by the injected clock');
      assert.equal(origin.seen.filter((r) => r.url === '/c').length, 2);
    } finally {
      await gw.close();
    }
  });

  it('turns off turn flushing with fastPaths: false and answers alike', async () => {
    const gw = await startGateway(origin.url, { fastPaths: false });
    try {
      assert.equal(gw.gateway.fastPaths.turnFlush, false);
      assert.ok(!gw.gateway.server.listeners('connection').includes(flushPerTurn));
      await send(gw.base, '/d');
      const hit = await send(gw.base, '/d');
      assert.equal(hit.headers['x-cache'], 'HIT');
      assert.equal(hit.body, 'body /d');
    } finally {
      await gw.close();
    }
  });

  it('follows ROA_FAST_PATHS when fastPaths is not given', () => {
    const saved = process.env.ROA_FAST_PATHS;
    process.env.ROA_FAST_PATHS = '0';
    try {
      const off = createGateway({ upstream: origin.url });
      assert.equal(off.fastPaths.turnFlush, false);
      assert.ok(!off.server.listeners('connection').includes(flushPerTurn));
      const on = createGateway({ upstream: origin.url, fastPaths: true });
      assert.equal(on.fastPaths.turnFlush, DETECTED_FAST_PATHS.turnFlush, 'the option overrides the environment');
      assert.equal(on.server.listeners('connection').includes(flushPerTurn), DETECTED_FAST_PATHS.turnFlush);
    } finally {
      if (saved === undefined) delete process.env.ROA_FAST_PATHS;
      else process.env.ROA_FAST_PATHS = saved;
    }
  });
});
