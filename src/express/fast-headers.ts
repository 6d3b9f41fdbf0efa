/**
 * @module express/fast-headers
 * The headers Express's response sets on every request (X-Powered-By, the default Content-Type,
 * Content-Length, a built-in ETag) have names and values this package made itself, so node's
 * setHeader validation (two regular expressions and a lower-casing per call) finds nothing to
 * refuse in them; it was a fifth of the Express layer's cost. Under roa's `outHeaders` fast path
 * (http/fast-paths) they go into node's header map directly, as the same `[name, value]` entry
 * setHeader stores under the lower-cased name, so every public reader (getHeader, getHeaders,
 * hasHeader, removeHeader, the head node writes) sees exactly what setHeader would have left.
 * Reading a header by its lower-cased name goes to the map too (getHeader lower-cases every name
 * it is given, a new string each time).
 * With the fast path off, or when anyone replaced `setHeader` (a middleware watching it), or once
 * the head is sent (setHeader's own error then), setHeader itself runs.
 */
import { ServerResponse } from 'node:http';
import { activeFastPaths } from '../http/fast-paths.js';
import { findOutHeaders } from '../http/response.js';

type HeaderMap = Record<string, [string, string]>;

/** node's header map's symbol, when the fast path is on and node keeps its map there. */
const OUT_HEADERS: symbol | undefined = activeFastPaths().outHeaders ? findOutHeaders() : undefined;
const nodeSetHeader = ServerResponse.prototype.setHeader;
const nodeGetHeader = ServerResponse.prototype.getHeader;

/**
 * Sets a header whose name and value are known to be valid (`lower` is `name` lower-cased).
 * @example
 *   putKnownHeader(res, 'x-powered-by', 'X-Powered-By', 'Express')
 */
export function putKnownHeader(res: ServerResponse, lower: string, name: string, value: string): void {
  if (OUT_HEADERS === undefined || res.setHeader !== nodeSetHeader || res.headersSent) {
    res.setHeader(name, value);
    return;
  }
  const fields = res as unknown as Record<symbol, HeaderMap | null>;
  let map = fields[OUT_HEADERS];
  if (map === null || map === undefined) fields[OUT_HEADERS] = map = { __proto__: null } as unknown as HeaderMap;
  map[lower] = [name, value];
}

/**
 * `res.getHeader(name)` for a name given lower-cased.
 * @example
 *   knownHeader(res, 'content-type')  // 'text/html; charset=utf-8', or undefined when none is set
 */
export function knownHeader(res: ServerResponse, lower: string): string | number | string[] | undefined {
  if (OUT_HEADERS === undefined || res.getHeader !== nodeGetHeader) return res.getHeader(lower);
  const map = (res as unknown as Record<symbol, HeaderMap | null>)[OUT_HEADERS];
  if (map === null || map === undefined) return undefined;
  const entry = map[lower];
  return entry === undefined ? undefined : entry[1];
}
