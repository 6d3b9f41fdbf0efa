import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { send, startTestService, type TestService } from '../helpers/service.js';

const XML = '<article><title>Tea</title><price currency="eur">9.90</price></article>';
const JSON_BODY = JSON.stringify({ title: 'Coffee', price: { amount: '12.5000', currency: 'usd' } });

describe('article service', () => {
  let svc: TestService;
  let editor: string;
  let other: string;
  let admin: string;
  let reader: string;
  before(async () => {
    svc = await startTestService();
    editor = await svc.addUser('ed', 'editor');
    other = await svc.addUser('olga', 'editor');
    admin = await svc.addUser('ada', 'admin');
    reader = await svc.addUser('rita', 'reader');
  });
  after(() => svc.close());

  const xmlHeaders = (auth: string) => ({ authorization: auth, 'content-type': 'application/xml' });

  it('creates with POST: 201, Location /article/{n}, the representation and an ETag', async () => {
    const res = await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(editor), body: XML });
    assert.equal(res.status, 201);
    assert.match(res.headers.location!, /^\/article\/\d+$/);
    assert.equal(res.text, XML);
    assert.match(res.headers.etag!, /^"[^"]+"$/);
    const get = await send(svc.base, 'GET', res.headers.location!);
    assert.equal(get.status, 200);
    assert.equal(get.text, XML);
    assert.equal(get.headers['content-type'], 'application/xml; charset=utf-8');
  });

  it('keeps the exact digits of the price (9.90 stays 9.90) in XML and JSON', async () => {
    const res = await send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': 'application/json', accept: 'application/json' }, body: JSON_BODY });
    assert.equal(res.status, 201);
    assert.deepEqual(JSON.parse(res.text), { title: 'Coffee', price: { amount: '12.5000', currency: 'usd' } });
    const xml = await send(svc.base, 'GET', res.headers.location!, { headers: { accept: 'application/xml' } });
    assert.equal(xml.text, '<article><title>Coffee</title><price currency="usd">12.5000</price></article>');
  });

  it('creates at a slug with PUT (201 + Location), replaces it (200), and a repeated PUT changes nothing', async () => {
    const first = await send(svc.base, 'PUT', '/articles/green-tea', { headers: xmlHeaders(editor), body: XML });
    assert.equal(first.status, 201);
    assert.equal(first.headers.location, '/articles/green-tea');
    const changed = XML.replace('9.90', '10.00');
    const second = await send(svc.base, 'PUT', '/articles/green-tea', { headers: xmlHeaders(editor), body: changed });
    assert.equal(second.status, 200);
    assert.equal(second.text, changed);
    assert.notEqual(second.headers.etag, first.headers.etag);
    const third = await send(svc.base, 'PUT', '/articles/green-tea', { headers: xmlHeaders(editor), body: changed });
    assert.equal(third.status, 200);
    assert.equal(third.headers.etag, second.headers.etag);
    const list = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/json' } });
    const slugs = (JSON.parse(list.text).articles as Array<{ title: string }>).filter((a) => a.title === 'Tea');
    assert.ok(slugs.length >= 1);
  });

  it('serves the same article at /article/{key} and /articles/{key}', async () => {
    await send(svc.base, 'PUT', '/articles/alias-test', { headers: xmlHeaders(editor), body: XML });
    const a = await send(svc.base, 'GET', '/article/alias-test');
    const b = await send(svc.base, 'GET', '/articles/alias-test');
    assert.equal(a.status, 200);
    assert.equal(a.text, b.text);
    assert.equal(a.headers.etag, b.headers.etag);
  });

  it('answers PUT to a numeric id that does not exist with 404', async () => {
    const res = await send(svc.base, 'PUT', '/articles/999999', { headers: { ...xmlHeaders(editor), accept: 'application/xml' }, body: XML });
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type']?.split(';')[0], 'application/problem+xml');
  });

  it('returns 404 after DELETE', async () => {
    const created = await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(editor), body: XML });
    const del = await send(svc.base, 'DELETE', created.headers.location!, { headers: { authorization: editor } });
    assert.equal(del.status, 204);
    const get = await send(svc.base, 'GET', created.headers.location!);
    assert.equal(get.status, 404);
  });

  it('answers HEAD with the GET headers and no body', async () => {
    const created = await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(editor), body: XML });
    const get = await send(svc.base, 'GET', created.headers.location!);
    const head = await send(svc.base, 'HEAD', created.headers.location!);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.etag, get.headers.etag);
    assert.equal(head.headers['content-length'], get.headers['content-length']);
    assert.equal(head.headers['cache-control'], get.headers['cache-control']);
  });

  it('lists in OPTIONS exactly the methods this caller may use', async () => {
    await send(svc.base, 'PUT', '/articles/opts', { headers: xmlHeaders(editor), body: XML });
    assert.equal((await send(svc.base, 'OPTIONS', '/articles/opts')).headers.allow, 'HEAD, GET, OPTIONS');
    assert.equal((await send(svc.base, 'OPTIONS', '/articles/opts', { headers: { authorization: editor } })).headers.allow, 'HEAD, GET, OPTIONS, PUT, DELETE');
    assert.equal((await send(svc.base, 'OPTIONS', '/articles/opts', { headers: { authorization: other } })).headers.allow, 'HEAD, GET, OPTIONS');
    assert.equal((await send(svc.base, 'OPTIONS', '/articles/opts', { headers: { authorization: admin } })).headers.allow, 'HEAD, GET, OPTIONS, PUT, DELETE');
    assert.equal((await send(svc.base, 'OPTIONS', '/articles/opts', { headers: { authorization: reader } })).headers.allow, 'HEAD, GET, OPTIONS');
    assert.equal((await send(svc.base, 'OPTIONS', '/articles')).headers.allow, 'HEAD, GET, OPTIONS');
    assert.equal((await send(svc.base, 'OPTIONS', '/articles', { headers: { authorization: editor } })).headers.allow, 'HEAD, GET, OPTIONS, POST');
  });

  it('checks credentials on OPTIONS too: bad ones get 401', async () => {
    const bad = 'Basic ' + Buffer.from('ed:wrong').toString('base64');
    const res = await send(svc.base, 'OPTIONS', '/articles', { headers: { authorization: bad } });
    assert.equal(res.status, 401);
    assert.match(res.headers['www-authenticate']!, /Basic realm="roa"/);
  });

  it('answers an unsupported method with 405 and Allow', async () => {
    const res = await send(svc.base, 'POST', '/articles/opts', { headers: xmlHeaders(editor), body: XML });
    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'HEAD, GET, OPTIONS, PUT, DELETE');
    const patch = await send(svc.base, 'PATCH', '/articles');
    assert.equal(patch.status, 405);
    assert.equal(patch.headers.allow, 'HEAD, GET, OPTIONS, POST');
  });

  it('needs credentials to write (401 with a challenge) and a writer role (403)', async () => {
    const anon = await send(svc.base, 'POST', '/articles', { headers: { 'content-type': 'application/xml' }, body: XML });
    assert.equal(anon.status, 401);
    assert.match(anon.headers['www-authenticate']!, /Basic realm="roa"/);
    const asReader = await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(reader), body: XML });
    assert.equal(asReader.status, 403);
  });

  it("forbids replacing or deleting another user's article unless admin", async () => {
    await send(svc.base, 'PUT', '/articles/owned', { headers: xmlHeaders(editor), body: XML });
    assert.equal((await send(svc.base, 'PUT', '/articles/owned', { headers: xmlHeaders(other), body: XML })).status, 403);
    assert.equal((await send(svc.base, 'DELETE', '/articles/owned', { headers: { authorization: other } })).status, 403);
    assert.equal((await send(svc.base, 'PUT', '/articles/owned', { headers: xmlHeaders(admin), body: XML })).status, 200);
    assert.equal((await send(svc.base, 'DELETE', '/articles/owned', { headers: { authorization: admin } })).status, 204);
  });

  it('answers If-None-Match with 304 and stale If-Match with 412', async () => {
    const put = await send(svc.base, 'PUT', '/articles/cond', { headers: xmlHeaders(editor), body: XML });
    const etag = put.headers.etag!;
    const cached = await send(svc.base, 'GET', '/articles/cond', { headers: { 'if-none-match': etag } });
    assert.equal(cached.status, 304);
    assert.equal(cached.text, '');
    assert.equal(cached.headers.etag, etag);
    // RFC 9110 §15.4.5: validators and caching fields, no representation metadata such as Content-Type.
    assert.equal(cached.headers['content-type'], undefined);
    assert.ok(cached.headers['cache-control']);
    assert.equal(cached.headers.vary, 'Accept, Accept-Encoding');
    const update = await send(svc.base, 'PUT', '/articles/cond', { headers: { ...xmlHeaders(editor), 'if-match': etag }, body: XML.replace('Tea', 'Tea 2') });
    assert.equal(update.status, 200);
    const stale = await send(svc.base, 'PUT', '/articles/cond', { headers: { ...xmlHeaders(editor), 'if-match': etag }, body: XML.replace('Tea', 'Tea 3') });
    assert.equal(stale.status, 412);
    const staleDelete = await send(svc.base, 'DELETE', '/articles/cond', { headers: { authorization: editor, 'if-match': etag } });
    assert.equal(staleDelete.status, 412);
    assert.equal((await send(svc.base, 'GET', '/articles/cond')).text, XML.replace('Tea', 'Tea 2'));
  });

  it('makes If-None-Match: * on PUT create-only', async () => {
    const first = await send(svc.base, 'PUT', '/articles/once', { headers: { ...xmlHeaders(editor), 'if-none-match': '*' }, body: XML });
    assert.equal(first.status, 201);
    const again = await send(svc.base, 'PUT', '/articles/once', { headers: { ...xmlHeaders(editor), 'if-none-match': '*' }, body: XML });
    assert.equal(again.status, 412);
  });

  it('creates exactly one article for concurrent PUTs to one new slug', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () =>
      send(svc.base, 'PUT', '/articles/race', { headers: xmlHeaders(editor), body: XML })));
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 1);
    assert.ok(statuses.every((s) => s === 201 || s === 200 || s === 412));
  });

  it('negotiates XML (default), JSON, and answers 406 for anything else, with Vary: Accept', async () => {
    await send(svc.base, 'PUT', '/articles/neg', { headers: xmlHeaders(editor), body: XML });
    const def = await send(svc.base, 'GET', '/articles/neg', { headers: { accept: '*/*' } });
    assert.equal(def.headers['content-type'], 'application/xml; charset=utf-8');
    assert.equal(def.headers.vary, 'Accept, Accept-Encoding');
    const json = await send(svc.base, 'GET', '/articles/neg', { headers: { accept: 'application/json' } });
    assert.deepEqual(JSON.parse(json.text), { title: 'Tea', price: { amount: '9.90', currency: 'eur' } });
    assert.notEqual(json.headers.etag, def.headers.etag);
    const none = await send(svc.base, 'GET', '/articles/neg', { headers: { accept: 'image/png' } });
    assert.equal(none.status, 406);
  });

  it('sends Cache-Control on safe responses and none on errors', async () => {
    await send(svc.base, 'PUT', '/articles/cc', { headers: xmlHeaders(editor), body: XML });
    const ok = await send(svc.base, 'GET', '/articles/cc');
    assert.match(ok.headers['cache-control']!, /public/);
    assert.match(ok.headers['cache-control']!, /max-age=60/);
    assert.ok(ok.headers['last-modified']);
    const missing = await send(svc.base, 'GET', '/articles/no-such-thing');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['cache-control'], undefined);
  });

  it('rejects an unsupported Content-Type with 415', async () => {
    const res = await send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': 'text/csv' }, body: 'a,b' });
    assert.equal(res.status, 415);
  });

  it('rejects malformed XML with 400 and invalid articles with 422 listing fields, storing nothing', async () => {
    const before = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/json' } });
    const count = JSON.parse(before.text).articles.length;
    const bad = await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(editor), body: '<article><title>x</title>' });
    assert.equal(bad.status, 400);
    const doctype = await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(editor), body: '<!DOCTYPE a [<!ENTITY x "y">]><article><title>&x;</title></article>' });
    assert.equal(doctype.status, 400);
    const invalid = await send(svc.base, 'POST', '/articles', { headers: { authorization: editor, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ title: '', price: { amount: 9.9, currency: 'EUR' } }) });
    assert.equal(invalid.status, 422);
    const problem = JSON.parse(invalid.text);
    assert.equal(problem.status, 422);
    const fields = problem.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['price.amount', 'price.currency', 'title']);
    const tooPrecise = await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(editor), body: XML.replace('9.90', '1.1234567890123456789') });
    assert.equal(tooPrecise.status, 422);
    const after = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/json' } });
    assert.equal(JSON.parse(after.text).articles.length, count);
  });

  it('pages the collection with limit and an opaque cursor in Link', async () => {
    for (let i = 0; i < 5; i++) await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(editor), body: XML });
    const seen = new Set<number>();
    let path: string | undefined = '/articles?limit=2';
    let pages = 0;
    while (path && pages < 100) {
      const res = await send(svc.base, 'GET', path, { headers: { accept: 'application/json' } });
      assert.equal(res.status, 200);
      const body = JSON.parse(res.text) as { articles: Array<{ id: number }>; next?: string };
      assert.ok(body.articles.length <= 2);
      for (const a of body.articles) {
        assert.ok(!seen.has(a.id));
        seen.add(a.id);
      }
      const link = res.headers.link;
      path = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
      pages++;
    }
    assert.ok(seen.size >= 5);
    assert.equal((await send(svc.base, 'GET', '/articles?cursor=garbage')).status, 400);
    const zero = await send(svc.base, 'GET', '/articles?limit=0');
    assert.equal(zero.status, 400);
    assert.match((JSON.parse(zero.text) as { detail: string }).detail, /positive integer \(pages hold at most 100\)/);
    // Past the page size the request is served, a page of at most 100 (its next link says limit=100).
    const big = await send(svc.base, 'GET', '/articles?limit=1000', { headers: { accept: 'application/json' } });
    assert.equal(big.status, 200);
    assert.ok((JSON.parse(big.text) as { articles: unknown[] }).articles.length <= 100);
    const xml = await send(svc.base, 'GET', '/articles?limit=1');
    assert.match(xml.text, /^<articles><article id="\d+" href="\/article\/\d+"><title>/);
  });

  it('shows why a request got its status in X-Roa-Trace (development)', async () => {
    const res = await send(svc.base, 'POST', '/articles', { headers: xmlHeaders(reader), body: XML });
    assert.equal(res.status, 403);
    assert.match(res.headers['x-roa-trace']!, /auth:basic:reader/);
  });
});

