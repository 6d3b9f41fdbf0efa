/**
 * @module test/regressions/issue-24-gateway-cache-store
 * Issue 24: the gateway's memory bound counts everything an entry holds; Vary variants are bounded
 * and found by key; the standalone gateway keys on the authority and does not share Set-Cookie;
 * per-request fields (X-Roa-Trace) are not stored.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { responsePolicy, requestDirectives } from '../../src/gateway/cache-rules.js';
import type { StoredResponse } from '../../src/gateway/cache-store.js';
import { collectFields, fieldMap } from '../../src/gateway/headers.js';
import { runGateway, type Gateway } from '../../src/gateway/index.js';
import { MemoryCacheStore } from '../../src/gateway/memory-cache-store.js';
import { buildStored, varyNames, varyValues } from '../../src/gateway/stored-response.js';
import { send, startGateway, startOrigin, type Origin } from '../gateway/gateway-helpers.js';

const SILENT = { info() {}, warn() {}, error() {} };

/** A stored response built the way the proxy builds one. */
function stored(key: string, raw: string[], body: Buffer, requestHeaders: IncomingHttpHeaders = {}): StoredResponse {
  const fields = collectFields(raw);
  const map = fieldMap(fields);
  const now = Date.now();
  const names = varyNames(map.vary);
  return buildStored({
    key, status: 200, statusMessage: 'OK', fields, body,
    policy: responsePolicy('GET', 200, map, requestDirectives(undefined, undefined), now),
    ageHeaders: map, requestTime: now, responseTime: now,
    vary: { names, values: varyValues(names, requestHeaders) },
  });
}

/** What an entry holds at the least: its key, its header names and values, its body. */
function contentBytes(v: StoredResponse): number {
  let n = v.key.length + v.body.length;
  for (const f of v.fields) n += f.name.length + f.value.length;
  return n;
}

describe('issue 24: the memory bound counts everything an entry holds', () => {
  it('never counts more than maxBytes and counts at least key, headers and body of what it holds', () => {
    const max = 200_000;
    const store = new MemoryCacheStore(max);
    const keys: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const key = `/items/${i}?${'q'.repeat(i % 7 === 0 ? 1500 : 600)}`;
      keys.push(key);
      const raw = ['Cache-Control', 'max-age=600', 'X-Pad', 'p'.repeat(i % 5 === 0 ? 800 : 20), 'xkey', `item-${i} items`];
      store.put(stored(key, raw, Buffer.alloc(i % 3 === 0 ? 1 : 300, 'b')));
      assert.ok(store.bytes <= max, `after ${i + 1} puts: ${store.bytes} > ${max}`);
    }
    let held = 0;
    let count = 0;
    for (const key of keys) {
      for (const v of store.get(key)?.values() ?? []) {
        held += contentBytes(v);
        count++;
      }
    }
    assert.equal(count, store.count);
    assert.ok(count > 10, `only ${count} entries resident`);
    assert.ok(store.bytes >= held, `counted ${store.bytes} < held ${held}`);
  });

  it('does not keep a slice that pins a larger buffer', () => {
    const parent = Buffer.alloc(64 * 1024, 'x');
    const v = stored('/slice', ['Cache-Control', 'max-age=60'], parent.subarray(100, 110));
    assert.equal(v.body.toString(), 'xxxxxxxxxx');
    assert.equal(v.body.buffer.byteLength, 10);
  });

  it('keeps heap and buffers growth near the bound when filled with small entries', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const max = 4 * 1024 * 1024;
    const used = (): number => {
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const store = new MemoryCacheStore(max);
    const before = used();
    for (let i = 0; i < 40_000; i++) {
      const raw = ['Cache-Control', 'max-age=600', 'Content-Type', 'application/json', 'ETag', `"e${i}"`, 'xkey', `a-${i} all`];
      store.put(stored(`/small/${i}`, raw, Buffer.from(`{"id":${i}}`)));
    }
    const grown = used() - before;
    assert.ok(store.count > 1000);
    // Generous: the estimate need not be exact, but the old count (body + head strings + 256)
    // let the real footprint reach several times the bound.
    assert.ok(grown < 2.5 * max, `grew ${grown} bytes for a ${max}-byte bound (${store.count} entries)`);
  });

  it('keeps a real gateway under --max-bytes with long URLs and headers and tiny bodies', async () => {
    const pad = 'h'.repeat(600);
    const origin = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=600', 'X-Pad': pad });
      res.end('x');
    });
    const maxBytes = 100_000;
    const gw = await startGateway(origin.url, { maxBytes });
    try {
      const path = (i: number): string => `/long/${i}/${'u'.repeat(1500)}`;
      for (let i = 0; i < 150; i++) {
        const r = await send(gw.base, path(i));
        assert.equal(r.status, 200);
        assert.ok(gw.gateway.stats().bytes <= maxBytes, `bytes ${gw.gateway.stats().bytes}`);
      }
      const { bytes, entries } = gw.gateway.stats();
      assert.ok(entries > 0);
      assert.ok(bytes >= entries * (path(100).length + 'X-Pad'.length + pad.length + 1), `${bytes} bytes for ${entries} entries`);
    } finally {
      await gw.close();
      await origin.close();
    }
  });
});

