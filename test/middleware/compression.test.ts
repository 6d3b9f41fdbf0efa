import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { after, before, describe, it } from '../helpers/node-test.js';
import { h2Session } from '../helpers/secure-clients.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { makeTestCertificates, opensslAvailable } from '../helpers/tls.js';
import { createApp } from '../../src/app.js';
import { compression } from '../../src/middleware/compression.js';
import { serve, type Served } from './harness.js';

interface Got {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function get(base: string, path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Got> {
  const res = await request(base + path, { method: method as 'GET', headers, body });
  const buf = Buffer.from(await res.body.arrayBuffer());
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) h[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return { status: res.statusCode, headers: h, body: buf };
}

function decoded(r: Got): string {
  const c = r.headers['content-encoding'];
  return (c === 'gzip' ? gunzipSync(r.body) : c === 'br' ? brotliDecompressSync(r.body) : r.body).toString();
}

const BIG = { items: Array.from({ length: 200 }, (_, i) => ({ i, text: 'lorem ipsum dolor sit amet' })) };
const BIG_TEXT = JSON.stringify(BIG);

for (const fastPaths of [true, false]) {
  describe(`compression() (fast paths ${fastPaths ? 'on' : 'off'})`, () => {
    let srv: Served;
    before(async () => {
      srv = await serve((app) => {
        app.use(compression());
        app.get('/big', (_req, res) => res.json(BIG));
        app.get('/small', (_req, res) => res.json({ a: 1 }));
        app.get('/text', (_req, res) => res.type('text/plain').send('t'.repeat(5000)));
        app.get('/png', (_req, res) => res.type('image/png').send(Buffer.alloc(5000, 1)));
        app.get('/tagged', (_req, res) => {
          res.setHeader('ETag', '"v1"');
          res.json(BIG);
        });
        app.get('/raw', (_req, res) => {
          res.writeHead(200, ['Content-Type', 'application/xml; charset=utf-8', 'ETag', '"r1"', 'Vary', 'Accept', 'Content-Length', String(Buffer.byteLength(BIG_TEXT))]);
          res.end(BIG_TEXT);
        });
        app.get('/stream', (_req, res) => {
          res.setHeader('Content-Type', 'text/plain; charset=utf-8');
          for (let i = 0; i < 100; i++) res.write(`line ${i} of a streamed body\n`);
          res.end('end\n');
        });
        app.get('/no-transform', (_req, res) => res.set('Cache-Control', 'no-transform').json(BIG));
        app.get('/not-modified', (_req, res) => {
          res.writeHead(304, ['ETag', '"v1"']);
          res.end();
        });
      }, { fastPaths });
    });
    after(() => srv.close());

    it('sends identity without Accept-Encoding, with Vary: Accept-Encoding on compressible types only', async () => {
      const r = await get(srv.base, '/big');
      assert.equal(r.headers['content-encoding'], undefined);
      assert.equal(r.headers.vary, 'Accept-Encoding');
      assert.equal(r.body.toString(), BIG_TEXT);
      assert.equal((await get(srv.base, '/small')).headers.vary, 'Accept-Encoding');
      assert.equal((await get(srv.base, '/png', { 'accept-encoding': 'gzip' })).headers.vary, undefined);
      assert.equal((await get(srv.base, '/png', { 'accept-encoding': 'gzip' })).headers['content-encoding'], undefined);
    });

    it('compresses gzip or br by Accept-Encoding, with the compressed Content-Length', async () => {
      for (const [ae, want] of [['gzip', 'gzip'], ['br', 'br'], ['gzip, deflate, br', 'br'], ['gzip;q=1, br;q=0.5', 'gzip'], ['deflate', undefined], ['identity', undefined], ['gzip;q=0', undefined]] as const) {
        for (const path of ['/big', '/text', '/raw', '/tagged']) {
          const r = await get(srv.base, path, { 'accept-encoding': ae });
          assert.equal(r.status, 200);
          assert.equal(r.headers['content-encoding'], want, `${path} ${ae}`);
          assert.match(r.headers.vary!, /Accept-Encoding/);
          assert.equal(Number(r.headers['content-length']), r.body.length, `${path} ${ae}`);
          assert.equal(decoded(r), path === '/text' ? 't'.repeat(5000) : BIG_TEXT);
        }
      }
      assert.equal((await get(srv.base, '/raw', { 'accept-encoding': 'gzip' })).headers.vary, 'Accept, Accept-Encoding');
    });

    it('leaves bodies below the threshold (1 KiB) and no-transform responses alone', async () => {
      const small = await get(srv.base, '/small', { 'accept-encoding': 'gzip, br' });
      assert.equal(small.headers['content-encoding'], undefined);
      assert.equal(small.body.toString(), '{"a":1}');
      assert.equal((await get(srv.base, '/no-transform', { 'accept-encoding': 'gzip' })).headers['content-encoding'], undefined);
    });

    it('suffixes a strong ETag per coding, and the same bytes come back from the memo', async () => {
      const id = await get(srv.base, '/tagged');
      const gz = await get(srv.base, '/tagged', { 'accept-encoding': 'gzip' });
      const br = await get(srv.base, '/tagged', { 'accept-encoding': 'br' });
      assert.deepEqual([id.headers.etag, gz.headers.etag, br.headers.etag], ['"v1"', '"v1-gzip"', '"v1-br"']);
      const again = await get(srv.base, '/tagged', { 'accept-encoding': 'gzip' });
      assert.deepEqual(again.body, gz.body);
    });

    it('streams a body written in pieces through zlib (chunked, no Content-Length)', async () => {
      for (const ae of ['gzip', 'br']) {
        const r = await get(srv.base, '/stream', { 'accept-encoding': ae });
        assert.equal(r.headers['content-encoding'], ae);
        assert.equal(r.headers['content-length'], undefined);
        assert.match(decoded(r), /^line 0 of a streamed body\n[\s\S]*line 99 of a streamed body\nend\n$/);
      }
    });

    it('answers HEAD with the coding fields GET has, and no body', async () => {
      await get(srv.base, '/tagged', { 'accept-encoding': 'gzip' });
      const head = await get(srv.base, '/tagged', { 'accept-encoding': 'gzip' }, 'HEAD');
      const full = await get(srv.base, '/tagged', { 'accept-encoding': 'gzip' });
      assert.equal(head.body.length, 0);
      for (const f of ['content-encoding', 'etag', 'vary', 'content-length']) assert.equal(head.headers[f], full.headers[f], f);
      const unknown = await get(srv.base, '/big', { 'accept-encoding': 'br' }, 'HEAD');
      assert.equal(unknown.headers['content-encoding'], 'br');
    });

    it('leaves 304s alone, echoing a coded tag the client sent', async () => {
      const plain = await get(srv.base, '/not-modified', { 'accept-encoding': 'gzip' });
      assert.equal(plain.status, 304);
      assert.equal(plain.headers.etag, '"v1"');
      assert.equal(plain.headers.vary, 'Accept-Encoding');
      const coded = await get(srv.base, '/not-modified', { 'accept-encoding': 'gzip', 'if-none-match': '"v1-gzip"' });
      assert.equal(coded.headers.etag, '"v1-gzip"');
      assert.equal(coded.headers['content-encoding'], undefined);
    });
  });
}

describe('compression in the article service: conditional requests with coded ETags', () => {
  let svc: TestService;
  let editor: string;
  // Titles hold at most 200 characters: escaped ampersands take the article past the 1 KiB threshold.
  const title = '&amp;'.repeat(200);
  const xml = (price: string) => `<article><title>${title}</title><price currency="eur">${price}</price></article>`;
  before(async () => {
    svc = await startTestService();
    editor = await svc.addUser('ed', 'editor');
    const put = await get(svc.base, '/articles/tea', { authorization: editor, 'content-type': 'application/xml' }, 'PUT', xml('9.90'));
    assert.equal(put.status, 201);
  });
  after(() => svc.close());

  it('serves the article compressed with a suffixed strong ETag, and 304 to If-None-Match with it', async () => {
    const gz = await get(svc.base, '/articles/tea', { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers.vary, 'Accept, Accept-Encoding');
    assert.equal(decoded(gz), xml('9.90'));
    const id = await get(svc.base, '/articles/tea');
    assert.equal(gz.headers.etag, id.headers.etag!.replace(/"$/, '-gzip"'));
    const nm = await get(svc.base, '/articles/tea', { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.etag! });
    assert.equal(nm.status, 304);
    assert.equal(nm.headers.etag, gz.headers.etag);
    // The identity tag also names the entity for a gzip client (weak comparison, §13.1.2).
    assert.equal((await get(svc.base, '/articles/tea', { 'accept-encoding': 'gzip', 'if-none-match': id.headers.etag! })).status, 304);
    const br = await get(svc.base, '/articles/tea', { 'accept-encoding': 'br', 'if-none-match': gz.headers.etag! });
    assert.equal(br.status, 304);
  });

  it('accepts a coded ETag in If-Match for a conditional PUT, and refuses a stale one with 412', async () => {
    const gz = await get(svc.base, '/articles/tea', { 'accept-encoding': 'gzip' });
    const put = await get(svc.base, '/articles/tea', { authorization: editor, 'content-type': 'application/xml', 'if-match': gz.headers.etag! }, 'PUT', xml('10.00'));
    assert.equal(put.status, 200);
    const stale = await get(svc.base, '/articles/tea', { authorization: editor, 'content-type': 'application/xml', 'if-match': gz.headers.etag! }, 'PUT', xml('11.00'));
    assert.equal(stale.status, 412);
    const fresh = await get(svc.base, '/articles/tea', { 'accept-encoding': 'br' });
    assert.equal(decoded(fresh), xml('10.00'));
    assert.notEqual(fresh.headers.etag, gz.headers.etag!.replace('-gzip', '-br'));
  });

  it('takes a gzip request body on PUT', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await request(svc.base + '/articles/green', { method: 'PUT', headers: { authorization: editor, 'content-type': 'application/xml', 'content-encoding': 'gzip' }, body: gzipSync(xml('3.00')) });
    assert.equal(res.statusCode, 201);
    await res.body.dump();
    assert.equal(decoded(await get(svc.base, '/articles/green')), xml('3.00'));
  });
});

describe('compression() over HTTP/2', () => {
  it('compresses whole and streamed bodies on the compatibility response', async (t) => {
    if (!opensslAvailable()) {
      t.skip('openssl is not available to make a test certificate');
      return;
    }
    const certs = makeTestCertificates();
    const app = createApp({ env: 'test' });
    app.use(compression());
    app.get('/big', (_req, res) => res.json(BIG));
    app.get('/raw', (_req, res) => {
      res.writeHead(200, ['Content-Type', 'application/xml', 'ETag', '"r1"', 'Content-Length', String(Buffer.byteLength(BIG_TEXT))]);
      res.end(BIG_TEXT);
    });
    app.get('/stream', (_req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      for (let i = 0; i < 50; i++) res.write(`line ${i}\n`);
      res.end();
    });
    const server = app.createSecureServer({ cert: certs.cert, key: certs.key });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = await h2Session((server.address() as { port: number }).port, certs.ca);
    try {
      const h2get = (path: string, ae: string) => new Promise<Got>((resolve, reject) => {
        const stream = session.request({ ':path': path, 'accept-encoding': ae });
        const chunks: Buffer[] = [];
        let headers: Record<string, string> = {};
        let status = 0;
        stream.on('response', (h) => {
          status = Number(h[':status']);
          headers = Object.fromEntries(Object.entries(h).filter(([k]) => !k.startsWith(':')).map(([k, v]) => [k, String(v)]));
        });
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => resolve({ status, headers, body: Buffer.concat(chunks) }));
        stream.on('error', reject);
      });
      for (const ae of ['gzip', 'br']) {
        const big = await h2get('/big', ae);
        assert.equal(big.headers['content-encoding'], ae);
        assert.equal(decoded(big), BIG_TEXT);
        const raw = await h2get('/raw', ae);
        assert.equal(raw.headers.etag, `"r1-${ae}"`);
        assert.equal(Number(raw.headers['content-length']), raw.body.length);
        assert.equal(decoded(raw), BIG_TEXT);
        const streamed = await h2get('/stream', ae);
        assert.match(decoded(streamed), /^line 0\n[\s\S]*line 49\n$/);
      }
    } finally {
      session.close();
      server.close();
    }
  });
});
