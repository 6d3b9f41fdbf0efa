/**
 * @module resources/article/article-codec
 * The article's representations: XML (default), JSON and HTML (article-html), exact decimal prices as text.
 */
import { HttpError } from '../../errors/http-error.js';
import { parseQuery } from '../../http/query.js';
import type { Article } from '../../storage/store.js';
import { decodeUtf8 } from '../../http/body.js';
import { parseJson } from '../../http/json-parse.js';
import { escapeXml, parseXml, type XmlElement } from '../representations/xml.js';
import type { BodyFormat, View } from '../resource.js';
import { parseMultipartForm } from '../../http/multipart-form.js';
import { ARTICLE_HTML_VIEW } from './article-html.js';

/** `<article><title>T</title><price currency="eur">9.99</price></article>` */
export function articleToXml(a: Article): string {
  return `<article><title>${escapeXml(a.title)}</title><price currency="${escapeXml(a.price.currency)}">${escapeXml(a.price.amount)}</price></article>`;
}

/** `{"title":"T","price":{"amount":"9.99","currency":"eur"}}` */
export function articleToJson(a: Article): string {
  return JSON.stringify({ title: a.title, price: { amount: a.price.amount, currency: a.price.currency } });
}

export const ARTICLE_VIEWS: View<Article>[] = [
  { mediaType: 'application/xml', tag: 'x', render: articleToXml },
  { mediaType: 'application/json', tag: 'j', render: articleToJson },
  ARTICLE_HTML_VIEW,
];

/**
 * XML body → `{ title, price: { amount, currency } }` shaped input (validated later). Anything
 * else the document holds is kept under its own name in null-prototype records, so validation
 * names it as an unknown field and no name (`__proto__`) reaches a prototype.
 */
function xmlBody(raw: Buffer): unknown {
  const root = parseXml(raw);
  if (root.name !== 'article') {
    throw new HttpError(422, 'The document element must be <article>', {
      code: 'ROA_ERR_VALIDATION',
      extensions: { errors: [{ field: 'article', message: 'expected a single <article> element' }] },
    });
  }
  const out: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(root.attributes)) out[`@${name}`] = root.attributes[name];
  for (const child of root.children) {
    if (typeof child === 'string') {
      if (child.trim() !== '') out['#text'] = child;
    } else if (child.name in out) {
      out[child.name] = DUPLICATE;
    } else {
      out[child.name] = child.name === 'price' ? priceOf(child) : textOf(child);
    }
  }
  return out;
}

// A repeated element: neither text nor a price, so validation refuses it.
const DUPLICATE: unknown[] = [];

/** The text of an element that holds only text; an element with child elements is no text. */
function textOf(element: XmlElement): string | XmlElement {
  let text = '';
  for (const child of element.children) {
    if (typeof child !== 'string') return element;
    text += child;
  }
  return text;
}

/** `<price currency="eur">9.99</price>` → `{ amount: '9.99', currency: 'eur' }`, other attributes kept to be refused. */
function priceOf(element: XmlElement): Record<string, unknown> {
  const price: Record<string, unknown> = Object.create(null);
  price.amount = textOf(element);
  for (const name of Object.keys(element.attributes)) price[name === 'currency' ? name : `@${name}`] = element.attributes[name];
  return price;
}

function jsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = decodeUtf8(raw);
  return parseJson(text);
}

/** HTML forms: `title=T&price[amount]=9.99&price[currency]=eur` (and `_method`, `_etag` for overrides). */
function formBody(raw: Buffer): unknown {
  return withoutTransport(parseQuery(decodeUtf8(raw)));
}

/** The same fields sent as `multipart/form-data` (text fields only: http/multipart-form). */
function multipartBody(raw: Buffer, contentType: string | undefined): Promise<unknown> {
  return parseMultipartForm(raw, contentType ?? '').then(withoutTransport);
}

/** `_method` and `_etag` travel in a form only because a form cannot set the method and If-Match. */
function withoutTransport(parsed: Record<string, unknown>): Record<string, unknown> {
  delete parsed._method;
  delete parsed._etag;
  return parsed;
}

export const ARTICLE_BODIES: BodyFormat[] = [
  { mediaType: 'application/xml', parse: xmlBody },
  { mediaType: 'text/xml', parse: xmlBody },
  { mediaType: 'application/json', parse: jsonBody },
  { mediaType: 'application/x-www-form-urlencoded', parse: formBody },
  { mediaType: 'multipart/form-data', parse: multipartBody },
];
