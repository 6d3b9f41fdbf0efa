/**
 * @module resources/article/article-html
 * Articles for people: the HTML representation of an article and of a page of the collection,
 * with the forms the caller may use (the same decision as `Allow`), and the 412/422 pages of a
 * form write. Plain template literals over escaped values, cached per ETag and URL.
 */
import type { Caller } from '../../auth/scheme.js';
import { statusOf } from '../../errors/http-error.js';
import { h } from '../../html/escape.js';
import { PAGE_SECURITY_HEADERS, renderPage } from '../../html/page.js';
import { sendProblemPage } from '../../html/problem-page.js';
import { mediaTypeOf } from '../../http/mime.js';
import type { Request } from '../../http/request.js';
import type { Article } from '../../storage/store.js';
import {
  otherRepresentations, PageCache, pageCacheControl, pageCaller, pageTagFor, responsePanel, signInLink,
} from '../representations/html.js';
import type { PageTraits, ResourceContext, ShownResponse, View } from '../resource.js';

/** One page of the collection, as the HTML view needs it (article-resources' ArticlePage). */
export interface HtmlArticlePage {
  items: Article[];
  limit: number;
  /** The data views' next cursor: there is a next page. */
  next: string | undefined;
  /** The id this page starts after (none on the first page). */
  after: number | undefined;
  /** The `after` of the pages before this one, oldest first (the way back; bounded). */
  back: readonly number[];
}

/** Pages remembered on the way back: past this many, Previous leads to the first page. */
export const BACK_TRAIL_LIMIT = 32;

/** The cursor of a page in the HTML views: where it starts, and the way back. */
export function encodeHtmlCursor(after: number, back: readonly number[]): string {
  return Buffer.from(JSON.stringify(back.length === 0 ? { a: after } : { a: after, b: back })).toString('base64url');
}

/** Cursor of the next and of the previous page ('' = the first page) for the HTML view. */
function pageCursors(page: HtmlArticlePage): { next: string | undefined; previous: string | undefined } {
  const last = page.items[page.items.length - 1];
  const next = page.next === undefined || last === undefined ? undefined
    : encodeHtmlCursor(last.id, [...page.back, page.after ?? 0].slice(-BACK_TRAIL_LIMIT));
  if (page.after === undefined) return { next, previous: undefined };
  const before = page.back[page.back.length - 1];
  const previous = before === undefined || before === 0 ? '' : encodeHtmlCursor(before, page.back.slice(0, -1));
  return { next, previous };
}

/** Values a form shows: the record's, or what the caller typed. */
interface FormValues {
  title: string;
  amount: string;
  currency: string;
}

const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);

