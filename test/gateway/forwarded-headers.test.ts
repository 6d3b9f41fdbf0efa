/**
 * @module test/gateway/forwarded-headers
 * X-Forwarded-For/-Proto/-Host and Forwarded on the way to the origin: a client's are replaced by
 * what the gateway saw, a trusted peer's kept (its X-Forwarded-For appended to), over plain HTTP and
 * over TLS; garbage never crashes.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import type { ClientHttp2Session } from 'node:http2';
import { createGateway } from '../../src/gateway/index.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';
import { send, startGateway, startOrigin, type Origin, type Running } from './gateway-helpers.js';
import { h1Send, h2Send, h2Session } from './tls-clients.js';

const FORGED = {
  'X-Forwarded-For': '203.0.113.9',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': 'forged.example',
  Forwarded: 'for=203.0.113.9;proto=https;host=forged.example',
};

/** The forwarding fields the origin received with its last request (lines counted, values joined). */
function lastForwarding(origin: Origin): Record<string, string | undefined> & { lines: number } {
  const seen = origin.seen.at(-1)!;
  const names = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded'];
  const lines = seen.rawHeaders.filter((name, i) => i % 2 === 0 && names.includes(name.toLowerCase())).length;
  return {
    lines,
    for: seen.headers['x-forwarded-for'] as string | undefined,
    proto: seen.headers['x-forwarded-proto'] as string | undefined,
    host: seen.headers['x-forwarded-host'] as string | undefined,
    forwarded: seen.headers.forwarded,
  };
}

describe('gateway forwarded headers over plain HTTP', () => {
  let origin: Origin;
  let untrusted: Running;
  let trusted: Running;

  before(async () => {
    // no-store: every request reaches the origin, so each one's fields can be read there.
    origin = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'no-store', 'Content-Type': 'text/plain' });
      res.end('ok');
    });
    untrusted = await startGateway(origin.url);
    trusted = await startGateway(origin.url, { trustProxy: ['loopback'] });
  });
  after(async () => {
    await untrusted?.close();
    await trusted?.close();
    await origin?.close();
  });

  it("replaces a client's X-Forwarded-* and drops its Forwarded when the peer is not trusted", async () => {
    for (const method of ['GET', 'POST']) {
      const r = await send(untrusted.base, '/a', { method, headers: FORGED, ...(method === 'POST' ? { body: 'x' } : {}) });
      assert.equal(r.status, 200);
      const f = lastForwarding(origin);
      assert.equal(f.for, '127.0.0.1');
      assert.equal(f.proto, 'http');
      assert.equal(f.host, `127.0.0.1:${untrusted.base.port}`);
      assert.equal(f.forwarded, undefined);
      assert.equal(f.lines, 3);
    }
  });

  it('adds its own X-Forwarded-* when the client sent none', async () => {
    await send(untrusted.base, '/plain');
    const f = lastForwarding(origin);
    assert.deepEqual([f.for, f.proto, f.host, f.forwarded], ['127.0.0.1', 'http', `127.0.0.1:${untrusted.base.port}`, undefined]);
  });

  it("keeps a trusted peer's fields and appends its address to X-Forwarded-For", async () => {
    await send(trusted.base, '/a', { headers: FORGED });
    const f = lastForwarding(origin);
    assert.equal(f.for, '203.0.113.9, 127.0.0.1');
    assert.equal(f.proto, 'https');
    assert.equal(f.host, 'forged.example');
    assert.equal(f.forwarded, FORGED.Forwarded);
  });

  it('adds Proto and Host for a trusted peer that said neither, and not over its Forwarded', async () => {
    await send(trusted.base, '/b', { headers: { 'X-Forwarded-For': '198.51.100.7' } });
    let f = lastForwarding(origin);
    assert.deepEqual([f.for, f.proto, f.host], ['198.51.100.7, 127.0.0.1', 'http', `127.0.0.1:${trusted.base.port}`]);
    await send(trusted.base, '/c', { headers: { Forwarded: 'proto=https;host=public.example' } });
    f = lastForwarding(origin);
    assert.deepEqual([f.for, f.proto, f.host, f.forwarded], ['127.0.0.1', undefined, undefined, 'proto=https;host=public.example']);
  });

  it('treats repeated client lines as one field, and drops them all from a client', async () => {
    await send(untrusted.base, '/rep', { headers: ['X-Forwarded-For', '1.1.1.1', 'X-Forwarded-For', '2.2.2.2', 'Host', 'x.example'] });
    assert.equal(lastForwarding(origin).for, '127.0.0.1');
    assert.equal(lastForwarding(origin).host, 'x.example');
    await send(trusted.base, '/rep', { headers: ['X-Forwarded-For', '1.1.1.1', 'X-Forwarded-For', '2.2.2.2', 'Host', 'x.example'] });
    assert.equal(lastForwarding(origin).for, '1.1.1.1, 2.2.2.2, 127.0.0.1');
  });

  it('survives garbage values from trusted and untrusted peers alike', async () => {
    const garbage: Record<string, string>[] = [
      { Forwarded: ';;;=,"' },
      { Forwarded: 'for="[::1' },
      { 'X-Forwarded-For': 'not-an-ip' },
      { 'X-Forwarded-For': ',,, ,' },
      { 'X-Forwarded-Proto': 'gopher, https, ' },
      { 'X-Forwarded-Host': '@@@ bad host' },
      { 'X-Forwarded-For': '1.2.3.4, '.repeat(1500) },
      { Forwarded: 'for=x;'.repeat(1500) },
    ];
    for (const gw of [untrusted, trusted]) {
      for (const headers of garbage) {
        const r = await send(gw.base, '/garbage', { headers });
        assert.equal(r.status, 200, JSON.stringify(headers).slice(0, 80));
      }
    }
    // Control characters never get this far: node's parser refuses them with a problem.
    const r = await send(untrusted.base, '/ok');
    assert.equal(r.status, 200);
  });

  it('refuses a malformed trustProxy when the gateway is created', () => {
    assert.throws(() => createGateway({ upstream: origin.url, trustProxy: ['not-an-address'] }), TypeError);
    assert.throws(() => createGateway({ upstream: origin.url, trustProxy: ['10.0.0.0/99'] }), TypeError);
  });

  it('never keys the cache on them: a hit is served whatever the client sent', async () => {
    const cached = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=60' });
      res.end('stored');
    });
    const gw = await startGateway(cached.url);
    try {
      assert.equal((await send(gw.base, '/k', { headers: FORGED })).headers['x-cache'], 'MISS');
      assert.equal((await send(gw.base, '/k', { headers: { 'X-Forwarded-Proto': 'http', 'X-Forwarded-For': '1.1.1.1' } })).headers['x-cache'], 'HIT');
      assert.equal(cached.seen.length, 1);
    } finally {
      await gw.close();
      await cached.close();
    }
  });
});

