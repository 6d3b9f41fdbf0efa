/**
 * @module resources/article/article-codec
 * The article's representations: XML (default) and JSON, exact decimal prices as text.
 */
import { HttpError } from '../../errors/http-error.js';
import { parseQuery } from '../../http/query.js';
import type { Article } from '../../storage/store.js';
import { escapeXml, parseXml } from '../representations/xml.js';
import type { BodyFormat, View } from '../resource.js';

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
];

/** XML body → `{ title, price: { amount, currency } }` shaped input (validated later). */
function xmlBody(raw: Buffer): unknown {
  const doc = parseXml(raw);
  const keys = Object.keys(doc);
  if (keys.length !== 1 || keys[0] !== 'article') {
    throw new HttpError(422, 'The document element must be <article>', {
      code: 'ROA_ERR_VALIDATION',
      extensions: { errors: [{ field: 'article', message: 'expected a single <article> element' }] },
    });
  }
  const article = doc.article;
  if (article === null || typeof article !== 'object') return { title: undefined, price: undefined };
  const a = article as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) {
    if (k === 'price') {
      if (v !== null && typeof v === 'object') {
        const p = v as Record<string, unknown>;
        out.price = { amount: p['#text'] ?? '', currency: p['@currency'] };
        const extra = Object.keys(p).filter((x) => x !== '#text' && x !== '@currency');
        if (extra.length > 0) out.price = { ...(out.price as object), [extra[0]!]: p[extra[0]!] };
      } else {
        out.price = { amount: v, currency: undefined };
      }
    } else {
      out[k] = v;
    }
  }
  return out;
}

function jsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'), (key, value: unknown) =>
      key === '__proto__' || key === 'constructor' || key === 'prototype' ? undefined : value);
  } catch (err) {
    throw new HttpError(400, `Malformed JSON: ${(err as Error).message}`, { code: 'ROA_ERR_MALFORMED_JSON' });
  }
}

/** HTML forms: `title=T&price[amount]=9.99&price[currency]=eur` (and `_method` for overrides). */
function formBody(raw: Buffer): unknown {
  const parsed = parseQuery(raw.toString('utf8'));
  delete parsed._method;
  return parsed;
}

export const ARTICLE_BODIES: BodyFormat[] = [
  { mediaType: 'application/xml', parse: xmlBody },
  { mediaType: 'text/xml', parse: xmlBody },
  { mediaType: 'application/json', parse: jsonBody },
  { mediaType: 'application/x-www-form-urlencoded', parse: formBody },
];
