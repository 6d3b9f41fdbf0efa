/**
 * @module test/gateway/gateway-content-coding
 * One stored copy per variant: gzip, br and identity clients through the gateway get the right
 * bytes from one stored gzip copy (gateway/content-coding); request codings refused or decoded.
 */
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from '../helpers/node-test.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startGateway, startOrigin, type Origin, type Running } from './gateway-helpers.js';

interface Got {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function call(base: string, path: string, headers: Record<string, string> = {}, method = 'GET', body?: Buffer | string): Promise<Got> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

function decoded(r: Got): string {
  const c = r.headers['content-encoding'];
  return (c === 'gzip' ? gunzipSync(r.body) : c === 'br' ? brotliDecompressSync(r.body) : r.body).toString();
}

// Titles hold at most 200 characters: escaped ampersands take the article past the 1 KiB threshold.
const xml = (price: string) => `<article><title>${'&amp;'.repeat(200)}</title><price currency="eur">${price}</price></article>`;
const SMALL = '<article><title>Tea</title><price currency="eur">1.00</price></article>';

describe('gateway content coding in front of the article service', () => {
  let svc: TestService;
  let gw: string;
  let editor: string;
  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral' });
    gw = svc.gatewayBase!;
    editor = await svc.addUser('ed', 'editor');
    assert.equal((await call(svc.base, '/articles/big', { authorization: editor, 'content-type': 'application/xml' }, 'PUT', xml('9.90'))).status, 201);
    assert.equal((await call(svc.base, '/articles/small', { authorization: editor, 'content-type': 'application/xml' }, 'PUT', SMALL)).status, 201);
  });
  after(() => svc.close());

  const entries = () => svc.running.gateway!.stats().entries;

