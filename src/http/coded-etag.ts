/**
 * @module http/coded-etag
 * Strong entity-tags of content-coded representations. A gzip or br body is a different sequence
 * of bytes from the identity one, so a strong tag must differ between them (RFC 9110 §8.8.3): roa
 * appends `-gzip` or `-br` inside the quotes. Preconditions read the suffixed tags as naming the
 * same entity, so a client holding a coded tag can still revalidate and write conditionally.
 */

/** The content codings roa sends responses in. */
export type ResponseCoding = 'gzip' | 'br';

const SUFFIXED = /-(?:gzip|br)"/;

/**
 * The tag of the `coding` form of the representation tagged `etag`; a weak tag is kept as it is,
 * since weak tags already allow equivalent forms to share one (§8.8.1).
 * @example
 *   codedEtag('"a1-x"', 'gzip'); // '"a1-x-gzip"'
 */
export function codedEtag(etag: string, coding: ResponseCoding): string {
  if (etag.startsWith('W/') || etag.length < 2) return etag;
  return `${etag.slice(0, -1)}-${coding}"`;
}

/** The coding a suffixed strong tag names, or undefined. */
export function codingOfEtag(etag: string): ResponseCoding | undefined {
  if (etag.startsWith('W/')) return undefined;
  if (etag.endsWith('-gzip"')) return 'gzip';
  if (etag.endsWith('-br"')) return 'br';
  return undefined;
}

/** `etag` without its coding suffix (`"a1-x-gzip"` → `"a1-x"`); other tags unchanged. */
export function identityEtag(etag: string): string {
  const coding = codingOfEtag(etag);
  return coding === undefined ? etag : `${etag.slice(0, -(coding.length + 2))}"`;
}

/**
 * An If-Match / If-None-Match value with every coding suffix taken off (`"a-gzip", W/"b-br"` →
 * `"a", W/"b-br"`: weak tags never carry one), or the value itself when none has one. The
 * suffix sits right before a closing quote, which ends a tag; an opaque tag cannot hold a quote.
 */
export function withoutCodingSuffixes(header: string): string {
  if (!SUFFIXED.test(header)) return header;
  return header.replace(/(^|[^/])"([^"]*?)-(?:gzip|br)"/g, '$1"$2"');
}