describe('gateway forwarded headers over TLS', () => {
  let certs: TestCertificates;
  let origin: Origin;
  let gw: Running;
  let session: ClientHttp2Session;

  before(async () => {
    certs = makeTestCertificates();
    origin = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'no-store' });
      res.end('ok');
    });
    gw = await startGateway(origin.url, { tls: { cert: certs.cert, key: certs.key } });
    session = await h2Session(`https://localhost:${gw.base.port}`, certs.ca);
  });
  after(async () => {
    session?.close();
    await gw?.close();
    await origin?.close();
    certs?.remove();
  });

  it('says https and the :authority over HTTP/2, replacing what the client sent', async () => {
    const r = await h2Send(session, '/h2', { headers: { 'x-forwarded-proto': 'http', 'x-forwarded-for': '203.0.113.9', forwarded: 'proto=http' } });
    assert.equal(r.alpn, 'h2');
    const f = lastForwarding(origin);
    assert.deepEqual([f.for, f.proto, f.host, f.forwarded], ['127.0.0.1', 'https', `localhost:${gw.base.port}`, undefined]);
  });

  it('says https and the Host over HTTP/1.1', async () => {
    const r = await h1Send(gw.base, certs.ca, '/h1', { headers: { 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'forged.example' } });
    assert.equal(r.alpn, 'http/1.1');
    const f = lastForwarding(origin);
    assert.deepEqual([f.for, f.proto, f.host], ['127.0.0.1', 'https', `127.0.0.1:${gw.base.port}`]);
  });

  it('keeps what a trusted peer says over TLS too', async () => {
    const behind = await startGateway(origin.url, { tls: { cert: certs.cert, key: certs.key }, trustProxy: ['127.0.0.1'] });
    try {
      await h1Send(behind.base, certs.ca, '/t', { headers: { 'X-Forwarded-Proto': 'http', 'X-Forwarded-For': '198.51.100.1' } });
      const f = lastForwarding(origin);
      assert.deepEqual([f.for, f.proto], ['198.51.100.1, 127.0.0.1', 'http']);
    } finally {
      await behind.close();
    }
  });
});
