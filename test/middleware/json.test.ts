import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { json } from '../../src/middleware/json.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { echo, post, send, serve, type Served } from './harness.js';

describe('json()', () => {
  let srv: Served;
  before(async () => {
    srv = await serve((app) => {
      app.post('/json', json(), echo);
      app.post('/small', json({ limit: 10 }), echo);
      app.post('/lenient', json({ strict: false }), echo);
      app.post('/typed', json({ type: 'text/plain' }), echo);
      app.post('/twice', json(), urlencoded({ type: '*/*' }), echo);
      app.post('/unmounted', echo);
      app.get('/json', json(), echo);
    });
  });
  after(() => srv.close());

  const postJson = (path: string, body: string, type = 'application/json') => post(srv.base, path, type, body);

  it('parses a JSON body into req.body', async () => {
    const res = await postJson('/json', '{"a":{"b":[1,2]},"s":"é"}');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.body, { a: { b: [1, 2] }, s: 'é' });
  });

  it('parses +json media types and a charset parameter of utf-8', async () => {
    assert.deepEqual((await postJson('/json', '{"x":1}', 'application/merge-patch+json')).json.body, { x: 1 });
    assert.deepEqual((await postJson('/json', '{"x":2}', 'application/json; charset=UTF-8')).json.body, { x: 2 });
  });

  it('ignores a UTF-8 byte order mark', async () => {
    assert.deepEqual((await postJson('/json', '\uFEFF{"x":1}')).json.body, { x: 1 });
  });

  it('leaves other content types alone: req.body is {} as in Express 4', async () => {
    assert.deepEqual((await postJson('/json', '{"x":1}', 'text/plain')).json.body, {});
  });

  it('reads the types given in `type` only', async () => {
    assert.deepEqual((await postJson('/typed', '{"x":1}', 'text/plain')).json.body, { x: 1 });
    assert.deepEqual((await postJson('/typed', '{"x":1}')).json.body, {});
  });

  it('parses nothing where no parser is mounted (req.body stays undefined)', async () => {
    assert.equal((await postJson('/unmounted', '{"a":1}')).json.body, '(undefined)');
  });

  it('skips a GET without a body, and gives {} for an empty body', async () => {
    const get = await send(srv.base, 'GET', '/json', { headers: { 'content-type': 'application/json' } });
    assert.deepEqual(get.json.body, {});
    assert.deepEqual((await postJson('/json', '')).json.body, {});
  });

  it('runs once: a second parser after it does not parse again', async () => {
    const res = await postJson('/twice', '{"x":1}');
    assert.deepEqual(res.json.body, { x: 1 });
  });

  it('answers malformed JSON with 400 ROA_ERR_MALFORMED_JSON, with line and column', async () => {
    const res = await postJson('/json', '{\n  "a": 1,\n  "b" 2\n}');
    assert.equal(res.status, 400);
    assert.equal(res.json.code, 'ROA_ERR_MALFORMED_JSON');
    assert.match(res.json.message, /line 3, column 7/);
  });

  it('does not echo the input in the error', async () => {
    const secret = 'hunter2'.repeat(50);
    for (const body of [`{"password":"${secret}" x}`, `{"a":}${secret}`, `[${secret}]`]) {
      const res = await postJson('/json', body);
      assert.equal(res.status, 400);
      assert.doesNotMatch(res.text, /hunter2/);
    }
  });

  it('rejects a top-level scalar in strict mode with 400, and accepts it when not strict', async () => {
    for (const body of ['"just a string"', '42', 'true', 'null', '   ']) {
      const res = await postJson('/json', body);
      assert.equal(res.status, 400, body);
      assert.equal(res.json.code, 'ROA_ERR_MALFORMED_JSON');
    }
    assert.equal((await postJson('/lenient', '"s"')).json.body, 's');
  });

  it('answers bodies over the default 100 KiB limit with 413', async () => {
    const big = JSON.stringify({ s: 'x'.repeat(100 * 1024) });
    const res = await postJson('/json', big);
    assert.equal(res.status, 413);
    assert.equal(res.json.code, 'ROA_ERR_BODY_TOO_LARGE');
  });

  it('answers bodies over a custom limit with 413', async () => {
    assert.equal((await postJson('/small', '{"aaaaaaaaaa":1}')).status, 413);
    assert.equal((await postJson('/small', '{"a":1}')).status, 200);
  });

  it('answers an unsupported charset with 415, and invalid UTF-8 with 400', async () => {
    const latin = await postJson('/json', '{}', 'application/json; charset=latin1');
    assert.equal(latin.status, 415);
    assert.equal(latin.json.code, 'ROA_ERR_UNSUPPORTED_CHARSET');
    const bad = await post(srv.base, '/json', 'application/json', Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    assert.equal(bad.status, 400);
    assert.equal(bad.json.code, 'ROA_ERR_INVALID_UTF8');
  });

  // secure-json-parse's defaults (issue 24): __proto__ and constructor.prototype are refused;
  // other keys named constructor or prototype are data and kept.
  it('refuses __proto__ and constructor.prototype at any depth, and keeps other such keys', async () => {
    const bodies = [
      '{"__proto__":{"polluted":true},"ok":1}',
      '{"ok":1,"a":{"constructor":{"prototype":{"polluted":true}}}}',
      '{"ok":1,"list":[{"__proto__":{"polluted":true}}]}',
      '{"ok":1,"__pro\\u0074o__":{"polluted":true}}',
    ];
    for (const body of bodies) {
      const res = await postJson('/json', body);
      assert.equal(res.status, 400, body);
      assert.equal(res.json.code, 'ROA_ERR_MALFORMED_JSON', body);
    }
    const kept = await postJson('/json', '{"ok":1,"constructor":{"name":"c"},"prototype":2}');
    assert.equal(kept.status, 200);
    assert.deepEqual(kept.json.body, { ok: 1, constructor: { name: 'c' }, prototype: 2 });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  it('fails at registration for a bad limit or type', () => {
    assert.throws(() => json({ limit: 'a lot' }), TypeError);
    assert.throws(() => json({ type: 'json please' }), TypeError);
    assert.throws(() => json({ timeoutMs: 0 }), TypeError);
  });
});
