/**
 * @module test/http/secure-server
 * app.createSecureServer (http/secure-server): one TLS listener, HTTP/2 and HTTP/1.1 by ALPN,
 * TLS 1.2 at least; `100 Continue` only for a body someone reads; CONNECT and malformed HTTP/1.1
 * answered with problems; the article service served over both protocols.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ClientHttp2Session, Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createApp } from '../../src/app.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { HttpError } from '../../src/errors/http-error.js';
import { json } from '../../src/middleware/index.js';
import { createService, type Service } from '../../src/service.js';
import { openStore } from '../../src/storage/open-store.js';
import { after, before, describe, it } from '../helpers/node-test.js';
import { h1Request, h2Request, h2Session, type SecureReply, type SecureRequest } from '../helpers/secure-clients.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';

async function listen(server: Http2SecureServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Writes raw bytes over TLS (HTTP/1.1 by ALPN) and returns all the server sent until it closed. */
function rawH1(port: number, ca: Buffer, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['http/1.1'] }, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(30_000, () => socket.destroy(new Error('client timeout')));
  });
}

describe('app.createSecureServer', () => {
  let certs: TestCertificates;
  let server: Http2SecureServer;
  let port: number;
  let session: ClientHttp2Session;

  before(async () => {
    certs = makeTestCertificates();
    const app = createApp();
    app.get('/who', (req, res) => res.json({ protocol: req.protocol, secure: req.secure, hostname: req.hostname, version: req.httpVersionMajor }));
    app.post('/echo', json(), (req, res) => res.status(201).json(req.body));
    app.post('/refuse', (_req, _res, next) => next(new HttpError(401, 'Who are you?', { code: 'ROA_ERR_TEST_UNAUTHENTICATED' })));
    server = app.createSecureServer({ cert: certs.cert, key: certs.key });
    port = await listen(server);
    session = await h2Session(port, certs.ca);
  });

  after(async () => {
    session?.close();
    await new Promise((resolve) => server?.close(resolve));
    certs?.remove();
  });

  it('negotiates h2 and http/1.1 by ALPN on one port, and serves a client offering no ALPN', async () => {
    const two = await h2Request(session, { path: '/who' });
    assert.equal(two.alpn, 'h2');
    assert.deepEqual(JSON.parse(two.body), { protocol: 'https', secure: true, hostname: '127.0.0.1', version: 2 });
    const one = await h1Request(port, certs.ca, { path: '/who' });
    assert.equal(one.alpn, 'http/1.1');
    assert.deepEqual(JSON.parse(one.body), { protocol: 'https', secure: true, hostname: '127.0.0.1', version: 1 });
    const noAlpn = await h1Request(port, certs.ca, { path: '/who' }, { ALPNProtocols: [] });
    assert.equal(noAlpn.alpn, false);
    assert.equal(noAlpn.status, 200);
  });

  it('defers the uncork of HTTP/1.1 TLS sockets when turn flushing is on, never of an HTTP/2 session socket', async () => {
    const app = createApp({ flushPerTurn: true });
    app.get('/', (_req, res) => res.send('ok'));
    const flushing = app.createSecureServer({ cert: certs.cert, key: certs.key });
    const deferred = new Map<string, boolean>();
    flushing.on('secureConnection', (socket: TLSSocket) => deferred.set(String(socket.alpnProtocol), socket.uncork !== Writable.prototype.uncork));
    const flushingPort = await listen(flushing);
    const h2 = await h2Session(flushingPort, certs.ca);
    try {
      assert.equal((await h2Request(h2, { path: '/' })).body, 'ok');
      assert.equal((await h1Request(flushingPort, certs.ca, { path: '/' })).body, 'ok');
      assert.deepEqual(Object.fromEntries(deferred), { h2: false, 'http/1.1': app.fastPaths.turnFlush });
    } finally {
      h2.close();
      await new Promise((resolve) => flushing.close(resolve));
    }
  });

  it('refuses a TLS 1.1 client', async () => {
    await assert.rejects(
      h1Request(port, certs.ca, { path: '/who' }, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }),
      (err: NodeJS.ErrnoException) => /ERR_SSL|EPROTO|ECONNRESET/.test(`${err.code} ${err.message}`),
    );
  });

  for (const [name, send] of [
    ['HTTP/1.1', (r: SecureRequest): Promise<SecureReply> => h1Request(port, certs.ca, r)],
    ['HTTP/2', (r: SecureRequest): Promise<SecureReply> => h2Request(session, r)],
  ] as const) {
    it(`sends 100 Continue over ${name} once the body is read, and not for a request refused on its headers`, async () => {
      const read = await send({ method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: '{"ok":true}', waitForContinue: true });
      assert.equal(read.status, 201);
      assert.equal(read.continued, true);
      assert.deepEqual(JSON.parse(read.body), { ok: true });
      const refused = await send({ method: 'POST', path: '/refuse', headers: { 'content-type': 'application/json' }, body: '{"ok":true}', waitForContinue: true });
      assert.equal(refused.status, 401);
      assert.equal(refused.continued, false);
    });
  }

  it('answers CONNECT with a 400 problem over HTTP/1.1 and HTTP/2', async () => {
    const text = await rawH1(port, certs.ca, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.match(text, /connect-not-supported/);
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const stream = session.request({ ':method': 'CONNECT', ':authority': 'example.com:443' });
      let status = 0;
      let body = '';
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (body += d));
      stream.on('end', () => resolve({ status, body }));
      stream.on('error', reject);
    });
    assert.equal(reply.status, 400);
    assert.equal(JSON.parse(reply.body).code, 'ROA_ERR_CONNECT_NOT_SUPPORTED');
  });

  it('answers malformed HTTP/1.1 over TLS with a problem', async () => {
    const text = await rawH1(port, certs.ca, 'GET / HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n');
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.match(text, /application\/problem\+json/);
  });

  it('answers an HTTP/1.1 request without Host with a 400 problem', async () => {
    const text = await rawH1(port, certs.ca, 'GET /who HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.match(text, /ROA_ERR_INVALID_HOST/);
  });
});