describe('issue 24: Vary variants are bounded and found by key', () => {
  let origin: Origin;
  before(async () => {
    origin = await startOrigin((req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=600', Vary: 'Accept' });
      res.end(`for ${req.headers.accept}`);
    });
  });
  after(() => origin.close());

  it('keeps at most 16 variants of one URL by default, and hits stay correct', async () => {
    const gw = await startGateway(origin.url);
    try {
      for (let i = 0; i < 40; i++) await send(gw.base, '/v', { headers: { Accept: `text/x-${i}` } });
      assert.equal(gw.gateway.stats().entries, 16);
      const last = await send(gw.base, '/v', { headers: { Accept: 'text/x-39' } });
      assert.equal(last.headers['x-cache'], 'HIT');
      assert.equal(last.body, 'for text/x-39');
      const first = await send(gw.base, '/v', { headers: { Accept: 'text/x-0' } });
      assert.equal(first.headers['x-cache'], 'MISS');
      assert.equal(first.body, 'for text/x-0');
      assert.equal(gw.gateway.stats().entries, 16);
    } finally {
      await gw.close();
    }
  });

  it('honours maxVariants', async () => {
    const gw = await startGateway(origin.url, { maxVariants: 3 });
    try {
      for (let i = 0; i < 10; i++) await send(gw.base, '/v3', { headers: { Accept: `text/y-${i}` } });
      assert.equal(gw.gateway.stats().entries, 3);
      for (const i of [7, 8, 9]) {
        const r = await send(gw.base, '/v3', { headers: { Accept: `text/y-${i}` } });
        assert.equal(r.headers['x-cache'], 'HIT');
        assert.equal(r.body, `for text/y-${i}`);
      }
    } finally {
      await gw.close();
    }
  });

  it('selects a variant with a constant number of header reads however many are stored', () => {
    const store = new MemoryCacheStore(1e9, { maxVariants: 5000 });
    for (let i = 0; i < 5000; i++) {
      store.put(stored('/many', ['Cache-Control', 'max-age=600', 'Vary', 'Accept'], Buffer.from(String(i)), { accept: `a/${i}` }));
    }
    assert.equal(store.count, 5000);
    let reads = 0;
    const counting = (h: IncomingHttpHeaders): IncomingHttpHeaders => new Proxy(h, { get: (t, p) => (reads++, Reflect.get(t, p)) });
    const hit = store.get('/many')!.select(counting({ accept: 'a/17' }));
    assert.equal(hit?.body.toString(), '17');
    assert.ok(reads <= 2, `${reads} header reads`);
    reads = 0;
    assert.equal(store.get('/many')!.select(counting({ accept: 'a/none' })), undefined);
    assert.ok(reads <= 2, `${reads} header reads for a miss`);
  });

  it('picks the most recent match when responses with different Vary are stored (RFC 9111 §4.1)', () => {
    const store = new MemoryCacheStore(1e6);
    store.put(stored('/mixed', ['Cache-Control', 'max-age=600', 'Vary', 'Accept'], Buffer.from('by accept'), { accept: 'a/1' }));
    store.put(stored('/mixed', ['Cache-Control', 'max-age=600', 'Vary', 'Accept-Language'], Buffer.from('by language'), { 'accept-language': 'en' }));
    const set = store.get('/mixed')!;
    assert.equal(set.select({ accept: 'a/1', 'accept-language': 'en' })?.body.toString(), 'by language');
    assert.equal(set.select({ accept: 'a/1', 'accept-language': 'fr' })?.body.toString(), 'by accept');
    assert.equal(set.select({ accept: 'a/2' }), undefined);
    // Same Vary names in another order and case are one group: the newer response replaces the older.
    store.put(stored('/two', ['Vary', 'Accept, Accept-Language', 'Cache-Control', 'max-age=600'], Buffer.from('one'), { accept: 'x', 'accept-language': 'y' }));
    store.put(stored('/two', ['Vary', 'accept-language,ACCEPT', 'Cache-Control', 'max-age=600'], Buffer.from('two'), { accept: 'x', 'accept-language': 'y' }));
    assert.equal(store.get('/two')!.size, 1);
    assert.equal(store.get('/two')!.select({ accept: 'x', 'accept-language': 'y' })?.body.toString(), 'two');
  });
});

