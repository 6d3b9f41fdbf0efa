/** @module test/resources/purger-drain — Purger.drain() (graceful shutdown) and Purger.nodeStats() against loopback node:http servers. */
import { describe, it, afterEach } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { closeFakes, fakeNode, purger } from './fake-cache-node.js';
import type { PurgerLogger } from '../../src/resources/purger.js';

afterEach(closeFakes);

function recordingLogger(): PurgerLogger & { warns: object[] } {
  const warns: object[] = [];
  return { warns, info() {}, warn: (o) => void warns.push(o), error() {} };
}

describe('Purger.drain', () => {
  it('runs delayed purges at once, then closes; purges after drain() resolve without sending', async () => {
    const a = await fakeNode();
    const log = recordingLogger();
    const p = purger({ nodes: [a.url], delayedPurgeMs: 600_000, timeoutMs: 60_000, logger: log });
    await p.purge({ urls: ['/article/7'], tags: ['article-7'] });
    const before = a.seen.length;
    await p.drain(30_000);
    assert.deepEqual(a.seen.slice(before).map((s) => s.xkey), ['article-7'], 'the delayed purge ran during the drain');
    assert.equal(log.warns.length, 0, 'nothing abandoned');
    await p.purge({ urls: ['/article/8'], tags: [] });
    assert.equal(a.seen.length, before + 1, 'no new work after drain');
  });

  it('waits for a first-round purge in flight', async () => {
    const a = await fakeNode();
    let release: (status: number) => void = () => {};
    a.respond = () => new Promise<number>((r) => (release = r));
    const p = purger({ nodes: [a.url], delayedPurgeMs: 0, timeoutMs: 60_000 });
    let written = false;
    const write = p.purge({ urls: ['/a'], tags: [] }).then(() => (written = true));
    while (a.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    let drained = false;
    const d = p.drain(60_000).then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(drained, false, 'drain waits while the purge is in flight');
    release(200);
    await d;
    assert.equal(written, true, 'the writer was answered before the drain ended');
    await write;
  });

  it('gives up what remains at the timeout, logging per node how many purges were abandoned', async () => {
    const up = await fakeNode();
    const down = await fakeNode();
    down.respond = () => 503;
    const log = recordingLogger();
    const p = purger({ nodes: [up.url, down.url], delayedPurgeMs: 0, retryBaseMs: 10_000, logger: log });
    await p.purge({ urls: ['/a', '/b'], tags: ['t'] });
    const t0 = Date.now();
    await p.drain(200);
    const took = Date.now() - t0;
    assert.ok(took >= 150 && took < 30_000, `took ${took} ms`);
    const abandoned = log.warns.filter((w) => 'abandoned' in w) as { node: string; abandoned: number }[];
    assert.deepEqual(abandoned.map((w) => [w.node, w.abandoned]), [[down.url, 3]]);
    assert.equal(p.stats().pending, 0);
  });

  it('waits for pending retries that succeed within the timeout', async () => {
    const n = await fakeNode();
    n.respond = () => (n.seen.length === 1 ? 503 : 200);
    const log = recordingLogger();
    const p = purger({ nodes: [n.url], delayedPurgeMs: 0, retryBaseMs: 50, logger: log });
    await p.purge({ urls: ['/a'], tags: [] });
    assert.equal(p.stats().pending, 1);
    await p.drain(60_000);
    assert.equal(n.seen.length, 2);
    assert.equal(log.warns.filter((w) => 'abandoned' in w).length, 0);
  });
});

describe('Purger.nodeStats', () => {
  it('counts sent, failed and retried per node', async () => {
    const a = await fakeNode();
    const b = await fakeNode();
    b.respond = () => (b.seen.length === 1 ? 500 : 200);
    const p = purger({ nodes: [a.url, b.url + '/'], delayedPurgeMs: 0, retryBaseMs: 10 });
    assert.deepEqual(p.nodeStats(), [
      { node: a.url, sent: 0, failed: 0, retried: 0 },
      { node: b.url, sent: 0, failed: 0, retried: 0 },
    ]);
    await p.purge({ urls: ['/a'], tags: [] });
    const end = Date.now() + 30_000;
    while (p.stats().pending > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    const [sa, sb] = p.nodeStats();
    assert.deepEqual(sa, { node: a.url, sent: 1, failed: 0, retried: 0 });
    assert.deepEqual(sb, { node: b.url, sent: 2, failed: 1, retried: 1 });
  });
});
