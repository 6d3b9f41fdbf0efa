import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { formEtag } from '../../src/middleware/form-etag.js';
import { methodOverride } from '../../src/middleware/method-override.js';
import { multipartForm } from '../../src/middleware/multipart-form.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { post, send, serve, type Served } from './harness.js';

const FORM = 'application/x-www-form-urlencoded';
const BOUNDARY = 'xyzzy';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

function multipart(parts: Array<[string, string, string?]>): string {
  return parts.map(([name, value, filename]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${value}\r\n`).join('') + `--${BOUNDARY}--\r\n`;
}

describe('multipartForm() and formEtag()', () => {
  let srv: Served;
  before(async () => {
    srv = await serve((app) => {
      app.use(urlencoded(), multipartForm({ limit: 2048 }), methodOverride(), formEtag());
      const echo = (req: Request, res: Response) => res.json({ method: req.method, ifMatch: req.headers['if-match'] ?? null, body: req.body });
      app.post('/r', echo);
      app.put('/r', echo);
      app.delete('/r', echo);
    });
  });
  after(() => srv.close());

  it('parses text fields of a multipart form, nested as a urlencoded form is', async () => {
    const res = await post(srv.base, '/r', MULTIPART, multipart([['title', 'Tea & <cakes>'], ['price[amount]', '9.90'], ['price[currency]', 'eur']]));
    assert.deepEqual(res.json, { method: 'POST', ifMatch: null, body: { title: 'Tea & <cakes>', price: { amount: '9.90', currency: 'eur' } } });
  });

  it('lets methodOverride see a multipart _method, and turns _etag into If-Match', async () => {
    const res = await post(srv.base, '/r', MULTIPART, multipart([['_method', 'DELETE'], ['_etag', '"abc-h"']]));
    assert.deepEqual(res.json, { method: 'DELETE', ifMatch: '"abc-h"', body: {} });
  });

  it('turns a urlencoded _etag into If-Match for an overridden PUT, and drops it from the body', async () => {
    const res = await post(srv.base, '/r', FORM, '_method=PUT&_etag=%22abc-h%22&title=T');
    assert.deepEqual(res.json, { method: 'PUT', ifMatch: '"abc-h"', body: { title: 'T' } });
  });

  it('leaves an If-Match header the client sent, and leaves _etag of a plain POST alone', async () => {
    const header = await send(srv.base, 'POST', '/r', { headers: { 'content-type': FORM, 'if-match': '"header"' }, body: '_method=PUT&_etag=%22field%22' });
    assert.equal(header.json.ifMatch, '"header"');
    const plain = await post(srv.base, '/r', FORM, '_etag=%22x%22&title=T');
    assert.deepEqual(plain.json, { method: 'POST', ifMatch: null, body: { _etag: '"x"', title: 'T' } });
  });

  it('refuses a file field (415), a malformed body (400) and a body over the limit (413)', async () => {
    const file = await post(srv.base, '/r', MULTIPART, multipart([['title', 'T'], ['upload', 'bytes', 'a.txt']]));
    assert.equal(file.status, 415);
    assert.equal(file.json.code, 'ROA_ERR_FORM_FILE');
    const broken = await post(srv.base, '/r', MULTIPART, 'not a multipart body');
    assert.equal(broken.status, 400);
    const big = await post(srv.base, '/r', MULTIPART, multipart([['title', 'x'.repeat(4096)]]));
    assert.equal(big.status, 413);
  });
});
