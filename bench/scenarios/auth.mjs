/**
 * @module Scenario "auth" (issue 4): GET /article/1 on the roa service under each authentication scheme,
 * relative to anonymous. HMAC with a nonce cannot be replayed, so each window gets its own feed of signed
 * requests (bench/lib/request-feed.mjs): Node signs them ahead of the window and wrk sends each once.
 */
import { ARTICLE_XML, nodeServer } from '../lib/article-servers.mjs';
import { randomBytes } from 'node:crypto';
import { BEHIND_TLS, EDITOR, HMAC_SECRET, OAUTH1, basicHeader, clientBasicHeader } from '../lib/fixture.mjs';
import { rawRequest, writeRequestFeed } from '../lib/request-feed.mjs';
import { pidsNamed } from '../lib/proc.mjs';
import { haveRedisServer, startRedis } from '../lib/redis.mjs';
import { roa } from '../lib/roa-dist.mjs';

const { signRequest } = await roa('client/index.js');
const { oauth1Signature, oauthEncode, signatureBaseString } = await roa('auth/oauth1/index.js');
/**
 * Redis for the nonce store: BENCH_REDIS_URL if given (its redis-server processes are counted apart), else a
 * redis-server of our own pinned to BENCH_REDIS_CPU (default 1, wrk's CPU) and, unless BENCH_REDIS_RT=0, run under
 * SCHED_FIFO so it never waits behind wrk (as on a machine of its own), else the system's on 6379.
 */
const REDIS_REALTIME = process.env.BENCH_REDIS_RT !== '0';
const ownRedis = !process.env.BENCH_REDIS_URL && haveRedisServer() ? await startRedis({ cpu: process.env.BENCH_REDIS_CPU ?? '1', realtime: REDIS_REALTIME }) : undefined;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? ownRedis?.url ?? 'redis://127.0.0.1:6379';
const redisPids = () => (ownRedis ? [ownRedis.pid] : pidsNamed('redis-server'));
/**
 * Signed requests per second of window a feed holds: 2.5× the warm-up's rate when known (at least half of
 * BENCH_FEED_RATE), else BENCH_FEED_RATE
 * (default 80,000/s). Past the end the feed wraps and replays show as non-2xx (401), which flags the run.
 */
const FEED_RATE = Number(process.env.BENCH_FEED_RATE ?? 80_000);
// Never under half the default rate: a warm-up starved by a noisy neighbour must not leave the window a short feed.
const feedSize = (seconds, rate) => Math.ceil(seconds * (rate > 0 ? Math.max(2.5 * rate, FEED_RATE / 2) : FEED_RATE)) + 1000;

const sign = (request, extra = {}) => ({ ...BEHIND_TLS, ...signRequest({ method: request.method, target: request.path, user: EDITOR.name, secret: HMAC_SECRET, ...extra }) });

/** Fixed headers for the whole run. */
const fixed = (headers) => async () => ({ headers: { ...BEHIND_TLS, ...headers } });

/**
 * Headers made fresh per request by `headers()`: one set for the sanity check, and a feed per wrk window in
 * which every request has its own.
 */
function feedOf({ port, server, request }, headers) {
  return {
    headers,
    script: (phase, seconds, { threads, rate }) =>
      writeRequestFeed(`${server}-${phase}`, feedSize(seconds, rate), () => rawRequest(request.method, request.path, port, headers()), threads),
  };
}

/** A fresh nonce per request. */
async function nonceFeed(ctx) {
  return feedOf(ctx, () => sign(ctx.request));
}

/**
 * The control for the feeds: anonymous GETs sent through the same kind of feed, each request distinct and as
 * long as a signed one (the signed header's values under names the server ignores). It measures what the
 * feed itself costs, apart from any scheme.
 */
async function anonymousFeed(ctx) {
  return feedOf(ctx, () => {
    const h = sign(ctx.request);
    return { ...BEHIND_TLS, 'X-Authentication': h.Authentication, 'X-Date': h.Date };
  });
}

/**
 * `Authorization: OAuth …` for one request (RFC 5849 §3.5.1): the editor's token credentials, HMAC-SHA1,
 * a fresh nonce. The base string URI is what the server rebuilds: https (BEHIND_TLS, from loopback, is
 * trusted) and the Host rawRequest sends.
 */
function oauth1Header(port, request) {
  const params = [
    { name: 'oauth_consumer_key', value: OAUTH1.consumerKey },
    { name: 'oauth_token', value: OAUTH1.token },
    { name: 'oauth_signature_method', value: 'HMAC-SHA1' },
    { name: 'oauth_timestamp', value: String(Math.floor(Date.now() / 1000)) },
    { name: 'oauth_nonce', value: randomBytes(16).toString('hex') },
    { name: 'oauth_version', value: '1.0' },
  ];
  const base = signatureBaseString(request.method, `https://127.0.0.1:${port}${request.path}`, params);
  params.push({ name: 'oauth_signature', value: oauth1Signature('HMAC-SHA1', base, { consumerSecret: OAUTH1.consumerSecret, tokenSecret: OAUTH1.tokenSecret }) });
  return `OAuth realm="roa", ${params.map((p) => `${p.name}="${oauthEncode(p.value)}"`).join(', ')}`;
}

