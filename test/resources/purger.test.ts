/** @module test/resources/purger — Purger against real loopback node:http servers standing in for cache nodes. */
import { describe, it, afterEach } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Purger } from '../../src/resources/purger.js';
import type { PurgerLogger } from '../../src/resources/purger.js';
import { freePort } from '../helpers/ports.js';
import { closeFakes, fakeNode, purger } from './fake-cache-node.js';

afterEach(closeFakes);

function recordingLogger(): PurgerLogger & { warns: object[]; errors: object[] } {
  const warns: object[] = [];
  const errors: object[] = [];
  return { warns, errors, info() {}, warn: (o) => void warns.push(o), error: (o) => void errors.push(o) };
}

/** Polls until `cond` holds; fails after `ms`, so no wait is unbounded. */
async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('Purger', () => {
  it('invalidates caches in this process by a call, at the purge and again at the delayed purge, beside the HTTP nodes', async () => {
    const a = await fakeNode();
    const calls: { urls: string[]; tags: string[] }[] = [];
    const local = { invalidate: (t: { urls: string[]; tags: string[] }) => calls.push(t) };
    // A delay long enough that the first round is surely answered first on a busy machine.
    const p = purger({ nodes: [a.url], localCaches: [local], delayedPurgeMs: 1000, timeoutMs: 60_000 });
    await p.purge({ urls: ['/article/7'], tags: ['article-7'] });
    assert.deepEqual(calls, [{ urls: ['/article/7'], tags: ['article-7'] }]);
    assert.equal(a.seen.length, 2);
    await until(() => calls.length === 2, 30_000, 'the delayed purge of the local cache');
    assert.deepEqual(calls[1], { urls: [], tags: ['article-7'] }, 'the delayed purge sends the tags alone');
  });

  it('purges local caches alone when there are no HTTP nodes', async () => {
    let purged = 0;
    const p = purger({ nodes: [], localCaches: [{ invalidate: () => ++purged }], delayedPurgeMs: 0 });
    await p.purge({ urls: ['/x'], tags: [] });
    assert.equal(purged, 1);
    assert.equal(p.stats().sent, 0);
  });

  it('fans PURGE for every url and one xkey PURGE out to every node in parallel', async () => {
    const a = await fakeNode();
    const b = await fakeNode();
    // No node answers until all six requests have arrived: sent one after another, the second
    // would never be sent and the purge would hang (caught by the wide deadline below).
    let release!: () => void;
    const allArrived = new Promise<void>((r) => (release = r));
    for (const n of [a, b]) {
      n.respond = () => {
        if (a.seen.length + b.seen.length === 6) release();
        return allArrived.then(() => 200);
      };
    }
    const p = purger({ nodes: [a.url, b.url], delayedPurgeMs: 0, timeoutMs: 60_000 });
    await p.purge({ urls: ['/article/7', '/articles'], tags: ['article-7', 'articles'] });
    for (const n of [a, b]) {
      const sorted = [...n.seen].sort((x, y) => x.url.localeCompare(y.url));
      assert.deepEqual(
        sorted.map((s) => [s.method, s.url, s.xkey]),
        [
          ['PURGE', '/', 'article-7 articles'],
          ['PURGE', '/article/7', undefined],
          ['PURGE', '/articles', undefined],
        ],
      );
    }
    assert.deepEqual(p.stats(), { sent: 6, failed: 0, retried: 0, pending: 0 });
  });

  it('resolves only after every node answered (read-your-writes)', async () => {
    const a = await fakeNode();
    const b = await fakeNode();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let answeredAt = 0;
    b.respond = () =>
      gate.then(() => {
        answeredAt = Date.now();
        return 200;
      });
    const p = purger({ nodes: [a.url, b.url], delayedPurgeMs: 0, timeoutMs: 5000 });
    let resolvedAt = 0;
    const done = p.purge({ urls: ['/article/7'], tags: [] }).then(() => {
      resolvedAt = Date.now();
    });
    await until(() => b.seen.length === 1 && a.seen.length === 1, 30_000, 'both PURGEs');
    await sleep(100);
    assert.equal(resolvedAt, 0, 'must wait for the slow node');
    release();
    await done;
    assert.ok(answeredAt > 0 && resolvedAt >= answeredAt);
    assert.deepEqual(p.stats(), { sent: 2, failed: 0, retried: 0, pending: 0 });
  });

  it('is bounded by timeoutMs when a node hangs, and retries it in the background', async () => {
    const a = await fakeNode();
    const b = await fakeNode();
    b.respond = () => (b.seen.length === 1 ? 'hang' : 200);
    const p = purger({ nodes: [a.url, b.url], delayedPurgeMs: 0, timeoutMs: 200, retryBaseMs: 20 });
    const t0 = Date.now();
    await p.purge({ urls: ['/article/7'], tags: [] });
    const took = Date.now() - t0;
    // Bounded by the time-out (timers never fire early), far from a hang; no upper wall-clock figure.
    assert.ok(took >= 180 && took < 30_000, `took ${took} ms`);
    await until(() => b.seen.length >= 2 && p.stats().pending === 0, 30_000, 'the background retry to succeed');
    const s = p.stats();
    assert.equal(s.failed, 1);
    assert.equal(s.retried, 1);
    assert.equal(s.sent, 3);
  });

  it('does not fail on a down node and retries it with backoff until it comes up', async () => {
    const a = await fakeNode();
    const port = await freePort();
    const log = recordingLogger();
    const p = purger({ nodes: [a.url, `http://127.0.0.1:${port}`], delayedPurgeMs: 0, retryBaseMs: 20, logger: log });
    await p.purge({ urls: ['/article/7'], tags: ['article-7'] });
    assert.equal(a.seen.length, 2);
    assert.equal(p.stats().pending, 2);
    await until(() => p.stats().retried >= 6, 30_000, 'several retries');
    assert.ok(log.warns.length >= 2);
    // The node comes up on the same port; the pending PURGEs then reach it.
    const late = await fakeNode(port);
    await until(() => p.stats().pending === 0, 30_000, 'retries to drain');
    assert.deepEqual(late.seen.map((s) => s.url).sort(), ['/', '/article/7']);
    assert.equal(late.seen.find((s) => s.url === '/')?.xkey, 'article-7');
  });

  it('spaces retries with exponential backoff', async () => {
    const n = await fakeNode();
    n.respond = () => 503;
    const p = purger({ nodes: [n.url], delayedPurgeMs: 0, retryBaseMs: 100, retryDeadlineMs: 5000 });
    await p.purge({ urls: ['/x'], tags: [] });
    await until(() => n.seen.length >= 4, 30_000, 'four attempts');
    const gaps = n.seen.slice(1, 4).map((s, i) => s.at - n.seen[i]!.at);
    // Nominal 100, 200, 400 ms, jittered down by up to 25%; timers may fire late on a busy machine.
    assert.ok(gaps[0]! >= 70, `gaps ${gaps.join(',')}`);
    assert.ok(gaps[2]! >= gaps[1]! && gaps[2]! > 1.9 * gaps[0]!, `gaps ${gaps.join(',')}`);
  });

  it('retries a 5xx answer and counts 404 as success', async () => {
    const n = await fakeNode();
    n.respond = (req) => (req.url === '/gone' ? 404 : n.seen.length <= 2 ? 500 : 200);
    const p = purger({ nodes: [n.url], delayedPurgeMs: 0, retryBaseMs: 20 });
    await p.purge({ urls: ['/gone', '/article/7'], tags: [] });
    await until(() => p.stats().pending === 0, 30_000, 'the 5xx to be retried to success');
    const s = p.stats();
    assert.ok(s.retried >= 1);
    assert.equal(n.seen.filter((x) => x.url === '/gone').length, 1, '404 is not retried');
  });

  it('does not retry a 403 (not in the purgers ACL)', async () => {
    const n = await fakeNode();
    n.respond = () => 403;
    const log = recordingLogger();
    const p = purger({ nodes: [n.url], delayedPurgeMs: 0, retryBaseMs: 10, logger: log });
    await p.purge({ urls: ['/a'], tags: [] });
    await sleep(100);
    assert.equal(n.seen.length, 1);
    assert.deepEqual(p.stats(), { sent: 1, failed: 1, retried: 0, pending: 0 });
    assert.equal(log.errors.length, 1);
  });

  it('stops retrying at the deadline', async () => {
    const port = await freePort();
    const log = recordingLogger();
    const p = purger({ nodes: [`http://127.0.0.1:${port}`], delayedPurgeMs: 0, retryBaseMs: 20, retryDeadlineMs: 300, logger: log });
    await p.purge({ urls: ['/a'], tags: [] });
    await until(() => p.stats().pending === 0, 30_000, 'the deadline to end retries');
    const { retried } = p.stats();
    // Delays of about 20, 40, 80, 160 ms: at most four fit in 300 ms.
    assert.ok(retried >= 1 && retried <= 4, `retried ${retried}`);
    assert.equal(log.errors.length, 1, 'giving up is logged as an error');
    await sleep(400);
    assert.equal(p.stats().retried, retried, 'no retries after the deadline');
  });

  it('sends a delayed second purge, and none when delayedPurgeMs is 0', async () => {
    const a = await fakeNode();
    const p = purger({ nodes: [a.url], delayedPurgeMs: 150 });
    const t0 = Date.now();
    await p.purge({ urls: ['/article/7'], tags: ['article-7'] });
    assert.equal(a.seen.length, 2);
    await until(() => a.seen.length === 3, 30_000, 'the delayed purge');
    assert.ok(a.seen[2]!.at - t0 >= 140);
    // The delayed purge sends the tags alone: every response at the URLs carries one.
    assert.deepEqual(a.seen.slice(2).map((s) => [s.url, s.xkey]), [['/', 'article-7']]);
    await p.purge({ urls: ['/untagged'], tags: [] });
    await until(() => a.seen.length === 5, 30_000, 'the delayed purge of an untagged target');
    assert.equal(a.seen[4]!.url, '/untagged', 'a target without tags is purged by URL again');

    const b = await fakeNode();
    const q = purger({ nodes: [b.url], delayedPurgeMs: 0 });
    await q.purge({ urls: ['/article/7'], tags: [] });
    await sleep(300);
    assert.equal(b.seen.length, 1);
  });

  it('counts sent, failed, retried and pending', async () => {
    const a = await fakeNode();
    const port = await freePort();
    const p = purger({ nodes: [a.url, `http://127.0.0.1:${port}`], delayedPurgeMs: 0, retryBaseMs: 1000 });
    assert.deepEqual(p.stats(), { sent: 0, failed: 0, retried: 0, pending: 0 });
    await p.purge({ urls: ['/a', '/b'], tags: ['t'] });
    assert.deepEqual(p.stats(), { sent: 6, failed: 3, retried: 0, pending: 3 });
    await p.close();
    assert.equal(p.stats().pending, 0);
  });

  it('never rejects, and ignores purges after close()', async () => {
    const p = purger({ nodes: [], delayedPurgeMs: 0 });
    await p.purge({ urls: ['/a'], tags: ['t'] });
    await p.close();
    await p.purge({ urls: ['/a'], tags: ['t'] });
    assert.throws(() => new Purger({ nodes: ['not a url'] }), /invalid node URL/);
    assert.throws(() => new Purger({ nodes: ['ftp://x'] }), /http\(s\)/);
  });

  it('close() cancels timers so the process exits promptly', async () => {
    const port = await freePort();
    const purgerUrl = new URL('../../src/resources/purger.ts', import.meta.url).href;
    // A child with a down node (retries pending for 60 s) and a delayed purge scheduled: it
    // exits within the bound only if close() clears every timer and socket.
    const script = `
      const { Purger } = await import(${JSON.stringify(purgerUrl)});
      const p = new Purger({ nodes: ['http://127.0.0.1:${port}'], delayedPurgeMs: 30000, retryBaseMs: 50 });
      await p.purge({ urls: ['/a'], tags: ['t'] });
      if (p.stats().pending !== 2) throw new Error('expected pending retries');
      await p.close();
    `;
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const t0 = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const kill = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 10_000);
      child.on('exit', (c) => {
        clearTimeout(kill);
        resolve(c);
      });
    });
    assert.equal(code, 0, `child exited with ${code} after ${Date.now() - t0} ms`);
  });
});
