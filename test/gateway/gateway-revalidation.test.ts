/**
 * @module test/gateway/gateway-revalidation
 * 304 header update, stale-while-revalidate, stale-if-error, §4.4 invalidation, CDN-Cache-Control, 1xx.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { httpDate, send, sleep, startGateway, startOrigin, type Origin, type Running } from './gateway-helpers.js';

describe('gateway revalidation and invalidation', () => {
  let origin: Origin;
  let gw: Running;
  const mode: Record<string, string> = {};
  /** The gateway's clock runs this far ahead of the wall clock: freshness expires without waiting. */
  let skewMs = 0;
  const advance = (ms: number): void => {
    skewMs += ms;
  };
  before(async () => {
    origin = await startOrigin((req, res) => {
      const path = new URL(req.url!, 'http://x').pathname;
      const n = origin.seen.filter((r) => r.url === req.url).length;
      if (path === '/etag') {
        if (req.headers['if-none-match'] === '"v1"') {
          res.writeHead(304, { ETag: '"v1"', 'Cache-Control': 'max-age=60', 'X-Updated': 'yes', 'Content-Length': '999' });
          res.end();
          return;
        }
        res.writeHead(200, { ETag: '"v1"', 'Cache-Control': 'max-age=0', 'X-Updated': 'no', 'X-Kept': 'kept' });
        res.end('etag body');
      } else if (path === '/swr') {
        res.writeHead(200, { 'Cache-Control': 'max-age=1, stale-while-revalidate=60' });
        res.end(`swr ${n}`);
      } else if (path === '/sie') {
        if (n > 1) {
          res.writeHead(503);
          res.end('down');
          return;
        }
        res.writeHead(200, { 'Cache-Control': 'max-age=1, stale-if-error=60' });
        res.end('sie body');
      } else if (path === '/must') {
        if (n > 1) {
          res.writeHead(503);
          res.end('down');
          return;
        }
        res.writeHead(200, { 'Cache-Control': 'max-age=1, must-revalidate, stale-if-error=60' });
        res.end('must body');
      } else if (path === '/post' && req.method === 'POST') {
        res.writeHead(mode.post === 'fail' ? 500 : 201, { Location: '/loc', 'Content-Location': 'http://127.0.0.1:1/elsewhere' });
        res.end('created');
      } else if (path === '/cdn') {
        res.writeHead(200, { 'CDN-Cache-Control': 'max-age=60', 'Cache-Control': 'no-store' });
        res.end('cdn');
      } else if (path === '/cdn-short') {
        res.writeHead(200, { 'CDN-Cache-Control': 'max-age=1', 'Cache-Control': 'max-age=3600' });
        res.end('cdn-short');
      } else if (path === '/cdn-bad') {
        res.writeHead(200, { 'CDN-Cache-Control': 'max-age=60, &&&', 'Cache-Control': 'no-store' });
        res.end('cdn-bad');
      } else if (path === '/early') {
        res.writeEarlyHints({ link: '</s.css>; rel=preload; as=style' });
        res.writeHead(200, { 'Cache-Control': 'max-age=60' });
        res.end('early');
      } else {
        res.writeHead(200, { 'Cache-Control': 'max-age=60', Date: httpDate() });
        res.end(`${path} ${n}`);
      }
    });
    gw = await startGateway(origin.url, { now: () => Date.now() + skewMs });
  });
  after(async () => {
    await gw.close();
    await origin.close();
  });

  it('updates stored headers from a 304 but keeps Content-Length (RFC 9111 §4.3.4)', async () => {
    await send(gw.base, '/etag');
    const r = await send(gw.base, '/etag');
    assert.equal(origin.seen.at(-1)!.headers['if-none-match'], '"v1"');
    assert.match(String(r.headers['cache-status']), /fwd=stale; fwd-status=304/);
    assert.equal(r.body, 'etag body');
    assert.equal(r.headers['x-updated'], 'yes');
    assert.equal(r.headers['x-kept'], 'kept');
    assert.equal(r.headers['content-length'], String('etag body'.length));
    const h = await send(gw.base, '/etag');
    assert.equal(h.headers['x-cache'], 'HIT', 'the 304 made the stored response fresh (max-age=60)');
  });

  it('answers a conditional request from a fresh stored response with 304', async () => {
    const r = await send(gw.base, '/etag', { headers: { 'If-None-Match': '"v1"' } });
    assert.equal(r.status, 304);
    assert.equal(r.headers.etag, '"v1"');
  });

  it('serves stale within stale-while-revalidate and refreshes in the background (RFC 5861 §3)', async () => {
    await send(gw.base, '/swr');
    advance(1100);
    const stale = await send(gw.base, '/swr');
    assert.equal(stale.body, 'swr 1');
    assert.equal(stale.headers['x-cache'], 'HIT');
    for (let i = 0; i < 100 && origin.seen.filter((r) => r.url === '/swr').length < 2; i++) await sleep(10);
    await sleep(20);
    const fresh = await send(gw.base, '/swr');
    assert.equal(fresh.body, 'swr 2');
    assert.equal(fresh.headers['x-cache'], 'HIT');
  });

  it('serves stale on a 5xx within stale-if-error, unless must-revalidate (RFC 5861 §4, RFC 9111 §5.2.2.2)', async () => {
    await send(gw.base, '/sie');
    await send(gw.base, '/must');
    advance(1100);
    const r = await send(gw.base, '/sie');
    assert.equal(r.status, 200);
    assert.equal(r.body, 'sie body');
    const m = await send(gw.base, '/must');
    assert.equal(m.status, 503);
  });

  it('invalidates the target URI and same-origin Location after a 2xx to an unsafe method (RFC 9111 §4.4)', async () => {
    await send(gw.base, '/post');
    await send(gw.base, '/loc');
    assert.equal((await send(gw.base, '/post')).headers['x-cache'], 'HIT');
    assert.equal((await send(gw.base, '/loc')).headers['x-cache'], 'HIT');
    mode.post = 'fail';
    await send(gw.base, '/post', { method: 'POST', body: 'x' });
    assert.equal((await send(gw.base, '/post')).headers['x-cache'], 'HIT', 'a 500 does not invalidate');
    mode.post = 'ok';
    const created = await send(gw.base, '/post', { method: 'POST', body: 'x' });
    assert.equal(created.status, 201);
    assert.equal((await send(gw.base, '/post')).headers['x-cache'], 'MISS');
    assert.equal((await send(gw.base, '/loc')).headers['x-cache'], 'MISS');
  });

  it('invalidates Content-Location of the same origin', async () => {
    const o2 = await startOrigin((req, res) => {
      if (req.method === 'PUT') {
        res.writeHead(204, { 'Content-Location': `http://${req.headers.host}/cl` });
        res.end();
        return;
      }
      res.writeHead(200, { 'Cache-Control': 'max-age=60' });
      res.end('cl');
    });
    const g2 = await startGateway(o2.url);
    try {
      await send(g2.base, '/cl');
      assert.equal((await send(g2.base, '/cl')).headers['x-cache'], 'HIT');
      await send(g2.base, '/other', { method: 'PUT', body: 'x' });
      assert.equal((await send(g2.base, '/cl')).headers['x-cache'], 'MISS');
    } finally {
      await g2.close();
      await o2.close();
    }
  });

  it('uses CDN-Cache-Control over Cache-Control, and ignores an invalid one (RFC 9213 §2.1)', async () => {
    await send(gw.base, '/cdn');
    const a = await send(gw.base, '/cdn');
    assert.equal(a.headers['x-cache'], 'HIT');
    assert.equal(a.headers['cdn-cache-control'], 'max-age=60');
    await send(gw.base, '/cdn-short');
    advance(1100);
    assert.equal((await send(gw.base, '/cdn-short')).headers['x-cache'], 'MISS');
    await send(gw.base, '/cdn-bad');
    assert.equal((await send(gw.base, '/cdn-bad')).headers['x-cache'], 'MISS');
  });

  it('forwards 1xx interim responses and stores only the final one', async () => {
    const interim: number[] = [];
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: gw.base.host, port: gw.base.port, path: '/early', agent: false });
      req.setTimeout(5000, () => req.destroy(new Error('timeout')));
      req.on('information', (info) => interim.push(info.statusCode));
      req.on('error', reject);
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.end();
    });
    assert.deepEqual(interim, [103]);
    assert.equal(r.status, 200);
    const again = await send(gw.base, '/early');
    assert.equal(again.status, 200);
    assert.equal(again.headers['x-cache'], 'HIT');
  });
});
