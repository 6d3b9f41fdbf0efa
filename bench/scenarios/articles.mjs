/**
 * @module Scenario "articles" (issue 3): the real roa article service vs the same handler and store on fastify@5
 * and express@4 (bench/lib/article-peer.mjs), all on a seeded SQLite file in a temp dir.
 */
import { ARTICLE_XML, nodeServer } from '../lib/article-servers.mjs';
import { BEHIND_TLS, POST_XML, basicHeader } from '../lib/fixture.mjs';

// roa compresses by Accept-Encoding since issue 27 (the peers send the same Vary); a build from before
// sends `Accept` alone, accepted so that `--variant` can run one.
const VARY = ['Accept, Accept-Encoding', 'Accept'];

/** @type {import('../run.mjs').Scenario} */
export default {
  name: 'articles',
  description:
    'GET /article/1 (XML) and POST /articles (XML body, Basic as an editor; each request inserts a row) on a SQLite ' +
    'file store. roa = startService (gateway off, logs silent); fastify@5 / express@4 run the same handler built from ' +
    "dist's pieces (key parsing, negotiation, codecs, validation, BasicScheme with its verification cache, store) " +
    'and send the same headers.',
  subject: 'roa',
  peers: ['fastify', 'express'],
  servers: [nodeServer('roa', 'articles-roa'), nodeServer('fastify', 'articles-fastify'), nodeServer('express', 'articles-express')],
  requests: [
    {
      name: 'GET article',
      method: 'GET',
      path: '/article/1',
      headers: { ...BEHIND_TLS },
      expect: { status: 200, body: ARTICLE_XML, headers: { 'content-type': 'application/xml; charset=utf-8', vary: VARY } },
    },
    {
      name: 'POST articles',
      method: 'POST',
      path: '/articles',
      body: POST_XML,
      headers: { ...BEHIND_TLS, 'Content-Type': 'application/xml', Authorization: basicHeader() },
      expect: { status: 201, body: POST_XML },
    },
  ],
};
