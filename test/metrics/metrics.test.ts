import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { describe, it } from '../helpers/node-test.js';
import { send, startTestService, type TestService } from '../helpers/service.js';

const ARTICLE = '<article><title>M</title><price currency="eur">1.00</price></article>';

let lastText = '';

async function scrape(base: string, headers: Record<string, string> = {}): Promise<Map<string, PromFamily>> {
  const res = await send(base, 'GET', '/metrics', { headers });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(res.headers['content-type']!, /^text\/plain; version=0\.0\.4/);
  lastText = res.text;
  return new Map(parsePrometheusTextFormat(res.text).map((f) => [f.name, f]));
}

function sample(families: Map<string, PromFamily>, name: string, labels: Record<string, string>): number | undefined {
  const f = families.get(name);
  assert.ok(f, `family ${name}`);
  const m = f.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  if (m === undefined) return undefined;
  return Number(m.value ?? m.count);
}

async function traffic(svc: TestService): Promise<void> {
  const auth = await svc.addUser('metra', 'editor');
  assert.equal((await send(svc.base, 'PUT', '/articles/m1', { headers: { authorization: auth, 'content-type': 'application/xml' }, body: ARTICLE })).status, 201);
  assert.equal((await send(svc.base, 'GET', '/article/m1?x=1')).status, 200);
  assert.equal((await send(svc.base, 'GET', '/no/such/path')).status, 404);
  const wrong = 'Basic ' + Buffer.from('metra:wrong-password').toString('base64');
  assert.equal((await send(svc.base, 'GET', '/articles/m1', { headers: { authorization: wrong } })).status, 401);
  // Through the gateway: a miss, then a hit.
  assert.equal((await send(svc.gatewayBase!, 'GET', '/article/m1')).headers['x-cache'], 'MISS');
  assert.equal((await send(svc.gatewayBase!, 'GET', '/article/m1')).headers['x-cache'], 'HIT');
  // A write purges the embedded gateway.
  assert.equal((await send(svc.base, 'PUT', '/articles/m1', { headers: { authorization: auth, 'content-type': 'application/xml' }, body: ARTICLE.replace('>M<', '>N<') })).status, 200);
}

describe('GET /metrics', () => {
  it('after real traffic, reports requests by route pattern, the gateway, purges, auth failures and process metrics', async () => {
    // A cache node besides the embedded gateway (which is purged in process): answers every PURGE.
    const node = createServer((req, res) => {
      req.resume();
      res.end();
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    const nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    const svc = await startTestService({ gatewayPort: 'ephemeral', purge: [nodeUrl] });
    try {
      await traffic(svc);
      const fam = await scrape(svc.base);
      assert.equal(fam.get('roa_http_requests_total')!.type, 'COUNTER');
      assert.equal(fam.get('roa_http_request_duration_seconds')!.type, 'HISTOGRAM');
      assert.ok(sample(fam, 'roa_http_requests_total', { route: '/article/:key', method: 'GET', status: '200' })! >= 1, `${JSON.stringify(['roa_http_requests_total', { route: '/article/:key', method: 'GET', status: '200' }])}`);
      // parse-prometheus-text-format folds a histogram's labelled series into one bucket map, so its
      // labels are checked on the text.
      assert.match(lastText, /^roa_http_request_duration_seconds_count\{route="\/article\/:key",method="GET",status="200"\} [1-9]/m);
      assert.match(lastText, /^roa_http_request_duration_seconds_bucket\{le="\+Inf",route="\/article\/:key",method="GET",status="200"\} [1-9]/m);
      assert.equal(sample(fam, 'roa_http_requests_total', { route: '/articles/:key', method: 'PUT', status: '201' }), 1);
      assert.equal(sample(fam, 'roa_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }), 1);
      // Raw paths never become labels.
      const routes = new Set(fam.get('roa_http_requests_total')!.metrics.map((m) => m.labels!.route));
      for (const r of routes) assert.ok(['/article/:key', '/articles/:key', '/articles', 'unmatched', 'other'].includes(r!), r);
      assert.equal(sample(fam, 'roa_auth_failures_total', { scheme: 'basic' }), 1);
      assert.equal(sample(fam, 'roa_gateway_hits_total', {}), 1);
      assert.ok(sample(fam, 'roa_gateway_misses_total', {})! >= 1, `${JSON.stringify(['roa_gateway_misses_total', {}])}`);
      assert.ok(fam.has('roa_gateway_stale_total'));
      assert.ok(sample(fam, 'roa_gateway_entries', {})! >= 0, `${JSON.stringify(['roa_gateway_entries', {}])}`);
      assert.ok(sample(fam, 'roa_gateway_stored_bytes', {})! >= 0, `${JSON.stringify(['roa_gateway_stored_bytes', {}])}`);
      assert.ok(sample(fam, 'roa_gateway_purges_total', {})! >= 1, `${JSON.stringify(['roa_gateway_purges_total', {}])}`);
      for (const name of ['roa_purges_sent_total', 'roa_purges_failed_total', 'roa_purges_retried_total', 'roa_database_errors_total', 'roa_nonce_store_errors_total']) assert.ok(fam.has(name), name);
      const purger = svc.running.purger as unknown as { nodeStats?: () => unknown };
      if (typeof purger.nodeStats === 'function') {
        assert.ok(sample(fam, 'roa_purges_sent_total', { node: nodeUrl })! >= 1, lastText);
        assert.equal(sample(fam, 'roa_purges_failed_total', { node: nodeUrl }), 0);
      }
      assert.ok(fam.has('process_cpu_user_seconds_total'));
      assert.ok(fam.has('nodejs_eventloop_lag_seconds'));
    } finally {
      await svc.close();
      node.close();
    }
  });

  it('answers 403 problem to an address outside --metrics-allow, judged by req.ip through trusted proxies', async () => {
    const svc = await startTestService({ metricsAllow: ['10.0.0.0/8'] });
    try {
      const res = await send(svc.base, 'GET', '/metrics');
      assert.equal(res.status, 403);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(res.headers['content-type']!, /application\/problem\+json/);
      assert.doesNotMatch(res.text, /roa_http/);
      // A trusted proxy (loopback) stating an allowed client.
      await scrape(svc.base, { 'x-forwarded-for': '10.1.2.3' });
    } finally {
      await svc.close();
    }
    const open = await startTestService();
    try {
      await scrape(open.base);
      const res = await send(open.base, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } });
      assert.equal(res.status, 403);
      assert.equal((await send(open.base, 'POST', '/metrics')).status, 405);
    } finally {
      await open.close();
    }
  });

  it('keeps each service in its own registry (two services in one process)', async () => {
    const a = await startTestService();
    const b = await startTestService();
    try {
      await send(a.base, 'GET', '/nowhere');
      await send(a.base, 'GET', '/nowhere');
      await send(b.base, 'GET', '/nowhere');
      assert.equal(sample(await scrape(a.base), 'roa_http_requests_total', { route: 'unmatched', status: '404' }), 2);
      assert.equal(sample(await scrape(b.base), 'roa_http_requests_total', { route: 'unmatched', status: '404' }), 1);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
