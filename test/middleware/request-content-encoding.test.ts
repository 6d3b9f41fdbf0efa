import assert from 'node:assert/strict';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from '../helpers/node-test.js';
import { wireBodyOf } from '../../src/http/body.js';
import { json } from '../../src/middleware/json.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { echo, post, send, serve, type Served } from './harness.js';

describe('request Content-Encoding (http/body)', () => {
  let srv: Served;
  before(async () => {
    srv = await serve((app) => {
      app.post('/json', json(), echo);
      app.post('/small', json({ limit: 1024 }), echo);
      app.post('/form', urlencoded({ extended: false }), echo);
      app.post('/wire', json(), (req, res) => res.json({ wire: wireBodyOf(req)?.length ?? null, body: req.body }));
    });
  });
  after(() => srv.close());

  const doc = JSON.stringify({ title: 'é'.repeat(50), n: 1 });

  it('decodes gzip, x-gzip, deflate and br bodies before parsing', async () => {
    const cases: [string, Buffer][] = [
      ['gzip', gzipSync(doc)], ['x-gzip', gzipSync(doc)], ['deflate', deflateSync(doc)], ['br', brotliCompressSync(doc)], ['GZIP', gzipSync(doc)],
    ];
    for (const [coding, body] of cases) {
      const res = await post(srv.base, '/json', 'application/json', body, { 'content-encoding': coding });
      assert.equal(res.status, 200, `${coding}: ${res.text}`);
      assert.deepEqual(res.json.body, JSON.parse(doc), coding);
    }
    const form = await post(srv.base, '/form', 'application/x-www-form-urlencoded', gzipSync('a=1&b=two'), { 'content-encoding': 'gzip' });
    assert.deepEqual(form.json.body, { a: '1', b: 'two' });
  });

  it('keeps the coded bytes apart from the decoded content', async () => {
    const wire = gzipSync(doc);
    const res = await post(srv.base, '/wire', 'application/json', wire, { 'content-encoding': 'gzip' });
    assert.equal(res.json.wire, wire.length);
    assert.equal((await post(srv.base, '/wire', 'application/json', doc)).json.wire, null);
  });

  it('answers 413 for a small body that inflates past the limit (a zip bomb), never more', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    assert.ok(bomb.length < 100 * 1024, 'the bomb itself is within the 100 KiB limit');
    for (const [path, limit] of [['/json', 100 * 1024], ['/small', 1024]] as const) {
      const res = await post(srv.base, path, 'application/json', path === '/small' ? gzipSync(Buffer.alloc(1025, 0x20)) : bomb, { 'content-encoding': 'gzip' });
      assert.equal(res.status, 413, path);
      assert.equal(res.json.code, 'ROA_ERR_BODY_TOO_LARGE');
      assert.match(res.json.message, new RegExp(String(limit)));
    }
    const brBomb = brotliCompressSync(Buffer.alloc(16 * 1024 * 1024));
    assert.equal((await post(srv.base, '/json', 'application/json', brBomb, { 'content-encoding': 'br' })).status, 413);
    // Exactly at the limit decodes.
    const atLimit = gzipSync(JSON.stringify({ a: 'x'.repeat(1016) }));
    assert.equal((await post(srv.base, '/small', 'application/json', atLimit, { 'content-encoding': 'gzip' })).status, 200);
  });

  it('answers 400 for a corrupt or truncated stream', async () => {
    const good = gzipSync(doc);
    for (const [coding, body] of [['gzip', Buffer.from('not gzip at all')], ['gzip', good.subarray(0, good.length - 10)], ['br', Buffer.from([1, 2, 3, 4])], ['deflate', Buffer.from('xyz')]] as const) {
      const res = await post(srv.base, '/json', 'application/json', body, { 'content-encoding': coding });
      assert.equal(res.status, 400, coding);
      assert.equal(res.json.code, 'ROA_ERR_MALFORMED_ENCODING');
    }
  });

  it('answers 415 for compress, unknown and stacked codings, naming the supported ones', async () => {
    for (const coding of ['compress', 'x-compress', 'zstd', 'bogus', 'gzip, gzip']) {
      const res = await post(srv.base, '/json', 'application/json', gzipSync(doc), { 'content-encoding': coding });
      assert.equal(res.status, 415, coding);
      assert.equal(res.json.code, 'ROA_ERR_UNSUPPORTED_ENCODING');
      assert.equal(res.headers['accept-encoding'], 'gzip, deflate, br, identity');
    }
    assert.equal((await send(srv.base, 'POST', '/json', { headers: { 'content-type': 'application/json', 'content-encoding': 'identity' }, body: doc })).status, 200);
  });
});