/** OAuth 1.0a signed GETs, each with its own nonce (recorded in the SQLite store), fed like the HMAC nonce rows. */
async function oauth1Feed(ctx) {
  return feedOf(ctx, () => ({ ...BEHIND_TLS, Authorization: oauth1Header(ctx.port, ctx.request) }));
}

/** An access token from POST /oauth/token (client_credentials, client_secret_basic). */
async function bearer({ port }) {
  const res = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
    method: 'POST',
    headers: { ...BEHIND_TLS, Authorization: clientBasicHeader(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=articles%3Aread',
    signal: AbortSignal.timeout(5000),
  });
  const body = await res.json();
  if (res.status !== 200 || typeof body.access_token !== 'string') throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
  return { headers: { ...BEHIND_TLS, Authorization: `Bearer ${body.access_token}` } };
}

const GET = { name: 'GET article', method: 'GET', path: '/article/1', headers: { ...BEHIND_TLS } };

/** @type {import('../run.mjs').Scenario} */
export default {
  name: 'auth',
  description:
    `GET /article/1 on the roa service (SQLite file store, gateway off) per authentication scheme, relative to anonymous. ` +
    `anonymous-fed (a control, not a scheme): anonymous GETs sent like the HMAC nonce feeds, each distinct and as long. ` +
    `Basic: the editor, verification cached after the first request. HMAC minimal: one replayable header. HMAC nonce: ` +
    `Date + a fresh nonce per request, precomputed (2.5× the warm-up's rate, at least ${(FEED_RATE / 2).toLocaleString('en-US')}/s, or ${FEED_RATE.toLocaleString('en-US')}/s, of window; only the part that differs is kept in wrk's memory) and sent once each by wrk; nonces ` +
    `recorded in the SQLite store or in Redis (${ownRedis ? `a redis-server of its own pinned to CPU ${process.env.BENCH_REDIS_CPU ?? '1'}${REDIS_REALTIME ? ', SCHED_FIFO when allowed' : ''}, over loopback TCP and, as hmac-nonce-redis-unix, over its Unix socket` : REDIS_URL}). Bearer: a client_credentials token (opaque, or an ES256 JWT). ` +
    `OAuth 1.0a: HMAC-SHA1 signed with the editor's token credentials, a fresh nonce per request fed like the HMAC nonce rows, nonces in the SQLite store's table or (-nonce-log) its nonce log.`,
  subject: 'anonymous',
  baseline: 'anonymous',
  peers: ['anonymous-fed', 'basic', 'hmac-minimal', 'hmac-nonce-sqlite', 'hmac-nonce-sqlite-log', 'hmac-nonce-redis', 'hmac-nonce-redis-resp', ...(ownRedis ? ['hmac-nonce-redis-unix'] : []), 'bearer-opaque', 'bearer-jwt', 'oauth1-hmac-sha1', 'oauth1-hmac-sha1-nonce-log'],
  servers: [
    nodeServer('anonymous', 'articles-roa'),
    nodeServer('anonymous-fed', 'articles-roa', {}, { prepare: anonymousFeed }),
    nodeServer('basic', 'articles-roa', {}, { prepare: fixed({ Authorization: basicHeader() }) }),
    nodeServer('hmac-minimal', 'articles-roa', {}, { prepare: async ({ request }) => ({ headers: sign(request, { minimal: true }) }) }),
    nodeServer('hmac-nonce-sqlite', 'articles-roa', {}, { prepare: nonceFeed }),
    // The SQLite nonce log (`--sqlite-nonce-log`), the opt-in for very high signed-request rates.
    nodeServer('hmac-nonce-sqlite-log', 'articles-roa', { BENCH_SQLITE_NONCE_LOG: '1' }, { prepare: nonceFeed }),
    nodeServer('hmac-nonce-redis', 'articles-roa', { BENCH_REDIS: REDIS_URL }, {
      prepare: nonceFeed,
      outsidePids: redisPids,
      outsideName: 'redis-server',
    }),
    // The same with roa's own RESP client (`--redis-client resp`) instead of node-redis, the default.
    nodeServer('hmac-nonce-redis-resp', 'articles-roa', { BENCH_REDIS: REDIS_URL, ROA_REDIS_CLIENT: 'resp' }, {
      prepare: nonceFeed,
      outsidePids: redisPids,
      outsideName: 'redis-server',
    }),
    // The same redis-server over its Unix socket (instances sharing one machine's Redis): no TCP stack.
    ...(ownRedis ? [nodeServer('hmac-nonce-redis-unix', 'articles-roa', { BENCH_REDIS: ownRedis.unixUrl }, {
      prepare: nonceFeed,
      outsidePids: redisPids,
      outsideName: 'redis-server',
    })] : []),
    nodeServer('bearer-opaque', 'articles-roa', {}, { prepare: bearer }),
    nodeServer('bearer-jwt', 'articles-roa', { BENCH_TOKEN_FORMAT: 'jwt' }, { prepare: bearer }),
    // OAuth 1.0a (RFC 5849) HMAC-SHA1 with the editor's token credentials; nonces in the SQLite store's table, or its log.
    nodeServer('oauth1-hmac-sha1', 'articles-roa', {}, { prepare: oauth1Feed }),
    nodeServer('oauth1-hmac-sha1-nonce-log', 'articles-roa', { BENCH_SQLITE_NONCE_LOG: '1' }, { prepare: oauth1Feed }),
  ],
  requests: [{ ...GET, expect: { status: 200, body: ARTICLE_XML } }],
};
