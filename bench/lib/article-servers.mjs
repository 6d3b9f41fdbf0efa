/** @module Server definitions shared by the article scenarios (articles, auth, gateway). */
import { fileURLToPath } from 'node:url';

/** A bench server script run by this Node, with extra environment. */
export function nodeServer(name, script, env = {}, extra = {}) {
  return {
    name,
    cmd: process.execPath,
    args: [fileURLToPath(new URL(`../servers/${script}.mjs`, import.meta.url))],
    env,
    ...extra,
  };
}

/** The XML GET /article/1 answers for the seeded article. */
export const ARTICLE_XML = '<article><title>Benchmark article</title><price currency="eur">9.99</price></article>';

/** What Chromium sends when it opens a page: roa answers it with the HTML representation (issue 29). */
export const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';

/** And the codings it accepts. */
export const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/**
 * A `prepare` hook for a server variant that reads as a browser: every request it serves gets the browser's
 * Accept, and its sanity check expects an HTML page (status as the request expects, text/html) instead of
 * the XML body. `then` (e.g. a cache warm-up) runs with those headers before the check. `encodings`: send
 * the browser's Accept-Encoding too. Caches want it: Varnish stores roa's gzip copy of a page and gunzips it
 * on every hit for a client that does not take gzip (wrk's default), some 20-35 µs a hit that no browser pays;
 * the service rows leave it out, so HTML and XML are both rendered uncompressed.
 * @param {(ctx: { port: number, server: string, request: any }) => Promise<unknown>} [then]
 * @param {{ encodings?: boolean }} [o]
 */
export function asBrowser(then, o = {}) {
  return async (ctx) => {
    const headers = { ...ctx.request.headers, Accept: BROWSER_ACCEPT, ...(o.encodings ? { 'Accept-Encoding': BROWSER_ACCEPT_ENCODING } : {}) };
    const request = { ...ctx.request, headers };
    if (then) await then({ ...ctx, request });
    return {
      headers,
      expect: { status: ctx.request.expect?.status ?? 200, headers: { 'content-type': 'text/html; charset=utf-8' } },
    };
  };
}