describe('the article service on app.createSecureServer', () => {
  let certs: TestCertificates;
  let service: Service;
  let server: Http2SecureServer;
  let port: number;
  let session: ClientHttp2Session;
  let editor: string;

  before(async () => {
    certs = makeTestCertificates();
    service = await createService({ store: await openStore(':memory:'), serverKey: randomBytes(32), logLevel: 'silent' });
    await service.store.createUser({ name: 'ed', role: 'editor', passwordHash: await hashPassword('ed-secret-pw') });
    editor = 'Basic ' + Buffer.from('ed:ed-secret-pw').toString('base64');
    server = service.app.createSecureServer({ cert: certs.cert, key: certs.key });
    port = await listen(server);
    session = await h2Session(port, certs.ca);
  });

  after(async () => {
    session?.close();
    await new Promise((resolve) => server?.close(resolve));
    await service?.release();
    await service?.store.close();
    certs?.remove();
  });

  const XML = '<article><title>Tea</title><price currency="eur">9.90</price></article>';

  for (const [name, send] of [
    ['HTTP/2', (r: SecureRequest): Promise<SecureReply> => h2Request(session, r)],
    ['HTTP/1.1', (r: SecureRequest): Promise<SecureReply> => h1Request(port, certs.ca, r)],
  ] as const) {
    it(`PUT (Basic), GET with an ETag, 304, OPTIONS and DELETE over ${name}`, async () => {
      const path = `/articles/tls-${name === 'HTTP/2' ? 'h2' : 'h1'}`;
      const put = await send({ method: 'PUT', path, headers: { authorization: editor, 'content-type': 'application/xml' }, body: XML });
      assert.equal(put.status, 201, put.body);
      assert.equal(put.alpn, name === 'HTTP/2' ? 'h2' : 'http/1.1');
      const get = await send({ path, headers: { accept: 'application/xml' } });
      assert.equal(get.status, 200);
      assert.equal(get.body, XML);
      assert.match(get.headers.etag!, /^"[^"]+"$/);
      const notModified = await send({ path, headers: { accept: 'application/xml', 'if-none-match': get.headers.etag! } });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.body, '');
      const anonymous = await send({ method: 'OPTIONS', path });
      assert.ok(anonymous.status === 200 || anonymous.status === 204, String(anonymous.status));
      assert.equal(anonymous.headers.allow, 'HEAD, GET, OPTIONS');
      const options = await send({ method: 'OPTIONS', path, headers: { authorization: editor } });
      assert.match(options.headers.allow!, /\bPUT\b/);
      assert.match(options.headers.allow!, /\bDELETE\b/);
      const del = await send({ method: 'DELETE', path, headers: { authorization: editor } });
      assert.equal(del.status, 204);
      const gone = await send({ path });
      assert.equal(gone.status, 404);
    });
  }
});
