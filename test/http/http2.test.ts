/**
 * @module test/http/http2
 * One app over TLS answers the same over HTTP/2 and HTTP/1.1 (http/http2-messages,
 * http/secure-server): the same status, significant headers and body for each request of a table,
 * HTTP/2's `:authority` standing in for Host, no process warnings from roa's own code paths.
 */
import assert from 'node:assert/strict';
import http2, { type ClientHttp2Session, type Http2SecureServer } from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from '../../src/app.js';
import { HttpError } from '../../src/errors/http-error.js';
import { hostProblem } from '../../src/http/host.js';
import { Http2Request, Http2Response } from '../../src/http/http2-messages.js';
import { Request } from '../../src/http/request.js';
import { Response } from '../../src/http/response.js';
import { json, methodOverride, urlencoded } from '../../src/middleware/index.js';
import { after, before, describe, it } from '../helpers/node-test.js';
import { h1Request, h2Request, h2Session, type SecureReply, type SecureRequest } from '../helpers/secure-clients.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';

// The 500 below is deliberate: keep the final handler from logging it.
process.env.NODE_ENV = 'test';

function tableApp(): App {
  const app = createApp();
  app.use(json(), urlencoded({ extended: true }), methodOverride());
  app.get('/users/:id', (req, res) => {
    res.set('X-Kind', req instanceof Http2Request ? 'h2' : 'h1');
    res.json({ id: req.params.id, query: req.query, path: req.path, search: req.search, protocol: req.protocol, secure: req.secure, hostname: req.hostname, ip: req.ip, accept: req.get('Accept') ?? null });
  });
  app.post('/echo', (req, res) => res.status(201).json({ body: req.body, is: req.is('json') }));
  app.put('/form', (req, res) => res.json({ method: req.method, original: req.originalMethod, body: req.body }));
  app.get('/boom', () => {
    throw new HttpError(409, 'Already there', { code: 'ROA_ERR_TEST_CONFLICT' });
  });
  app.get('/crash', () => {
    throw new Error('secret detail');
  });
  app.get('/fmt', (_req, res) =>
    res.format({
      json: () => res.send({ kind: 'json' }),
      text: () => res.send('plain words'),
    }),
  );
  app.post('/go', (_req, res) => res.location('/there/ü x').status(303).send('see other'));
  app.get('/status', (_req, res) => res.sendStatus(202));
  app.get('/list', (_req, res) => {
    res.writeHead(200, ['Link', '</a>; rel="a"', 'link', '</b>; rel="b"', 'Content-Type', 'text/plain']);
    res.end('listed');
  });
  app.get('/override', (_req, res) => {
    res.setHeader('X-Set', 'before');
    res.writeHead(200, ['X-Set', 'after', 'Connection', 'close']);
    res.end('overridden');
  });
  app.get('/set', (_req, res) => res.set({ 'X-One': '1' }).append('X-Many', 'a').append('X-Many', 'b').type('txt').vary('Origin').send('set'));
  app.get('/locals', (req, res) => {
    res.locals.a = 1;
    req.locals.b = 2;
    res.json({ res: res.locals, req: req.locals });
  });
  return app;
}

const TABLE: Array<[name: string, SecureRequest]> = [
  ['route params and query', { path: '/users/42?sort=desc&tag[]=a&tag[]=b', headers: { accept: 'application/json' } }],
  ['HEAD has no body', { method: 'HEAD', path: '/users/7?x=1' }],
  ['POST with a JSON body read by json()', { method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2],"b":"ü"}' }],
  ['urlencoded with methodOverride', { method: 'POST', path: '/form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_method=PUT&title=Tea&n=2' }],
  ['malformed JSON is a 400 problem', { method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: '{"a":' }],
  ['404 from the final handler', { path: '/nowhere?q=1' }],
  ['an HttpError becomes a problem', { path: '/boom', headers: { accept: 'application/problem+json' } }],
  ['a thrown Error is a 500 problem without the detail', { path: '/crash' }],
  ['res.format picks JSON', { path: '/fmt', headers: { accept: 'application/json' } }],
  ['res.format picks text', { path: '/fmt', headers: { accept: 'text/plain' } }],
  ['res.format refuses with 406', { path: '/fmt', headers: { accept: 'image/png' } }],
  ['res.location with 303', { method: 'POST', path: '/go' }],
  ['sendStatus', { path: '/status' }],
  ['set, append, type and vary', { path: '/set' }],
  ['locals on both objects', { path: '/locals' }],
  ['405 with Allow', { method: 'DELETE', path: '/echo' }],
];