describe('article service: overridden POST', () => {
  it('turns a form POST with _method=DELETE into a DELETE', async () => {
    const svc = await startTestService();
    try {
      const editor = await svc.addUser('ed', 'editor');
      await send(svc.base, 'PUT', '/articles/formy', { headers: { authorization: editor, 'content-type': 'application/xml' }, body: XML });
      const res = await send(svc.base, 'POST', '/articles/formy', { headers: { authorization: editor, 'content-type': 'application/x-www-form-urlencoded' }, body: '_method=DELETE' });
      assert.equal(res.status, 204);
      assert.equal((await send(svc.base, 'GET', '/articles/formy')).status, 404);
      const put = await send(svc.base, 'POST', '/articles/formz', { headers: { authorization: editor, 'content-type': 'application/x-www-form-urlencoded' }, body: '_method=PUT&title=Form&price[amount]=1.50&price[currency]=gbp' });
      assert.equal(put.status, 201);
      assert.equal(put.text, '<article><title>Form</title><price currency="gbp">1.50</price></article>');
    } finally {
      await svc.close();
    }
  });
});

describe('article service: X-Roa-Trace on success', () => {
  it('lists the decisions on a successful GET, PUT and OPTIONS in development', async () => {
    const svc = await startTestService();
    try {
      const editor = await svc.addUser('ed', 'editor');
      const put = await send(svc.base, 'PUT', '/articles/traced', { headers: { authorization: editor, 'content-type': 'application/xml' }, body: XML });
      assert.match(put.headers['x-roa-trace']!, /auth:basic:editor.*action:created/);
      const get = await send(svc.base, 'GET', '/articles/traced');
      assert.match(get.headers['x-roa-trace']!, /auth:anonymous.*exists:yes.*precond:proceed/);
      const opts = await send(svc.base, 'OPTIONS', '/articles/traced');
      assert.match(opts.headers['x-roa-trace']!, /exists:yes/);
    } finally {
      await svc.close();
    }
  });
});
