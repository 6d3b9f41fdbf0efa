/** @module test/deploy/varnish-gateway — the shipped VCL on a real varnishd in front of a loopback origin, and the Purger fanning out to two nodes. */
import { describe } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { startVarnish, varnishAvailable } from '../helpers/varnish.js';
import type { VarnishInstance } from '../helpers/varnish.js';
import { Purger } from '../../src/resources/purger.js';

const skip = skipReason(varnishAvailable(), 'varnishd with vmod_xkey not installed (run .ci/install-varnish.sh)');

interface OriginRequest {
  method: string;
  url: string;
  accept: string | undefined;
}

/**
 * A stand-in for the roa service: `/article/<id>` answers like roa does (shared-cacheable,
 * `Vary: Accept`, `xkey: article-<id> articles`); a few paths exercise other cache directives.
 */
function startOrigin(): Promise<{ server: Server; port: number; seen: OriginRequest[]; count(method: string, url: string): number }> {
  const seen: OriginRequest[] = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    seen.push({ method: req.method ?? '', url, accept: req.headers.accept });
    req.resume();
    const path = url.split('?')[0]!;
    res.setHeader('Vary', 'Accept');
    const article = /^\/article\/(\d+)$/.exec(path);
    if (article) {
      res.setHeader('Cache-Control', 'public, s-maxage=60');
      res.setHeader('xkey', `article-${article[1]} articles`);
    } else if (path === '/private') {
      res.setHeader('Cache-Control', 'private, max-age=60');
    } else if (path === '/no-store') {
      res.setHeader('Cache-Control', 'no-store');
    } else if (path === '/surrogate') {
      res.setHeader('Cache-Control', 'public, s-maxage=60');
      res.setHeader('Surrogate-Key', 'surrogate-1');
    }
    // '/no-cache-control' sends no freshness information at all.
    res.setHeader('Content-Type', req.headers.accept ?? 'application/xml');
    res.end(`${req.method} ${url} #${seen.length}`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        seen,
        count: (method, url) => seen.filter((s) => s.method === method && s.url === url).length,
      }),
    ),
  );
}

async function send(base: string, path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(base + path, { method: init.method ?? 'GET', headers: init.headers });
  const body = await res.text();
  return { status: res.status, xCache: res.headers.get('x-cache'), headers: res.headers, body };
}

