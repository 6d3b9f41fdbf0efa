import assert from 'node:assert/strict';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { runGateway } from '../../src/gateway/index.js';
import { describe, it } from '../helpers/node-test.js';
import { send, startOrigin } from './gateway-helpers.js';
import { captureLogs } from '../helpers/log-capture.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('roa gateway (runGateway): request ids, access log and /metrics', () => {
  it('forwards the id, answers it (a hit with its own), logs cache outcomes, and serves /metrics to loopback', async () => {
    const origin = await startOrigin((_req, res) => {
      res.writeHead(200, { 'Cache-Control': 'max-age=60', 'Content-Type': 'text/plain', 'X-Request-Id': 'origin-echo' });
      res.end('hello');
    });
    const { logger, lines } = captureLogs();
    const { gateway, address } = await runGateway({ upstream: origin.url, port: 0, logger, metrics: {} });
    const base = { host: '127.0.0.1', port: address.port };
    try {
      const miss = await send(base, '/a?q=secret', { headers: { 'x-request-id': 'standalone-1' } });
      assert.equal(miss.headers['x-cache'], 'MISS');
      assert.equal(origin.seen[0]!.headers['x-request-id'], 'standalone-1');
      const hit = await send(base, '/a?q=secret', { headers: { 'x-request-id': 'standalone-2' } });
      assert.equal(hit.headers['x-cache'], 'HIT');
      assert.equal(hit.headers['x-request-id'], 'standalone-2');
      const made = await send(base, '/a?q=secret');
      assert.match(String(made.headers['x-request-id']), UUID, JSON.stringify(made.rawHeaders));
      const invalid = await send(base, '/b', { headers: { 'x-request-id': 'has space' } });
      assert.match(String(invalid.headers['x-request-id']), UUID);
      assert.match(String(origin.seen[1]!.headers['x-request-id']), UUID);
      const traced = await send(base, '/c', { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
      assert.equal(traced.headers['x-request-id'], '0af7651916cd43dd8448eb211c80319c');
      await new Promise((r) => setTimeout(r, 50));
      const access = lines().filter((l) => l.msg === 'gateway request');
      assert.deepEqual(access.slice(0, 2).map((l) => [l.reqId, l.cache, l.status, l.path, l.method]), [
        ['standalone-1', 'MISS', 200, '/a', 'GET'],
        ['standalone-2', 'HIT', 200, '/a', 'GET'],
      ]);
      assert.doesNotMatch(JSON.stringify(lines()), /secret|origin-echo|has space/);

      const metrics = await send(base, '/metrics');
      assert.equal(metrics.status, 200);
      assert.equal(metrics.headers['cache-control'], 'no-store');
      const fam = new Map(parsePrometheusTextFormat(metrics.body).map((f) => [f.name, f]));
      assert.equal(fam.get('roa_gateway_hits_total')!.metrics[0]!.value, '2');
      assert.equal(fam.get('roa_gateway_misses_total')!.metrics[0]!.value, '3');
      assert.ok(Number(fam.get('roa_gateway_entries')!.metrics[0]!.value) >= 1);
      assert.ok(fam.has('process_resident_memory_bytes'));
      // /metrics is the gateway's own: the origin never saw it.
      assert.ok(origin.seen.every((s) => s.url !== '/metrics'));
    } finally {
      await gateway.close();
      await origin.close();
    }
  });

  it('refuses /metrics to an address outside its allow-list', async () => {
    const origin = await startOrigin((_req, res) => res.end('x'));
    const { gateway, address } = await runGateway({ upstream: origin.url, port: 0, logger: captureLogs().logger, metrics: { allow: ['10.0.0.0/8'] } });
    try {
      const res = await send({ host: '127.0.0.1', port: address.port }, '/metrics');
      assert.equal(res.status, 403);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.equal(origin.seen.length, 0);
    } finally {
      await gateway.close();
      await origin.close();
    }
  });
});
