import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { echo, post, serve, type Served } from './harness.js';

const FORM = 'application/x-www-form-urlencoded';

describe('urlencoded()', () => {
  let srv: Served;
  before(async () => {
    srv = await serve((app) => {
      app.post('/form', urlencoded(), echo);
      app.post('/flat', urlencoded({ extended: false }), echo);
      app.post('/few', urlencoded({ parameterLimit: 3 }), echo);
      app.post('/shallow', urlencoded({ depth: 2 }), echo);
      app.post('/small', urlencoded({ limit: '16b' }), echo);
    });
  });
  after(() => srv.close());

  const form = (path: string, body: string, type = FORM) => post(srv.base, path, type, body);

  it('parses nested keys: a[b][c]=1 gives {a:{b:{c:"1"}}}', async () => {
    const res = await form('/form', 'a[b][c]=1&d=2&list[]=x&list[]=y&name=J%C3%BCrgen+M');
    assert.deepEqual(res.json.body, { a: { b: { c: '1' } }, d: '2', list: ['x', 'y'], name: 'Jürgen M' });
  });

  it('keeps nesting to `depth`; the rest stays one literal key, as in req.query', async () => {
    const res = await form('/shallow', 'a[b][c][d][e]=1');
    assert.deepEqual(res.json.body, { a: { b: { c: { '[d][e]': '1' } } } });
    const deep = await form('/form', 'a[b][c][d][e][f][g][h]=x');
    assert.deepEqual(deep.json.body, { a: { b: { c: { d: { e: { f: { '[g][h]': 'x' } } } } } } });
  });

  it('keeps keys flat when extended is false, repeated keys becoming arrays', async () => {
    const res = await form('/flat', 'a[b]=1&c=2&c=3&d=x+y');
    assert.deepEqual(res.json.body, { 'a[b]': '1', c: ['2', '3'], d: 'x y' });
  });

  it('never pollutes prototypes when extended', async () => {
    const bodies = ['__proto__[polluted]=1&ok=1', 'constructor[prototype][polluted]=1&ok=1', 'a[__proto__][polluted]=1&ok=1', 'hasOwnProperty=1&ok=1'];
    for (const body of bodies) {
      const res = await form('/form', body);
      assert.equal(res.status, 200);
      assert.equal(res.json.body.ok, '1');
      assert.doesNotMatch(JSON.stringify(res.json.body), /polluted|hasOwnProperty/);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('drops Object.prototype names when flat (a[b]-style keys are plain strings there)', async () => {
    const res = await form('/flat', '__proto__=x&__proto__=y&constructor=1&hasOwnProperty=1&toString=1&ok=1');
    assert.deepEqual(res.json.body, { ok: '1' });
  });

  it('answers more parameters than parameterLimit with 413', async () => {
    assert.equal((await form('/few', 'a=1&b=2&c=3')).status, 200);
    const res = await form('/few', 'a=1&b=2&c=3&d=4');
    assert.equal(res.status, 413);
    assert.equal(res.json.code, 'ROA_ERR_TOO_MANY_PARAMETERS');
  });

  it('answers more than the default 1000 parameters with 413', async () => {
    const params = Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&');
    assert.equal((await form('/form', params)).status, 413);
    assert.equal((await form('/form', params.slice(0, params.lastIndexOf('&')))).status, 200);
  });

  it('answers a body over the limit with 413 (default 100 KiB and custom)', async () => {
    assert.equal((await form('/small', 'a=0123456789abcdef')).json.code, 'ROA_ERR_BODY_TOO_LARGE');
    assert.equal((await form('/form', 'a=' + 'x'.repeat(100 * 1024))).status, 413);
  });

  it('answers a charset other than UTF-8 with 415', async () => {
    const res = await form('/form', 'a=1', `${FORM}; charset=windows-1252`);
    assert.equal(res.status, 415);
    assert.equal(res.json.code, 'ROA_ERR_UNSUPPORTED_CHARSET');
  });

  it('leaves other content types alone and gives {} for an empty body', async () => {
    assert.deepEqual((await form('/form', 'a=1', 'text/plain')).json.body, {});
    assert.deepEqual((await form('/form', '')).json.body, {});
  });

  it('fails at registration for bad options', () => {
    assert.throws(() => urlencoded({ parameterLimit: -1 }), TypeError);
    assert.throws(() => urlencoded({ depth: 1.5 }), TypeError);
    assert.throws(() => urlencoded({ limit: 'big' }), TypeError);
  });
});
