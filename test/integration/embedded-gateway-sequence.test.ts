/**
 * @module test/integration/embedded-gateway-sequence
 * Issue 5: the whole read → cache → write → purge → read sequence against the real service with
 * its embedded caching gateway (SQLite :memory:, loopback, ports chosen by the kernel).
 *
 * The gateway also invalidates the target URI of an unsafe request itself (RFC 9111 §4.4), so
 * every purge check here looks at URLs that only the service's Purger can drop: the other alias,
 * the slug/id twin, the collection, query pages, other Accept variants; and some writes go to the
 * service directly, bypassing the gateway altogether.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { assertNegotiatesLikeService } from './negotiation-parity.js';
import { send, startTestService, type SimpleResponse, type TestService } from '../helpers/service.js';
import { holdNextLoad } from './hold-load.js';

const article = (title: string, amount = '9.99') => `<article><title>${title}</title><price currency="eur">${amount}</price></article>`;

describe('embedded gateway in front of the article service', () => {
  let svc: TestService;
  let gw: string;
  let editor: string;
  let reader: string;

  before(async () => {
    svc = await startTestService({ gatewayPort: 'ephemeral' });
    gw = svc.gatewayBase!;
    editor = await svc.addUser('ed', 'editor');
    reader = await svc.addUser('rita', 'reader');
  });
  after(() => svc.close());

  const get = (path: string, headers: Record<string, string> = {}): Promise<SimpleResponse> => send(gw, 'GET', path, { headers });
  const writeHeaders = (auth: string, extra: Record<string, string> = {}) => ({ authorization: auth, 'content-type': 'application/xml', ...extra });
  const purges = (): number => svc.running.gateway!.stats().purges;

  /** Creates (PUT at a slug, directly at the service) and returns the numeric id. */
  async function create(slug: string, title: string): Promise<number> {
    const res = await send(svc.base, 'PUT', `/articles/${slug}`, { headers: writeHeaders(editor), body: article(title) });
    assert.equal(res.status, 201, res.text);
    const list = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/json' } });
    const found = (JSON.parse(list.text) as { articles: { id: number; title: string }[] }).articles.find((a) => a.title === title);
    assert.ok(found, `created article ${title} is listed`);
    return found.id;
  }

  /** GETs twice through the gateway and asserts MISS (stored) then HIT with the same body. */
  async function warm(path: string, headers: Record<string, string> = {}): Promise<SimpleResponse> {
    const first = await get(path, headers);
    assert.equal(first.status, 200, `${path}: ${first.text}`);
    const second = await get(path, headers);
    assert.equal(second.headers['x-cache'], 'HIT', `${path} is served from the cache after one GET (first: ${first.headers['cache-status']})`);
    assert.equal(second.text, first.text);
    return second;
  }

  it('MISS (stored) → HIT → PUT passed to the service → MISS with the new content → HIT', async () => {
    const id = await create('seq-tea', 'Sencha');

    const miss = await get('/articles/seq-tea');
    assert.equal(miss.status, 200);
    assert.equal(miss.headers['x-cache'], 'MISS');
    assert.match(miss.headers['cache-status']!, /stored/);
    assert.equal(miss.text, article('Sencha'));

    const hit = await get('/articles/seq-tea');
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal(hit.text, article('Sencha'));
    await warm(`/article/${id}`);

    const before = purges();
    const put = await send(gw, 'PUT', '/articles/seq-tea', { headers: writeHeaders(editor), body: article('Gyokuro', '24.50') });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.headers['x-cache'], 'MISS');
    assert.match(put.headers['cache-status']!, /fwd=method/, 'the PUT was passed to the service');
    assert.equal(put.text, article('Gyokuro', '24.50'));
    assert.notEqual(put.headers.etag, hit.headers.etag);
    // Read-your-writes: the service answered only after the gateway was invalidated (in process, by a call).
    assert.ok(purges() - before >= 1, `the gateway was invalidated before the PUT returned (got ${purges() - before})`);

    for (const path of ['/articles/seq-tea', `/article/${id}`]) {
      const after1 = await get(path);
      assert.equal(after1.headers['x-cache'], 'MISS', `${path} was purged`);
      assert.equal(after1.text, article('Gyokuro', '24.50'));
      assert.equal(after1.headers.etag, put.headers.etag);
      const after2 = await get(path);
      assert.equal(after2.headers['x-cache'], 'HIT');
      assert.equal(after2.text, article('Gyokuro', '24.50'));
    }
  });

  it('answers every Accept as the service does (status and media type), misses and hits alike', async () => {
    await create('negotiated', 'Negotiated');
    await assertNegotiatesLikeService(svc.base, '/articles/negotiated', get);
  });

  it('purges every alias of the article and the collection after a write at the service itself', async () => {
    const id = await create('alias-oolong', 'Oolong');
    const paths = [`/article/${id}`, `/articles/${id}`, '/article/alias-oolong', '/articles/alias-oolong', '/articles', '/articles?limit=100'];
    for (const p of paths) await warm(p);

    const put = await send(svc.base, 'PUT', `/article/${id}`, { headers: writeHeaders(editor), body: article('Oolong, roasted') });
    assert.equal(put.status, 200);

    for (const p of paths) {
      const res = await get(p);
      assert.equal(res.headers['x-cache'], 'MISS', `${p} was purged`);
      assert.match(res.text, /Oolong, roasted/, `${p} shows the new title`);
    }
  });

  it('purges aliases the PUT did not name when the PUT goes through the gateway', async () => {
    const id = await create('alias-via-gw', 'Pu-erh');
    const others = [`/article/${id}`, `/articles/${id}`, '/article/alias-via-gw', '/articles'];
    for (const p of others) await warm(p);

    const put = await send(gw, 'PUT', '/articles/alias-via-gw', { headers: writeHeaders(editor), body: article('Pu-erh, aged') });
    assert.equal(put.status, 200);
    for (const p of others) {
      const res = await get(p);
      assert.equal(res.headers['x-cache'], 'MISS', `${p} was purged`);
      assert.match(res.text, /Pu-erh, aged/);
    }
  });

  it('purges the XML and the JSON variant of the article and of the collection', async () => {
    const id = await create('variants', 'Matcha');
    const xml = { accept: 'application/xml' };
    const json = { accept: 'application/json' };
    for (const p of [`/article/${id}`, '/articles/variants', '/articles']) {
      await warm(p, xml);
      await warm(p, json);
      assert.equal((await get(p)).headers['x-cache'], 'HIT', 'no Accept is the XML variant');
    }

    const put = await send(svc.base, 'PUT', '/articles/variants', { headers: writeHeaders(editor), body: article('Matcha, ceremonial', '30.00') });
    assert.equal(put.status, 200);

    for (const p of [`/article/${id}`, '/articles/variants', '/articles']) {
      const x = await get(p, xml);
      assert.equal(x.headers['x-cache'], 'MISS', `${p} XML was purged`);
      assert.match(x.headers['content-type']!, /^application\/xml/);
      assert.match(x.text, /<title>Matcha, ceremonial<\/title>/);
      const j = await get(p, json);
      assert.equal(j.headers['x-cache'], 'MISS', `${p} JSON was purged`);
      assert.match(j.headers['content-type']!, /^application\/json/);
      assert.match(j.text, /"title":"Matcha, ceremonial"/);
    }
  });

  it('drops collection pages with ?cursor= through the tag purge, and shows a POSTed article at once', async () => {
    const ids = [await create('page-a', 'Page A'), await create('page-b', 'Page B'), await create('page-c', 'Page C')];
    const first = await warm('/articles?limit=1');
    // Walk to the page that lists page-b: its URL carries an opaque cursor the URL purge cannot name.
    let page = first;
    let pagePath = '/articles?limit=1';
    for (let i = 0; i < 100 && !page.text.includes('<title>Page B</title>'); i++) {
      const next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.link ?? '');
      assert.ok(next, 'the collection links to a next page');
      pagePath = next[1]!;
      page = await get(pagePath);
    }
    assert.match(pagePath, /[?&]cursor=/);
    assert.match(page.text, /<title>Page B<\/title>/);
    await warm(pagePath);

    const put = await send(svc.base, 'PUT', `/articles/${ids[1]}`, { headers: writeHeaders(editor), body: article('Page B, revised') });
    assert.equal(put.status, 200);
    const after1 = await get(pagePath);
    assert.equal(after1.headers['x-cache'], 'MISS', 'the cursor page was dropped by xkey');
    assert.match(after1.text, /<title>Page B, revised<\/title>/);
    assert.equal((await get(pagePath)).headers['x-cache'], 'HIT');

    // A new article shows up on the collection at once (POST purges the `articles` tag).
    await warm('/articles?limit=100');
    const post = await send(gw, 'POST', '/articles', { headers: writeHeaders(editor), body: article('Page D') });
    assert.equal(post.status, 201);
    const list = await get('/articles?limit=100');
    assert.equal(list.headers['x-cache'], 'MISS');
    assert.match(list.text, /<title>Page D<\/title>/);
    const again = await get(pagePath);
    assert.equal(again.headers['x-cache'], 'MISS', 'every page carries the articles tag');
  });

  it('does not store a fill that read the old article before a write purged it', async () => {
    await create('race', 'Old leaf');
    const hold = holdNextLoad(svc.running.store, 'race');
    try {
      const inFlight = get('/articles/race');
      await hold.loaded;
      const put = await send(svc.base, 'PUT', '/articles/race', { headers: writeHeaders(editor), body: article('New leaf') });
      assert.equal(put.status, 200);
      hold.release();
      const old = await inFlight;
      assert.equal(old.text, article('Old leaf'), 'the GET read the row before the write');
      const next = await get('/articles/race');
      assert.equal(next.headers['x-cache'], 'MISS', 'the old fill was delivered but not stored');
      assert.equal(next.text, article('New leaf'));
    } finally {
      hold.restore();
    }
  });

  it('purges nothing when a write fails with 422, 403 or 412', async () => {
    const id = await create('failing', 'Genmaicha');
    const paths = [`/article/${id}`, '/articles/failing', '/articles'];
    for (const p of paths) await warm(p);
    const stored = await get('/articles/failing');
    const purgesBefore = purges();
    const sentBefore = svc.running.purger!.stats().sent;

    for (const base of [gw, svc.base]) {
      const invalid = await send(base, 'PUT', '/articles/failing', { headers: writeHeaders(editor), body: '<article><title></title><price currency="EUR">x</price></article>' });
      assert.equal(invalid.status, 422, invalid.text);
      const forbidden = await send(base, 'PUT', '/articles/failing', { headers: writeHeaders(reader), body: article('Stolen') });
      assert.equal(forbidden.status, 403, forbidden.text);
      const stale = await send(base, 'PUT', '/articles/failing', { headers: writeHeaders(editor, { 'if-match': '"not-the-current-etag-x"' }), body: article('Racing') });
      assert.equal(stale.status, 412, stale.text);
      const staleDelete = await send(base, 'DELETE', `/article/${id}`, { headers: { authorization: editor, 'if-match': '"not-the-current-etag-x"' } });
      assert.equal(staleDelete.status, 412, staleDelete.text);
    }

    assert.equal(purges(), purgesBefore, 'no PURGE reached the gateway');
    assert.equal(svc.running.purger!.stats().sent, sentBefore, 'the purger sent nothing');
    for (const p of paths) {
      const res = await get(p);
      assert.equal(res.headers['x-cache'], 'HIT', `${p} is still cached`);
    }
    const still = await get('/articles/failing');
    assert.equal(still.text, stored.text);
    assert.equal(still.text, article('Genmaicha'));
  });

  it('purges after an overridden form POST (_method=DELETE and _method=PUT)', async () => {
    const id = await create('form-del', 'Houjicha');
    const paths = [`/article/${id}`, '/articles/form-del', '/articles'];
    for (const p of paths) await warm(p);
    const form = { authorization: editor, 'content-type': 'application/x-www-form-urlencoded' };

    const del = await send(gw, 'POST', `/article/${id}`, { headers: form, body: '_method=DELETE' });
    assert.equal(del.status, 204, del.text);
    for (const p of [`/article/${id}`, '/articles/form-del']) {
      const res = await get(p);
      assert.equal(res.status, 404, `${p} is gone, not a stale HIT`);
      assert.equal(res.headers['x-cache'], 'MISS');
    }
    const list = await get('/articles');
    assert.equal(list.headers['x-cache'], 'MISS');
    assert.doesNotMatch(list.text, /Houjicha/);

    const id2 = await create('form-put', 'Kukicha');
    for (const p of [`/article/${id2}`, '/articles/form-put']) await warm(p);
    const put = await send(svc.base, 'POST', '/articles/form-put', { headers: form, body: '_method=PUT&title=Kukicha%20gold&price[amount]=5.00&price[currency]=eur' });
    assert.equal(put.status, 200, put.text);
    for (const p of [`/article/${id2}`, '/articles/form-put']) {
      const res = await get(p);
      assert.equal(res.headers['x-cache'], 'MISS', `${p} was purged`);
      assert.equal(res.text, article('Kukicha gold', '5.00'));
    }
  });

  it('never serves nor stores a request carrying Authorization', async () => {
    await create('with-auth', 'Bancha');
    const authed = await get('/articles/with-auth', { authorization: reader });
    assert.equal(authed.status, 200);
    assert.equal(authed.headers['x-cache'], 'MISS');
    assert.match(authed.headers['cache-status']!, /detail=credentials/);
    const anon = await get('/articles/with-auth');
    assert.equal(anon.headers['x-cache'], 'MISS', 'the credentialed response was not stored');
    assert.equal((await get('/articles/with-auth')).headers['x-cache'], 'HIT');
    for (let i = 0; i < 2; i++) {
      const again = await get('/articles/with-auth', { authorization: reader });
      assert.equal(again.headers['x-cache'], 'MISS', 'a stored response is never served to a request with Authorization');
    }
    const badCreds = await get('/articles/with-auth', { authorization: 'Basic ' + Buffer.from('rita:wrong').toString('base64') });
    assert.equal(badCreds.status, 401, 'the service, not the cache, judged the credentials');
  });

  it('does not cache the 404 of an article not created yet: a PUT there is visible at once', async () => {
    for (let i = 0; i < 2; i++) {
      const missing = await get('/articles/not-yet');
      assert.equal(missing.status, 404);
      assert.equal(missing.headers['x-cache'], 'MISS');
    }
    const created = await send(gw, 'PUT', '/articles/not-yet', { headers: writeHeaders(editor), body: article('Jasmine') });
    assert.equal(created.status, 201);
    const res = await get('/article/not-yet');
    assert.equal(res.status, 200);
    assert.equal(res.text, article('Jasmine'));
  });

  it('answers 404 after DELETE through the gateway, on every alias, not a stale HIT', async () => {
    const id = await create('to-delete', 'Lapsang');
    const paths = [`/article/${id}`, `/articles/${id}`, '/article/to-delete', '/articles/to-delete'];
    for (const p of paths) await warm(p);
    await warm('/articles');

    const del = await send(gw, 'DELETE', '/articles/to-delete', { headers: { authorization: editor } });
    assert.equal(del.status, 204);
    for (const p of paths) {
      const res = await get(p);
      assert.equal(res.status, 404, `${p}: ${res.headers['x-cache']} ${res.text}`);
      assert.notEqual(res.headers['x-cache'], 'HIT');
    }
    const list = await get('/articles');
    assert.equal(list.headers['x-cache'], 'MISS');
    assert.doesNotMatch(list.text, /Lapsang/);
  });
});
