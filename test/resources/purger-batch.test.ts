/** @module test/resources/purger-batch — coalescing: writes in one turn share one batch per node; tag splitting; retries of a batch; caches in this process. */
import { describe, it, afterEach } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { closeFakes, fakeNode, purger } from './fake-cache-node.js';
import { MAX_XKEY_HEADER, purgeRequests } from '../../src/resources/purge-requests.js';

afterEach(closeFakes);

const target = (id: number) => ({ urls: [`/article/${id}`, '/articles'], tags: [`article-${id}`, 'articles'] });

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Purger batches', () => {
  it('coalesces N writes in one turn into one batch per node: each URL once, one xkey PURGE; every writer answered after the ack', async () => {
    const a = await fakeNode();
    const b = await fakeNode();
    const releases: (() => void)[] = [];
    b.respond = () => new Promise<number>((r) => releases.push(() => r(200)));
    const p = purger({ nodes: [a.url, b.url], delayedPurgeMs: 0, timeoutMs: 60_000 });
    const answered: boolean[] = [];
    const writes = [1, 2, 3, 4, 5].map((id, i) => p.purge(target(id)).then(() => (answered[i] = true)));
    await until(() => b.seen.length === 7, 30_000, 'the batch to reach node b');
    for (const node of [a, b]) {
      const urls = node.seen.filter((s) => s.xkey === undefined).map((s) => s.url).sort();
      assert.deepEqual(urls, ['/article/1', '/article/2', '/article/3', '/article/4', '/article/5', '/articles']);
      assert.deepEqual(node.seen.filter((s) => s.xkey !== undefined).map((s) => s.xkey), ['article-1 articles article-2 article-3 article-4 article-5']);
    }
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(answered, [], 'no writer is answered before node b acknowledged');
    for (const release of releases) release();
    await Promise.all(writes);
    assert.equal(answered.filter(Boolean).length, 5);
    assert.equal(p.stats().sent, 14);
  });

  it('a write arriving while a batch is in flight joins the next batch and is answered only after that one is acknowledged', async () => {
    const a = await fakeNode();
    const releases: (() => void)[] = [];
    a.respond = () => new Promise<number>((r) => releases.push(() => r(200)));
    const p = purger({ nodes: [a.url], delayedPurgeMs: 0, timeoutMs: 60_000 });
    let first = false;
    let second = false;
    let third = false;
    void p.purge({ urls: ['/article/1'], tags: [] }).then(() => (first = true));
    await until(() => a.seen.length === 1, 30_000, 'the first batch');
    void p.purge({ urls: ['/article/2'], tags: [] }).then(() => (second = true));
    void p.purge({ urls: ['/article/3'], tags: [] }).then(() => (third = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(a.seen.length, 1, 'the next batch waits for the one in flight');
    releases.shift()!();
    await until(() => first && a.seen.length === 3, 30_000, 'the second batch');
    assert.deepEqual(a.seen.slice(1).map((s) => s.url).sort(), ['/article/2', '/article/3']);
    assert.equal(second || third, false, 'read-your-writes: the later writers wait for their own batch');
    for (const release of releases.splice(0)) release();
    await until(() => second && third, 30_000, 'the later writers');
  });

  it('keeps the time-out bound per writer when its batch queues behind a hung one', async () => {
    const a = await fakeNode();
    a.respond = () => new Promise<number>(() => {});
    const p = purger({ nodes: [a.url], delayedPurgeMs: 0, timeoutMs: 200, retryBaseMs: 60_000 });
    const t0 = Date.now();
    await Promise.all([p.purge(target(1)), p.purge(target(2))]);
    const took = Date.now() - t0;
    assert.ok(took >= 180 && took < 30_000, `took ${took} ms`);
  });

  it('retries the failed requests of a coalesced batch on a failing node', async () => {
    const a = await fakeNode();
    let failing = true;
    a.respond = () => (failing ? 503 : 200);
    const p = purger({ nodes: [a.url], delayedPurgeMs: 0, retryBaseMs: 20 });
    await Promise.all([p.purge(target(1)), p.purge(target(2))]);
    assert.equal(p.stats().pending, 4, '3 URLs + 1 xkey request wait for a retry');
    failing = false;
    await until(() => p.stats().pending === 0, 30_000, 'the retries to succeed');
    const ok = a.seen.slice(4);
    assert.deepEqual(ok.map((s) => s.url).sort(), ['/', '/article/1', '/article/2', '/articles']);
    assert.deepEqual(p.nodeStats()[0], { node: a.url, sent: 8, failed: 4, retried: 4 });
  });

  it('coalesces delayed purges of one window into one round (the tags alone), at least delayedPurgeMs after each write', async () => {
    const a = await fakeNode();
    const p = purger({ nodes: [a.url], delayedPurgeMs: 300 });
    const t0 = Date.now();
    await Promise.all([p.purge(target(1)), p.purge(target(2)), p.purge(target(3))]);
    const firstRound = a.seen.length;
    await until(() => a.seen.length > firstRound, 30_000, 'the delayed round');
    assert.ok(Date.now() - t0 >= 290);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(a.seen.slice(firstRound).map(({ url, xkey }) => ({ url, xkey })), [{ url: '/', xkey: 'article-1 articles article-2 article-3' }]);
  });

  it('invalidates caches in this process by a call, before the PURGE requests, without HTTP for them', async () => {
    const a = await fakeNode();
    const calls: { urls: string[]; tags: string[] }[] = [];
    let seenAtCall = -1;
    const local = { invalidate: (t: { urls: string[]; tags: string[] }) => { seenAtCall = a.seen.length; return calls.push(t); } };
    const p = purger({ nodes: [a.url], localCaches: [local], delayedPurgeMs: 0 });
    await p.purge(target(7));
    assert.deepEqual(calls, [target(7)]);
    assert.equal(seenAtCall, 0, 'the local cache went first, synchronously');
    const q = purger({ nodes: [], localCaches: [{ invalidate: () => { throw new Error('boom'); } }], delayedPurgeMs: 0 });
    await q.purge(target(8));
    assert.equal(q.stats().sent, 0, 'a throwing local cache does not make purge() reject');
  });
});

describe('purgeRequests', () => {
  it('splits tags over several xkey requests so each header stays under the bound', () => {
    const tags = Array.from({ length: 1000 }, (_, i) => `article-${i}`);
    const requests = purgeRequests([], tags, () => {});
    assert.ok(requests.length > 1);
    for (const r of requests) {
      assert.equal(r.path, '/');
      assert.ok(r.headers.xkey!.length <= MAX_XKEY_HEADER, `header of ${r.headers.xkey!.length}`);
    }
    assert.deepEqual(requests.flatMap((r) => r.headers.xkey!.split(' ')), tags);
  });

  it('leaves out URLs that are not absolute paths and tags with separators, reporting them', () => {
    const rejected: [string, unknown][] = [];
    const requests = purgeRequests(['/ok', 'http://x/', ''], ['good', 'bad tag', 'a,b', ''], (what, v) => rejected.push([what, v]));
    assert.deepEqual(requests, [{ path: '/ok', headers: {} }, { path: '/', headers: { xkey: 'good' } }]);
    assert.deepEqual(rejected, [['url', 'http://x/'], ['url', ''], ['tag', 'bad tag'], ['tag', 'a,b'], ['tag', '']]);
  });
});
