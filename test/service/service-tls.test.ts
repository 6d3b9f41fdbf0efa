/**
 * @module test/service/service-tls
 * `startService({ tls })`: the public entry speaks HTTPS and HTTP/2 (the embedded gateway's port, or
 * the service's with the gateway off); in production, credentials are taken only over TLS, and a
 * write through the HTTPS gateway still empties its cache (invalidated in process).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { Agent, request as undiciRequest } from 'undici';
import { hashPassword } from '../../src/auth/passwords.js';
import { startService, type RunningService } from '../../src/service.js';
import { TlsConfigError } from '../../src/tls/credentials.js';
import { after, before, describe, it } from '../helpers/node-test.js';
import { send, sendFrom } from '../helpers/service.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

function h2Request(session: ClientHttp2Session, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, ...headers });
    const out: Answer = { status: 0, headers: {}, text: '' };
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      out.status = Number(h[':status']);
      for (const [k, v] of Object.entries(h)) if (!k.startsWith(':')) out.headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    });
    stream.on('data', (c: string) => (out.text += c));
    stream.on('end', () => resolve(out));
    stream.on('error', reject);
    stream.end(body);
  });
}

function openH2(origin: string, ca: Buffer): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(origin, { ca });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

const ARTICLE = (title: string) => JSON.stringify({ title, price: { amount: '1.50', currency: 'eur' } });

describe('startService with tls', () => {
  let certs: TestCertificates;
  let agent: Agent;
  before(() => {
    certs = makeTestCertificates();
    agent = new Agent({ connect: { ca: certs.ca, servername: 'localhost' } });
  });
  after(async () => {
    await agent.close();
    certs.remove();
  });

  async function httpsSend(origin: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
    const res = await undiciRequest(origin + path, { method: method as 'GET', headers, body, dispatcher: agent });
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) h[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: res.statusCode, headers: h, text: await res.body.text() };
  }

  describe('in production with the embedded gateway on', () => {
    let running: RunningService;
    let origin: string;
    let basic: string;
    before(async () => {
      running = await startService({
        db: ':memory:', port: 0, gatewayPort: 'ephemeral', env: 'production', logLevel: 'silent', purgeDelayMs: 0,
        serverKey: randomBytes(32), tls: { certFile: certs.certFile, keyFile: certs.keyFile },
        // No proxy but the embedded gateway (which connects from 127.0.0.1): a client on 127.0.0.2 is not one.
        trustProxy: [],
      });
      await running.store.createUser({ name: 'ed', role: 'editor', passwordHash: await hashPassword('ed-secret-pw') });
      basic = 'Basic ' + Buffer.from('ed:ed-secret-pw').toString('base64');
      origin = `https://localhost:${running.gatewayAddress!.port}`;
    });
    after(() => running.close());

    it('terminates TLS on the gateway port, the server reloadable on SIGHUP', () => {
      assert.equal(running.tlsServer, running.gateway!.server);
    });

    it('takes a Basic write over HTTPS (HTTP/2), and the next read through the gateway sees it: the cache was invalidated in process', async () => {
      const session = await openH2(origin, certs.ca);
      try {
        const put = await h2Request(session, 'PUT', '/article/tls-one', { authorization: basic, 'content-type': 'application/json' }, ARTICLE('First'));
        assert.equal(put.status, 201, put.text);
        const read = await h2Request(session, 'GET', '/article/tls-one', { accept: 'application/json' });
        assert.equal(read.status, 200);
        assert.match(read.text, /First/);
        const again = await h2Request(session, 'GET', '/article/tls-one', { accept: 'application/json' });
        assert.match(again.headers['cache-status'] ?? '', /hit/, 'the second read is a hit');
        assert.match(again.headers['strict-transport-security'] ?? '', /max-age=\d+/);
        const replace = await h2Request(session, 'PUT', '/article/tls-one', { authorization: basic, 'content-type': 'application/json', 'if-match': '*' }, ARTICLE('Second'));
        assert.equal(replace.status, 200, replace.text);
        const fresh = await h2Request(session, 'GET', '/article/tls-one', { accept: 'application/json' });
        assert.match(fresh.text, /Second/, 'not the cached first version');
        assert.equal(running.purger!.stats().sent, 0, 'no PURGE request was needed');
      } finally {
        session.close();
      }
      const h1 = await httpsSend(origin, 'GET', '/article/tls-one', { accept: 'application/json' });
      assert.equal(h1.status, 200);
      assert.match(h1.text, /Second/);
    });

    it('refuses Basic sent in clear to the service port, and stores nothing', async () => {
      const plain = `http://127.0.0.1:${running.address.port}`;
      const r = await send(plain, 'PUT', '/article/clear', { headers: { authorization: basic, 'content-type': 'application/json' }, body: ARTICLE('Clear') });
      assert.equal(r.status, 403, r.text);
      assert.match(r.headers['content-type'] ?? '', /problem/);
      assert.match(r.text, /https/i);
      const forged = await sendFrom('127.0.0.2', plain, 'PUT', '/article/clear', { authorization: basic, 'content-type': 'application/json', 'x-forwarded-proto': 'https', forwarded: 'proto=https' }, ARTICLE('Clear'));
      assert.equal(forged.status, 403, 'a client that is not a trusted proxy cannot claim https');
      const read = await httpsSend(origin, 'GET', '/article/clear', { accept: 'application/json' });
      assert.equal(read.status, 404);
    });
  });

  it('serves HTTPS and HTTP/2 on the service port when the gateway is off', async () => {
    const running = await startService({
      db: ':memory:', port: 0, gatewayPort: 0, env: 'development', logLevel: 'silent', serverKey: randomBytes(32),
      tls: { cert: certs.cert, key: certs.key },
    });
    try {
      assert.equal(running.tlsServer, running.server);
      const origin = `https://localhost:${running.address.port}`;
      const session = await openH2(origin, certs.ca);
      try {
        const r = await h2Request(session, 'GET', '/articles', { accept: 'application/json' });
        assert.equal(r.status, 200);
        assert.equal(session.alpnProtocol, 'h2');
      } finally {
        session.close();
      }
      const h1 = await httpsSend(origin, 'GET', '/articles', { accept: 'application/json' });
      assert.equal(h1.status, 200);
    } finally {
      await running.close();
    }
  });

  it('refuses to start with a mismatched key, before listening', async () => {
    await assert.rejects(
      startService({ db: ':memory:', port: 0, gatewayPort: 0, logLevel: 'silent', serverKey: randomBytes(32), tls: { certFile: certs.certFile, keyFile: certs.otherKeyFile } }),
      (err: unknown) => err instanceof TlsConfigError && /does not match/.test(err.message),
    );
  });
});