describe('Varnish with deploy/varnish/roa.vcl', () => {
  const { it, before, after } = suiteNeeding(skip);
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let cache: VarnishInstance;

  before(async () => {
    origin = await startOrigin();
    cache = await startVarnish({ backendPort: origin.port });
  });

  after(async () => {
    await cache?.stop();
    origin?.server.closeAllConnections();
    await new Promise((r) => origin?.server.close(r));
  });

  it('answers MISS then HIT, and strips xkey from the client response', async () => {
    const first = await send(cache.url, '/article/1');
    assert.equal(first.status, 200);
    assert.equal(first.xCache, 'MISS');
    const second = await send(cache.url, '/article/1');
    assert.equal(second.xCache, 'HIT');
    assert.equal(second.body, first.body);
    assert.equal(second.headers.get('xkey'), null);
    assert.equal(origin.count('GET', '/article/1'), 1);
    // HEAD is answered from the same object.
    const head = await send(cache.url, '/article/1', { method: 'HEAD' });
    assert.equal(head.xCache, 'HIT');
  });

  it('PURGE of a URL answers 200, drops every Accept variant, then 404 when nothing is left', async () => {
    await send(cache.url, '/article/2', { headers: { accept: 'application/json' } });
    await send(cache.url, '/article/2', { headers: { accept: 'application/xml' } });
    assert.equal((await send(cache.url, '/article/2', { headers: { accept: 'application/json' } })).xCache, 'HIT');

    const purge = await send(cache.url, '/article/2', { method: 'PURGE' });
    assert.equal(purge.status, 200);
    assert.equal(purge.headers.get('x-roa-purged'), '2', 'both Vary variants purged');

    assert.equal((await send(cache.url, '/article/2', { headers: { accept: 'application/json' } })).xCache, 'MISS');
    assert.equal((await send(cache.url, '/article/2', { headers: { accept: 'application/xml' } })).xCache, 'MISS');
    assert.equal((await send(cache.url, '/article/2', { headers: { accept: 'application/json' } })).xCache, 'HIT');

    assert.equal((await send(cache.url, '/nothing-here', { method: 'PURGE' })).status, 404);
    assert.equal(origin.count('PURGE', '/article/2'), 0, 'PURGE never reaches the service');
  });

  it('xkey PURGE drops every query and Accept variant tagged with the key, and only those', async () => {
    const variants: [string, string][] = [
      ['/article/3', 'application/json'],
      ['/article/3', 'application/xml'],
      ['/article/3?fields=title', 'application/json'],
      ['/article/3?fields=title', 'text/html'],
    ];
    for (const [path, accept] of variants) await send(cache.url, path, { headers: { accept } });
    await send(cache.url, '/article/4');
    for (const [path, accept] of variants) {
      assert.equal((await send(cache.url, path, { headers: { accept } })).xCache, 'HIT', `${path} ${accept} cached`);
    }

    const purge = await send(cache.url, '/', { method: 'PURGE', headers: { xkey: 'article-3' } });
    assert.equal(purge.status, 200);
    assert.equal(purge.headers.get('x-roa-purged'), '4');

    for (const [path, accept] of variants) {
      assert.equal((await send(cache.url, path, { headers: { accept } })).xCache, 'MISS', `${path} ${accept} purged`);
    }
    assert.equal((await send(cache.url, '/article/4')).xCache, 'HIT', 'an object without the key stays');
    assert.equal((await send(cache.url, '/', { method: 'PURGE', headers: { xkey: 'no-such-key' } })).status, 404);
  });

  it('reads Surrogate-Key as xkey', async () => {
    await send(cache.url, '/surrogate');
    assert.equal((await send(cache.url, '/surrogate')).xCache, 'HIT');
    assert.equal((await send(cache.url, '/', { method: 'PURGE', headers: { xkey: 'surrogate-1' } })).status, 200);
    assert.equal((await send(cache.url, '/surrogate')).xCache, 'MISS');
  });

  it('passes requests carrying Authorization, Authentication or Cookie', async () => {
    const credentials: Record<string, string>[] = [
      { authorization: 'Basic dTpw' },
      { authentication: 'hmac keyId="k", signature="s"' },
      { cookie: 'sid=1' },
    ];
    await send(cache.url, '/article/5');
    for (const headers of credentials) {
      for (let i = 0; i < 2; i++) assert.equal((await send(cache.url, '/article/5', { headers })).xCache, 'MISS');
    }
    assert.equal(origin.count('GET', '/article/5'), 1 + 2 * credentials.length, 'the service saw every one');
  });

  it('passes unsafe and extension methods to the service', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND']) {
      for (let i = 0; i < 2; i++) {
        const res = await send(cache.url, '/article/6', { method });
        assert.equal(res.status, 200, method);
        assert.equal(res.xCache, 'MISS', method);
      }
      assert.equal(origin.count(method, '/article/6'), 2, method);
    }
  });

  it('normalises Accept so Vary: Accept keeps one variant per type roa produces', async () => {
    const json = await send(cache.url, '/article/8', { headers: { accept: 'application/json, text/plain;q=0.5' } });
    assert.equal(json.xCache, 'MISS');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'application/json' } })).xCache, 'HIT');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'APPLICATION/JSON' } })).xCache, 'HIT');

    // Absent, */* and application/* share the XML default.
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: '*/*' } })).xCache, 'MISS');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'application/xml' } })).xCache, 'HIT');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'application/*;q=0.8' } })).xCache, 'HIT');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: '' } })).xCache, 'HIT');

    // axios's default names JSON first of roa's types: the JSON copy.
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'application/json, text/plain, */*' } })).xCache, 'HIT');

    // A browser's Accept lists text/html first: the HTML variant, as from roa, stored apart from XML and JSON.
    const chromium = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';
    const firefox = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const html = await send(cache.url, '/article/8', { headers: { accept: chromium } });
    assert.equal(html.xCache, 'MISS');
    assert.equal(html.headers.get('content-type'), 'text/html');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: firefox } })).xCache, 'HIT');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'text/html' } })).xCache, 'HIT');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'text/*;q=0.9' } })).xCache, 'HIT');
    // The other variants are untouched by the HTML one.
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'application/xml' } })).headers.get('content-type'), 'application/xml');
    assert.equal((await send(cache.url, '/article/8', { headers: { accept: 'application/json' } })).headers.get('content-type'), 'application/json');

    // Nothing roa produces: left as is, so roa can answer 406 (RFC 9110 15.5.7).
    await send(cache.url, '/article/8', { headers: { accept: 'image/png' } });
    await send(cache.url, '/article/8', { headers: { accept: 'application/json-seq' } });
    await send(cache.url, '/article/8', { headers: { accept: 'text/html-sandboxed' } });

    const accepts = origin.seen.filter((s) => s.url === '/article/8').map((s) => s.accept);
    assert.deepEqual(accepts, ['application/json', 'application/xml', 'text/html', 'image/png', 'application/json-seq', 'text/html-sandboxed']);
  });

  it('keeps one HTML copy for anonymous readers and never answers a signed-in reader from cache', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const signedIn = { accept: browser, authorization: 'Basic YWxpY2U6c2VjcmV0' };
    assert.equal((await send(cache.url, '/article/11', { headers: { accept: browser } })).xCache, 'MISS');
    // A signed-in reader's page names the caller and shows their forms: passed, never stored, never a HIT.
    for (let i = 0; i < 2; i++) assert.equal((await send(cache.url, '/article/11', { headers: signedIn })).xCache, 'MISS');
    assert.equal((await send(cache.url, '/article/11', { headers: { accept: browser } })).xCache, 'HIT');
    assert.equal((await send(cache.url, '/article/11', { headers: { accept: 'application/xml' } })).xCache, 'MISS');
    assert.equal((await send(cache.url, '/article/11', { headers: { accept: 'application/json' } })).xCache, 'MISS');
    assert.equal((await send(cache.url, '/article/11', { headers: signedIn })).xCache, 'MISS');
    assert.equal(origin.count('GET', '/article/11'), 6, 'one fill per variant plus every signed-in request');
  });

  it('does not store private, no-store or freshness-less responses', async () => {
    for (const path of ['/private', '/no-store', '/no-cache-control']) {
      for (let i = 0; i < 3; i++) assert.equal((await send(cache.url, path)).xCache, 'MISS', path);
      assert.equal(origin.count('GET', path), 3, path);
    }
  });

  it('answers 403 to PURGE from an address outside the purgers ACL', async () => {
    // Only loopback may be used, so exclude loopback from the ACL instead of using another address.
    const locked = await startVarnish({ backendPort: origin.port, purgers: ['192.0.2.1'] });
    try {
      await send(locked.url, '/article/9');
      const purge = await send(locked.url, '/article/9', { method: 'PURGE' });
      assert.equal(purge.status, 403);
      const tagPurge = await send(locked.url, '/', { method: 'PURGE', headers: { xkey: 'article-9' } });
      assert.equal(tagPurge.status, 403);
      assert.equal((await send(locked.url, '/article/9')).xCache, 'HIT', 'nothing was purged');
    } finally {
      await locked.stop();
    }
  });

  it('Purger fans out to two Varnish nodes: after purge() both MISS', async () => {
    const second = await startVarnish({ backendPort: origin.port });
    const purger = new Purger({ nodes: [cache.url, second.url], delayedPurgeMs: 0 });
    try {
      const paths = ['/article/10', '/article/10?fields=title'];
      for (const node of [cache, second]) {
        for (const p of paths) {
          await send(node.url, p);
          assert.equal((await send(node.url, p)).xCache, 'HIT');
        }
      }
      await purger.purge({ urls: ['/article/10'], tags: ['article-10'] });
      for (const node of [cache, second]) {
        for (const p of paths) assert.equal((await send(node.url, p)).xCache, 'MISS', `${node.url}${p}`);
      }
      const stats = purger.stats();
      // Each node: the URL PURGE and the xkey PURGE (the latter finds nothing left of /article/10
      // itself but drops the ?fields variant); all answered 200 or 404.
      assert.deepEqual(stats, { sent: 4, failed: 0, retried: 0, pending: 0 });
    } finally {
      await purger.close();
      await second.stop();
    }
  });
});
