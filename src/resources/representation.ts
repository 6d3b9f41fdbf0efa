/**
 * @module resources/representation
 * The fields that describe a resource's representation: strong ETags per view (RFC 9110 §8.8.3),
 * Last-Modified, Cache-Control, Vary and surrogate keys, and the response a write sends back.
 */
import type { Caller } from '../auth/scheme.js';
import { BoundedMap } from '../util/bounded-map.js';
import type { Response } from '../http/response.js';
import type { ResourceContext, ResourceSpec, View } from './resource.js';

/** Validators as the base ETag (no quotes, no view suffix) and the modification time. */
export interface HasValidators<D> {
  validators(doc: D): { etag: string; lastModified: Date };
}

/** Cache-Control of safe responses; undefined when anonymous callers may not read (no shared caching). */
export function cacheControlFor<D, I>(spec: ResourceSpec<D, I>): string | undefined {
  if (spec.permit('GET', undefined) !== 'allowed') return undefined;
  const maxAge = spec.cache?.maxAge ?? 60;
  const sMaxAge = spec.cache?.sMaxAge;
  return `public, max-age=${maxAge}` + (sMaxAge !== undefined ? `, s-maxage=${sMaxAge}` : '');
}

/** A view's strong ETag: the record's base tag and the view's suffix (a page's: per caller), quoted. */
export function quotedEtag(base: string, view: View<unknown>, caller?: Caller): string {
  return `"${base}-${view.page === undefined ? view.tag : view.page.tagFor(caller)}"`;
}

/** The record's base tag inside a representation's ETag: `"abc-x"` → `abc`. */
export function baseOf(tag: string): string {
  const inner = tag.replace(/^W\//, '').slice(1, -1);
  const dash = inner.lastIndexOf('-');
  return dash === -1 ? inner : inner.slice(0, dash);
}

export function validatorsOf<D>(spec: HasValidators<D>, doc: D, view: View<D>, caller?: Caller): { etag: string; lastModified: Date } {
  const v = spec.validators(doc);
  return { etag: quotedEtag(v.etag, view as View<unknown>, caller), lastModified: v.lastModified };
}

/** Headers of a representation, as a flat [name, value, ...] list for writeHead. */
export function representationHeaders<D, I>(spec: ResourceSpec<D, I>, doc: D, view: View<D>, cacheControl: string | undefined, caller?: Caller): string[] {
  const v = spec.validators(doc);
  const headers = [
    'Content-Type', view.mediaType + '; charset=utf-8',
    'ETag', quotedEtag(v.etag, view as View<unknown>, caller),
    'Last-Modified', httpDate(v.lastModified),
    'Vary', 'Accept',
  ];
  if (cacheControl !== undefined) headers.push('Cache-Control', cacheControl);
  if (spec.surrogateKeys) {
    const keys = spec.surrogateKeys(doc).join(' ');
    headers.push('xkey', keys, 'Surrogate-Key', keys);
  }
  return headers;
}

// IMF-fixdate strings of recent timestamps: records are read far more often than they change,
// and Date#toUTCString is one of the dearer steps of a GET.
const dates = new BoundedMap<number, string>(1024);

function httpDate(date: Date): string {
  const ms = date.getTime();
  let text = dates.get(ms);
  if (text === undefined) {
    text = date.toUTCString();
    dates.set(ms, text);
  }
  return text;
}

/** The response to a successful write: the stored record in the chosen view, with its validators. */
export function sendWritten<D>(res: Response, spec: HasValidators<D>, doc: D, view: View<D>, ctx: ResourceContext<D>, status: number, location: string | undefined): void {
  const v = spec.validators(doc);
  const body = view.render(doc, ctx);
  res.statusCode = status;
  if (location !== undefined) {
    res.setHeader('Location', location);
    res.setHeader('Content-Location', location);
  }
  res.setHeader('Content-Type', view.mediaType + '; charset=utf-8');
  res.setHeader('ETag', quotedEtag(v.etag, view as View<unknown>));
  res.setHeader('Last-Modified', httpDate(v.lastModified));
  res.setHeader('Vary', 'Accept');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** A flat [name, value, …] header list without the fields named `name` (same case as written). */
export function withoutField(headers: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (headers[i] !== name) out.push(headers[i]!, headers[i + 1]!);
  return out;
}

/**
 * The answer to a write chosen with a page (a browser's form post): 303 See Other to `location`
 * (RFC 9110 §15.4.4), so reloading the result does not post the form again.
 */
export function sendSeeOther(res: Response, location: string): void {
  // Fields set one by one, as sendWritten does, so an Idempotency-Key replay (resources/idempotency) reads them back.
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', '0');
  res.end();
}
