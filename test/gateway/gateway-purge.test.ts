/**
 * @module test/gateway/gateway-purge
 * PURGE by URL and by xkey tag, the allow-list, and the generation counter.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { send, sleep, startGateway, startOrigin, type Origin, type Running } from './gateway-helpers.js';

describe('gateway PURGE', () => {
  let origin: Origin;
  let gw: Running;
  let slowRelease: (() => void) | undefined;
  /** Waits (bounded) until the slow origin holds a request, then lets it answer. */
  async function waitForSlow(): Promise<() => void> {
    for (let i = 0; i < 200 && slowRelease === undefined; i++) await sleep(10);
    const f = slowRelease;
    slowRelease = undefined;
    assert.ok(f, 'the origin got the request');
    return f;
  }
  before(async () => {
    origin = await startOrigin((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/slow') {
        slowRelease = () => {
          res.writeHead(200, { 'Cache-Control': 'max-age=60', xkey: 'slow-tag' });
          res.end('slow');
        };
        return;
      }
      const headers: Record<string, string> = { 'Cache-Control': 'max-age=60', Vary: 'Accept-Language' };
      if (url.pathname === '/articles') headers.xkey = 'articles';
      if (url.pathname === '/articles/1') headers['Surrogate-Key'] = 'article-1 articles';
      res.writeHead(200, headers);
      res.end(`${req.url} ${req.headers['accept-language']}`);
    });
    gw = await startGateway(origin.url);
  });
  after(async () => {
    await gw.close();
    await origin.close();
  });

  it('removes every Vary variant of the URL with 200, then 404', async () => {
    await send(gw.base, '/page', { headers: { 'Accept-Language': 'en' } });
    await send(gw.base, '/page', { headers: { 'Accept-Language': 'fr' } });
    assert.equal((await send(gw.base, '/page', { headers: { 'Accept-Language': 'fr' } })).headers['x-cache'], 'HIT');
    const p = await send(gw.base, '/page', { method: 'PURGE' });
    assert.equal(p.status, 200);
    assert.deepEqual(JSON.parse(p.body), { status: 'ok', purged: 2 });
    assert.equal((await send(gw.base, '/page', { headers: { 'Accept-Language': 'en' } })).headers['x-cache'], 'MISS');
    assert.equal((await send(gw.base, '/page', { headers: { 'Accept-Language': 'fr' } })).headers['x-cache'], 'MISS');
    await send(gw.base, '/page', { method: 'PURGE' });
    const again = await send(gw.base, '/page', { method: 'PURGE' });
    assert.equal(again.status, 404);
    assert.equal(again.headers['content-type'], 'application/problem+json');
  });

  it('purges by xkey tag across query variants, Vary variants and Surrogate-Key', async () => {
    const targets: [string, string][] = [
      ['/articles', 'en'], ['/articles?cursor=abc', 'en'], ['/articles?cursor=abc', 'fr'], ['/articles/1', 'en'], ['/other', 'en'],
    ];
    for (const [path, lang] of targets) {
      const miss = await send(gw.base, path, { headers: { 'Accept-Language': lang } });
      // Surrogate keys are for caches: kept with the stored response, never shown to clients (as the VCL does).
      assert.equal(miss.headers.xkey, undefined, path);
      assert.equal(miss.headers['surrogate-key'], undefined, path);
    }
    for (const [path, lang] of targets) {
      const hit = await send(gw.base, path, { headers: { 'Accept-Language': lang } });
      assert.equal(hit.headers['x-cache'], 'HIT', path);
      assert.equal(hit.headers.xkey, undefined, path);
      assert.equal(hit.headers['surrogate-key'], undefined, path);
    }
    const p = await send(gw.base, '/', { method: 'PURGE', headers: { xkey: 'articles unrelated' } });
    assert.equal(p.status, 200);
    assert.equal(JSON.parse(p.body).purged, 4);
    for (const [path, lang] of targets) {
      const r = await send(gw.base, path, { headers: { 'Accept-Language': lang } });
      assert.equal(r.headers['x-cache'], path === '/other' ? 'HIT' : 'MISS', path);
    }
    assert.equal((await send(gw.base, '/', { method: 'PURGE', headers: { xkey: 'nothing-has-this' } })).status, 404);
  });

  it('delivers a fill that began before a purge but does not store it', async () => {
    const pending = send(gw.base, '/slow');
    const release = await waitForSlow();
    assert.equal((await send(gw.base, '/slow', { method: 'PURGE' })).status, 404);
    release();
    const first = await pending;
    assert.equal(first.body, 'slow');
    const next = send(gw.base, '/slow');
    (await waitForSlow())(); // asked again: the purged fill was not stored
    assert.equal((await next).headers['x-cache'], 'MISS');
  });

  it('drops a fill whose response carries a tag purged during the fill', async () => {
    const pending = send(gw.base, '/slow?v=2');
    const release = await waitForSlow();
    await send(gw.base, '/', { method: 'PURGE', headers: { xkey: 'slow-tag' } });
    release();
    assert.equal((await pending).body, 'slow');
    const next = send(gw.base, '/slow?v=2');
    (await waitForSlow())();
    assert.equal((await next).headers['x-cache'], 'MISS');
    const third = await send(gw.base, '/slow?v=2');
    assert.equal(third.headers['x-cache'], 'HIT', 'a fill that began after the purge is stored');
  });
});

describe('gateway PURGE allow-list', () => {
  it('refuses addresses outside purgeAllow with 403', async () => {
    const origin = await startOrigin((_req, res) => res.end('x'));
    const gw = await startGateway(origin.url, { purgeAllow: ['10.0.0.0/8'] });
    try {
      const r = await send(gw.base, '/x', { method: 'PURGE' });
      assert.equal(r.status, 403);
      assert.equal(r.headers['content-type'], 'application/problem+json');
      assert.equal(JSON.parse(r.body).status, 403);
      assert.equal(origin.seen.length, 0, 'PURGE never reaches the origin');
    } finally {
      await gw.close();
      await origin.close();
    }
  });
});
