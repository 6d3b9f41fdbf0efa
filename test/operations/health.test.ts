import assert from 'node:assert/strict';
import { Readiness } from '../../src/operations/readiness.js';
import { openStore } from '../../src/storage/open-store.js';
import { describe, it } from '../helpers/node-test.js';
import { send, startTestService } from '../helpers/service.js';
import { pgReachable, redisReachable, skipReason, suiteNeeding, TEST_PG_URL as PG_URL, TEST_REDIS_URL } from '../helpers/services.js';
import { freePort } from '../helpers/ports.js';


describe('service health probes', () => {
  it('answers /healthz and /readyz with small no-store JSON, HEAD without a body, other methods 405 with Allow', async () => {
    const svc = await startTestService();
    try {
      const health = await send(svc.base, 'GET', '/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(JSON.parse(health.text), { status: 'ok' });
      assert.equal(health.headers['cache-control'], 'no-store');
      assert.match(health.headers['content-type']!, /^application\/json/);
      const ready = await send(svc.base, 'GET', '/readyz?verbose=1');
      assert.equal(ready.status, 200);
      assert.deepEqual(JSON.parse(ready.text), { status: 'ok' });
      const head = await send(svc.base, 'HEAD', '/readyz');
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers['cache-control'], 'no-store');
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const refused = await send(svc.base, method, '/healthz', { body: '{}', headers: { 'content-type': 'application/json' } });
        assert.equal(refused.status, 405, method);
        assert.equal(refused.headers.allow, 'GET, HEAD');
        assert.match(refused.headers['content-type']!, /^application\/problem\+json/);
      }
    } finally {
      await svc.close();
    }
  });

  it('answers without authentication in production, and says 503 once the database is closed, naming the check but not the reason', async () => {
    const store = await openStore(':memory:');
    const svc = await startTestService({ store, env: 'production' });
    try {
      assert.equal((await send(svc.base, 'GET', '/healthz')).status, 200);
      assert.equal((await send(svc.base, 'GET', '/readyz')).status, 200);
      await store.close();
      // The result of a second ago may be reused: wait it out.
      await new Promise((r) => setTimeout(r, 1100));
      const ready = await send(svc.base, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.deepEqual(JSON.parse(ready.text), { status: 'unavailable', checks: { database: 'failed' } });
      assert.equal((await send(svc.base, 'GET', '/healthz')).status, 200, 'the process still answers');
    } finally {
      await svc.running.close().catch(() => {});
    }
  });

  it('says 503 with the reason (development) when Redis is unreachable', async () => {
    const svc = await startTestService({ redisUrl: `redis://127.0.0.1:${await freePort()}` });
    try {
      const ready = await send(svc.base, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      const body = JSON.parse(ready.text) as { status: string; checks: Record<string, string> };
      assert.equal(body.status, 'unavailable');
      assert.equal(body.checks.database, 'ok');
      assert.notEqual(body.checks.nonces, 'ok');
    } finally {
      await svc.close();
    }
  });

  it('says 503 (shutting-down) on the service port while the embedded gateway drains', async () => {
    const svc = await startTestService({ gatewayPort: 'ephemeral' });
    const gatewayBase = svc.gatewayBase!;
    assert.equal((await send(gatewayBase, 'GET', '/readyz')).status, 200);
    // A request to the gateway that the test holds open keeps the shutdown in its first step.
    const { request } = await import('node:http');
    const held = request(`${gatewayBase}/articles`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100' } });
    held.on('error', () => {});
    held.write('{');
    await new Promise((r) => setTimeout(r, 200));
    const shutdown = svc.running.shutdown({ timeoutMs: 3000 });
    await new Promise((r) => setTimeout(r, 200));
    const ready = await send(svc.base, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.deepEqual(JSON.parse(ready.text), { status: 'shutting-down' });
    held.destroy();
    const report = await shutdown;
    // The purger of the embedded gateway: drained where it can be, else closed.
    assert.match(report.purges, /^(drained|closed)$/);
  });
});

const redisSkip = skipReason(await redisReachable(), 'Redis not reachable');
describe('service readiness with Redis', () => {
  const { it } = suiteNeeding(redisSkip);
  it('is ready when Redis answers', async () => {
    const svc = await startTestService({ redisUrl: TEST_REDIS_URL });
    try {
      const ready = await send(svc.base, 'GET', '/readyz');
      assert.equal(ready.status, 200, ready.text);
    } finally {
      await svc.close();
    }
  });
});

const pgSkip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${PG_URL}`);
describe('service readiness on PostgreSQL', () => {
  const { it } = suiteNeeding(pgSkip);
  it('is ready while PostgreSQL answers and 503 once its pool is closed', async () => {
    const store = await openStore(PG_URL);
    const svc = await startTestService({ store });
    try {
      assert.equal((await send(svc.base, 'GET', '/readyz')).status, 200);
      await store.close();
      await new Promise((r) => setTimeout(r, 1100));
      const ready = await send(svc.base, 'GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.notEqual((JSON.parse(ready.text) as { checks: Record<string, string> }).checks.database, 'ok');
    } finally {
      await svc.running.close().catch(() => {});
    }
  });
});

describe('Readiness', () => {
  it('shares one run of its checks within the TTL, runs again after it, and fails a check that outlasts its deadline', async () => {
    let now = 0;
    let runs = 0;
    let healthy = true;
    const readiness = new Readiness({ db: async () => { runs++; if (!healthy) throw new Error('down'); } }, { ttlMs: 1000, now: () => now });
    const [a, b] = await Promise.all([readiness.check(), readiness.check()]);
    assert.equal(runs, 1);
    assert.equal(a.ready && b.ready, true);
    healthy = false;
    now = 999;
    assert.equal((await readiness.check()).ready, true, 'reused');
    now = 1000;
    assert.deepEqual(await readiness.check(), { ready: false, checks: { db: 'down' }, shuttingDown: false });
    assert.equal(runs, 2);
    const slow = new Readiness({ db: () => new Promise(() => {}) }, { timeoutMs: 50 });
    assert.deepEqual((await slow.check()).checks, { db: 'no answer within 50 ms' });
    readiness.shutDown();
    assert.deepEqual(await readiness.check(), { ready: false, checks: {}, shuttingDown: true });
  });
});

describe('probeKind', () => {
  it('names /healthz and /readyz, with or without a query, and nothing else', async () => {
    const { probeKind } = await import('../../src/operations/health.js');
    assert.equal(probeKind('/healthz'), 'healthz');
    assert.equal(probeKind('/healthz?full=1'), 'healthz');
    assert.equal(probeKind('/readyz'), 'readyz');
    assert.equal(probeKind('/readyz?'), 'readyz');
    for (const other of [undefined, '', '/', '/healthzz', '/readyz/', '/health', '/articles', 'healthz', '/Healthz', '/h']) assert.equal(probeKind(other), undefined, other);
  });
});