describe('issue 24: the standalone gateway keys on the authority', () => {
  let origin: Origin;
  let standalone: Gateway;
  let port: number;
  before(async () => {
    origin = await startOrigin((req, res) => {
      if (req.url === '/cookie') {
        res.writeHead(200, { 'Cache-Control': 'max-age=600', 'Set-Cookie': `sid=${origin.seen.length}; HttpOnly` });
        res.end('with cookie');
        return;
      }
      res.writeHead(200, { 'Cache-Control': 'max-age=600' });
      res.end(`page for ${req.headers.host}`);
    });
    const r = await runGateway({ upstream: origin.url, port: 0, logger: SILENT });
    standalone = r.gateway;
    port = r.address.port;
  });
  after(async () => {
    await standalone.close();
    await origin.close();
  });

  it('does not serve one host the response stored for another (RFC 9111 §2)', async () => {
    const base = { host: '127.0.0.1', port };
    const evil = await send(base, '/page', { headers: { Host: 'evil.example' } });
    assert.equal(evil.body, 'page for evil.example');
    const good = await send(base, '/page', { headers: { Host: 'good.example' } });
    assert.equal(good.headers['x-cache'], 'MISS');
    assert.equal(good.body, 'page for good.example');
    const again = await send(base, '/page', { headers: { Host: 'GOOD.example' } });
    assert.equal(again.headers['x-cache'], 'HIT', 'the host is compared case-insensitively');
    assert.equal(again.body, 'page for good.example');
  });

  it('purges the entry of the host the PURGE names', async () => {
    const base = { host: '127.0.0.1', port };
    await send(base, '/purge-me', { headers: { Host: 'a.example' } });
    await send(base, '/purge-me', { headers: { Host: 'b.example' } });
    const purged = await send(base, '/purge-me', { method: 'PURGE', headers: { Host: 'a.example' } });
    assert.equal(purged.status, 200);
    assert.equal((await send(base, '/purge-me', { headers: { Host: 'a.example' } })).headers['x-cache'], 'MISS');
    assert.equal((await send(base, '/purge-me', { headers: { Host: 'b.example' } })).headers['x-cache'], 'HIT');
  });

  it('does not store a response carrying Set-Cookie', async () => {
    const base = { host: '127.0.0.1', port };
    const a = await send(base, '/cookie');
    const b = await send(base, '/cookie');
    assert.deepEqual([a.headers['x-cache'], b.headers['x-cache']], ['MISS', 'MISS']);
    assert.notDeepEqual(a.headers['set-cookie'], b.headers['set-cookie'], 'each caller gets its own cookie');
  });

  it('stores and replays Set-Cookie only when storeSetCookie is set', async () => {
    const gw = await startGateway(origin.url, { storeSetCookie: true });
    try {
      const a = await send(gw.base, '/cookie');
      const b = await send(gw.base, '/cookie');
      assert.deepEqual([a.headers['x-cache'], b.headers['x-cache']], ['MISS', 'HIT']);
      assert.deepEqual(b.headers['set-cookie'], a.headers['set-cookie']);
    } finally {
      await gw.close();
    }
  });

  it('keeps the single-origin key in the embedded gateway', async () => {
    const gw = await startGateway(origin.url);
    try {
      await send(gw.base, '/single', { headers: { Host: 'one.example' } });
      const r = await send(gw.base, '/single', { headers: { Host: 'two.example' } });
      assert.equal(r.headers['x-cache'], 'HIT');
    } finally {
      await gw.close();
    }
  });
});