/** Headers whose values must match across protocols (Date and connection management differ). */
const SIGNIFICANT = ['content-type', 'content-length', 'vary', 'location', 'allow', 'x-one', 'x-many', 'x-content-type-options', 'cache-control'];

function significant(reply: SecureReply): Record<string, string | undefined> {
  return Object.fromEntries(SIGNIFICANT.map((name) => [name, reply.headers[name]]));
}

describe('one app over HTTP/2 and HTTP/1.1 on one TLS listener', () => {
  let certs: TestCertificates;
  let server: Http2SecureServer;
  let port: number;
  let session: ClientHttp2Session;
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(w);
  };

  before(async () => {
    process.on('warning', onWarning);
    certs = makeTestCertificates();
    server = tableApp().createSecureServer({ cert: certs.cert, key: certs.key });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    session = await h2Session(port, certs.ca);
  });

  after(async () => {
    process.off('warning', onWarning);
    session?.close();
    await new Promise((resolve) => server?.close(resolve));
    certs?.remove();
  });

  for (const [name, request] of TABLE) {
    it(`answers the same over both: ${name}`, async () => {
      const one = await h1Request(port, certs.ca, request);
      const two = await h2Request(session, request);
      assert.equal(one.alpn, 'http/1.1');
      assert.equal(two.alpn, 'h2');
      assert.equal(two.status, one.status);
      assert.deepEqual(significant(two), significant(one));
      assert.equal(two.body, one.body);
      assert.ok(one.status < 500 || name.includes('500'), `${one.status} ${one.body}`);
    });
  }

  it('gives handlers the conveniences over HTTP/2 with :authority as Host', async () => {
    const reply = await h2Request(session, { path: '/users/9?a=1', headers: { accept: 'text/html' } });
    assert.equal(reply.headers['x-kind'], 'h2');
    assert.deepEqual(JSON.parse(reply.body), {
      id: '9', query: { a: '1' }, path: '/users/9', search: '?a=1', protocol: 'https', secure: true, hostname: '127.0.0.1', ip: '127.0.0.1', accept: 'text/html',
    });
    const overH1 = await h1Request(port, certs.ca, { path: '/users/9?a=1' });
    assert.equal(overH1.headers['x-kind'], 'h1');
    assert.equal(JSON.parse(overH1.body).protocol, 'https');
    assert.equal(JSON.parse(overH1.body).secure, true);
  });

  it('writes a flat header list as HTTP/1.1 does: later fields override set ones, repeated names all kept, connection fields dropped', async () => {
    for (const reply of [await h2Request(session, { path: '/list' }), await h1Request(port, certs.ca, { path: '/list' })]) {
      assert.equal(reply.status, 200);
      assert.equal(reply.body, 'listed');
      assert.equal(reply.headers.link, '</a>; rel="a", </b>; rel="b"');
      assert.equal(reply.headers['content-type'], 'text/plain');
    }
    const h2 = await h2Request(session, { path: '/override' });
    const h1 = await h1Request(port, certs.ca, { path: '/override' });
    assert.equal(h2.headers['x-set'], 'after');
    assert.equal(h1.headers['x-set'], 'after');
    assert.equal(h2.headers.connection, undefined);
  });

  it('reads an HTTP/2 body sent in DATA frames without Content-Length', async () => {
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': '/echo', 'content-type': 'application/json' });
      let status = 0;
      let body = '';
      stream.setEncoding('utf8');
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: string) => (body += c));
      stream.on('end', () => resolve({ status, body }));
      stream.on('error', reject);
      stream.write('{"streamed":');
      stream.end('true}');
    });
    assert.equal(reply.status, 201, reply.body);
    assert.deepEqual(JSON.parse(reply.body), { body: { streamed: true }, is: 'json' });
  });

  it('answers an HTTP/2 request whose Host disagrees with :authority with a 400 problem', async () => {
    const reply = await h2Request(session, { path: '/users/1', headers: { ':authority': `127.0.0.1:${port}`, host: 'elsewhere.example' } });
    assert.equal(reply.status, 400);
    assert.match(reply.body, /differs from :authority/);
    assert.equal(reply.headers.connection, undefined);
  });

  it('sent no connection-specific field and raised no process warning', () => {
    assert.deepEqual(warnings.map((w) => `${w.name}: ${w.message}`), []);
  });
});