  it('serves gzip, br and identity clients the right bytes from one stored gzip copy', async () => {
    const before = entries();
    // The first client takes identity: the fill asks the origin for gzip and decodes on the way.
    const id = await call(gw, '/articles/big');
    assert.equal(id.status, 200);
    assert.equal(id.headers['content-encoding'], undefined);
    assert.equal(id.body.toString(), xml('9.90'));
    assert.equal(id.headers['x-cache'], 'MISS');
    assert.equal(entries(), before + 1);
    const gz = await call(gw, '/articles/big', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(gz.headers['x-cache'], 'HIT');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(Number(gz.headers['content-length']), gz.body.length);
    assert.equal(decoded(gz), xml('9.90'));
    const brOnly = await call(gw, '/articles/big', { 'accept-encoding': 'br' });
    const none = await call(gw, '/articles/big', { 'accept-encoding': 'identity' });
    const hit = await call(gw, '/articles/big');
    for (const r of [brOnly, none, hit]) {
      assert.equal(r.headers['x-cache'], 'HIT');
      assert.equal(r.headers['content-encoding'], undefined);
      assert.equal(Number(r.headers['content-length']), r.body.length);
      assert.equal(r.body.toString(), xml('9.90'));
    }
    for (const r of [id, gz, brOnly, hit]) assert.equal(r.headers.vary, 'Accept, Accept-Encoding');
    assert.equal(entries(), before + 1, 'one stored copy');
    // Strong tags differ per form (RFC 9110 §8.8.3): the identity one is the service's own.
    const direct = await call(svc.base, '/articles/big');
    assert.equal(hit.headers.etag, direct.headers.etag);
    assert.equal(gz.headers.etag, direct.headers.etag!.replace(/"$/, '-gzip"'));
  });

  it('stores a body under the threshold as identity and serves it to everyone', async () => {
    const before = entries();
    const a = await call(gw, '/articles/small', { 'accept-encoding': 'gzip' });
    const b = await call(gw, '/articles/small');
    assert.equal(a.headers['content-encoding'], undefined);
    assert.equal(a.body.toString(), SMALL);
    assert.equal(b.body.toString(), SMALL);
    assert.equal(b.headers['x-cache'], 'HIT');
    assert.equal(entries(), before + 1);
  });

  it('answers HEAD as GET for each client, without a body', async () => {
    await call(gw, '/articles/big');
    const gzHead = await call(gw, '/articles/big', { 'accept-encoding': 'gzip' }, 'HEAD');
    const gzGet = await call(gw, '/articles/big', { 'accept-encoding': 'gzip' });
    const idHead = await call(gw, '/articles/big', {}, 'HEAD');
    const idGet = await call(gw, '/articles/big');
    assert.equal(gzHead.body.length + idHead.body.length, 0);
    for (const f of ['content-encoding', 'content-length', 'etag', 'vary']) {
      assert.equal(gzHead.headers[f], gzGet.headers[f], `gzip ${f}`);
      assert.equal(idHead.headers[f], idGet.headers[f], `identity ${f}`);
    }
  });

  it('announces on a HEAD miss what a GET by the same client gets (the normalised coding, not the client\'s own)', async () => {
    assert.equal((await call(svc.base, '/articles/head-miss', { authorization: editor, 'content-type': 'application/xml' }, 'PUT', xml('3.00'))).status, 201);
    // Nothing stored yet: the HEAD is forwarded. A br-only client is served identity by the gateway.
    const brHead = await call(gw, '/articles/head-miss', { 'accept-encoding': 'br' }, 'HEAD');
    assert.equal(brHead.status, 200);
    assert.match(String(brHead.headers['x-cache']), /MISS/);
    const brGet = await call(gw, '/articles/head-miss', { 'accept-encoding': 'br' });
    assert.equal(brGet.headers['content-encoding'], undefined);
    assert.equal(brHead.headers['content-encoding'], undefined, 'the HEAD announced a coding its GET does not get');
    assert.equal(brHead.headers.etag, brGet.headers.etag);
  });

  it('answers conditional GETs with the tag of the client\'s form, and a Range on the coded copy with 200', async () => {
    const gz = await call(gw, '/articles/big', { 'accept-encoding': 'gzip' });
    const id = await call(gw, '/articles/big');
    const gz304 = await call(gw, '/articles/big', { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.etag! });
    assert.equal(gz304.status, 304);
    assert.equal(gz304.headers.etag, gz.headers.etag);
    const id304 = await call(gw, '/articles/big', { 'if-none-match': id.headers.etag! });
    assert.equal(id304.status, 304);
    assert.equal(id304.headers.etag, id.headers.etag);
    assert.equal(id304.headers['content-encoding'], undefined);
    // An identity client holding the gzip tag holds other bytes: the full response.
    assert.equal((await call(gw, '/articles/big', { 'if-none-match': gz.headers.etag! })).status, 200);
    const ranged = await call(gw, '/articles/big', { 'accept-encoding': 'gzip', range: 'bytes=0-9' });
    assert.equal(ranged.status, 200);
    assert.equal(decoded(ranged), xml('9.90'));
    const idRange = await call(gw, '/articles/big', { range: 'bytes=0-8' });
    assert.equal(idRange.status, 206);
    assert.equal(idRange.body.toString(), '<article>');
  });

  it('takes a coded ETag in If-Match for a PUT through the gateway, and the next GET is fresh', async () => {
    const gz = await call(gw, '/articles/big', { 'accept-encoding': 'gzip' });
    const put = await call(gw, '/articles/big', { authorization: editor, 'content-type': 'application/xml', 'if-match': gz.headers.etag! }, 'PUT', xml('10.00'));
    assert.equal(put.status, 200);
    const stale = await call(gw, '/articles/big', { authorization: editor, 'content-type': 'application/xml', 'if-match': gz.headers.etag! }, 'PUT', xml('11.00'));
    assert.equal(stale.status, 412);
    assert.equal(decoded(await call(gw, '/articles/big', { 'accept-encoding': 'gzip' })), xml('10.00'));
    assert.equal((await call(gw, '/articles/big')).body.toString(), xml('10.00'));
  });

  it('passes request codings on: gzip decoded, compress 415, a gzip bomb 413, corrupt gzip 400', async () => {
    const headers = (coding: string) => ({ authorization: editor, 'content-type': 'application/xml', 'content-encoding': coding });
    const ok = await call(gw, '/articles/zipped', headers('gzip'), 'PUT', gzipSync(SMALL));
    assert.equal(ok.status, 201);
    for (const coding of ['compress', 'zstd']) {
      const r = await call(gw, '/articles/zipped', headers(coding), 'PUT', SMALL);
      assert.equal(r.status, 415, coding);
      assert.equal(r.headers['accept-encoding'], 'gzip, deflate, br, identity');
    }
    const bomb = await call(gw, '/articles/zipped', headers('gzip'), 'PUT', gzipSync(Buffer.alloc(32 * 1024 * 1024, 0x20)));
    assert.equal(bomb.status, 413);
    const corrupt = await call(gw, '/articles/zipped', headers('gzip'), 'PUT', Buffer.from('definitely not gzip'));
    assert.equal(corrupt.status, 400);
    assert.match(corrupt.body.toString(), /ROA_ERR_MALFORMED_ENCODING/);
  });
});

describe('gateway content coding in front of another origin', () => {
  let origin: Origin;
  let gw: Running;
  const text = 'plain text that compresses well. '.repeat(200);
  before(async () => {
    origin = await startOrigin((req, res) => {
      const gzip = req.headers['accept-encoding'] === 'gzip';
      if (req.url === '/identity') {
        res.writeHead(200, { 'Cache-Control': 'max-age=60', 'Content-Type': 'text/plain', Vary: 'Accept-Encoding', ETag: '"i1"' });
        res.end(text);
        return;
      }
      res.writeHead(200, {
        'Cache-Control': 'max-age=60', 'Content-Type': 'text/plain', Vary: 'Accept-Encoding', ETag: '"t1"',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      });
      res.end(gzip ? gzipSync(text) : text);
    });
    gw = await startGateway(origin.url);
  });
  after(async () => {
    await gw.close();
    await origin.close();
  });

  const base = () => `http://${gw.base.host}:${gw.base.port}`;

  it('asks the origin for gzip and weakens a strong tag it cannot map to the identity form', async () => {
    const gz = await call(base(), '/coded', { 'accept-encoding': 'gzip' });
    assert.equal(origin.seen.at(-1)!.headers['accept-encoding'], 'gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers.etag, '"t1"');
    const id = await call(base(), '/coded', { 'accept-encoding': 'br;q=1, gzip;q=0' });
    assert.equal(id.headers['x-cache'], 'HIT');
    assert.equal(id.body.toString(), text);
    assert.equal(id.headers.etag, 'W/"t1"');
    assert.equal(gw.gateway.stats().entries, 1);
    assert.equal((await call(base(), '/coded', { 'if-none-match': 'W/"t1"' })).status, 304);
  });

  it('stores what an origin sends as identity once and serves it to everyone', async () => {
    await call(base(), '/identity', { 'accept-encoding': 'gzip' });
    const id = await call(base(), '/identity');
    assert.equal(id.headers['x-cache'], 'HIT');
    assert.equal(id.body.toString(), text);
    assert.equal(id.headers.etag, '"i1"');
  });

  it('leaves Accept-Encoding alone with contentCoding: false (variants by the field as sent)', async () => {
    const off = await startGateway(origin.url, { contentCoding: false });
    try {
      const url = `http://${off.base.host}:${off.base.port}`;
      const id = await call(url, '/coded');
      assert.equal(id.headers['content-encoding'], undefined);
      const gz = await call(url, '/coded', { 'accept-encoding': 'gzip' });
      assert.equal(gz.headers['x-cache'], 'MISS');
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.equal(off.gateway.stats().entries, 2);
    } finally {
      await off.close();
    }
  });
});