describe('issue 24: per-request fields are not stored (RFC 9111 §3.1)', () => {
  it('does not replay the first caller\'s X-Roa-Trace or proxy fields on hits or after a 304', async () => {
    let n = 0;
    const origin = await startOrigin((req, res) => {
      n++;
      const common = { 'X-Roa-Trace': `trace-${n}`, 'Proxy-Authenticate': 'Basic realm="p"', ETag: '"t"' };
      if (req.url === '/revalidate' && req.headers['if-none-match'] === '"t"') {
        res.writeHead(304, { ...common, 'Cache-Control': 'max-age=0' });
        res.end();
        return;
      }
      res.writeHead(200, { ...common, 'Cache-Control': req.url === '/revalidate' ? 'max-age=0' : 'max-age=600' });
      res.end('traced');
    });
    const gw = await startGateway(origin.url);
    try {
      const miss = await send(gw.base, '/traced');
      assert.equal(miss.headers['x-roa-trace'], 'trace-1', 'the caller that reached the origin sees its trace');
      const hit = await send(gw.base, '/traced');
      assert.equal(hit.headers['x-cache'], 'HIT');
      assert.equal(hit.headers['x-roa-trace'], undefined);
      assert.equal(hit.headers['proxy-authenticate'], undefined);
      await send(gw.base, '/revalidate');
      const validated = await send(gw.base, '/revalidate');
      assert.match(String(validated.headers['cache-status']), /fwd-status=304/);
      assert.equal(validated.headers['x-roa-trace'], undefined);
      const again = await send(gw.base, '/revalidate');
      assert.equal(again.headers['x-roa-trace'], undefined);
    } finally {
      await gw.close();
      await origin.close();
    }
  });
});

describe('issue 24: roa gateway options for variants and Set-Cookie', () => {
  const cli = (args: string[]): string[] => ['--import', 'tsx', join(process.cwd(), 'src', 'cli.ts'), 'gateway', ...args];

  it('refuses a --max-variants below 1 and a --store-set-cookie other than on/off', () => {
    const variants = spawnSync(process.execPath, cli(['--upstream', 'http://127.0.0.1:9', '--port', '0', '--max-variants', '0']), { encoding: 'utf8', timeout: 30_000 });
    assert.notEqual(variants.status, 0);
    assert.match(variants.stderr, /--max-variants must be an integer from 1/);
    const cookie = spawnSync(process.execPath, cli(['--upstream', 'http://127.0.0.1:9', '--port', '0', '--store-set-cookie', 'yes']), { encoding: 'utf8', timeout: 30_000 });
    assert.notEqual(cookie.status, 0);
    assert.match(cookie.stderr, /--store-set-cookie must be on or off/);
  });

  it('keeps --max-variants variants per URL and stores Set-Cookie responses with --store-set-cookie on', async () => {
    const origin = await startOrigin((req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=600', Vary: 'Accept', 'Set-Cookie': 'k=v' });
      res.end(`for ${req.headers.accept}`);
    });
    const child = spawn(process.execPath, cli(['--upstream', origin.url, '--port', '0', '--max-variants', '2', '--store-set-cookie', 'on']), { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`roa gateway did not start: ${out}`)), 60_000);
        const onData = (chunk: Buffer): void => {
          out += chunk.toString();
          const m = /roa gateway on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) => reject(new Error(`roa gateway exited with ${code}: ${out}`)));
      });
      const base = { host: '127.0.0.1', port };
      for (const t of ['a/1', 'a/2', 'a/3']) await send(base, '/cli', { headers: { Accept: t } });
      const kept = await send(base, '/cli', { headers: { Accept: 'a/3' } });
      assert.equal(kept.headers['x-cache'], 'HIT');
      assert.deepEqual(kept.headers['set-cookie'], ['k=v']);
      assert.equal((await send(base, '/cli', { headers: { Accept: 'a/1' } })).headers['x-cache'], 'MISS');
    } finally {
      child.kill();
      await origin.close();
    }
  });
});
