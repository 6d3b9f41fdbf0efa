/**
 * @module The article handler the peer servers (fastify, express) share, built from roa's own pieces in dist:
 * key parsing, Accept negotiation, conditional GET, the XML/JSON codecs, validation, Basic authentication
 * (with its verification cache) and the SQLite store. Each peer only adapts it to its framework's API, so
 * the difference measured is the framework, not the handler.
 */
import { roa } from './roa-dist.mjs';

const [{ parseArticleKey }, codec, { validateArticle }, { negotiate }, { evaluatePreconditions }, { BasicScheme }] =
  await Promise.all([
    roa('resources/article/article-keys.js'),
    roa('resources/article/article-codec.js'),
    roa('resources/article/article-validate.js'),
    roa('http/accepts.js'),
    roa('resources/conditional.js'),
    roa('auth/basic.js'),
  ]);

const VIEWS = codec.ARTICLE_VIEWS;
const OFFERS = VIEWS.map((v) => v.mediaType);
const CACHE_CONTROL = 'public, max-age=60, s-maxage=60';
const WRITE_ROLES = new Set(['editor', 'admin']);

/** A response as plain data: the peer copies it onto its framework's reply. */
const reply = (status, headers, body = '') => ({ status, headers, body });
const problem = (status, title, extra = {}) =>
  reply(status, { 'Content-Type': 'application/problem+json', ...extra }, JSON.stringify({ status, title }));

function representationHeaders(a, view) {
  return {
    'Content-Type': `${view.mediaType}; charset=utf-8`,
    ETag: `"${a.etag}-${view.tag}"`,
    'Last-Modified': a.updatedAt.toUTCString(),
    Vary: 'Accept, Accept-Encoding',
  };
}

/** The same decisions and headers as roa's article item resource for GET (anonymous). */
export function articleHandlers(store) {
  const basic = new BasicScheme({ store });
  return {
    /** GET /article/:key */
    async get(key, headers) {
      const k = parseArticleKey(key);
      const chosen = negotiate(headers.accept, OFFERS);
      if (chosen === undefined) return problem(406, 'Not Acceptable');
      const view = VIEWS[OFFERS.indexOf(chosen)];
      const a = k.kind === 'id' ? await store.getArticleById(k.id) : k.kind === 'slug' ? await store.getArticleBySlug(k.slug) : undefined;
      if (a === undefined) return problem(404, 'Not Found', { Vary: 'Accept, Accept-Encoding' });
      const h = representationHeaders(a, view);
      h['Cache-Control'] = CACHE_CONTROL;
      h.xkey = `article-${a.id}`;
      h['Surrogate-Key'] = h.xkey;
      const outcome = evaluatePreconditions('GET', headers, { etag: h.ETag, lastModified: a.updatedAt });
      if (outcome === 'not-modified') return reply(304, h);
      if (outcome === 'failed') return problem(412, 'Precondition Failed');
      const body = view.render(a);
      h['Content-Length'] = String(Buffer.byteLength(body));
      return reply(200, h, body);
    },

    /** POST /articles: Basic (roa's BasicScheme, cached verification), an editor role, body parse, validate, insert. */
    async post(rawBody, headers) {
      let caller;
      try {
        caller = basic.matches({ headers }) ? await basic.authenticate({ headers }) : undefined;
      } catch {
        caller = undefined;
      }
      if (caller === undefined) return problem(401, 'Unauthorized', { 'WWW-Authenticate': basic.challenge() });
      if (!WRITE_ROLES.has(caller.role)) return problem(403, 'Forbidden');
      const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const format = codec.ARTICLE_BODIES.find((b) => b.mediaType === type);
      if (format === undefined) return problem(415, 'Unsupported Media Type');
      const chosen = negotiate(headers.accept, OFFERS);
      const view = VIEWS[OFFERS.indexOf(chosen ?? OFFERS[0])];
      let input;
      try {
        input = validateArticle(format.parse(rawBody));
      } catch (e) {
        return problem(e.status ?? 400, e.message);
      }
      const a = await store.createArticle(input, caller.name);
      const body = view.render(a);
      const location = `/article/${a.id}`;
      return reply(
        201,
        { Location: location, 'Content-Location': location, ...representationHeaders(a, view), 'Content-Length': String(Buffer.byteLength(body)) },
        body,
      );
    },
  };
}
