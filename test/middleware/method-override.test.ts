import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { json } from '../../src/middleware/json.js';
import { methodOverride } from '../../src/middleware/method-override.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { echo, post, send, serve, type Served } from './harness.js';

const FORM = 'application/x-www-form-urlencoded';

describe('methodOverride()', () => {
  let srv: Served;
  before(async () => {
    srv = await serve((app) => {
      // The override must run before routing, so it is app-level middleware after the parsers.
      app.use('/r', urlencoded(), json(), methodOverride());
      app.use('/no-header', urlencoded(), methodOverride({ header: false }));
      app.use('/custom', urlencoded(), methodOverride({ header: 'X-Method', bodyField: 'verb' }));
      for (const path of ['/r', '/no-header', '/custom']) {
        app.post(path, echo);
        app.put(path, (req: Request, res: Response) => res.json({ route: 'put', method: req.method, originalMethod: req.originalMethod, body: req.body }));
        app.patch(path, (_req: Request, res: Response) => res.json({ route: 'patch' }));
        app.delete(path, (_req: Request, res: Response) => res.json({ route: 'delete' }));
        app.get(path, echo);
      }
    });
  });
  after(() => srv.close());

  it('overrides POST with _method from the parsed body, keeping originalMethod', async () => {
    const res = await post(srv.base, '/r', FORM, '_method=PUT&x=1');
    assert.deepEqual(res.json, { route: 'put', method: 'PUT', originalMethod: 'POST', body: { x: '1' } });
  });

  it('removes an honoured _method from the body (the PUT body is the representation)', async () => {
    const res = await post(srv.base, '/r', 'application/json', '{"_method":"put","title":"t"}');
    assert.deepEqual(res.json.body, { title: 't' });
  });

  it('accepts PUT, PATCH and DELETE in any case', async () => {
    assert.equal((await post(srv.base, '/r', FORM, '_method=patch')).json.route, 'patch');
    assert.equal((await post(srv.base, '/r', FORM, '_method=Delete')).json.route, 'delete');
  });

  it('overrides POST with the X-HTTP-Method-Override header, adding Vary', async () => {
    const res = await post(srv.base, '/r', FORM, 'x=1', { 'x-http-method-override': 'put' });
    assert.equal(res.json.route, 'put');
    assert.match(res.headers.vary ?? '', /X-HTTP-Method-Override/i);
    const list = await post(srv.base, '/r', FORM, 'x=1', { 'x-http-method-override': 'DELETE, PUT' });
    assert.equal(list.json.route, 'delete');
  });

  it('prefers the body field over the header', async () => {
    const res = await post(srv.base, '/r', FORM, '_method=DELETE', { 'x-http-method-override': 'PUT' });
    assert.equal(res.json.route, 'delete');
  });

  it('ignores methods other than PUT, PATCH, DELETE (the request stays a POST)', async () => {
    for (const m of ['GET', 'HEAD', 'POST', 'OPTIONS', 'CONNECT', 'TRACE', 'PROPFIND', 'bogus']) {
      const res = await post(srv.base, '/r', FORM, `_method=${m}`);
      assert.equal(res.json.method, 'POST', m);
      assert.equal(res.json.originalMethod, 'POST');
      assert.equal(res.json.body._method, m);
      assert.equal((await post(srv.base, '/r', FORM, 'x=1', { 'x-http-method-override': m })).json.method, 'POST');
    }
  });

  it('only overrides POST; originalMethod records the method as received', async () => {
    const res = await send(srv.base, 'GET', '/r', { headers: { 'x-http-method-override': 'DELETE' } });
    assert.deepEqual({ method: res.json.method, originalMethod: res.json.originalMethod }, { method: 'GET', originalMethod: 'GET' });
  });

  it('can ignore headers, or read a custom header and field', async () => {
    assert.equal((await post(srv.base, '/no-header', FORM, 'x=1', { 'x-http-method-override': 'PUT' })).json.method, 'POST');
    assert.equal((await post(srv.base, '/no-header', FORM, '_method=PUT')).json.route, 'put');
    assert.equal((await post(srv.base, '/custom', FORM, 'verb=PUT')).json.route, 'put');
    assert.equal((await post(srv.base, '/custom', FORM, 'x=1', { 'x-method': 'PATCH' })).json.route, 'patch');
    assert.equal((await post(srv.base, '/custom', FORM, '_method=PUT')).json.method, 'POST');
  });

  it('fails at registration for a bad header name or field', () => {
    assert.throws(() => methodOverride({ header: 'X Method' }), TypeError);
    assert.throws(() => methodOverride({ bodyField: '' }), TypeError);
  });
});
