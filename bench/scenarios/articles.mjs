/**
 * @module Scenario "articles" (issue 3): the real roa article service vs the same handler and store on fastify@5
 * and express@4 (bench/lib/article-peer.mjs), all on a seeded SQLite file in a temp dir.
 *
 * Issue 29: `roa-html` is the same service read by a browser (its Accept, so HTML), interleaved with `roa`
 * (XML) round by round; the page rows run on those two alone, with 100 articles in the store:
 *   node bench/run.mjs --scenario articles --servers roa,roa-html --requests get --subject roa-html
 * gives HTML ÷ XML for one article and for a page of 100 as paired req/s ratios.
 */
import { ARTICLE_XML, asBrowser, nodeServer } from '../lib/article-servers.mjs';
import { BEHIND_TLS, POST_XML, basicHeader } from '../lib/fixture.mjs';

// roa compresses by Accept-Encoding since issue 27 (the peers send the same Vary); a build from before
// sends `Accept` alone, accepted so that `--variant` can run one.
const VARY = ['Accept, Accept-Encoding', 'Accept'];

// The page of the collection: roa's alone (the peers serve one article), read as XML and as HTML.
const ROA_ONLY = ['roa', 'roa-html'];
/** A store of 100 articles for the page rows (BENCH_ARTICLES), the fixture's one for the rest. */
const withPage = (request) => (request.path.startsWith('/articles?') ? { env: { BENCH_ARTICLES: '100' } } : undefined);

/** @type {import('../run.mjs').Scenario} */
export default {
  name: 'articles',
  description:
    'GET /article/1 (XML) and POST /articles (XML body, Basic as an editor; each request inserts a row) on a SQLite ' +
    'file store. roa = startService (gateway off, logs silent); fastify@5 / express@4 run the same handler built from ' +
    "dist's pieces (key parsing, negotiation, codecs, validation, BasicScheme with its verification cache, store) " +
    'and send the same headers. roa-html: roa read with a browser\'s Accept (the HTML pages, issue 29). GET page of ' +
    '100: /articles?limit=100 on a store of 100 articles, roa (XML) and roa-html only.',
  subject: 'roa',
  peers: ['fastify', 'express'],
  servers: [
    nodeServer('roa', 'articles-roa', {}, { forRequest: withPage }),
    nodeServer('fastify', 'articles-fastify'),
    nodeServer('express', 'articles-express'),
    nodeServer('roa-html', 'articles-roa', {}, { forRequest: withPage, prepare: asBrowser() }),
  ],
  requests: [
    {
      name: 'GET article',
      method: 'GET',
      path: '/article/1',
      headers: { ...BEHIND_TLS },
      expect: { status: 200, body: ARTICLE_XML, headers: { 'content-type': 'application/xml; charset=utf-8', vary: VARY } },
    },
    {
      name: 'GET page of 100',
      method: 'GET',
      path: '/articles?limit=100',
      headers: { ...BEHIND_TLS },
      servers: ROA_ONLY,
      expect: { status: 200, headers: { 'content-type': 'application/xml; charset=utf-8' } },
    },
    {
      name: 'POST articles',
      method: 'POST',
      path: '/articles',
      body: POST_XML,
      headers: { ...BEHIND_TLS, 'Content-Type': 'application/xml', Authorization: basicHeader() },
      expect: { status: 201, body: POST_XML },
      servers: ['roa', 'fastify', 'express'],
    },
  ],
};