describe('hostProblem over HTTP/2', () => {
  const h2 = (headers: Record<string, string>) => ({ rawHeaders: Object.entries(headers).flat(), headers, httpVersionMajor: 2, httpVersionMinor: 0 });

  it('accepts :authority without Host, once copied into Host', () => {
    assert.equal(hostProblem(h2({ ':authority': 'example.com', host: 'example.com' })), undefined);
  });

  it('refuses a request with neither :authority nor Host', () => {
    assert.match(hostProblem(h2({}))!, /needs an :authority or Host/);
  });

  it('refuses an invalid authority', () => {
    assert.match(hostProblem(h2({ ':authority': 'a b', host: 'a b' }))!, /not a valid authority/);
  });
});

describe('Http2Request and Http2Response', () => {
  it('carry every convenience Request and Response define', () => {
    for (const key of Reflect.ownKeys(Request.prototype)) {
      if (key === 'constructor' || key === '_read') continue;
      assert.ok(key in Http2Request.prototype, `Http2Request lacks ${String(key)}`);
    }
    for (const key of Reflect.ownKeys(Response.prototype)) {
      if (key === 'constructor') continue;
      assert.ok(key in Http2Response.prototype, `Http2Response lacks ${String(key)}`);
    }
  });
});

describe('an app on servers the user creates', () => {
  let certs: TestCertificates;
  before(() => {
    certs = makeTestCertificates();
  });
  after(() => certs?.remove());

  it('serves both protocols on http2.createSecureServer({ allowHTTP1: true }, app)', async () => {
    const server = http2.createSecureServer({ allowHTTP1: true, cert: certs.cert, key: certs.key }, tableApp() as never);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const session = await h2Session(port, certs.ca);
    try {
      for (const [, request] of TABLE) {
        const one = await h1Request(port, certs.ca, request);
        const two = await h2Request(session, request);
        assert.equal(two.status, one.status, request.path);
        assert.deepEqual(significant(two), significant(one));
        assert.equal(two.body, one.body);
      }
      const reply = JSON.parse((await h2Request(session, { path: '/users/3' })).body);
      assert.equal(reply.hostname, '127.0.0.1');
      assert.equal(reply.secure, true);
    } finally {
      session.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('serves HTTP/1.1 on https.createServer(app)', async () => {
    const server = https.createServer({ cert: certs.cert, key: certs.key }, tableApp());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const reply = await h1Request(port, certs.ca, { path: '/users/5?q=1' });
      assert.equal(reply.status, 200);
      const body = JSON.parse(reply.body);
      assert.equal(body.protocol, 'https');
      assert.equal(body.secure, true);
      assert.deepEqual(body.query, { q: '1' });
      const posted = await h1Request(port, certs.ca, { method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
      assert.deepEqual(JSON.parse(posted.body), { body: { x: 1 }, is: 'json' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
