import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { openStore } from '../../src/storage/open-store.js';
import { after, describe, it } from '../helpers/node-test.js';
import { send, startTestService } from '../helpers/service.js';

/** An origin whose /readyz answers `status.readyz`; counts what reaches it by path. */
async function origin(status: { readyz: number }): Promise<{ server: Server; base: string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    res.writeHead(req.url === '/readyz' ? status.readyz : 200, { 'content-type': 'text/plain', 'cache-control': 'public, max-age=60' });
    res.end('origin');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

async function gatewayIn(front: string): Promise<{ gateway: Gateway; base: string }> {
  const gateway = createGateway({ upstream: front, logger: { info() {}, warn() {}, error() {} } });
  const address = await gateway.listen(0);
  return { gateway, base: `http://127.0.0.1:${address.port}` };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('gateway health probes', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const fn of cleanup) await fn();
  });

  it('answers /healthz itself, never forwarding nor storing it, and /readyz by its upstream (any answer below 500 is ready)', async () => {
    const state = { readyz: 404 };
    const up = await origin(state);
    const { gateway, base } = await gatewayIn(up.base);
    cleanup.push(() => gateway.close(), () => new Promise((r) => up.server.close(r)));
    for (let i = 0; i < 3; i++) {
      const health = await send(base, 'GET', '/healthz');
      assert.equal(health.status, 200);
      assert.deepEqual(JSON.parse(health.text), { status: 'ok' });
      assert.equal(health.headers['cache-control'], 'no-store');
    }
    assert.equal(up.hits.get('/healthz'), undefined, 'never forwarded');
    assert.equal((await send(base, 'GET', '/readyz')).status, 200, 'a non-roa origin answering 404 is up');
    state.readyz = 503;
    await wait(1100);
    const down = await send(base, 'GET', '/readyz');
    assert.equal(down.status, 503);
    assert.deepEqual(JSON.parse(down.text), { status: 'unavailable', checks: { upstream: 'failed' } });
    assert.equal(down.headers['cache-control'], 'no-store');
    assert.equal(down.headers.age, undefined);
    state.readyz = 200;
    await wait(1100);
    assert.equal((await send(base, 'GET', '/readyz')).status, 200, 'follows the upstream again: nothing was stored');
    assert.equal((await send(base, 'HEAD', '/readyz')).text, '');
    const refused = await send(base, 'DELETE', '/readyz');
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.allow, 'GET, HEAD');
    assert.equal(gateway.stats().entries, 0);
  });

  it('probes its upstream at most once a second however many probes arrive', async () => {
    const up = await origin({ readyz: 200 });
    const { gateway, base } = await gatewayIn(up.base);
    cleanup.push(() => gateway.close(), () => new Promise((r) => up.server.close(r)));
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(base, 'GET', '/readyz')));
    assert.ok(answers.every((a) => a.status === 200));
    assert.equal(up.hits.get('/readyz'), 1);
  });

  it('is not ready when the upstream does not answer, nor once it shuts down', async () => {
    const up = await origin({ readyz: 200 });
    const upBase = up.base;
    await new Promise((r) => up.server.close(r));
    const { gateway, base } = await gatewayIn(upBase);
    const down = await send(base, 'GET', '/readyz');
    assert.equal(down.status, 503);
    assert.equal((await send(base, 'GET', '/healthz')).status, 200);
    const report = await gateway.shutdown(1000);
    assert.deepEqual(report, { cut: 0 });
  });

  it('embedded: follows the service (503 through the gateway once the database is closed)', async () => {
    const store = await openStore(':memory:');
    const svc = await startTestService({ store, gatewayPort: 'ephemeral' });
    try {
      assert.equal((await send(svc.gatewayBase!, 'GET', '/readyz')).status, 200);
      await store.close();
      await wait(1100);
      assert.equal((await send(svc.gatewayBase!, 'GET', '/readyz')).status, 503);
      assert.equal((await send(svc.gatewayBase!, 'GET', '/healthz')).status, 200);
    } finally {
      await svc.running.close().catch(() => {});
    }
  });
});
