/**
 * @module test/integration/read-your-writes
 * Issue 5: a write waits for its purges, but only up to `purgeTimeoutMs`. A cache node that is
 * down, hangs or fails must not hold the write up nor keep the healthy embedded gateway from
 * being purged; the failures show in the purger's stats.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from '../helpers/node-test.js';
import { send, startTestService, type TestService } from '../helpers/service.js';
import { freePort } from '../helpers/ports.js';

const TIMEOUT_MS = 300;
const article = (title: string) => `<article><title>${title}</title><price currency="eur">9.99</price></article>`;

/** A stand-in cache node that records the PURGEs it gets and answers them with `respond`. */
async function fakeNode(respond: (req: IncomingMessage, n: number) => number | 'hang'): Promise<{ url: string; purges: IncomingMessage[]; close(): Promise<void> }> {
  const purges: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    purges.push(req);
    req.resume();
    const status = respond(req, purges.length);
    if (status === 'hang') return;
    res.statusCode = status;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    purges,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A loopback URL nobody listens on: bound by the kernel, then released. */
async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

/** Polls `check` every 20 ms until it holds or `ms` passed; returns whether it held. */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

interface Setup {
  svc: TestService;
  editor: string;
  /** Numeric id of the article at the slug. */
  id: number;
}

/** Starts the service with its embedded gateway plus `extra` nodes; creates the article at `slug` and caches its views. */
async function setup(extra: string[], slug: string): Promise<Setup> {
  const svc = await startTestService({ gatewayPort: 'ephemeral', purge: extra, purgeTimeoutMs: TIMEOUT_MS });
  const editor = await svc.addUser('ed', 'editor');
  const put = await send(svc.base, 'PUT', `/articles/${slug}`, { headers: { authorization: editor, 'content-type': 'application/xml' }, body: article('Before') });
  assert.equal(put.status, 201);
  const list = await send(svc.base, 'GET', '/articles?limit=100', { headers: { accept: 'application/json' } });
  const items = (JSON.parse(list.text) as { articles: { id: number }[] }).articles;
  assert.equal(items.length, 1);
  const id = items[0]!.id;
  for (const path of [`/article/${id}`, `/articles/${slug}`, '/articles']) {
    await send(svc.gatewayBase!, 'GET', path);
    const hit = await send(svc.gatewayBase!, 'GET', path);
    assert.equal(hit.headers['x-cache'], 'HIT', `${path} is cached`);
  }
  return { svc, editor, id };
}

/** PUTs a new title at the service itself and returns the response and how long it took. */
async function timedWrite(s: Setup, slug: string, title: string): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  const res = await send(s.svc.base, 'PUT', `/articles/${slug}`, { headers: { authorization: s.editor, 'content-type': 'application/xml' }, body: article(title) });
  return { status: res.status, ms: performance.now() - start };
}

/** The embedded gateway serves the new title on every alias right after the write: it was purged. */
async function assertGatewayPurged(s: Setup, slug: string, title: string): Promise<void> {
  for (const path of [`/article/${s.id}`, `/articles/${slug}`, '/articles']) {
    const res = await send(s.svc.gatewayBase!, 'GET', path);
    assert.equal(res.headers['x-cache'], 'MISS', `${path} was purged from the embedded gateway`);
    assert.match(res.text, new RegExp(`<title>${title}</title>`));
  }
}

describe('read-your-writes with an unhealthy cache node', () => {
  it('a node that is down (closed port) does not hold the write up; the embedded gateway is purged', async () => {
    const s = await setup([await closedPortUrl()], 'down-node');
    try {
      const purger = s.svc.running.purger!;
      const failedBefore = purger.stats().failed;
      const w = await timedWrite(s, 'down-node', 'After');
      assert.equal(w.status, 200);
      // A refused connection fails at once: the write does not even wait for purgeTimeoutMs.
      assert.ok(w.ms < TIMEOUT_MS, `write took ${w.ms.toFixed(0)} ms with a node refusing connections`);
      await assertGatewayPurged(s, 'down-node', 'After');
      const stats = purger.stats();
      // 5 URLs + 1 xkey request per write, each refused by the down node.
      assert.ok(stats.failed - failedBefore >= 6, `failures counted: ${JSON.stringify(stats)}`);
      assert.ok(stats.pending >= 6, `refused PURGEs wait for a retry: ${JSON.stringify(stats)}`);
    } finally {
      await s.svc.close();
    }
  });

  it('a node that hangs delays the write by about purgeTimeoutMs, no more; the embedded gateway is purged', async () => {
    const hanging = await fakeNode(() => 'hang');
    const s = await setup([hanging.url], 'hung-node');
    try {
      const purger = s.svc.running.purger!;
      const before = purger.stats();
      const seenBefore = hanging.purges.length;
      const w = await timedWrite(s, 'hung-node', 'After');
      assert.equal(w.status, 200);
      assert.ok(w.ms >= TIMEOUT_MS * 0.8, `the write waited for the purges (${w.ms.toFixed(0)} ms)`);
      assert.ok(w.ms < TIMEOUT_MS * 3, `the write returned after ${w.ms.toFixed(0)} ms, bounded by purgeTimeoutMs=${TIMEOUT_MS}`);
      assert.ok(hanging.purges.length - seenBefore >= 6, 'the hanging node was sent the PURGEs');
      await assertGatewayPurged(s, 'hung-node', 'After');
      const counted = await eventually(() => purger.stats().failed - before.failed >= 6, 2000);
      assert.ok(counted, `timed-out PURGEs are counted as failures: ${JSON.stringify(purger.stats())}`);
    } finally {
      await s.svc.close();
      await hanging.close();
    }
  });

  it('a node answering 503 is retried in the background until it takes the purge', async () => {
    let healthy = false;
    const flaky = await fakeNode(() => (healthy ? 200 : 503));
    const s = await setup([flaky.url], 'flaky-node');
    try {
      const purger = s.svc.running.purger!;
      const w = await timedWrite(s, 'flaky-node', 'After');
      assert.equal(w.status, 200);
      assert.ok(w.ms < TIMEOUT_MS * 3, `write took ${w.ms.toFixed(0)} ms`);
      await assertGatewayPurged(s, 'flaky-node', 'After');
      assert.ok(purger.stats().pending > 0, 'failed PURGEs wait for a retry');
      healthy = true;
      const drained = await eventually(() => purger.stats().pending === 0, 5000);
      assert.ok(drained, `retries drained once the node recovered: ${JSON.stringify(purger.stats())}`);
      const stats = purger.stats();
      assert.ok(stats.retried > 0 && stats.failed > 0, JSON.stringify(stats));
      const urls = new Set(flaky.purges.map((r) => r.url));
      for (const path of [`/article/${s.id}`, `/articles/${s.id}`, '/article/flaky-node', '/articles/flaky-node', '/articles', '/']) {
        assert.ok(urls.has(path), `${path} reached the recovered node`);
      }
    } finally {
      await s.svc.close();
      await flaky.close();
    }
  });
});
