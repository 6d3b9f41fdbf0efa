/**
 * @module test/gateway/gateway-resilience
 * 502/504 problems, request coalescing, LRU eviction by bytes.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { send, sleep, startGateway, startOrigin } from './gateway-helpers.js';
import { freePort } from '../helpers/ports.js';

describe('gateway upstream failures', () => {
  it('answers 502 problem+json when the origin port is closed', async () => {
    const gw = await startGateway(`http://127.0.0.1:${await freePort()}`);
    try {
      for (const method of ['GET', 'POST']) {
        const r = await send(gw.base, '/x', { method, body: method === 'POST' ? 'b' : undefined });
        assert.equal(r.status, 502);
        assert.equal(r.headers['content-type'], 'application/problem+json');
        const p = JSON.parse(r.body);
        assert.equal(p.status, 502);
        assert.equal(typeof p.type, 'string');
        assert.equal(typeof p.title, 'string');
        assert.equal(typeof p.detail, 'string');
      }
    } finally {
      await gw.close();
    }
  });

  it('answers 504 problem+json when the origin is slower than upstreamTimeoutMs', async () => {
    const origin = await startOrigin(() => {});
    const gw = await startGateway(origin.url, { upstreamTimeoutMs: 200 });
    try {
      const started = Date.now();
      const r = await send(gw.base, '/hang');
      assert.equal(r.status, 504);
      assert.equal(JSON.parse(r.body).status, 504);
      // Bounded by upstreamTimeoutMs, not by the origin; the bound is wide so a busy machine passes.
      assert.ok(Date.now() - started < 30_000);
    } finally {
      await gw.close();
      await origin.close();
    }
  });
});

describe('gateway and a client that stalls its upload', () => {
  it("passes on the origin's own 408 for the stalled body instead of blaming the origin with 504", async () => {
    // An origin with a body time-out shorter than twice the gateway's idle time-out.
    const origin = createHttpServer((req, res) => {
      const timer = setTimeout(() => {
        res.writeHead(408, { 'Content-Type': 'application/problem+json', Connection: 'close' });
        res.end(JSON.stringify({ status: 408, title: 'Request Timeout' }));
      }, 300);
      req.on('end', () => clearTimeout(timer));
      req.resume();
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    const gw = await startGateway(`http://127.0.0.1:${(origin.address() as AddressInfo).port}`, { upstreamTimeoutMs: 200 });
    try {
      const port = gw.base.port;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc'));
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (d: string) => (text += d));
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
        setTimeout(() => socket.destroy(), 3000);
      });
      assert.match(answer, /^HTTP\/1\.1 408 /);
    } finally {
      await gw.close();
      origin.closeAllConnections();
      await new Promise<void>((r) => origin.close(() => r()));
    }
  });
});

describe('gateway request coalescing', () => {
  it('makes one upstream request for N concurrent misses of one cacheable key', async () => {
    const origin = await startOrigin((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'Cache-Control': 'max-age=60' });
        res.end('shared');
      }, 150);
    });
    const gw = await startGateway(origin.url);
    try {
      const replies = await Promise.all(Array.from({ length: 20 }, () => send(gw.base, '/hot')));
      assert.equal(origin.seen.length, 1);
      assert.ok(replies.every((r) => r.status === 200 && r.body === 'shared'));
      assert.equal(replies.filter((r) => r.headers['cache-status'] === 'roa; fwd=miss; collapsed').length, 19);
    } finally {
      await gw.close();
      await origin.close();
    }
  });

  it('sends waiters upstream themselves when the response may not be stored', async () => {
    const origin = await startOrigin((req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'Cache-Control': 'private' });
        res.end(`n${origin.seen.length}`);
      }, 100);
    });
    const gw = await startGateway(origin.url);
    try {
      await Promise.all(Array.from({ length: 5 }, () => send(gw.base, '/personal')));
      assert.equal(origin.seen.length, 5);
    } finally {
      await gw.close();
      await origin.close();
    }
  });
});

describe('gateway LRU by bytes', () => {
  it('evicts the least recently used response once maxBytes is exceeded', async () => {
    const body = 'x'.repeat(1000);
    const origin = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=60' });
      res.end(body);
    });
    const gw = await startGateway(origin.url, { maxBytes: 12_000 });
    try {
      for (const p of ['/a', '/b', '/c']) await send(gw.base, p);
      assert.equal(gw.gateway.stats().stored, 3);
      assert.ok(gw.gateway.stats().bytes <= 12_000);
      assert.equal((await send(gw.base, '/a')).headers['x-cache'], 'HIT'); // /a becomes most recent
      await send(gw.base, '/d'); // evicts /b
      assert.ok(gw.gateway.stats().bytes <= 12_000);
      assert.equal((await send(gw.base, '/b')).headers['x-cache'], 'MISS');
      await sleep(1);
      assert.equal((await send(gw.base, '/d')).headers['x-cache'], 'HIT');
    } finally {
      await gw.close();
      await origin.close();
    }
  });

  it('does not store a response larger than maxBytes', async () => {
    const origin = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=60' });
      res.end('y'.repeat(5000));
    });
    const gw = await startGateway(origin.url, { maxBytes: 2000 });
    try {
      const a = await send(gw.base, '/big');
      assert.equal(a.body.length, 5000);
      assert.equal((await send(gw.base, '/big')).headers['x-cache'], 'MISS');
      assert.equal(gw.gateway.stats().bytes, 0);
    } finally {
      await gw.close();
      await origin.close();
    }
  });
});
