/**
 * @module resources/conditional
 * Conditional requests (RFC 9110 §13): entity-tags, and the precondition order of §13.2.2.
 */

export interface Validators {
  /** Strong entity-tag of the selected representation, quoted: `"abc-x"`. */
  etag: string;
  lastModified: Date;
}

export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

/** Splits an If-Match / If-None-Match list into tags (`*` stays `*`); weak tags keep their `W/`. */
export function parseEtagList(header: string | undefined): string[] | '*' | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (trimmed === '*') return '*';
  const tags: string[] = [];
  const re = /\s*(W\/)?("[^"]*")\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(trimmed)) !== null && m[0] !== '') tags.push((m[1] ?? '') + m[2]);
  return tags;
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** Strong comparison (§8.8.3.2): both strong and identical. */
export function strongMatch(list: readonly string[], etag: string): boolean {
  return list.some((t) => !t.startsWith('W/') && t === etag);
}

/** Weak comparison (§8.8.3.2): opaque tags identical. */
export function weakMatch(list: readonly string[], etag: string): boolean {
  const mine = opaque(etag);
  return list.some((t) => opaque(t) === mine);
}

function parseDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Evaluates preconditions in the order of RFC 9110 §13.2.2 for a resource that exists
 * (`current` defined) or not. `matches` decides whether an If-Match tag names the current state
 * (a resource may accept the tag of any of its representations).
 */
export function evaluatePreconditions(
  method: string,
  headers: { 'if-match'?: string; 'if-none-match'?: string; 'if-modified-since'?: string; 'if-unmodified-since'?: string },
  current: Validators | undefined,
  matches: (tags: readonly string[]) => boolean = (tags) => current !== undefined && strongMatch(tags, current.etag),
): PreconditionOutcome {
  const safe = method === 'GET' || method === 'HEAD';
  const ifMatch = parseEtagList(headers['if-match']);
  if (ifMatch !== undefined) {
    // §13.1.1: '*' is false when there is no current representation.
    if (ifMatch === '*' ? current === undefined : !matches(ifMatch)) return 'failed';
  } else if (current !== undefined) {
    const since = parseDate(headers['if-unmodified-since']);
    if (since !== undefined && Math.floor(current.lastModified.getTime() / 1000) * 1000 > since) return 'failed';
  }
  const ifNoneMatch = parseEtagList(headers['if-none-match']);
  if (ifNoneMatch !== undefined) {
    const hit = ifNoneMatch === '*' ? current !== undefined : current !== undefined && weakMatch(ifNoneMatch, current.etag);
    if (hit) return safe ? 'not-modified' : 'failed';
  } else if (safe && current !== undefined) {
    const since = parseDate(headers['if-modified-since']);
    if (since !== undefined && Math.floor(current.lastModified.getTime() / 1000) * 1000 <= since) return 'not-modified';
  }
  return 'proceed';
}
