/**
 * @module test/deploy/hitch-varnish-tls
 * Issue 26 §5: the shipped deploy/hitch/hitch.conf and deploy/varnish/roa.vcl with real hitch,
 * varnishd and roa (production) on loopback, a throwaway CA, and clients that verify it:
 * https → hitch → PROXY v2 → Varnish → roa. Over HTTPS: GET MISS → HIT, PUT with Basic (secure, as
 * Varnish says X-Forwarded-Proto: https from loopback), roa's PURGE, GET MISS with the new content.
 * Over Varnish's plain listener: Basic refused (403), a forged X-Forwarded-Proto no help.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect as http2Connect } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { Agent, request } from 'undici';
import { describe } from '../helpers/node-test.js';
import { Purger } from '../../src/resources/purger.js';
import { startHitch, hitchAvailable, type HitchInstance } from '../helpers/hitch.js';
import { send, startTestService, type SimpleResponse, type TestService } from '../helpers/service.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { makeTestCertificates, opensslAvailable, type TestCertificates } from '../helpers/tls.js';
import { startVarnish, varnishAvailable, type VarnishInstance } from '../helpers/varnish.js';

const skip = skipReason(
  varnishAvailable() && hitchAvailable() && opensslAvailable(),
  'varnishd with vmod_xkey, hitch or openssl not installed (run .ci/install-varnish.sh and .ci/install-hitch.sh)',
);

const article = (title: string, amount = '9.99') => `<article><title>${title}</title><price currency="eur">${amount}</price></article>`;

describe('hitch → Varnish (PROXY v2) → roa in production, with the shipped configurations', () => {
  const { it, before, after } = suiteNeeding(skip);
  let certs: TestCertificates;
  let svc: TestService;
  let cache: VarnishInstance;
  let tls: HitchInstance;
  let purger: Purger;
  let agent: Agent;
  let editor: string;
  let https: string;

  before(async () => {
    certs = makeTestCertificates();
    svc = await startTestService({ env: 'production', gatewayPort: 0, trustProxy: ['loopback'], serverKey: randomBytes(32) });
    editor = await svc.addUser('ed', 'editor');
    // Varnish must know roa's port and roa Varnish's, so roa starts first and gets its Purger after.
    cache = await startVarnish({ backendPort: svc.running.address.port, proxyListener: true, params: { feature: '+http2' } });
    purger = new Purger({ nodes: [cache.url], delayedPurgeMs: 0, timeoutMs: 5000 });
    svc.running.deps.purger = purger;
    tls = await startHitch({ backendPort: cache.proxyPort!, cert: certs.cert, key: certs.key });
    https = `https://localhost:${tls.port}`;
    agent = new Agent({ connect: { ca: certs.ca } });
  });

  after(async () => {
    await agent?.close();
    await tls?.stop();
    await purger?.close();
    await cache?.stop();
    await svc?.close();
    certs?.remove();
  });

  /** One request over HTTPS through hitch, verified against the test CA. */
  async function overTls(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<SimpleResponse> {
    const res = await request(https + path, { method: method as 'GET', headers: init.headers, body: init.body, dispatcher: agent });
    const text = await res.body.text();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: res.statusCode, headers, text };
  }

  const xml = (auth: string, body: string) => ({ headers: { authorization: auth, 'content-type': 'application/xml' }, body });

  it('serves only TLS 1.2 and newer with the test certificate, and offers h2 then http/1.1 by ALPN', async () => {
    const handshake = (options: { ALPNProtocols?: string[]; maxVersion?: 'TLSv1.2' | 'TLSv1.3' }) =>
      new Promise<{ protocol: string | null; alpn: string | false; authorized: boolean }>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', servername: 'localhost', port: tls.port, ca: certs.ca, ...options }, () => {
          resolve({ protocol: socket.getProtocol(), alpn: socket.alpnProtocol ?? false, authorized: socket.authorized });
          socket.end();
        });
        socket.once('error', reject);
      });
    assert.deepEqual(await handshake({ ALPNProtocols: ['h2', 'http/1.1'] }), { protocol: 'TLSv1.3', alpn: 'h2', authorized: true });
    assert.deepEqual(await handshake({ ALPNProtocols: ['http/1.1'], maxVersion: 'TLSv1.2' }), { protocol: 'TLSv1.2', alpn: 'http/1.1', authorized: true });
  });

  it('GET MISS → HIT → PUT with Basic over https (200) → purged → MISS with the new content → HIT', async () => {
    const created = await overTls('PUT', '/articles/over-tls', xml(editor, article('Sencha')));
    assert.equal(created.status, 201, created.text);
    const id = (await svc.running.store.getArticleBySlug('over-tls'))?.id;
    assert.ok(id !== undefined, 'the article was stored');

    const miss = await overTls('GET', `/article/${id}`);
    assert.equal(miss.status, 200, miss.text);
    assert.equal(miss.headers['x-cache'], 'MISS');
    assert.equal(miss.text, article('Sencha'));
    const hit = await overTls('GET', `/article/${id}`);
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal(hit.text, article('Sencha'));

    const sentBefore = purger.stats().sent;
    const written = await overTls('PUT', `/article/${id}`, xml(editor, article('Sencha, first flush', '12.50')));
    assert.equal(written.status, 200, `Basic over https through hitch and Varnish is secure: ${written.text}`);
    assert.match(written.headers['strict-transport-security'] ?? '', /max-age=\d+/, 'production answers over https carry HSTS');
    const stats = purger.stats();
    assert.ok(stats.sent > sentBefore, 'roa sent PURGE to Varnish');
    assert.equal(stats.failed, 0);

    const after1 = await overTls('GET', `/article/${id}`);
    assert.equal(after1.headers['x-cache'], 'MISS', 'the https copy was purged before the PUT returned');
    assert.equal(after1.text, article('Sencha, first flush', '12.50'));
    const after2 = await overTls('GET', `/article/${id}`);
    assert.equal(after2.headers['x-cache'], 'HIT');
    assert.equal(after2.text, article('Sencha, first flush', '12.50'));
  });

  it('answers HTTP/2 through hitch and Varnish (feature=+http2) from the same cache', async () => {
    const created = await overTls('PUT', '/articles/over-h2', xml(editor, article('Gyokuro')));
    assert.equal(created.status, 201, created.text);
    assert.equal((await overTls('GET', '/articles/over-h2')).headers['x-cache'], 'MISS');

    const session = http2Connect(https, { ca: certs.ca });
    try {
      await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
      assert.equal(session.alpnProtocol, 'h2');
      const { status, headers, body } = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const stream = session.request({ ':path': '/articles/over-h2' });
        let responseHeaders: Record<string, unknown> = {};
        let text = '';
        stream.setEncoding('utf8');
        stream.on('response', (h) => (responseHeaders = h));
        stream.on('data', (chunk: string) => (text += chunk));
        stream.on('end', () => resolve({ status: Number(responseHeaders[':status']), headers: responseHeaders, body: text }));
        stream.on('error', reject);
      });
      assert.equal(status, 200);
      assert.equal(headers['x-cache'], 'HIT', 'h2 and HTTP/1.1 over TLS share the https copy');
      assert.equal(body, article('Gyokuro'));
    } finally {
      session.close();
    }
  });

  it('keeps http and https copies apart: a response built for https is never served over http', async () => {
    const created = await overTls('PUT', '/articles/two-schemes', xml(editor, article('Hojicha')));
    assert.equal(created.status, 201, created.text);
    assert.equal((await overTls('GET', '/articles/two-schemes')).headers['x-cache'], 'MISS');
    assert.equal((await overTls('GET', '/articles/two-schemes')).headers['x-cache'], 'HIT');

    const plain = await send(cache.url, 'GET', '/articles/two-schemes');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['x-cache'], 'MISS', 'plain HTTP has its own copy');
    assert.equal(plain.headers['strict-transport-security'], undefined, 'no HSTS over plain HTTP');
    assert.equal((await send(cache.url, 'GET', '/articles/two-schemes')).headers['x-cache'], 'HIT');
    // A client on the plain listener cannot reach the https copy by claiming https.
    const forged = await send(cache.url, 'GET', '/articles/two-schemes', { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(forged.headers['strict-transport-security'], undefined);

    // One URL PURGE (as roa's Purger sends, over plain HTTP) drops both copies.
    const purge = await send(cache.url, 'PURGE', '/articles/two-schemes');
    assert.equal(purge.status, 200);
    assert.equal(purge.headers['x-roa-purged'], '2');
    assert.equal((await overTls('GET', '/articles/two-schemes')).headers['x-cache'], 'MISS');
    assert.equal((await send(cache.url, 'GET', '/articles/two-schemes')).headers['x-cache'], 'MISS');
    assert.equal((await send(cache.url, 'PURGE', '/articles/nothing-here')).status, 404);
  });

  it('refuses Basic over the plain-HTTP listener with a 403 problem, forged X-Forwarded-Proto or not, and changes nothing', async () => {
    const created = await overTls('PUT', '/articles/kept', xml(editor, article('Bancha')));
    assert.equal(created.status, 201, created.text);

    const forgeries: Record<string, string>[] = [
      {},
      { 'x-forwarded-proto': 'https' },
      { forwarded: 'proto=https', 'x-forwarded-host': 'evil.example' },
    ];
    for (const extra of forgeries) {
      const refused = await send(cache.url, 'PUT', '/articles/kept', { headers: { authorization: editor, 'content-type': 'application/xml', ...extra }, body: article('Overwritten in clear') });
      assert.equal(refused.status, 403, `${JSON.stringify(extra)}: ${refused.text}`);
      assert.match(refused.headers['content-type'] ?? '', /^application\/problem\+json/);
      const problem = JSON.parse(refused.text) as { status: number; detail?: string; title?: string; code?: string };
      assert.equal(problem.status, 403);
      assert.match(JSON.stringify(problem), /https/i, 'the problem says to use https');
      assert.equal(refused.headers['strict-transport-security'], undefined);
    }
    const stored = await svc.running.store.getArticleBySlug('kept');
    assert.equal(stored?.title, 'Bancha', 'nothing was stored');
    assert.equal((await overTls('GET', '/articles/kept')).text, article('Bancha'));
    // Reading without credentials over plain HTTP stays open.
    assert.equal((await send(cache.url, 'GET', '/articles/kept')).status, 200);
  });
});
