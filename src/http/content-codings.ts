/** @module http/content-codings The content codings roa decodes, by the names a Content-Encoding item may give them. */

/** gzip, deflate and br (RFC 9110 §8.4.1). */
export type ContentCoding = 'gzip' | 'deflate' | 'br';

/**
 * The coding one Content-Encoding item names, case-insensitively, `x-gzip` being gzip's old name
 * (RFC 9110 §8.4.1.3); undefined for `identity` and anything roa does not decode.
 * @example contentCodingOf(' X-Gzip ') // 'gzip'
 */
export function contentCodingOf(item: string): ContentCoding | undefined {
  const c = item.trim().toLowerCase();
  return c === 'gzip' || c === 'x-gzip' ? 'gzip' : c === 'deflate' ? 'deflate' : c === 'br' ? 'br' : undefined;
}
