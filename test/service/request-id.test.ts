import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { send, startTestService } from '../helpers/service.js';
import { captureLogs } from '../helpers/log-capture.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ARTICLE = '<article><title>R</title><price currency="eur">1.00</price></article>';

/** Lets the 'finish' listeners of answered requests run. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 50));

describe('request ids', () => {
  it('are made, kept or replaced on the service, in X-Request-Id and the access log', async () => {
    const { logger, lines } = captureLogs();
    const svc = await startTestService({ logger });
    try {
      const made = await send(svc.base, 'GET', '/articles/none');
      assert.match(made.headers['x-request-id']!, UUID);
      const kept = await send(svc.base, 'GET', '/articles/none', { headers: { 'x-request-id': 'client-id-1' } });
      assert.equal(kept.headers['x-request-id'], 'client-id-1');
      const replaced = await send(svc.base, 'GET', '/articles/none', { headers: { 'x-request-id': 'evil id "quoted"' } });
      assert.match(replaced.headers['x-request-id']!, UUID);
      const traced = await send(svc.base, 'GET', '/articles/none', { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
      assert.equal(traced.headers['x-request-id'], '0af7651916cd43dd8448eb211c80319c');
      await settle();
      const ids = lines().filter((l) => l.msg === 'request').map((l) => l.reqId);
      assert.deepEqual(ids, [made.headers['x-request-id'], 'client-id-1', replaced.headers['x-request-id'], '0af7651916cd43dd8448eb211c80319c']);
      assert.doesNotMatch(JSON.stringify(lines()), /evil id/);
    } finally {
      await svc.close();
    }
  });

  it('pass through the embedded gateway: the same id in both log lines, and a hit answers with its own id', async () => {
    const { logger, lines } = captureLogs();
    const svc = await startTestService({ logger, gatewayPort: 'ephemeral' });
    try {
      const auth = await svc.addUser('rid', 'editor');
      await send(svc.base, 'PUT', '/articles/rid', { headers: { authorization: auth, 'content-type': 'application/xml' }, body: ARTICLE });
      const miss = await send(svc.gatewayBase!, 'GET', '/article/rid', { headers: { 'x-request-id': 'through-1' } });
      assert.equal(miss.headers['x-cache'], 'MISS');
      assert.equal(miss.headers['x-request-id'], 'through-1');
      const made = await send(svc.gatewayBase!, 'GET', '/articles/none');
      assert.match(made.headers['x-request-id']!, UUID);
      const hit = await send(svc.gatewayBase!, 'GET', '/article/rid', { headers: { 'x-request-id': 'through-2' } });
      assert.equal(hit.headers['x-cache'], 'HIT');
      assert.equal(hit.headers['x-request-id'], 'through-2');
      const anonymousHit = await send(svc.gatewayBase!, 'GET', '/article/rid');
      assert.match(anonymousHit.headers['x-request-id']!, UUID);
      assert.notEqual(anonymousHit.headers['x-request-id'], 'through-1');
      const bad = await send(svc.gatewayBase!, 'GET', '/article/rid', { headers: { 'x-request-id': 'bad id' } });
      assert.match(bad.headers['x-request-id']!, UUID);
      await settle();
      const all = lines();
      const service = all.filter((l) => l.msg === 'request');
      const gateway = all.filter((l) => l.msg === 'gateway request');
      for (const id of ['through-1', made.headers['x-request-id']]) {
        assert.equal(service.filter((l) => l.reqId === id).length, 1, `service line for ${id}`);
        assert.equal(gateway.filter((l) => l.reqId === id).length, 1, `gateway line for ${id}`);
      }
      const g1 = gateway.find((l) => l.reqId === 'through-1')!;
      assert.equal(g1.cache, 'MISS');
      assert.equal(g1.path, '/article/rid');
      assert.equal(g1.status, 200);
      assert.equal(typeof g1.ms, 'number');
      const g2 = gateway.find((l) => l.reqId === 'through-2')!;
      assert.equal(g2.cache, 'HIT');
      // A hit never reaches the service.
      assert.equal(service.filter((l) => l.reqId === 'through-2').length, 0);
    } finally {
      await svc.close();
    }
  });
});
