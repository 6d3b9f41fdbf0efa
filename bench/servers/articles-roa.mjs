/**
 * @module roa article service (the subject of the articles, auth, gateway and purge benchmarks): the real
 * `startService` on a seeded SQLite file store, logs silent. Environment (all optional):
 *   BENCH_GATEWAY=1        embedded caching gateway on (an ephemeral port), purged after writes (`roa serve`)
 *   BENCH_GATEWAY2=1       a second embedded gateway (createGateway) in this process, added to the purge list
 *   BENCH_VARNISH=1        varnishd (deploy/varnish/roa.vcl) in front of the service, added to the purge list
 *   BENCH_FRONT=service|gateway|varnish   which port to announce (default: service)
 *   BENCH_REDIS=redis://…  HMAC nonces in Redis instead of the SQLite store
 *   BENCH_TOKEN_FORMAT=jwt access tokens as JWTs (default opaque)
 *   BENCH_ARTICLES=N       N articles in the store instead of the fixture's one (a page of the collection to render)
 *   BENCH_TLS_CERT, BENCH_TLS_KEY  the public entry over TLS (`tls` of startService: HTTP/2 by ALPN, HTTP/1.1
 *                          otherwise), counting what its connections negotiated (lib/tls-server.mjs)
 */
import path from 'node:path';
import { HOST, freePort, port } from '../lib/routes.mjs';
import { EDITOR, SERVER_KEY, onStop, openSeededStore } from '../lib/fixture.mjs';
import { roa } from '../lib/roa-dist.mjs';
import { startVarnish } from '../lib/varnish.mjs';
import { countNegotiated, tlsFromEnv } from '../lib/tls-server.mjs';

const env = process.env;
const { startService } = await roa('service.js');
const { createGateway } = await roa('gateway/index.js');

const seeded = await openSeededStore();
// Titles with characters every representation escapes (&, <, quotes), so a page costs what real data costs.
for (let i = 2; i <= Number(env.BENCH_ARTICLES ?? 1); i++) {
  await seeded.store.createArticle({ title: `Tea & "biscuits" <no. ${i}>`, price: { amount: `${i}.50`, currency: 'eur' } }, EDITOR.name);
}
const tls = tlsFromEnv();
const cleanups = [];
onStop(async () => {
  for (const c of cleanups) await c();
  await seeded.dispose();
});

const servicePort = env.BENCH_VARNISH === '1' ? await freePort() : port();
const purge = [];
let varnish;
if (env.BENCH_VARNISH === '1') {
  varnish = await startVarnish({ backendPort: servicePort });
  cleanups.push(() => varnish.stop());
  purge.push(varnish.url);
}
let gateway2;
if (env.BENCH_GATEWAY2 === '1') {
  gateway2 = createGateway({ upstream: `http://${HOST}:${servicePort}` });
  const addr = await gateway2.listen(0, HOST);
  cleanups.push(() => gateway2.close());
  purge.push(`http://${HOST}:${addr.port}`);
}

const service = await startService({
  store: seeded.store,
  port: servicePort,
  host: HOST,
  gatewayPort: env.BENCH_GATEWAY === '1' ? 'ephemeral' : 0,
  purge,
  logLevel: 'silent',
  serverKey: SERVER_KEY,
  ...(env.BENCH_REDIS ? { redisUrl: env.BENCH_REDIS } : {}),
  ...(env.BENCH_TOKEN_FORMAT === 'jwt' ? { tokenFormat: 'jwt', jwtKeyFile: path.join(seeded.dir, 'jwt-key.json') } : {}),
  ...(tls ? { tls: { certFile: tls.certFile, keyFile: tls.keyFile } } : {}),
});
if (tls) countNegotiated(service.tlsServer ?? service.server);
// The service closes the store it was handed; dispose() then only removes the directory.
cleanups.unshift(() => service.close());

const front = env.BENCH_FRONT ?? 'service';
const announced =
  front === 'gateway' ? service.gatewayAddress?.port : front === 'varnish' ? varnish?.port : service.address.port;
if (!announced) throw new Error(`BENCH_FRONT=${front} but that front is not running`);
process.stdout.write(`listening ${announced}\n`);
