/**
 * @module resources/article/article-resources
 * Articles as two resources: the item (`/article/{key}` = `/articles/{key}`) and the collection
 * (`/articles`), declared on the generic resource layer.
 */
import { createHash } from 'node:crypto';
import { HttpError } from '../../errors/http-error.js';
import type { Article, ArticleInput, Store } from '../../storage/store.js';
import { mayModify, rolePolicy } from '../policy.js';
import { IdempotencyKeys } from '../idempotency.js';
import type { CreatedSpec, PurgeTarget, ResourceSpec, View } from '../resource.js';
import { ARTICLE_BODIES, ARTICLE_VIEWS, articleToJson, articleToXml } from './article-codec.js';
import { BACK_TRAIL_LIMIT, collectionHtmlView, type HtmlArticlePage } from './article-html.js';
import { parseArticleKey } from './article-keys.js';
import { ARTICLE_SCOPES } from './article-scopes.js';
import { validateArticle } from './article-validate.js';
import { escapeXml } from '../representations/xml.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

export interface ArticleResourceOptions {
  store: Store;
  /** Seconds safe responses may be cached (max-age and s-maxage); default 60. */
  maxAge?: number;
  bodyLimit?: number;
  /** POST /articles honours Idempotency-Key with these keys; default keys kept in `store`, false = off. */
  idempotency?: IdempotencyKeys | false;
  /** The clock (ms epoch) of the default idempotency keys; tests move it. Default Date.now. */
  idempotencyClock?: () => number;
}

/** Every URL that shows an article, and the tags of every cached response that lists it. */
export function articlePurgeTargets(a: Article): PurgeTarget {
  const keys = [String(a.id), ...(a.slug ? [a.slug] : [])];
  return {
    urls: keys.flatMap((k) => [`/article/${k}`, `/articles/${k}`]).concat('/articles'),
    tags: [`article-${a.id}`, 'articles'],
  };
}

const policy = rolePolicy({ readScope: ARTICLE_SCOPES.read, writeScope: ARTICLE_SCOPES.write });

export function articleItemResource(opts: ArticleResourceOptions): ResourceSpec<Article, ArticleInput> {
  const { store } = opts;
  const maxAge = opts.maxAge ?? 60;
  return {
    name: 'article',
    summary: 'One article, by numeric id or slug (PUT to a new slug creates it)',
    paths: ['/article/:key', '/articles/:key'],
    views: ARTICLE_VIEWS,
    bodies: ARTICLE_BODIES,
    bodyLimit: opts.bodyLimit,
    cache: { maxAge, sMaxAge: maxAge },
    scopes: ARTICLE_SCOPES,
    permit: policy,
    mayModify: (caller, a) => mayModify(caller, a.owner),
    async load(ctx) {
      const key = parseArticleKey(ctx.req.params.key);
      if (key.kind === 'id') return store.getArticleById(key.id);
      if (key.kind === 'slug') return store.getArticleBySlug(key.slug);
      return undefined;
    },
    validators: (a) => ({ etag: a.etag, lastModified: a.updatedAt }),
    // Numeric ids are the server's: PUT may create only at a slug.
    canCreate: (ctx) => parseArticleKey(ctx.req.params.key).kind !== 'id',
    validate: validateArticle,
    async put(ctx, input, cond) {
      const key = parseArticleKey(ctx.req.params.key);
      if (key.kind === 'invalid') {
        throw new HttpError(400, 'An article key is a number or a slug matching [a-z0-9][a-z0-9-]{0,63}', { code: 'ROA_ERR_BAD_SLUG' });
      }
      const result = key.kind === 'id'
        ? await store.replaceArticle(key.id, input, cond)
        : await store.putArticleBySlug(key.slug, input, ctx.caller!.name, cond);
      if (result.status === 'created') return { status: 'created', doc: result.article, location: `/articles/${result.article.slug}` };
      if (result.status === 'replaced') return { status: 'replaced', doc: result.article };
      return { status: result.status };
    },
    async delete(ctx, cond) {
      return store.deleteArticle(ctx.doc!.id, cond);
    },
    purgeTargets: articlePurgeTargets,
    surrogateKeys: (a) => [`article-${a.id}`],
  };
}

/** One page of the collection. */
export interface ArticlePage extends HtmlArticlePage {
  items: Article[];
  limit: number;
  next: string | undefined;
}

function encodeCursor(afterId: number): string {
  return Buffer.from(JSON.stringify({ a: afterId })).toString('base64url');
}

