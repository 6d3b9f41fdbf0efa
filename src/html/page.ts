/**
 * @module html/page
 * The shell every roa HTML page shares (the browsable API's representations and problem pages, the
 * OAuth sign-in and consent pages): doctype, viewport, the stylesheet, a header naming the caller,
 * and the security headers that go with it. Pages are built with template literals and `h()`:
 * no template engine, no script.
 *
 * API:
 * - `renderPage({ title, main, caller?, signIn? })` → the whole document as a string; `main` is
 *   HTML the caller built (escape every value in it with `h()` from html/escape).
 * - `PAGE_HEADERS` / `pageHeaders(extra)` → the flat [name, value, …] list for `writeHead`:
 *   `Content-Type: text/html; charset=utf-8`, `Content-Security-Policy: CONTENT_SECURITY_POLICY`,
 *   `X-Content-Type-Options`, `Referrer-Policy` (`PAGE_SECURITY_HEADERS`: the same without Content-Type).
 * - `sendPage(res, status, html, headers?)` → writes a page with those headers and its length
 *   (no body for HEAD when `head` is true).
 * - The stylesheet (html/stylesheet) must be mounted: `app.use(stylesheet())`.
 * @example
 *   sendPage(res, 200, renderPage({ title: 'Allow access?', main: `<h1>${h(client.name)}</h1>…` }))
 */
import type { Response } from '../http/response.js';
import { h } from './escape.js';
import { STYLESHEET_PATH } from './stylesheet.js';

/** Who the page is shown to, as the header line names them; undefined = not signed in. */
export interface PageCaller {
  name: string;
  role: string;
}

export interface PageOptions {
  /** The document title (plain text; escaped here). */
  title: string;
  /** The page's content, already HTML (escaped by the caller); placed in `<main id="main">`. */
  main: string;
  /** The signed-in caller, named in the header. */
  caller?: PageCaller | undefined;
  /**
   * The sign-in link shown to anonymous callers (a local path such as `/login?next=%2Farticles`);
   * none when undefined.
   */
  signIn?: string | undefined;
}

/**
 * What a page may load and do: nothing but the stylesheet (same origin) and form posts to its own
 * origin. No script at all, no inline style, no framing (clickjacking), no `<base>` rewriting.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The security headers of every page (without Content-Type), for `writeHead`. */
export const PAGE_SECURITY_HEADERS: readonly string[] = Object.freeze([
  'Content-Security-Policy', CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options', 'nosniff',
  'Referrer-Policy', 'same-origin',
]);

/** The headers of every page, for `writeHead`. */
export const PAGE_HEADERS: readonly string[] = Object.freeze(['Content-Type', 'text/html; charset=utf-8', ...PAGE_SECURITY_HEADERS]);

const HEAD_START = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
  + '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
  + `<link rel="stylesheet" href="${STYLESHEET_PATH}">\n<title>`;

/** The whole document: header with the caller (or the sign-in link), then `main`. */
export function renderPage(options: PageOptions): string {
  return HEAD_START + h(options.title) + '</title>\n</head>\n<body>\n<a class="skip" href="#main">Skip to content</a>\n'
    + pageHeader(options.caller, options.signIn)
    + '<main id="main">\n' + options.main + '\n</main>\n</body>\n</html>\n';
}

function pageHeader(caller: PageCaller | undefined, signIn: string | undefined): string {
  const who = caller !== undefined
    ? `<span class="who">Signed in as <strong>${h(caller.name)}</strong> (${h(caller.role)})</span>`
    : signIn !== undefined ? `<a class="who" href="${h(signIn)}">Sign in</a>` : '';
  return `<header class="top"><a class="brand" href="/articles">roa</a>${who}</header>\n`;
}

/** The page headers plus `extra` ([name, value, …]). */
export function pageHeaders(extra: readonly string[] = []): string[] {
  return [...PAGE_HEADERS, ...extra];
}

/** Writes a whole page: status, the page headers, `extra` headers, Content-Length; the body unless `head`. */
export function sendPage(res: Response, status: number, html: string, extra: readonly string[] = [], head = false): void {
  res.writeHead(status, [...PAGE_HEADERS, ...extra, 'Content-Length', String(Buffer.byteLength(html))]);
  res.end(head ? undefined : html);
}
