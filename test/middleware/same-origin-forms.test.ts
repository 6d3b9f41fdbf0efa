/** @module test/middleware/same-origin-forms sameOriginForms(): the library middleware on its own app, and its option checks. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { methodOverride, sameOriginForms, urlencoded } from '../../src/index.js';
import { echo, post, send, serve, type Served } from './harness.js';

describe('sameOriginForms()', () => {
  let s: Served;
  before(async () => {
    s = await serve((app) => {
      app.use(sameOriginForms({ origins: ['https://public.example'] }), urlencoded(), methodOverride());
      app.all('/x', echo);
    });
  });
  after(() => s.close());

  it('refuses a cross-origin form before it is parsed or overridden (403 ROA_ERR_CROSS_ORIGIN_FORM)', async () => {
    const r = await post(s.base, '/x', 'application/x-www-form-urlencoded', '_method=DELETE', { origin: 'https://evil.example' });
    assert.equal(r.status, 403);
    assert.equal(r.json.code, 'ROA_ERR_CROSS_ORIGIN_FORM');
  });

  it('passes the own origin (default port spelled out or not), a configured one, and requests without browser headers', async () => {
    const own = await post(s.base, '/x', 'application/x-www-form-urlencoded', '_method=DELETE&a=1', { origin: s.base });
    assert.deepEqual(own.json, { method: 'DELETE', originalMethod: 'POST', body: { a: '1' } });
    assert.equal((await post(s.base, '/x', 'text/plain', 'x', { origin: 'https://public.example:443' })).status, 200);
    assert.equal((await post(s.base, '/x', 'text/plain', 'x')).status, 200);
  });

  it('leaves safe methods and non-form bodies alone', async () => {
    assert.equal((await send(s.base, 'GET', '/x', { headers: { origin: 'https://evil.example' } })).status, 200);
    assert.equal((await post(s.base, '/x', 'application/json', '{}', { origin: 'https://evil.example' })).status, 200);
  });

  it('takes the public origin a trusted proxy reports as the own origin, and only from a trusted proxy', async () => {
    const behind = await serve((app) => {
      app.set('trust proxy', 'loopback');
      app.use(sameOriginForms(), urlencoded(), methodOverride());
      app.all('/x', echo);
    });
    const untrusted = await serve((app) => {
      app.set('trust proxy', '10.0.0.1');
      app.use(sameOriginForms(), urlencoded(), methodOverride());
      app.all('/x', echo);
    });
    try {
      const forwarded = { origin: 'https://articles.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'articles.example' };
      const through = await post(behind.base, '/x', 'application/x-www-form-urlencoded', '_method=DELETE', forwarded);
      assert.equal(through.status, 200);
      assert.equal(through.json.method, 'DELETE');
      assert.equal((await post(untrusted.base, '/x', 'application/x-www-form-urlencoded', '_method=DELETE', forwarded)).status, 403);
      // The proxy's public origin replaces the Host the proxy connected with: that origin is not the page's.
      assert.equal((await post(behind.base, '/x', 'application/x-www-form-urlencoded', 'a=1', { ...forwarded, origin: behind.base })).status, 403);
    } finally {
      await behind.close();
      await untrusted.close();
    }
  });

  it('refuses a configured origin that is not an http(s) origin, at registration', () => {
    assert.throws(() => sameOriginForms({ origins: ['articles.example'] }), /not an http\(s\) origin/);
    assert.throws(() => sameOriginForms({ origins: ['ftp://articles.example'] }), /not an http\(s\) origin/);
  });
});
