import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createApp, json, methodOverride, urlencoded, type App } from '../../src/index.js';
import { send } from '../helpers/service.js';

function start(app: App): Promise<{ server: Server; base: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

describe('json() and urlencoded()', () => {
  let server: Server;
  let base: string;
  before(async () => {
    const app = createApp({ env: 'test' });
    app.post('/json', json(), (req, res) => res.json({ body: req.body, protoPolluted: ({} as Record<string, unknown>).polluted === true }));
    app.post('/small', json({ limit: 10 }), (req, res) => res.json(req.body));
    app.post('/form', urlencoded({ extended: true }), (req, res) => res.json(req.body));
    app.post('/flat', urlencoded({ extended: false }), (req, res) => res.json(req.body));
    app.post('/few', urlencoded({ parameterLimit: 3 }), (req, res) => res.json(req.body));
    app.post('/unmounted', (req, res) => res.json({ body: req.body ?? null }));
    // Express semantics: the override must run before routing, so it is app-level middleware.
    app.use('/override', urlencoded(), methodOverride());
    app.post('/override', (req, res) => res.json({ method: req.method, originalMethod: req.originalMethod }));
    app.put('/override', (req, res) => res.json({ method: req.method, originalMethod: req.originalMethod, route: 'put' }));
    ({ server, base } = await start(app));
  });
  after(() => server.close());

  const post = (path: string, type: string, body: string, headers: Record<string, string> = {}) =>
    send(base, 'POST', path, { headers: { 'content-type': type, ...headers }, body });

  it('parses a JSON body into req.body', async () => {
    const res = await post('/json', 'application/json', '{"a":{"b":[1,2]}}');
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.text).body, { a: { b: [1, 2] } });
  });

  it('parses +json media types', async () => {
    const res = await post('/json', 'application/merge-patch+json', '{"x":1}');
    assert.deepEqual(JSON.parse(res.text).body, { x: 1 });
  });

  it('leaves other content types alone', async () => {
    const res = await post('/json', 'text/plain', '{"x":1}');
    assert.deepEqual(JSON.parse(res.text).body, {});
  });

  it('answers malformed JSON with 400 through the error chain', async () => {
    const res = await post('/json', 'application/json', '{"a":');
    assert.equal(res.status, 400);
    assert.equal(res.headers['content-type'], 'application/problem+json');
  });

  it('rejects a top-level scalar in strict mode with 400', async () => {
    assert.equal((await post('/json', 'application/json', '"just a string"')).status, 400);
  });

  it('answers bodies over the default 100 KB limit with 413', async () => {
    const big = JSON.stringify({ s: 'x'.repeat(101 * 1024) });
    assert.equal((await post('/json', 'application/json', big)).status, 413);
  });

  it('answers bodies over a custom limit with 413', async () => {
    assert.equal((await post('/small', 'application/json', '{"aaaaaaaaaa":1}')).status, 413);
  });

  it('answers an unsupported charset with 415', async () => {
    assert.equal((await post('/json', 'application/json; charset=latin1', '{}')).status, 415);
  });

  it('never lets __proto__ or constructor keys pollute prototypes', async () => {
    const res = await post('/json', 'application/json', '{"__proto__":{"polluted":true},"a":{"constructor":{"prototype":{"polluted":true}}}}');
    const out = JSON.parse(res.text);
    assert.equal(out.protoPolluted, false);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(out.body, { a: {} });
    const form = await post('/form', 'application/x-www-form-urlencoded', '__proto__[polluted]=1&constructor[prototype][polluted]=1&ok=1');
    assert.deepEqual(JSON.parse(form.text), { ok: '1' });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('parses nested urlencoded keys: a[b][c]=1 gives {a:{b:{c:"1"}}}', async () => {
    const res = await post('/form', 'application/x-www-form-urlencoded', 'a[b][c]=1&d=2');
    assert.deepEqual(JSON.parse(res.text), { a: { b: { c: '1' } }, d: '2' });
  });

  it('keeps keys flat when extended is false', async () => {
    const res = await post('/flat', 'application/x-www-form-urlencoded', 'a[b]=1');
    assert.deepEqual(JSON.parse(res.text), { 'a[b]': '1' });
  });

  it('answers too many parameters with 413', async () => {
    assert.equal((await post('/few', 'application/x-www-form-urlencoded', 'a=1&b=2&c=3&d=4')).status, 413);
  });

  it('parses nothing where no parser is mounted', async () => {
    const res = await post('/unmounted', 'application/json', '{"a":1}');
    assert.deepEqual(JSON.parse(res.text), { body: null });
  });

  it('overrides POST with _method from the parsed body, keeping originalMethod', async () => {
    const res = await post('/override', 'application/x-www-form-urlencoded', '_method=PUT&x=1');
    assert.deepEqual(JSON.parse(res.text), { method: 'PUT', originalMethod: 'POST', route: 'put' });
  });

  it('overrides POST with the X-HTTP-Method-Override header', async () => {
    const res = await post('/override', 'application/x-www-form-urlencoded', 'x=1', { 'x-http-method-override': 'put' });
    assert.equal(JSON.parse(res.text).route, 'put');
  });

  it('refuses to override to methods other than PUT, PATCH, DELETE', async () => {
    const res = await post('/override', 'application/x-www-form-urlencoded', '_method=GET');
    assert.deepEqual(JSON.parse(res.text), { method: 'POST', originalMethod: 'POST' });
  });
});
