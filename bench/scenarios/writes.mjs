/**
 * @module Scenario "writes" (issue 27 item 5): PUT /articles/{slug} throughput, latency and server CPU per write
 * with purging off, purging the embedded gateway (one node, invalidated in process) and purging the embedded
 * gateway plus varnishd with deploy/varnish/roa.vcl (two nodes). Same roa build, interleaved rounds; the ratios
 * to "off" are the figures that count.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { nodeServer } from '../lib/article-servers.mjs';
import { BEHIND_TLS, basicHeader } from '../lib/fixture.mjs';
import { scriptDirectory } from '../lib/wrk.mjs';

/** Articles the writes are spread over; each wrk request picks one at random. */
const SLUGS = 200;
const slug = (i) => `bench-w-${i}`;
const body = (v) => `<article><title>Write bench ${v}</title><price currency="eur">${v ? '19.99' : '9.99'}</price></article>`;
const HEADERS = { ...BEHIND_TLS, Authorization: basicHeader(), 'Content-Type': 'application/xml' };

/** Creates every article once (so each measured PUT replaces, 200), then hands wrk a script spreading PUTs over them. */
async function seed({ port, server }) {
  for (let i = 0; i < SLUGS; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/articles/${slug(i)}`, { method: 'PUT', headers: HEADERS, body: body(0), signal: AbortSignal.timeout(10_000) });
    await res.text();
    if (res.status !== 200 && res.status !== 201) throw new Error(`seeding ${slug(i)}: ${res.status}`);
  }
  const file = path.join(scriptDirectory(), `writes-${server}.lua`);
  const lines = [
    `local slugs = ${SLUGS}`,
    `local bodies = { ${JSON.stringify(body(0))}, ${JSON.stringify(body(1))} }`,
    'local headers = {}',
    ...Object.entries(HEADERS).map(([k, v]) => `headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
    'local n = 0',
    'function init(args) math.randomseed(os.time() + math.floor(os.clock() * 1000000)) end',
    // Content alternates per request, so most writes change the article and every write purges.
    'function request()',
    '  n = n + 1',
    `  return wrk.format("PUT", "/articles/${slug('')}" .. math.random(0, slugs - 1), headers, bodies[(n % 2) + 1])`,
    'end',
  ];
  writeFileSync(file, lines.join('\n') + '\n');
  return { headers: HEADERS, script: () => file };
}

/** @type {import('../run.mjs').Scenario} */
export default {
  name: 'writes',
  description:
    `PUT /articles/{slug} (XML body, Basic as an editor, X-Forwarded-Proto: https) spread at random over ${SLUGS} ` +
    'articles created before each run, content alternating, so every write changes its article and purges. ' +
    'off: the service, no cache, no purger. 1-node: + the embedded gateway (`roa serve`), invalidated in process. ' +
    '2-nodes: + varnishd with deploy/varnish/roa.vcl (started by the server script, pinned to the server CPU, its ' +
    'CPU counted with the server\'s), purged over HTTP. Each write waits for its purges (read-your-writes); the ' +
    'delayed second purge runs in the background. Requests go to the service port in every configuration.',
  subject: 'off',
  peers: ['1-node', '2-nodes'],
  servers: [
    nodeServer('off', 'articles-roa', {}, { prepare: seed }),
    nodeServer('1-node', 'articles-roa', { BENCH_GATEWAY: '1' }, { prepare: seed }),
    nodeServer('2-nodes', 'articles-roa', { BENCH_GATEWAY: '1', BENCH_VARNISH: '1' }, { prepare: seed }),
  ],
  requests: [
    {
      name: 'PUT article',
      method: 'PUT',
      path: `/articles/${slug(0)}`,
      body: body(1),
      headers: HEADERS,
      expect: { status: 200 },
    },
  ],
};