/** A cursor: the id the page starts after, and (HTML pages: article-html) the way back. */
function decodeCursor(cursor: string): { after: number; back: number[] } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a?: unknown; b?: unknown };
    const back = value.b ?? [];
    if (isId(value.a) && Array.isArray(back) && back.length <= BACK_TRAIL_LIMIT && back.every(isId)) return { after: value.a, back };
  } catch {
    // fall through to the 400 below
  }
  throw new HttpError(400, 'Invalid cursor: use the one from the Link header', { code: 'ROA_ERR_BAD_CURSOR' });
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function parseLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_LIMIT;
  if (typeof value !== 'string' || !/^[0-9]{1,6}$/.test(value) || Number(value) < 1) {
    throw new HttpError(400, `limit must be a positive integer (pages hold at most ${MAX_LIMIT})`, { code: 'ROA_ERR_BAD_LIMIT' });
  }
  return Math.min(Number(value), MAX_LIMIT);
}

function nextLink(page: ArticlePage): string | undefined {
  return page.next === undefined ? undefined : `/articles?limit=${page.limit}&cursor=${page.next}`;
}

const PAGE_VIEWS: View<ArticlePage>[] = [
  {
    mediaType: 'application/xml',
    tag: 'x',
    render(page) {
      const items = page.items.map((a) => articleToXml(a).replace('<article>', `<article id="${a.id}" href="/article/${a.id}">`)).join('');
      const next = nextLink(page);
      return `<articles>${items}${next ? `<link rel="next" href="${escapeXml(next)}"/>` : ''}</articles>`;
    },
  },
  {
    mediaType: 'application/json',
    tag: 'j',
    render(page) {
      const items = page.items.map((a) => `{"id":${a.id},"href":"/article/${a.id}",${articleToJson(a).slice(1)}`);
      const next = nextLink(page);
      return `{"articles":[${items.join(',')}]${next ? `,"next":${JSON.stringify(next)}` : ''}}`;
    },
  },
  collectionHtmlView<ArticlePage>(),
];

const CREATED: CreatedSpec<Article> = {
  views: ARTICLE_VIEWS,
  validators: (a) => ({ etag: a.etag, lastModified: a.updatedAt }),
  purgeTargets: articlePurgeTargets,
};

export function articleCollectionResource(opts: ArticleResourceOptions): ResourceSpec<ArticlePage, ArticleInput> {
  const { store } = opts;
  const maxAge = opts.maxAge ?? 60;
  return {
    name: 'articles',
    summary: 'The articles, newest last, paged by `limit` and the `cursor` of the Link rel="next"',
    paths: ['/articles'],
    views: PAGE_VIEWS,
    bodies: ARTICLE_BODIES,
    bodyLimit: opts.bodyLimit,
    cache: { maxAge, sMaxAge: maxAge },
    scopes: ARTICLE_SCOPES,
    permit: policy,
    async load(ctx) {
      if (ctx.req.method === 'POST') return { items: [], limit: DEFAULT_LIMIT, next: undefined, after: undefined, back: [] };
      const query = ctx.req.query;
      const limit = parseLimit(query.limit);
      const cursor = typeof query.cursor === 'string' ? decodeCursor(query.cursor) : undefined;
      const afterId = cursor?.after;
      const rows = await store.listArticles({ limit: limit + 1, ...(afterId !== undefined ? { afterId } : {}) });
      const items = rows.slice(0, limit);
      const more = rows.length > limit;
      return { items, limit, next: more ? encodeCursor(items[items.length - 1]!.id) : undefined, after: afterId, back: cursor?.back ?? [] };
    },
    validators(page) {
      const hash = createHash('sha256');
      for (const a of page.items) hash.update(`${a.id}:${a.etag};`);
      hash.update(page.next ?? '');
      // The way back changes only the HTML page's Previous link, but that is a different page.
      if (page.back.length > 0) hash.update(`;${page.back.join(',')}`);
      const last = page.items.reduce((t, a) => Math.max(t, a.updatedAt.getTime()), 0);
      return { etag: hash.digest('base64url').slice(0, 22), lastModified: new Date(last) };
    },
    validate: validateArticle,
    async post(ctx, input) {
      const article = await store.createArticle(input, ctx.caller!.name);
      return { doc: article, location: `/article/${article.id}` };
    },
    created: CREATED,
    ...(opts.idempotency === false ? {} : { idempotency: opts.idempotency ?? new IdempotencyKeys({ store, ...(opts.idempotencyClock ? { clock: opts.idempotencyClock } : {}) }) }),
    surrogateKeys: (page) => ['articles', ...page.items.map((a) => `article-${a.id}`)],
    headers(page): Record<string, string> {
      const next = nextLink(page);
      return next ? { Link: `<${next}>; rel="next"` } : {};
    },
  };
}
