/**
 * @module resources/representations/html
 * The parts every HTML representation of a resource shares: per-caller ETag suffixes and caching,
 * the panel showing the response (status, ETag, Cache-Control, the caller's Allow), links to the
 * same resource in its other media types, and a render cache keyed by ETag and URL.
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../../auth/scheme.js';
import { h } from '../../html/escape.js';
import type { PageCaller } from '../../html/page.js';
import { SIGN_IN_PATH } from '../../html/sign-in.js';
import { BoundedMap } from '../../util/bounded-map.js';
import type { ShownResponse } from '../resource.js';

const callerTags = new BoundedMap<string, string>(1024);

/**
 * The ETag suffix of a page for this caller: `h` for anonymous callers, else `h` and a hash of
 * name, role and scopes, since the page names them and holds the forms they may use. Hex only:
 * the suffix never holds the `-` that separates it from the record's tag.
 */
export function pageTagFor(caller: Caller | undefined): string {
  if (caller === undefined) return 'h';
  const key = `${caller.name}\n${caller.role}\n${caller.scopes === null ? '*' : caller.scopes.join(' ')}`;
  let tag = callerTags.get(key);
  if (tag === undefined) {
    tag = 'h' + createHash('sha256').update(key).digest('hex').slice(0, 12);
    callerTags.set(key, tag);
  }
  return tag;
}

const publicPages = new Map<string, string>();

/**
 * Caching of a page: a signed-in caller's is theirs (`private, no-cache`); an anonymous one may be
 * kept by shared caches as long as the data views (`s-maxage`), but a browser revalidates it
 * (`max-age=0`), or the anonymous copy it kept would still show after signing in: a browser's
 * cache is not keyed by the credentials it sends.
 */
export function pageCacheControl(resource: string | undefined, caller: Caller | undefined): string | undefined {
  if (resource === undefined) return undefined;
  if (caller !== undefined) return 'private, no-cache';
  let cc = publicPages.get(resource);
  if (cc === undefined) {
    const shared = /s-maxage=(\d+)/.exec(resource)?.[1] ?? /max-age=(\d+)/.exec(resource)?.[1] ?? '0';
    cc = `public, max-age=0, s-maxage=${shared}`;
    publicPages.set(resource, cc);
  }
  return cc;
}

/** The caller as the page header names them. */
export function pageCaller(caller: Caller | undefined): PageCaller | undefined {
  return caller === undefined ? undefined : { name: caller.name, role: caller.role };
}

/** The sign-in link for a page at `url` (html/sign-in comes back there). */
export function signInLink(url: string): string {
  return `${SIGN_IN_PATH}?next=${encodeURIComponent(url)}`;
}

/** The response panel: status, ETag, Cache-Control and the caller's Allow. */
export function responsePanel(shown: ShownResponse): string {
  return '<section class="panel" aria-labelledby="response"><h2 id="response">Response</h2><dl class="meta">'
    + `<dt>Status</dt><dd>${shown.status} OK</dd>`
    + `<dt>ETag</dt><dd>${h(shown.etag)}</dd>`
    + `<dt>Cache-Control</dt><dd>${h(shown.cacheControl ?? '(none)')}</dd>`
    + `<dt>Allow</dt><dd>${h(shown.allow.join(', '))}</dd></dl></section>\n`;
}

/**
 * Links to this resource as XML and JSON. A link cannot set `Accept`, so it names the representation
 * with `?format=` (resources/decisions); the note says how API clients ask for it by `Accept`.
 */
export function otherRepresentations(url: string): string {
  url = withoutFormat(url);
  const u = h(url);
  const sep = url.includes('?') ? '&' : '?';
  return '<section aria-labelledby="formats"><h2 id="formats">Other representations</h2><ul>'
    + `<li><a rel="alternate" type="application/xml" href="${h(url + sep + 'format=xml')}">XML</a> (the default)</li>`
    + `<li><a rel="alternate" type="application/json" href="${h(url + sep + 'format=json')}">JSON</a></li></ul>`
    + '<p class="note">API clients ask for them by the <code>Accept</code> header at this same URL; a browser asks for HTML. '
    + `Try <code>curl -H 'Accept: application/json' ${u}</code> or <code>curl ${u}</code> for XML.</p></section>\n`;
}

/** The URL without its `format` parameters (a page asked for as `?format=html` links to the others). */
function withoutFormat(url: string): string {
  const q = url.indexOf('?');
  if (q === -1 || !url.includes('format=', q)) return url;
  const kept = url.slice(q + 1).split('&').filter((p) => !p.startsWith('format='));
  return kept.length === 0 ? url.slice(0, q) : `${url.slice(0, q)}?${kept.join('&')}`;
}

/**
 * Rendered pages by ETag and URL: the ETag names the record's version and the caller variant, the
 * URL the links; together they fix every byte of the page.
 */
export class PageCache {
  private readonly pages: BoundedMap<string, string>;

  constructor(entries: number) {
    this.pages = new BoundedMap(entries);
  }

  get(etag: string, url: string, render: () => string): string {
    const key = `${etag} ${url}`;
    let page = this.pages.get(key);
    if (page === undefined) {
      page = render();
      this.pages.set(key, page);
    }
    return page;
  }
}
