/**
 * @module test/integration/varnish-sequence
 * Issue 5: the read → cache → write → purge → read sequence with real varnishd nodes running the
 * shipped deploy/varnish/roa.vcl in front of the real service (embedded gateway off).
 *
 * Varnish binds a kernel-chosen port and must know the service's port, so the service starts
 * first without cache nodes, then its resources get a Purger naming the varnishd nodes through
 * `deps.purger` (read on every write, see `Service.deps`).
 */
import assert from 'node:assert/strict';
import { describe } from '../helpers/node-test.js';
import { Purger } from '../../src/resources/purger.js';
import { startService } from '../../src/service.js';
import type { Store } from '../../src/storage/store.js';
import { assertNegotiatesLikeService } from './negotiation-parity.js';
import { send, startTestService, type SimpleResponse, type TestService } from '../helpers/service.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { holdNextLoad } from './hold-load.js';
import { startVarnish, varnishAvailable, type VarnishInstance } from '../helpers/varnish.js';

const skip = skipReason(varnishAvailable(), 'varnishd with vmod_xkey not installed (run .ci/install-varnish.sh)');

const article = (title: string, amount = '9.99') => `<article><title>${title}</title><price currency="eur">${amount}</price></article>`;

describe('Varnish (shipped VCL) in front of the article service', () => {
  const { it, before, after } = suiteNeeding(skip);
  let svc: TestService;
  let one: VarnishInstance;
  let two: VarnishInstance;
  let purger: Purger | undefined;
  let editor: string;

  before(async () => {
    svc = await startTestService({ gatewayPort: 0 });
    editor = await svc.addUser('ed', 'editor');
    [one, two] = await Promise.all([
      startVarnish({ backendPort: svc.running.address.port }),
      startVarnish({ backendPort: svc.running.address.port }),
    ]);
  });
  after(async () => {
    await purger?.close();
    await Promise.all([one?.stop(), two?.stop()]);
    await svc?.close();
  });

  /** Points the service's writes at these cache nodes (closing the previous Purger). */
  async function purgeTo(nodes: VarnishInstance[]): Promise<Purger> {
    await purger?.close();
    purger = new Purger({ nodes: nodes.map((n) => n.url), delayedPurgeMs: 0, timeoutMs: 2000 });
    svc.running.deps.purger = purger;
    return purger;
  }

  const get = (node: VarnishInstance, path: string, headers: Record<string, string> = {}): Promise<SimpleResponse> =>
    send(node.url, 'GET', path, { headers });
  const put = (base: string, path: string, body: string) =>
    send(base, 'PUT', path, { headers: { authorization: editor, 'content-type': 'application/xml' }, body });

  async function create(slug: string, title: string): Promise<number> {
    const res = await put(svc.base, `/articles/${slug}`, article(title));
    assert.equal(res.status, 201, res.text);
    const list = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/json' } });
    const found = (JSON.parse(list.text) as { articles: { id: number; title: string }[] }).articles.find((a) => a.title === title);
    assert.ok(found);
    return found.id;
  }

  async function warm(node: VarnishInstance, path: string, headers: Record<string, string> = {}): Promise<SimpleResponse> {
    const first = await get(node, path, headers);
    assert.equal(first.status, 200, `${node.url}${path}: ${first.text}`);
    const second = await get(node, path, headers);
    assert.equal(second.headers['x-cache'], 'HIT', `${node.url}${path} is cached after one GET`);
    assert.equal(second.text, first.text);
    return second;
  }

  it('MISS → HIT → PUT passed to the service → purged: MISS with the new content → HIT', async () => {
    const p = await purgeTo([one]);
    const id = await create('v-seq', 'Assam');

    const miss = await get(one, '/articles/v-seq');
    assert.equal(miss.status, 200);
    assert.equal(miss.headers['x-cache'], 'MISS');
    assert.equal(miss.text, article('Assam'));
    assert.equal(miss.headers.xkey, undefined, 'Varnish strips the surrogate keys');
    const hit = await get(one, '/articles/v-seq');
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal(hit.text, article('Assam'));
    await warm(one, `/article/${id}`);

    const sentBefore = p.stats().sent;
    const written = await put(one.url, '/articles/v-seq', article('Assam, second flush', '11.00'));
    assert.equal(written.status, 200, written.text);
    assert.equal(written.headers['x-cache'], 'MISS', 'the PUT was passed, not served from cache');
    assert.equal(written.text, article('Assam, second flush', '11.00'));
    // 5 URLs (/article/{id}, /articles/{id}, both slug aliases, /articles) and 1 xkey PURGE, all answered.
    assert.deepEqual({ ...p.stats(), sent: p.stats().sent - sentBefore }, { sent: 6, failed: 0, retried: 0, pending: 0 });

    for (const path of ['/articles/v-seq', `/article/${id}`]) {
      const after1 = await get(one, path);
      assert.equal(after1.headers['x-cache'], 'MISS', `${path} was purged before the PUT returned`);
      assert.equal(after1.text, article('Assam, second flush', '11.00'));
      assert.equal(after1.headers.etag, written.headers.etag);
      const after2 = await get(one, path);
      assert.equal(after2.headers['x-cache'], 'HIT');
      assert.equal(after2.text, article('Assam, second flush', '11.00'));
    }
  });

  it('answers every Accept as the service does (status and media type), misses and hits alike', async () => {
    await create('negotiated', 'Negotiated');
    await assertNegotiatesLikeService(svc.base, '/articles/negotiated', (path, headers) => get(one, path, headers));
  });

  it('drops /articles?limit=1 pages and JSON variants by xkey', async () => {
    await purgeTo([one]);
    const id = await create('v-tags', 'Darjeeling');
    const json = { accept: 'application/json' };
    const pages = ['/articles?limit=1', '/articles?limit=100'];
    for (const path of pages) {
      await warm(one, path);
      await warm(one, path, json);
    }
    await warm(one, `/article/${id}`, json);
    await warm(one, '/article/v-tags', json);
    // Walk the paged collection to the page listing this article: its URL has a cursor.
    let pagePath = '/articles?limit=1';
    let page = await get(one, pagePath, json);
    for (let i = 0; i < 100 && !page.text.includes('"title":"Darjeeling"'); i++) {
      const next = (JSON.parse(page.text) as { next?: string }).next;
      assert.ok(next, 'the collection has a next page');
      pagePath = next;
      page = await get(one, pagePath, json);
    }
    assert.match(pagePath, /cursor=/);
    await warm(one, pagePath, json);

    const written = await put(svc.base, `/articles/${id}`, article('Darjeeling, first flush'));
    assert.equal(written.status, 200);

    for (const path of [...pages, pagePath]) {
      const j = await get(one, path, json);
      assert.equal(j.headers['x-cache'], 'MISS', `${path} (JSON) was dropped`);
    }
    for (const path of pages) assert.equal((await get(one, path)).headers['x-cache'], 'MISS', `${path} (XML) was dropped`);
    const cursorPage = await get(one, pagePath, json);
    assert.equal(cursorPage.headers['x-cache'], 'HIT', 'refilled by the GET above');
    assert.match(cursorPage.text, /"title":"Darjeeling, first flush"/);
    for (const path of [`/article/${id}`, '/article/v-tags']) {
      const j = await get(one, path, json);
      assert.equal(j.headers['x-cache'], 'MISS', `${path} (JSON) was purged`);
      assert.match(j.text, /"title":"Darjeeling, first flush"/);
    }
  });

  it('purges nothing on a failed write, and answers 404 (not a stale HIT) after DELETE', async () => {
    await purgeTo([one]);
    const id = await create('v-del', 'Keemun');
    const paths = [`/article/${id}`, '/articles/v-del', '/articles'];
    for (const path of paths) await warm(one, path);

    const invalid = await put(one.url, '/articles/v-del', '<article><title></title><price currency="eur">1</price></article>');
    assert.equal(invalid.status, 422);
    const stale = await send(one.url, 'PUT', '/articles/v-del', { headers: { authorization: editor, 'content-type': 'application/xml', 'if-match': '"stale-x"' }, body: article('Racing') });
    assert.equal(stale.status, 412);
    for (const path of paths) assert.equal((await get(one, path)).headers['x-cache'], 'HIT', `${path} is still cached`);

    const del = await send(one.url, 'DELETE', '/articles/v-del', { headers: { authorization: editor } });
    assert.equal(del.status, 204);
    for (const path of [`/article/${id}`, '/articles/v-del']) {
      const res = await get(one, path);
      assert.equal(res.status, 404, `${path}: ${res.headers['x-cache']}`);
      assert.notEqual(res.headers['x-cache'], 'HIT');
    }
    const list = await get(one, '/articles');
    assert.equal(list.headers['x-cache'], 'MISS');
    assert.doesNotMatch(list.text, /Keemun/);
  });

  it('purges a fill that read the old article and was still in flight during the write', async () => {
    await purgeTo([one]);
    await create('v-race', 'Old leaf');
    const hold = holdNextLoad(svc.running.store, 'v-race');
    try {
      const inFlight = get(one, '/articles/v-race');
      await hold.loaded;
      const writing = put(svc.base, '/articles/v-race', article('New leaf'));
      // The URL PURGE queues behind the busy fill (Varnish's waiting list) and drops its result.
      await new Promise((r) => setTimeout(r, 200));
      hold.release();
      const written = await writing;
      assert.equal(written.status, 200);
      assert.equal((await inFlight).text, article('Old leaf'), 'the GET read the row before the write');
      const next = await get(one, '/articles/v-race');
      assert.equal(next.headers['x-cache'], 'MISS', 'the old fill was purged');
      assert.equal(next.text, article('New leaf'));
    } finally {
      hold.restore();
    }
  });

  it('does not cache the 404 of an article not created yet: a PUT there is visible at once', async () => {
    await purgeTo([one]);
    for (let i = 0; i < 2; i++) {
      const missing = await get(one, '/articles/v-not-yet');
      assert.equal(missing.status, 404);
      assert.equal(missing.headers['x-cache'], 'MISS');
    }
    assert.equal((await put(one.url, '/articles/v-not-yet', article('Yunnan'))).status, 201);
    const res = await get(one, '/article/v-not-yet');
    assert.equal(res.status, 200);
    assert.equal(res.text, article('Yunnan'));
  });

  it('fans purges out to a second node: after a write both nodes MISS with the new content', async () => {
    const id = await create('v-two', 'Ceylon');
    const paths = [`/article/${id}`, '/articles/v-two', '/articles?limit=100'];
    for (const node of [one, two]) for (const path of paths) await warm(node, path);

    // Control: a purger that knows only the first node leaves the second one stale, so the
    // second node is really caching and the fan-out below is what clears it.
    await purgeTo([one]);
    assert.equal((await put(one.url, '/articles/v-two', article('Ceylon, v2'))).status, 200);
    assert.match((await get(one, '/articles/v-two')).text, /Ceylon, v2/);
    const stale = await get(two, '/articles/v-two');
    assert.equal(stale.headers['x-cache'], 'HIT');
    assert.match(stale.text, /<title>Ceylon<\/title>/);
    for (const path of paths) await warm(one, path);

    const p = await purgeTo([one, two]);
    const written = await put(two.url, '/articles/v-two', article('Ceylon, v3'));
    assert.equal(written.status, 200);
    assert.deepEqual(p.stats(), { sent: 12, failed: 0, retried: 0, pending: 0 }, '6 PURGEs to each node, all answered');
    for (const node of [one, two]) {
      for (const path of paths) {
        const res = await get(node, path);
        assert.equal(res.headers['x-cache'], 'MISS', `${node.url}${path} was purged`);
        assert.match(res.text, /Ceylon, v3/);
        assert.equal((await get(node, path)).headers['x-cache'], 'HIT');
      }
    }
  });

  it('wires --purge: a second instance on the same store, started with purge: [both nodes], clears both', async () => {
    // At scale every instance purges every node; this one is started the way `roa serve --purge`
    // starts it, and the write reaches it directly, bypassing both caches.
    const second = await startService({
      store: keepOpen(svc.running.store), port: 0, gatewayPort: 0, logLevel: 'silent', purgeDelayMs: 0, purge: [one.url, two.url],
    });
    try {
      const base = `http://127.0.0.1:${second.address.port}`;
      const id = await create('v-scale', 'Nilgiri');
      const paths = [`/article/${id}`, '/articles/v-scale', '/articles?limit=1'];
      for (const node of [one, two]) for (const path of paths) await warm(node, path, { accept: 'application/json' });
      const written = await put(base, `/article/${id}`, article('Nilgiri, frost'));
      assert.equal(written.status, 200);
      assert.deepEqual(second.purger!.stats(), { sent: 12, failed: 0, retried: 0, pending: 0 });
      for (const node of [one, two]) {
        for (const path of paths.slice(0, 2)) {
          const res = await get(node, path, { accept: 'application/json' });
          assert.equal(res.headers['x-cache'], 'MISS', `${node.url}${path}`);
          assert.match(res.text, /"title":"Nilgiri, frost"/);
        }
        assert.equal((await get(node, paths[2]!, { accept: 'application/json' })).headers['x-cache'], 'MISS');
      }
    } finally {
      await second.close();
    }
  });
});

/** The same store with a no-op close(), so closing a second instance leaves the first one's store open. */
function keepOpen(store: Store): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'close') return async () => {};
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
