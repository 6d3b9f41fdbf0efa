/**
 * @module Scenario "gateway" (issues 5, 6): cache-hit throughput of GET /article/1 through roa's embedded
 * gateway (service + gateway in one process, as `roa serve` runs), through varnishd with
 * deploy/varnish/roa.vcl, from the service uncached, and from raw node:http sending a fixed body.
 */
import { ARTICLE_XML, asBrowser, BROWSER_ACCEPT, BROWSER_ACCEPT_ENCODING, nodeServer } from '../lib/article-servers.mjs';

/** Fills the cache with one request (with the request's headers), then checks the next one is a hit. */
async function warm({ port, request }) {
  const url = `http://127.0.0.1:${port}${request.path}`;
  const init = () => ({ headers: request.headers ?? {}, signal: AbortSignal.timeout(5000) });
  for (let i = 0; i < 2; i++) await (await fetch(url, init())).text();
  const res = await fetch(url, init());
  await res.text();
  if (res.headers.get('x-cache') !== 'HIT') throw new Error(`cache not warm: X-Cache ${res.headers.get('x-cache')}`);
  return {};
}

/**
 * Chromium's Accept with XML and HTML swapped: as long, the same members and q-values, but it chooses XML.
 * With the browser's Accept-Encoding it is the HTML hit's request asking for the other representation.
 */
const BROWSER_ACCEPT_XML = BROWSER_ACCEPT.replace('text/html', '\0').replace('application/xml', 'text/html').replace('\0', 'application/xml');

/**
 * The browser's request headers with an Accept that picks XML (issue 29). The origin leaves a body this small
 * uncompressed, so the hit sends the stored identity XML: what differs from the HTML hit is the representation.
 */
async function asBrowserAskingXml(ctx) {
  const headers = { ...ctx.request.headers, Accept: BROWSER_ACCEPT_XML, 'Accept-Encoding': BROWSER_ACCEPT_ENCODING };
  await warm({ ...ctx, request: { ...ctx.request, headers } });
  return { headers, expect: { status: 200, headers: { 'content-type': 'application/xml; charset=utf-8' } } };
}

/** @type {import('../run.mjs').Scenario} */
export default {
  name: 'gateway',
  description:
    'GET /article/1 cache hits. gateway: roa service + embedded gateway in one process (`roa serve`), cache warmed ' +
    'and X-Cache: HIT checked before each run. varnish: varnishd 7 with deploy/varnish/roa.vcl (one thread pool) in ' +
    'front of the service, started by the server script so it is pinned to CPU 0 too (taskset is inherited; all ' +
    'its threads share that one core) and its CPU counted with the script\'s. service: the roa service, no cache. ' +
    'fixed: raw node:http answering a fixed body with the gateway-hit headers (the ceiling). Entries are fresh ' +
    'for 60 s (s-maxage), longer than a run. gateway-html, varnish-html: the same hits read with a browser\'s Accept ' +
    'and Accept-Encoding (the HTML page, gzip, issue 29). gateway-xml-browser: the same browser headers with an ' +
    'Accept that picks XML (the XML, which the origin stores uncompressed): the same request asking for the other representation.',
  subject: 'gateway',
  peers: ['service', 'fixed', 'varnish'],
  servers: [
    nodeServer('gateway', 'articles-roa', { BENCH_GATEWAY: '1', BENCH_FRONT: 'gateway' }, { prepare: warm }),
    nodeServer('varnish', 'articles-roa', { BENCH_VARNISH: '1', BENCH_FRONT: 'varnish' }, { prepare: warm }),
    nodeServer('service', 'articles-roa'),
    nodeServer('fixed', 'fixed'),
    // Issue 29: the HTML page of the same article from the same caches, asked for as a browser asks (its
    // Accept, normalised to text/html, and its Accept-Encoding, so the stored gzip copy is sent as it is):
    // `--servers gateway,gateway-html --subject gateway-html` gives an HTML hit ÷ an XML hit.
    nodeServer('gateway-html', 'articles-roa', { BENCH_GATEWAY: '1', BENCH_FRONT: 'gateway' }, { prepare: asBrowser(warm, { encodings: true }) }),
    // The same browser headers with an Accept that picks XML: `--servers gateway,gateway-xml-browser,gateway-html`
    // splits an HTML hit's cost into the request's headers and the representation served.
    nodeServer('gateway-xml-browser', 'articles-roa', { BENCH_GATEWAY: '1', BENCH_FRONT: 'gateway' }, { prepare: asBrowserAskingXml }),
    nodeServer('varnish-html', 'articles-roa', { BENCH_VARNISH: '1', BENCH_FRONT: 'varnish' }, { prepare: asBrowser(warm, { encodings: true }) }),
  ],
  requests: [{ name: 'GET article (hit)', method: 'GET', path: '/article/1', expect: { status: 200, body: ARTICLE_XML } }],
};