function urlOf(req: Request): string {
  return req.originalUrl || req.url || '/';
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The fields of an article form; `prefix` keeps ids unique when a page has two forms. */
function articleFields(prefix: string, v: FormValues): string {
  return `<label for="${prefix}-title">Title <input id="${prefix}-title" type="text" name="title" value="${h(v.title)}" autocomplete="off"></label>\n`
    + `<label for="${prefix}-amount">Price <input id="${prefix}-amount" type="text" name="price[amount]" value="${h(v.amount)}" inputmode="decimal" autocomplete="off"></label>\n`
    + `<label for="${prefix}-currency">Currency (three lower-case letters, such as eur) <input id="${prefix}-currency" type="text" name="price[currency]" value="${h(v.currency)}" autocomplete="off"></label>\n`;
}

function editForm(path: string, etag: string, v: FormValues): string {
  return `<section aria-labelledby="edit"><h2 id="edit">Edit</h2>\n<form method="post" action="${h(path)}">\n`
    + `<input type="hidden" name="_method" value="PUT"><input type="hidden" name="_etag" value="${h(etag)}">\n`
    + articleFields('edit', v) + '<button type="submit">Save</button>\n</form></section>\n';
}

function deleteForm(path: string, etag: string): string {
  return `<section aria-labelledby="delete"><h2 id="delete">Delete</h2>\n<form method="post" action="${h(path)}">\n`
    + `<input type="hidden" name="_method" value="DELETE"><input type="hidden" name="_etag" value="${h(etag)}">\n`
    + '<button type="submit" class="danger">Delete this article</button>\n</form></section>\n';
}

function createForm(v: FormValues): string {
  return '<section aria-labelledby="create"><h2 id="create">New article</h2>\n<form method="post" action="/articles">\n'
    + articleFields('new', v) + '<button type="submit">Create</button>\n</form></section>\n';
}

const EMPTY: FormValues = { title: '', amount: '', currency: 'eur' };

function priceText(a: Article): string {
  return `${h(a.price.amount)} ${h(a.price.currency.toUpperCase())}`;
}

function renderArticle(a: Article, url: string, shown: ShownResponse, caller: Caller | undefined): string {
  const path = pathOf(url);
  const values = { title: a.title, amount: a.price.amount, currency: a.price.currency };
  const main = `<article><h1>${h(a.title)}</h1>\n<p class="price">${priceText(a)}</p>\n`
    + `<p class="note">Article ${a.id}${a.slug ? ` (<code>${h(a.slug)}</code>)` : ''}, by ${h(a.owner)}</p></article>\n`
    + `<nav aria-label="Links"><ul><li><a rel="self" href="${h(path)}">This article</a></li><li><a rel="collection" href="/articles">All articles</a></li></ul></nav>\n`
    + responsePanel(shown)
    + otherRepresentations(path)
    + (shown.allow.includes('PUT') ? editForm(path, shown.etag, values) : '')
    + (shown.allow.includes('DELETE') ? deleteForm(path, shown.etag) : '');
  return renderPage({ title: a.title, main, caller: pageCaller(caller), signIn: signInLink(url) });
}

function pageHref(limit: number, cursor: string): string {
  return cursor === '' ? `/articles?limit=${limit}` : `/articles?limit=${limit}&cursor=${cursor}`;
}

function renderCollection(page: HtmlArticlePage, url: string, shown: ShownResponse, caller: Caller | undefined): string {
  const items = page.items.map((a) => `<li><a href="/article/${a.id}">${h(a.title)}</a> <span class="note">${priceText(a)}</span></li>`).join('\n');
  const cursors = pageCursors(page);
  const nav = (cursors.previous !== undefined ? `<a rel="prev" href="${h(pageHref(page.limit, cursors.previous))}">Previous page</a>` : '')
    + (cursors.next !== undefined ? `<a rel="next" href="${h(pageHref(page.limit, cursors.next))}">Next page</a>` : '');
  const main = '<h1>Articles</h1>\n'
    + (page.items.length === 0 ? '<p>No articles here.</p>\n' : `<ul class="items">\n${items}\n</ul>\n`)
    + `<nav class="pages" aria-label="Pages"><a rel="self" href="${h(url)}">This page</a>${nav}</nav>\n`
    + responsePanel(shown)
    + otherRepresentations(url)
    + (shown.allow.includes('POST') ? createForm(EMPTY) : '');
  return renderPage({ title: 'Articles', main, caller: pageCaller(caller), signIn: signInLink(url) });
}

/** What the caller sent in a form, to show it again beside the problems. */
function submitted(body: unknown): FormValues {
  const b = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const price = (b.price !== null && typeof b.price === 'object' ? b.price : {}) as Record<string, unknown>;
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { title: text(b.title), amount: text(price.amount), currency: text(price.currency) };
}

/**
 * The page for a form write that failed: a 400/422 repeats the form with what was typed and the
 * problems; a 412 links to the current version. Anything else, or a write not sent by a form,
 * gets the generic problem page (false).
 */
function formProblem(err: unknown, ctx: ResourceContext<unknown>): boolean {
  const { req, res } = ctx;
  if (req.originalMethod !== 'POST' || !FORM_TYPES.has(mediaTypeOf(req.headers['content-type']))) return false;
  const status = statusOf(err);
  const path = pathOf(urlOf(req));
  let more: string;
  if (status === 412) {
    more = `<p><a href="${h(path)}">See the current version</a>: someone changed this article after your copy was shown. Make your change there again.</p>\n`;
  } else if ((status === 400 || status === 422) && (req.method === 'PUT' || req.method === 'POST')) {
    const values = submitted(req.body);
    const etag = req.headers['if-match'];
    more = req.method === 'POST' ? createForm(values) : editForm(path, typeof etag === 'string' ? etag : '', values);
  } else {
    return false;
  }
  sendProblemPage(req, res, err, { caller: pageCaller(ctx.caller), more, signIn: signInLink(urlOf(req)) });
  return true;
}

function traits(afterDelete: string): PageTraits {
  return { tagFor: pageTagFor, cacheControl: pageCacheControl, headers: PAGE_SECURITY_HEADERS, afterDelete, problem: formProblem };
}

const articlePages = new PageCache(4096);
const collectionPages = new PageCache(256);

/** The article as an HTML page (ETag suffix `h…`). */
export const ARTICLE_HTML_VIEW: View<Article> = {
  mediaType: 'text/html',
  tag: 'h',
  page: traits('/articles'),
  render(a, ctx) {
    const shown = ctx.shown;
    // Written after a POST or PUT (no page is sent then: 303), a representation without the panel.
    if (shown === undefined) return renderArticle(a, `/article/${a.id}`, { status: 200, allow: [], etag: '', cacheControl: undefined }, ctx.caller);
    const url = urlOf(ctx.req);
    return articlePages.get(shown.etag, url, () => renderArticle(a, url, shown, ctx.caller));
  },
};

/** A page of the collection as an HTML page. */
export function collectionHtmlView<P extends HtmlArticlePage>(): View<P> {
  return {
    mediaType: 'text/html',
    tag: 'h',
    page: traits('/articles'),
    render(page, ctx) {
      const url = urlOf(ctx.req);
      const shown = ctx.shown ?? { status: 200, allow: [], etag: '', cacheControl: undefined };
      if (ctx.shown === undefined) return renderCollection(page, url, shown, ctx.caller);
      return collectionPages.get(shown.etag, url, () => renderCollection(page, url, shown, ctx.caller));
    },
  };
}
