/**
 * @module test/gateway/gateway-tls
 * The gateway over TLS: one listener offering HTTP/2 and HTTP/1.1 by ALPN, each request kind behaving
 * as on plain HTTP (hits, fills, conditionals, forwarded writes, PURGE, Expect: 100-continue), and
 * invalidate() for an in-process purger.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { ClientHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { request } from 'node:https';
import { runGateway } from '../../src/gateway/index.js';
import { reloadOnSignal } from '../../src/tls/credentials.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';
import { startGateway, startOrigin, type Origin, type Running } from './gateway-helpers.js';
import { h1Send, h2Send, h2Session } from './tls-clients.js';

describe('gateway over TLS (HTTP/2 and HTTP/1.1 by ALPN)', () => {
  let certs: TestCertificates;
  let origin: Origin;
  let gw: Running;
  let base: { host: string; port: number };
  let session: ClientHttp2Session;
  let n = 0;
  const warnings: string[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(w.message);
  };

  before(async () => {
    process.on('warning', onWarning);
    certs = makeTestCertificates();
    origin = await startOrigin((req, res, body) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/hints') res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      if (req.method === 'POST') {
        res.writeHead(201, 'Made It', { 'Content-Type': 'text/plain', Connection: 'keep-alive', 'Keep-Alive': 'timeout=5' });
        res.end(`got ${body}`);
        return;
      }
      res.writeHead(200, 'Fine Thanks', {
        'Cache-Control': 'max-age=60',
        ETag: `"${url.pathname}"`,
        xkey: url.searchParams.get('tag') ?? 'none',
        'Set-Cookie': url.pathname === '/cookie' ? 'a=1' : [],
        'Content-Type': 'text/plain',
        ...(url.pathname === '/repeat' ? { 'X-Cache': 'from-origin', 'Content-Language': 'en' } : {}),
      });
      res.end(`body of ${req.url} n=${++n}`);
    });
    gw = await startGateway(origin.url, { tls: { cert: certs.cert, key: certs.key }, keyByHost: true });
    base = gw.base;
    session = await h2Session(`https://127.0.0.1:${base.port}`, certs.ca);
  });
  after(async () => {
    session?.close();
    await gw?.close();
    await origin?.close();
    certs?.remove();
    process.off('warning', onWarning);
  });

  it('serves https and says so', () => {
    assert.equal(gw.gateway.protocol, 'https');
    assert.equal(typeof (gw.gateway.server as { setSecureContext?: unknown }).setSecureContext, 'function');
  });

  it('negotiates h2 and http/1.1 on the one listener', async () => {
    const a = await h2Send(session, '/alpn');
    const b = await h1Send(base, certs.ca, '/alpn');
    assert.equal(a.alpn, 'h2');
    assert.equal(b.alpn, 'http/1.1');
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
  });

  it('refuses TLS 1.1', async () => {
    const err = await new Promise<Error | undefined>((resolve) => {
      const req = request({ host: base.host, port: base.port, ca: certs.ca, maxVersion: 'TLSv1.1', minVersion: 'TLSv1', agent: false });
      req.on('error', resolve);
      req.on('response', () => resolve(undefined));
      req.end();
    });
    assert.ok(err, 'the handshake failed');
  });

  it('stores a MISS over HTTP/1.1 and answers it as a HIT over HTTP/2 (one cache key)', async () => {
    const before = gw.gateway.stats();
    const miss = await h1Send(base, certs.ca, '/shared?x=1');
    assert.equal(miss.headers['x-cache'], 'MISS');
    assert.match(String(miss.headers['cache-status']), /stored/);
    const hit = await h2Send(session, '/shared?x=1');
    assert.equal(hit.status, 200);
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal(hit.headers['cache-status'], 'roa; hit');
    assert.equal(hit.body, miss.body);
    const after = gw.gateway.stats();
    assert.equal(after.hits - before.hits, 1);
    assert.equal(after.misses - before.misses, 1);
  });

  it('stores a MISS over HTTP/2 and answers it as a HIT over HTTP/1.1', async () => {
    const miss = await h2Send(session, '/shared2');
    assert.equal(miss.headers['x-cache'], 'MISS');
    const hit = await h1Send(base, certs.ca, '/shared2');
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal(hit.body, miss.body);
  });

  it('sends the origin HTTP/1.1 without pseudo-headers, with Host from :authority', async () => {
    await h2Send(session, '/pseudo');
    const seen = origin.seen.at(-1)!;
    assert.equal(seen.url, '/pseudo');
    assert.ok(seen.rawHeaders.every((name, i) => i % 2 === 1 || !name.startsWith(':')), String(seen.rawHeaders));
    assert.equal(seen.headers.host, `127.0.0.1:${base.port}`);
    assert.equal(seen.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length, 1);
  });

  it('keeps hop-by-hop fields and reason phrases off HTTP/2 responses, and repeated fields single', async () => {
    const r = await h2Send(session, '/post', { method: 'POST', body: 'x' });
    assert.equal(r.status, 201);
    assert.equal(r.headers.connection, undefined);
    assert.equal(r.headers['keep-alive'], undefined);
    // The origin's X-Cache goes on beside this hop's, on either protocol.
    const stored = await h2Send(session, '/repeat');
    assert.deepEqual(stored.headers['x-cache'], 'from-origin, MISS');
    const hit = await h2Send(session, '/repeat');
    assert.equal(hit.headers['x-cache'], 'from-origin, HIT');
    assert.equal(hit.headers['content-language'], 'en');
    const h1 = await h1Send(base, certs.ca, '/repeat');
    assert.equal(h1.headers['x-cache'], 'from-origin, HIT');
  });

  it('answers a conditional GET with 304 from the cache on both protocols', async () => {
    await h2Send(session, '/etagged');
    const viaH2 = await h2Send(session, '/etagged', { headers: { 'if-none-match': '"/etagged"' } });
    assert.equal(viaH2.status, 304);
    assert.equal(viaH2.body, '');
    assert.equal(viaH2.headers['x-cache'], 'HIT');
    const viaH1 = await h1Send(base, certs.ca, '/etagged', { headers: { 'If-None-Match': '"/etagged"' } });
    assert.equal(viaH1.status, 304);
  });

  it('answers a byte range with 206 from the cache over HTTP/2', async () => {
    const full = await h2Send(session, '/ranged');
    const part = await h2Send(session, '/ranged', { headers: { range: 'bytes=0-3' } });
    assert.equal(part.status, 206);
    assert.equal(part.body, full.body.slice(0, 4));
    assert.equal(part.headers['content-range'], `bytes 0-3/${full.body.length}`);
  });

  it('forwards a POST with its body: HTTP/2 without a length (chunked to the origin), HTTP/1.1 with one', async () => {
    const a = await h2Send(session, '/post', { method: 'POST', body: 'hello over h2' });
    assert.equal(a.status, 201);
    assert.equal(a.body, 'got hello over h2');
    assert.equal(origin.seen.at(-1)!.headers['transfer-encoding'], 'chunked');
    const b = await h1Send(base, certs.ca, '/post', { method: 'POST', body: 'hello over h1' });
    assert.equal(b.status, 201);
    assert.equal(b.body, 'got hello over h1');
    assert.equal(origin.seen.at(-1)!.headers['content-length'], String('hello over h1'.length));
    const c = await h2Send(session, '/post', { method: 'POST', body: 'sized', headers: { 'content-length': '5' } });
    assert.equal(c.body, 'got sized');
    assert.equal(origin.seen.at(-1)!.headers['content-length'], '5');
  });

  it('joins HTTP/2 cookie fields into one Cookie line for the origin (RFC 9113 §8.2.3)', async () => {
    const r = await h2Send(session, '/cookie-jar', { headers: { cookie: ['a=1', 'b=2'] } });
    assert.equal(r.status, 200);
    const seen = origin.seen.at(-1)!;
    assert.equal(seen.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'cookie').length, 1);
    assert.equal(seen.headers.cookie, 'a=1; b=2');
  });

  it('passes 103 Early Hints on as an interim HEADERS frame over HTTP/2 and as bytes over HTTP/1.1', async () => {
    const a = await h2Send(session, '/hints');
    assert.equal(a.status, 200);
    assert.deepEqual(a.interim.map((i) => [i.status, i.headers.link]), [[103, '</style.css>; rel=preload']]);
    const b = await h1Send(base, certs.ca, '/hints?h1');
    assert.deepEqual(b.interim.map((i) => i.status), [103]);
  });

  it('PURGEs from loopback over both protocols', async () => {
    await h2Send(session, '/purged');
    const p = await h2Send(session, '/purged', { method: 'PURGE' });
    assert.equal(p.status, 200);
    assert.deepEqual(JSON.parse(p.body), { status: 'ok', purged: 1 });
    assert.equal((await h2Send(session, '/purged')).headers['x-cache'], 'MISS');
    const q = await h1Send(base, certs.ca, '/purged', { method: 'PURGE' });
    assert.equal(q.status, 200);
    const tagged = await h1Send(base, certs.ca, '/tagged?tag=t9');
    assert.equal(tagged.headers['x-cache'], 'MISS');
    const byTag = await h2Send(session, '/', { method: 'PURGE', headers: { xkey: 't9' } });
    assert.equal(byTag.status, 200);
    assert.equal((await h2Send(session, '/purged', { method: 'PURGE' })).status, 404);
  });

  it('invalidate() drops URLs and tags as PURGE would, and counts them', async () => {
    const authority = `127.0.0.1:${base.port}`;
    await h2Send(session, '/inv/a?tag=inv-tag');
    await h2Send(session, '/inv/b');
    await h2Send(session, '/inv/c');
    const purgesBefore = gw.gateway.stats().purges;
    const dropped = gw.gateway.invalidate({ urls: [`https://${authority}/inv/b`, 'https://other.example/inv/c'], tags: ['inv-tag', 'no-such-tag'] });
    assert.equal(dropped, 2);
    assert.equal(gw.gateway.stats().purges, purgesBefore + 1);
    assert.equal((await h2Send(session, '/inv/a?tag=inv-tag')).headers['x-cache'], 'MISS');
    assert.equal((await h2Send(session, '/inv/b')).headers['x-cache'], 'MISS');
    assert.equal((await h2Send(session, '/inv/c')).headers['x-cache'], 'HIT');
    assert.equal(gw.gateway.invalidate({ urls: ['not a url', ''], tags: [] }), 0);
  });

  it('refuses an HTTP/2 CONNECT and an invalid :authority with a problem', async () => {
    const c = await h2Send(session, '', { method: 'CONNECT', headers: { ':authority': 'example.org:443' } });
    assert.equal(c.status, 400);
    assert.equal(JSON.parse(c.body).code, 'ROA_ERR_CONNECT_NOT_SUPPORTED');
    const bad = await h2Send(session, '/x', { headers: { ':authority': 'a@b' } });
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body).code, 'ROA_ERR_INVALID_HOST');
    const badHost = await h1Send(base, certs.ca, '/x', { headers: { Host: 'a@b' } });
    assert.equal(badHost.status, 400);
    assert.equal(JSON.parse(badHost.body).code, 'ROA_ERR_INVALID_HOST');
  });

  it('writes no process warnings for HTTP/2 responses', () => {
    assert.deepEqual(warnings.filter((w) => /http\/?2|header|status message/i.test(w)), []);
  });

  it('runGateway serves TLS and logs an https:// address', async () => {
    const lines: unknown[] = [];
    const logger = { info: (...a: unknown[]) => lines.push(...a), warn() {}, error() {} };
    const { gateway, address } = await runGateway({ upstream: origin.url, port: 0, tls: { cert: certs.cert, key: certs.key }, logger });
    try {
      assert.ok(lines.includes(`roa gateway on https://127.0.0.1:${address.port} -> ${origin.url}`), JSON.stringify(lines));
      const s = await h2Session(`https://localhost:${address.port}`, certs.ca);
      assert.equal((await h2Send(s, '/run')).status, 200);
      s.close();
    } finally {
      await gateway.close();
    }
  });

  it('takes a renewed certificate by setSecureContext (reloadOnSignal) for new connections, keeping open ones', async () => {
    const other = await startGateway(origin.url, { tls: { cert: certs.cert, key: certs.key } });
    const serial = (s: ClientHttp2Session): string => (s.socket as unknown as TLSSocket).getPeerCertificate().serialNumber;
    try {
      const server = other.gateway.server;
      assert.ok('setSecureContext' in server);
      const renewed = certs.issue('renewed');
      let reloaded!: () => void;
      const done = new Promise<void>((resolve) => (reloaded = resolve));
      const stop = reloadOnSignal([server], { certFile: renewed.certFile, keyFile: renewed.keyFile }, { info: () => reloaded(), error() {} }, 'SIGUSR2');
      const old = await h2Session(`https://localhost:${other.base.port}`, certs.ca);
      const before = serial(old);
      process.kill(process.pid, 'SIGUSR2');
      await done;
      stop();
      const fresh = await h2Session(`https://localhost:${other.base.port}`, certs.ca);
      assert.notEqual(serial(fresh), before);
      assert.equal((await h2Send(old, '/still-open')).status, 200);
      assert.equal((await h2Send(fresh, '/renewed')).status, 200);
      old.close();
      fresh.close();
    } finally {
      await other.close();
    }
  });

  it('closes with HTTP/2 sessions still open', async () => {
    const other = await startGateway(origin.url, { tls: { cert: certs.cert, key: certs.key } });
    const s = await h2Session(`https://127.0.0.1:${other.base.port}`, certs.ca);
    assert.equal((await h2Send(s, '/open')).status, 200);
    const closed = new Promise<void>((resolve) => s.once('close', resolve));
    await other.close();
    await closed;
  });
});

describe('gateway over TLS: Expect: 100-continue on HTTP/1.1', () => {
  let certs: TestCertificates;
  let originServer: Server;
  let gw: Running;
  const bodies: number[] = [];

  before(async () => {
    certs = makeTestCertificates();
    // An origin that decides on the head: 413 for /big and 401 for /private, without reading the body.
    originServer = createServer((req, res) => {
      let size = 0;
      req.on('data', (c: Buffer) => (size += c.length));
      req.on('end', () => {
        bodies.push(size);
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`read ${size}`);
      });
    });
    originServer.on('checkContinue', (req, res) => {
      if (req.url === '/big') {
        res.writeHead(413, { 'Content-Type': 'text/plain', Connection: 'close' });
        res.end('too big');
        return;
      }
      if (req.url === '/private') {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="roa"', Connection: 'close' });
        res.end();
        return;
      }
      res.writeContinue();
      originServer.emit('request', req, res);
    });
    await new Promise<void>((resolve) => originServer.listen(0, '127.0.0.1', resolve));
    gw = await startGateway(`http://127.0.0.1:${(originServer.address() as AddressInfo).port}`, { tls: { cert: certs.cert, key: certs.key } });
  });
  after(async () => {
    await gw?.close();
    originServer?.closeAllConnections();
    await new Promise<void>((resolve) => (originServer ? originServer.close(() => resolve()) : resolve()));
    certs?.remove();
  });

  /** Sends the head with Expect and the body only on 100 Continue; reports the status and whether 100 came. */
  function expecting(path: string, size: number): Promise<{ status: number; continued: boolean; body: string }> {
    return new Promise((resolve, reject) => {
      let continued = false;
      const req = request({
        host: '127.0.0.1', port: gw.base.port, method: 'PUT', path, ca: certs.ca, ALPNProtocols: ['http/1.1'], agent: false,
        headers: { Expect: '100-continue', 'Content-Length': String(size), 'Content-Type': 'application/octet-stream' },
      });
      req.setTimeout(10_000, () => req.destroy(new Error('client timeout')));
      req.on('continue', () => {
        continued = true;
        req.end(Buffer.alloc(size, 0x61));
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          resolve({ status: res.statusCode!, continued, body });
          req.destroy();
        });
      });
      req.flushHeaders();
    });
  }

  it('relays a 413 decided on the head without the client sending the body', async () => {
    const r = await expecting('/big', 5_000_000);
    assert.equal(r.status, 413);
    assert.equal(r.continued, false);
  });

  it('relays a 401 decided on the head without the client sending the body', async () => {
    const r = await expecting('/private', 1000);
    assert.equal(r.status, 401);
    assert.equal(r.continued, false);
  });

  it("relays the origin's 100 Continue, then the body", async () => {
    const r = await expecting('/ok', 1000);
    assert.equal(r.continued, true);
    assert.equal(r.status, 200);
    assert.equal(r.body, 'read 1000');
    assert.equal(bodies.at(-1), 1000);
  });
});
